/**
 * Which Node modules a function can load, and the words used when one cannot.
 * Nothing is refused at deploy: compile.ts keeps every import a `require` the
 * isolate answers at run time, so a guarded `try { require('x') } catch {}`
 * works as on Lambda. The isolate's loader (sandbox/node/index.cjs) answers
 * every Node built-in (those below work, the others are inert); any other
 * name throws there, when it is loaded, with the words of REFUSALS (the
 * build script copies them into the bundle). The deploy answer lists the modules a function's code names that will throw if
 * used (`unavailable_modules`, see unavailableModules).
 */
import { builtinModules } from 'node:module';

/** Module names a function can load and use, with or without the `node:` prefix. */
export const SANDBOX_MODULES = [
  'assert',
  'assert/strict',
  'async_hooks',
  'buffer',
  'console',
  'crypto',
  'diagnostics_channel',
  'events',
  'http',
  'https',
  'os',
  'path',
  'path/posix',
  'process',
  'querystring',
  'stream',
  'stream/promises',
  'stream/web',
  'string_decoder',
  'sys',
  'timers',
  'timers/promises',
  'url',
  'util',
  'util/types',
  'zlib',
] as const;

const NODE_BUILTINS = new Set(builtinModules.map((m) => m.replace(/^node:/, '')));
// Names Node answers without the prefix (`node:test` has none: `test` is an npm package).
const BARE_BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('node:')));
const AVAILABLE = new Set<string>(SANDBOX_MODULES);

/**
 * Every other Node built-in loads, as an inert module: the host's names
 * (functions, classes, constants; recorded at build by
 * scripts/build-sandbox.mjs), whose functions and constructors throw
 * `ERR_FEATURE_UNAVAILABLE_ON_PLATFORM` when called: functions have no file
 * system, sockets, processes or threads. So a package that only touches
 * `fs`, `net`, `readline` or `http2` when it starts still loads.
 */
export const INERT_MODULES = [...NODE_BUILTINS].filter((m) => !AVAILABLE.has(m) && !m.startsWith('_')).sort();

const LOADABLE = new Set<string>([...SANDBOX_MODULES, ...INERT_MODULES]);

const bare = (id: string) => (id.startsWith('node:') ? id.slice(5) : id);

/** The sandbox's name for `id` (`node:crypto` -> `crypto`), or null when the sandbox has no working such module. */
export function sandboxModule(id: string): string | null {
  const name = bare(id);
  return AVAILABLE.has(name) ? name : null;
}

/** True for Node's built-in modules (`fs`, `node:fs`, `node:test`), which a bundler keeps as imports. */
export function isNodeBuiltin(id: string): boolean {
  return id.startsWith('node:') || BARE_BUILTINS.has(id);
}

const LIST = SANDBOX_MODULES.filter((m) => !m.includes('/')).join(', ');

/** Templates of the run-time refusals; `{id}` is the module as the code names it. Shared with the isolate. */
export const REFUSALS = {
  /** A `node:` name Node does not have either. */
  builtin: `module '{id}' is not a Node built-in the function sandbox knows. Available: ${LIST}; the other built-ins (fs, net, child_process...) load, but their file, socket and process functions throw`,
  /** Anything else: an npm package or another file. */
  other: `module '{id}' is not available in the function sandbox: a function is one file, so an npm package or another file must be bundled into its code: \`switchyard deploy <file>\`, \`apply\` and \`dev\` do it from the project's node_modules (run npm install there first). Node built-ins available: ${LIST}`,
};

/** Node built-ins the sandbox lacks, so the isolate can tell them from packages without the host's list. */
export const MISSING_BUILTINS = [...NODE_BUILTINS].filter((m) => !LOADABLE.has(m) && !m.startsWith('_')).sort();

/** Why `id` cannot be loaded. */
export function refusal(id: string): string {
  const builtin = id.startsWith('node:') || NODE_BUILTINS.has(bare(id));
  return (builtin ? REFUSALS.builtin : REFUSALS.other).replace('{id}', id);
}

/** The line compile.ts writes into compiled code, before its source map, naming what unavailableModules answers. */
export const UNAVAILABLE_MARK = '//# switchyard-unavailable-modules=';

/** Of the modules compiled code imports, those that will throw if used: those the sandbox lacks, and the inert ones. Sorted, without `node:`. */
export function unavailableOf(imports: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const id of imports) if (!AVAILABLE.has(bare(id))) out.add(bare(id));
  return [...out].sort();
}

/**
 * What compiled code (compile.ts's output) imports that will throw if used,
 * read from the line compile.ts wrote ([] for code compiled before it did).
 * Only imports esbuild saw count: a name built at run time (`require(name)`) cannot be seen.
 */
export function unavailableModules(compiled: string): string[] {
  const at = compiled.lastIndexOf(`\n${UNAVAILABLE_MARK}`);
  if (at < 0) return [];
  const end = compiled.indexOf('\n', at + 1);
  const list = compiled.slice(at + 1 + UNAVAILABLE_MARK.length, end < 0 ? undefined : end);
  return list === '' ? [] : list.split(',');
}
