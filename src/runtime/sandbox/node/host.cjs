/**
 * What the isolate-side Node modules take from the sandbox, filled once by
 * index.js before any user code runs: the host bridges (hashing, randomness)
 * and the sandbox's own globals as they were then, so a function that
 * replaces `globalThis.URL`, `crypto`, `fetch` or `setTimeout` does not change
 * what `require('url')`, `require('crypto')`, `require('http')` or
 * `require('timers')` hand out later.
 */
'use strict';

module.exports = {
  /** hostCrypto(op, hash, key, data) -> ArrayBuffer | null (see ../index.ts). */
  crypto: null,
  /** hostNode(op, optionsJson, bytes) -> ArrayBuffer | error JSON text (see ../host-node.ts). */
  node: null,
  /** Hands the bootstrap's timers the function that binds a callback to the async context (context.cjs). */
  setCallbackBinder: null,
  URL: null,
  URLSearchParams: null,
  TextEncoder: null,
  TextDecoder: null,
  webcrypto: null,
  getRandomValues: null,
  randomUUID: null,
  queueMicrotask: null,
  setTimeout: null,
  clearTimeout: null,
  setInterval: null,
  clearInterval: null,
  setImmediate: null,
  clearImmediate: null,
  fetch: null,
  Headers: null,
};
