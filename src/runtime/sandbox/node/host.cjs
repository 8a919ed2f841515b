/**
 * What the isolate-side Node modules take from the sandbox, filled once by
 * index.js before any user code runs: the host bridges (hashing, randomness)
 * and the sandbox's own globals as they were then, so a function that
 * replaces `globalThis.URL` or `crypto` does not change what `require('url')`
 * or `require('crypto')` hand out later.
 */
'use strict';

module.exports = {
  /** hostCrypto(op, hash, key, data) -> ArrayBuffer | null (see ../index.ts). */
  crypto: null,
  URL: null,
  URLSearchParams: null,
  TextEncoder: null,
  TextDecoder: null,
  webcrypto: null,
  getRandomValues: null,
  randomUUID: null,
};
