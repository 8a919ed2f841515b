/** `buffer`: the npm `buffer` package (feross), Node's API over Uint8Array, all in the isolate. */
'use strict';
const npm = require('buffer/');
const host = require('./host.cjs');

module.exports = {
  Buffer: npm.Buffer,
  SlowBuffer: npm.SlowBuffer,
  INSPECT_MAX_BYTES: npm.INSPECT_MAX_BYTES,
  kMaxLength: npm.kMaxLength,
  kStringMaxLength: 0x1fffffe8,
  constants: { MAX_LENGTH: npm.kMaxLength, MAX_STRING_LENGTH: 0x1fffffe8 },
  atob: (s) => globalThis.atob(s),
  btoa: (s) => globalThis.btoa(s),
  isUtf8(input) {
    try {
      new host.TextDecoder('utf-8', { fatal: true }).decode(input);
      return true;
    } catch {
      return false;
    }
  },
  isAscii(input) {
    const bytes = ArrayBuffer.isView(input) ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength) : new Uint8Array(input);
    for (let i = 0; i < bytes.length; i++) if (bytes[i] > 0x7f) return false;
    return true;
  },
};
