/**
 * Assembles the isolate-side bootstrap: one function expression that receives
 * the host bridges as arguments, keeps them in its closure (never on the
 * global), installs the documented globals (docs/functions.md), and returns the dispatcher the
 * host calls for timer and fetch completions. The same function is the
 * `activity` hook the invocation dispatcher (../isolate/dispatcher.js) calls with
 * `('activity', 1)` when the first invocation starts and `('activity', 0)`
 * when the last one ends: outside invocations the sandbox delivers nothing
 * and its modules drop what they registered (idle hooks).
 *
 * Its parts are src/runtime/isolate/sandbox/*.js (type-checked by
 * tsconfig.sandbox.json, written by scripts/build-sandbox.mjs to
 * dist/sandbox/parts/ with the host's constants), spliced in below.
 *
 * It returns `[dispatch, require]`: `require` is the isolate's module loader
 * for Node built-ins (./node/, bundled at build time into
 * dist/sandbox/node-builtins.js and spliced in here), which prepare.ts hands
 * to the user's module wrapper; it is never a global.
 *
 * `WebAssembly` is removed with the other undocumented globals: its memory is
 * reserved outside the allocator isolated-vm counts, so it would escape
 * `memory_mb`. Nothing else in a context leads back to it.
 */
import { readFileSync } from 'node:fs';
import { MAX_JSON_DEPTH } from '../../json-limits.js';
import { EMIT_MAX_DATA_BYTES, EMIT_MAX_EVENT_CHARS, EMIT_RATE_PER_SECOND, EMIT_RESERVED_PREFIX } from './emit-guard.js';

/** Argument order of the bootstrap function; index.ts passes the bridges in this order. */
export const BRIDGE_NAMES = [
  'hostRandom',
  'hostCrypto',
  'hostUrl',
  'hostNode',
  'hostTimerSet',
  'hostTimerClear',
  'hostFetch',
  'hostEmit',
  'envJson',
  'userFile',
  'userMappings',
  'firstLineOffset',
  'hostFetchCancel',
  'hostSubtle',
] as const;

/**
 * The host's values the sandbox parts' text takes, by placeholder (`__NAME__`
 * in src/runtime/isolate/sandbox/*.js): scripts/build-sandbox.mjs splices them in.
 */
export const SANDBOX_PLACEHOLDERS: Record<string, string | number> = {
  EMIT_MAX_EVENT_CHARS,
  EMIT_RESERVED_PREFIX_JSON: JSON.stringify(EMIT_RESERVED_PREFIX),
  EMIT_MAX_DATA_BYTES,
  EMIT_MAX_DATA_KIB: EMIT_MAX_DATA_BYTES / 1024,
  EMIT_RATE_PER_SECOND,
  MAX_JSON_DEPTH,
  NODE_VERSION_JSON: JSON.stringify(process.versions.node),
};

/** The parts in the order they run: each may use what those before it defined. */
export const SANDBOX_PARTS = [
  'core',
  'clone',
  'url',
  'crypto',
  'timers',
  // The web APIs (lazy: each group is built on first use), before fetch, which takes their bodies and signals.
  'web-events',
  'web-streams',
  'web-blob',
  'fetch',
  'emit',
  'positions',
  'require',
] as const;

/**
 * A file scripts/build-sandbox.mjs writes: the Node bundle, or a part's text
 * (sandbox/<part>.js). The same path from src/runtime/sandbox and dist/runtime/sandbox.
 */
function readBuilt(name: string): string {
  const file = new URL(`../../../dist/sandbox/${name}`, import.meta.url);
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`the sandbox's ${name} is missing (${file.pathname}): run npm run build (${String(err)})`);
  }
}

const part = (name: (typeof SANDBOX_PARTS)[number]) => readBuilt(`parts/${name}.js`);

let source: string | undefined;
/** The bootstrap's text, read once per process. */
export function bootstrapSource(): string {
  // The Node bundle sits outside the strict bootstrap (its CommonJS packages were written for sloppy
  // mode) in a function that runs on the first require or Buffer touch: an isolate whose function
  // loads nothing pays only for the compile, which the code cache makes cheap. The parentheses ask V8
  // to compile it eagerly, so its bytecode is in that cache too (the same for the bootstrap itself).
  source ??= `(function () {
const nodeBundle = (function () {
${readBuilt('node-builtins.js')}
return SwitchyardNode;
});
return (function switchyardBootstrap(${BRIDGE_NAMES.join(', ')}) {
'use strict';
const g = globalThis;
const handlers = Object.create(null);
// Captured before user code runs (user code may replace Function.prototype.apply and friends).
const callFunction = Reflect.apply;
const createObject = Object.create;
// True while an invocation is in flight; until the dispatcher says otherwise (and in
// deploy-time validation and the unit tests, which have no dispatcher) it is.
let active = true;
const idleHooks = [];
const wakeHooks = [];
function def(name, value) {
  Object.defineProperty(g, name, { value, writable: true, configurable: true, enumerable: false });
}
${part('core')}
${part('clone')}
${part('url')}
${part('crypto')}
${part('timers')}
${part('web-events')}
${part('web-streams')}
${part('web-blob')}
${part('fetch')}
${part('emit')}
${part('positions')}
def('process', Object.freeze({ env: Object.freeze(JSON.parse(envJson)) }));
for (const name of ['require', 'module', 'exports', 'global', 'WebAssembly']) delete g[name];
${part('require')}
return [function dispatch(kind, id, payload) {
  if (kind === 'activity') {
    active = id === 1;
    const hooks = active ? wakeHooks : idleHooks;
    for (let i = 0; i < hooks.length; i++) hooks[i]();
    return;
  }
  if (!active) return;
  const h = handlers[kind];
  if (h) h(id, payload);
}, requireModule];
});
})()`;
  return source;
}
