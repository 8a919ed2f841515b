// Every free `process` in the bundled polyfills is process.cjs (esbuild `inject`), so
// `process.nextTick(fn, ...args)` keeps its arguments and the rest reads the sandbox's process.
import shim from './process.cjs';
export { shim as process };
