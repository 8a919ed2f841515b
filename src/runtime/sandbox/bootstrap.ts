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
import { CLONE_SOURCE } from './js/clone.js';
import { CORE_SOURCE } from './js/core.js';
import { CRYPTO_SOURCE } from './js/crypto.js';
import { EMIT_SOURCE } from './js/emit.js';
import { FETCH_SOURCE } from './js/fetch.js';
import { POSITIONS_SOURCE } from './js/positions.js';
import { REQUIRE_SOURCE } from './js/require.js';
import { TIMERS_SOURCE } from './js/timers.js';
import { URL_SOURCE } from './js/url.js';

/** Argument order of the bootstrap function; index.ts passes the bridges in this order. */
export const BRIDGE_NAMES = [
  'hostRandom',
  'hostCrypto',
  'hostUrl',
  'hostTimerSet',
  'hostTimerClear',
  'hostFetch',
  'hostEmit',
  'envJson',
  'userFile',
  'userMappings',
  'firstLineOffset',
] as const;

/** Built by scripts/build-sandbox.mjs; the same path from src/runtime/sandbox and dist/runtime/sandbox. */
const NODE_BUNDLE = new URL('../../../dist/sandbox/node-builtins.js', import.meta.url);

function readNodeBundle(): string {
  try {
    return readFileSync(NODE_BUNDLE, 'utf8');
  } catch (err) {
    throw new Error(`the sandbox's Node built-ins are missing (${NODE_BUNDLE.pathname}): run npm run build (${String(err)})`);
  }
}

let source: string | undefined;
/** The bootstrap's text, read once per process. */
export function bootstrapSource(): string {
  // The Node bundle sits outside the strict bootstrap (its CommonJS packages were written for sloppy
  // mode) in a function that runs on the first require or Buffer touch: an isolate whose function
  // loads nothing pays only for the compile, which the code cache makes cheap. The parentheses ask V8
  // to compile it eagerly, so its bytecode is in that cache too (the same for the bootstrap itself).
  source ??= `(function () {
const nodeBundle = (function () {
${readNodeBundle()}
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
${CORE_SOURCE}
${CLONE_SOURCE}
${URL_SOURCE}
${CRYPTO_SOURCE}
${TIMERS_SOURCE}
${FETCH_SOURCE}
${EMIT_SOURCE}
${POSITIONS_SOURCE}
def('process', Object.freeze({ env: Object.freeze(JSON.parse(envJson)) }));
for (const name of ['require', 'module', 'exports', 'global', 'WebAssembly']) delete g[name];
${REQUIRE_SOURCE}
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
