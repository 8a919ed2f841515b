/**
 * Isolate-side Node built-ins (docs/functions.md, "Node built-ins"), the
 * entry of the bundle scripts/build-sandbox.mjs makes with the npm polyfills
 * (dist/sandbox/node-builtins.js). The sandbox bootstrap (../bootstrap.ts)
 * runs this bundle and calls `createNodeModules` on the first `require` or
 * touch of the global `Buffer` (../../isolate/sandbox/require.js).
 *
 * Every module is initialised on its first `require` (esbuild's lazy module
 * wrappers), so an isolate pays only for what its function loads. Names the
 * sandbox lacks throw when loaded, with the words of SWITCHYARD_REFUSALS
 * (src/runtime/node-builtins.ts).
 */
const host = require('./host.cjs');

/* global SWITCHYARD_REFUSALS, SWITCHYARD_MISSING_BUILTINS, SWITCHYARD_INERT_MODULES */
const LOADERS = {
  assert: () => require('./assert.cjs'),
  'assert/strict': () => require('./assert.cjs').strict,
  async_hooks: () => require('./async_hooks.cjs'),
  buffer: () => require('./buffer.cjs'),
  console: () => require('./console.cjs'),
  crypto: () => require('./crypto.cjs'),
  diagnostics_channel: () => require('./diagnostics_channel.cjs'),
  events: () => require('./events.cjs'),
  http: () => require('./http.cjs').http,
  https: () => require('./http.cjs').https,
  os: () => require('./os.cjs'),
  path: () => require('./path.cjs'),
  // The module is the global process, as in Node.
  process: () => globalThis.process,
  'path/posix': () => require('./path.cjs').posix,
  querystring: () => require('./querystring.cjs'),
  stream: () => require('./stream.cjs'),
  'stream/promises': () => require('./stream.cjs').promises,
  'stream/web': () => require('./stream-web.cjs')(),
  string_decoder: () => require('./string_decoder.cjs'),
  sys: () => require('./util.cjs'),
  timers: () => require('./timers.cjs').timers,
  'timers/promises': () => require('./timers.cjs').promises,
  url: () => require('./url.cjs'),
  util: () => require('./util.cjs'),
  'util/types': () => require('./util.cjs').types,
  zlib: () => require('./zlib.cjs'),
};
// Modules that load but whose host-only functions throw when called (inert.cjs).
for (const name of SWITCHYARD_INERT_MODULES) LOADERS[name] = () => require('./inert.cjs')(name);
const MISSING = new Set(SWITCHYARD_MISSING_BUILTINS);
const hasOwn = Object.prototype.hasOwnProperty;

function refusal(id) {
  const name = id.startsWith('node:') ? id.slice(5) : id;
  const builtin = id.startsWith('node:') || MISSING.has(name);
  const e = new Error((builtin ? SWITCHYARD_REFUSALS.builtin : SWITCHYARD_REFUSALS.other).replace('{id}', id));
  e.code = 'MODULE_NOT_FOUND';
  return e;
}

/**
 * `globals` are the sandbox globals the modules build on, as they were before
 * user code ran; `bridges` the host callbacks they need. Returns the loader
 * behind the `require` user code gets (../../isolate/sandbox/require.js).
 */
function createNodeModules(globals, bridges) {
  host.crypto = bridges.hostCrypto;
  host.setCallbackBinder = bridges.setCallbackBinder;
  host.node = bridges.hostNode;
  for (const name of ['queueMicrotask', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate', 'fetch', 'Headers']) {
    host[name] = globals[name];
  }
  host.URL = globals.URL;
  host.URLSearchParams = globals.URLSearchParams;
  host.TextEncoder = globals.TextEncoder;
  host.TextDecoder = globals.TextDecoder;
  host.webcrypto = globals.crypto;
  host.getRandomValues = globals.getRandomValues;
  host.randomUUID = globals.randomUUID;

  const cache = Object.create(null);
  return function requireModule(id) {
    if (typeof id !== 'string') {
      const e = new TypeError('The "id" argument must be of type string. Received ' + (id === null ? 'null' : typeof id));
      e.code = 'ERR_INVALID_ARG_TYPE';
      throw e;
    }
    const name = id.startsWith('node:') ? id.slice(5) : id;
    if (!hasOwn.call(LOADERS, name)) throw refusal(id);
    if (!(name in cache)) cache[name] = LOADERS[name]();
    return cache[name];
  };
}

module.exports = { createNodeModules };
