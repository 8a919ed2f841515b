/**
 * Isolate-side Node built-ins (docs/functions.md, "Node built-ins"), the
 * entry of the bundle scripts/build-sandbox.mjs makes with the npm polyfills
 * (dist/sandbox/node-builtins.js). The sandbox bootstrap (../bootstrap.ts)
 * runs this bundle and calls `createNodeModules` on the first `require` or
 * touch of the global `Buffer` (../js/require.ts).
 *
 * Every module is initialised on its first `require` (esbuild's lazy module
 * wrappers), so an isolate pays only for what its function loads. Names the
 * sandbox lacks are refused with the deploy-time words (SWITCHYARD_REFUSALS,
 * from src/runtime/node-builtins.ts).
 */
const host = require('./host.cjs');

/* global SWITCHYARD_REFUSALS, SWITCHYARD_MISSING_BUILTINS */
const LOADERS = {
  assert: () => require('./assert.cjs'),
  'assert/strict': () => require('./assert.cjs').strict,
  buffer: () => require('./buffer.cjs'),
  crypto: () => require('./crypto.cjs'),
  events: () => require('./events.cjs'),
  path: () => require('./path.cjs'),
  'path/posix': () => require('./path.cjs').posix,
  querystring: () => require('./querystring.cjs'),
  string_decoder: () => require('./string_decoder.cjs'),
  url: () => require('./url.cjs'),
  util: () => require('./util.cjs'),
  'util/types': () => require('./util.cjs').types,
};
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
 * behind the `require` user code gets (../js/require.ts).
 */
function createNodeModules(globals, bridges) {
  host.crypto = bridges.hostCrypto;
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
