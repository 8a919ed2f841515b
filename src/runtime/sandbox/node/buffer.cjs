/**
 * `buffer`: the npm `buffer` package (feross), Node's API over Uint8Array, all
 * in the isolate (no pooled memory: allocUnsafe is zero-filled). Node's
 * `base64url` encoding, which the package lacks, is added here.
 */
'use strict';
const npm = require('buffer/');
const host = require('./host.cjs');

const { Buffer } = npm;
const isUrl = (encoding) => typeof encoding === 'string' && encoding.toLowerCase() === 'base64url';
const toBase64 = (s) => String(s).replace(/-/g, '+').replace(/_/g, '/');
const fromBase64 = (s) => s.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
{
  const { from, byteLength, isEncoding } = Buffer;
  const { toString, write } = Buffer.prototype;
  Buffer.from = function from64url(value, encodingOrOffset, length) {
    if (typeof value === 'string' && isUrl(encodingOrOffset)) return from.call(this, toBase64(value), 'base64');
    return from.call(this, value, encodingOrOffset, length);
  };
  Buffer.byteLength = function byteLength64url(value, encoding) {
    return isUrl(encoding) ? byteLength.call(this, toBase64(value), 'base64') : byteLength.call(this, value, encoding);
  };
  Buffer.isEncoding = function isEncoding64url(encoding) {
    return isUrl(encoding) || isEncoding.call(this, encoding);
  };
  Buffer.prototype.toString = function toString64url(encoding, start, end) {
    return isUrl(encoding) ? fromBase64(toString.call(this, 'base64', start, end)) : toString.apply(this, arguments);
  };
  Buffer.prototype.write = function write64url(string, offset, length, encoding) {
    const args = Array.prototype.slice.call(arguments);
    const at = args.findIndex((a, i) => i > 0 && typeof a === 'string');
    if (at > 0 && isUrl(args[at])) {
      args[0] = toBase64(string);
      args[at] = 'base64';
    }
    return write.apply(this, args);
  };
}

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
