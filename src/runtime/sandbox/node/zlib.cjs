/**
 * `zlib`: the npm `browserify-zlib` package (Node's zlib API over pako, a port
 * of zlib itself) for deflate, inflate, gzip, gunzip, deflateRaw, inflateRaw
 * and unzip in their sync, callback and stream forms; brotli, which has no
 * maintained pure-JS port, is done by the host's zlib, bytes in and bytes out
 * (../host-node.ts). Brotli streams gather their input and answer at the end.
 * `constants` are the host's (SWITCHYARD_ZLIB_CONSTANTS, written at build).
 */
'use strict';
/* global SWITCHYARD_ZLIB_CONSTANTS */
const npm = require('browserify-zlib');
const { Buffer } = require('./buffer.cjs');
const { Transform } = require('./stream.cjs');
const host = require('./host.cjs');

const zlib = Object.assign({}, npm);
zlib.constants = Object.freeze(Object.assign({}, SWITCHYARD_ZLIB_CONSTANTS));

function bytesOf(input) {
  if (typeof input === 'string') return Buffer.from(input, 'utf8');
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  const e = new TypeError('The "buffer" argument must be of type string or an instance of Buffer, TypedArray, DataView, or ArrayBuffer.');
  e.code = 'ERR_INVALID_ARG_TYPE';
  throw e;
}

function brotli(op, input, options) {
  const out = host.node(op, JSON.stringify({ params: (options && options.params) || {} }), bytesOf(input).slice().buffer);
  if (typeof out === 'string') {
    const info = JSON.parse(out);
    const e = new Error(info.error);
    e.code = info.code;
    throw e;
  }
  return Buffer.from(out);
}

function callbackForm(op) {
  return function brotliCallback(input, options, callback) {
    const cb = typeof options === 'function' ? options : callback;
    const opts = typeof options === 'function' ? undefined : options;
    if (typeof cb !== 'function') throw new TypeError('The "callback" argument must be of type function');
    let result;
    let error = null;
    try {
      result = brotli(op, input, opts);
    } catch (e) {
      error = e;
    }
    host.queueMicrotask(() => (error ? cb(error) : cb(null, result)));
  };
}

class BrotliStream extends Transform {
  #op;
  #options;
  #chunks = [];
  constructor(op, options) {
    super(options);
    this.#op = op;
    this.#options = options;
  }
  _transform(chunk, encoding, done) {
    this.#chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk);
    done();
  }
  _flush(done) {
    try {
      this.push(brotli(this.#op, Buffer.concat(this.#chunks), this.#options));
      this.#chunks = [];
      done();
    } catch (e) {
      done(e);
    }
  }
}
class BrotliCompress extends BrotliStream {
  constructor(options) {
    super('brotliCompress', options);
  }
}
class BrotliDecompress extends BrotliStream {
  constructor(options) {
    super('brotliDecompress', options);
  }
}

zlib.brotliCompressSync = (input, options) => brotli('brotliCompress', input, options);
zlib.brotliDecompressSync = (input, options) => brotli('brotliDecompress', input, options);
zlib.brotliCompress = callbackForm('brotliCompress');
zlib.brotliDecompress = callbackForm('brotliDecompress');
zlib.BrotliCompress = BrotliCompress;
zlib.BrotliDecompress = BrotliDecompress;
zlib.createBrotliCompress = (options) => new BrotliCompress(options);
zlib.createBrotliDecompress = (options) => new BrotliDecompress(options);

// Node's crc32(data, value): the table-driven CRC-32 zlib uses.
let table = null;
zlib.crc32 = function crc32(data, value = 0) {
  if (table === null) {
    table = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c;
    }
  }
  const bytes = bytesOf(data);
  let crc = ~value;
  for (let i = 0; i < bytes.length; i++) crc = table[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
};
module.exports = zlib;
