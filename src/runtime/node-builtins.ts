/**
 * Which modules a function may `require` or `import`: the Node built-ins the
 * sandbox implements inside the isolate (sandbox/node/, bundled at build time
 * by scripts/build-sandbox.mjs), and the words used to refuse anything else.
 * compile.ts refuses other imports at deploy; the isolate's `require` refuses
 * a name it only learns at run time (`require(variable)`) with the same text,
 * which the build script copies into the bundle.
 */
import { builtinModules } from 'node:module';

/** Module names a function can load, with or without the `node:` prefix. */
export const SANDBOX_MODULES = [
  'assert',
  'assert/strict',
  'buffer',
  'crypto',
  'events',
  'path',
  'path/posix',
  'querystring',
  'string_decoder',
  'url',
  'util',
  'util/types',
] as const;

const AVAILABLE = new Set<string>(SANDBOX_MODULES);
const NODE_BUILTINS = new Set(builtinModules.map((m) => m.replace(/^node:/, '')));

/** The sandbox's name for `id` (`node:crypto` -> `crypto`), or null when the sandbox has no such module. */
export function sandboxModule(id: string): string | null {
  const name = id.startsWith('node:') ? id.slice(5) : id;
  return AVAILABLE.has(name) ? name : null;
}

/** Templates of the refusals; `{id}` is the module as the code names it. Shared with the isolate. */
export const REFUSALS = {
  /** A Node built-in the sandbox does not have (fs, child_process, net, http...). */
  builtin: `module '{id}' is not available in the function sandbox: functions have no file system, processes or sockets (use fetch for HTTP). Available: ${SANDBOX_MODULES.filter((m) => !m.includes('/')).join(', ')}`,
  /** Anything else: an npm package or another file. */
  other: `module '{id}' is not available in the function sandbox: a function is one file, so an npm package or another file must be bundled into its code: \`switchyard deploy <file>\`, \`apply\` and \`dev\` do it from the project's node_modules (run npm install there first). Node built-ins available: ${SANDBOX_MODULES.filter((m) => !m.includes('/')).join(', ')}`,
};

/** Node built-ins the sandbox lacks, so the isolate can tell them from packages without the host's list. */
export const MISSING_BUILTINS = [...NODE_BUILTINS].filter((m) => !AVAILABLE.has(m) && !m.startsWith('_')).sort();

/** Why `id` cannot be loaded. */
export function refusal(id: string): string {
  const name = id.startsWith('node:') ? id.slice(5) : id;
  const builtin = id.startsWith('node:') || NODE_BUILTINS.has(name);
  return (builtin ? REFUSALS.builtin : REFUSALS.other).replace('{id}', id);
}
