/**
 * `crypto`: the part of Node's module that handlers use. Hashes and HMACs
 * gather their input in the isolate and reach the host once, at `digest()`,
 * as plain bytes (`hostCrypto`); randomness comes from the sandbox's
 * `crypto.getRandomValues` (the host's CSPRNG). `webcrypto` and `subtle` are
 * the sandbox's WebCrypto. Asymmetric keys and signatures (createSign,
 * createVerify, createPrivateKey...) are crypto-keys.cjs's, over the host.
 * The rest of Node's crypto (ciphers, key pairs, key derivation) throws a
 * clear error rather than being absent. `constants` are the host's
 * (SWITCHYARD_CRYPTO_CONSTANTS, written at build).
 */
/* global SWITCHYARD_CRYPTO_CONSTANTS */
'use strict';
const { Buffer } = require('./buffer.cjs');
const host = require('./host.cjs');
const keys = require('./crypto-keys.cjs');

// Node's names (lower-cased) -> the host bridge's.
const HASHES = {
  md5: 'MD5',
  'rsa-md5': 'MD5',
  sha1: 'SHA-1',
  'sha-1': 'SHA-1',
  'rsa-sha1': 'SHA-1',
  sha224: 'SHA-224',
  'sha-224': 'SHA-224',
  sha256: 'SHA-256',
  'sha-256': 'SHA-256',
  'rsa-sha256': 'SHA-256',
  sha384: 'SHA-384',
  'sha-384': 'SHA-384',
  'rsa-sha384': 'SHA-384',
  sha512: 'SHA-512',
  'sha-512': 'SHA-512',
  'rsa-sha512': 'SHA-512',
};

function nodeError(Ctor, code, message) {
  const e = new Ctor(message);
  e.code = code;
  return e;
}

function invalidArg(name, what, value) {
  const got = value === null ? 'null' : typeof value === 'object' ? 'an instance of ' + ((value.constructor && value.constructor.name) || 'Object') : 'type ' + typeof value;
  return nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "' + name + '" argument must be ' + what + '. Received ' + got);
}

function hashOf(algorithm) {
  const name = typeof algorithm === 'string' ? HASHES[algorithm.toLowerCase()] : undefined;
  if (!name) {
    if (typeof algorithm !== 'string') throw invalidArg('algorithm', 'of type string', algorithm);
    throw nodeError(Error, 'ERR_OSSL_EVP_UNSUPPORTED', 'Digest method not supported: ' + algorithm + ' (the sandbox has ' + getHashes().join(', ') + ')');
  }
  return name;
}

/** A copy of `data` as bytes; strings are decoded with `encoding` (utf8 by default). */
function bytesOf(data, encoding, name) {
  if (typeof data === 'string') return Buffer.from(data, encoding || 'utf8');
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
  if (data instanceof ArrayBuffer) return new Uint8Array(data).slice();
  if (data instanceof SecretKeyObject) return data.export();
  throw invalidArg(name, 'of type string or an instance of Buffer, TypedArray, or DataView', data);
}

function output(arrayBuffer, encoding) {
  const buf = Buffer.from(arrayBuffer);
  return encoding === undefined || encoding === 'buffer' ? buf : buf.toString(encoding);
}

function callHost(op, hash, key, data) {
  const out = host.crypto(op, hash, key, data);
  if (!(out instanceof ArrayBuffer)) throw nodeError(Error, 'ERR_CRYPTO_OPERATION_FAILED', 'crypto: ' + op + ' failed');
  return out;
}

class Digest {
  #op;
  #hash;
  #key;
  #chunks = [];
  #length = 0;
  #done = false;
  constructor(op, hash, key) {
    this.#op = op;
    this.#hash = hash;
    this.#key = key;
  }
  update(data, inputEncoding) {
    if (this.#done) throw nodeError(Error, 'ERR_CRYPTO_HASH_FINALIZED', 'Digest already called');
    const bytes = bytesOf(data, inputEncoding, 'data');
    this.#chunks.push(bytes);
    this.#length += bytes.length;
    return this;
  }
  digest(outputEncoding) {
    if (this.#done) throw nodeError(Error, 'ERR_CRYPTO_HASH_FINALIZED', 'Digest already called');
    this.#done = true;
    const all = new Uint8Array(this.#length);
    let at = 0;
    for (const c of this.#chunks) {
      all.set(c, at);
      at += c.length;
    }
    this.#chunks = [];
    return output(callHost(this.#op, this.#hash, this.#key, all), outputEncoding);
  }
  /** Node's Hash#copy: the same algorithm and the input so far (Hmac has none). */
  _copy() {
    if (this.#done) throw nodeError(Error, 'ERR_CRYPTO_HASH_FINALIZED', 'Digest already called');
    const c = new this.constructor(TOKEN, this.#op, this.#hash, this.#key);
    for (const chunk of this.#chunks) c.update(chunk);
    return c;
  }
}

const TOKEN = {};
class Hash extends Digest {
  constructor(token, op, hash) {
    if (token !== TOKEN) throw new TypeError('use crypto.createHash()');
    super(op, hash, null);
  }
  copy() {
    return this._copy();
  }
}
class Hmac extends Digest {
  constructor(token, op, hash, key) {
    if (token !== TOKEN) throw new TypeError('use crypto.createHmac()');
    super(op, hash, key);
  }
}

class SecretKeyObject extends keys.KeyObject {
  #bytes;
  constructor(token, bytes) {
    if (token !== TOKEN) throw new TypeError('use crypto.createSecretKey()');
    super(keys.TOKEN);
    this.#bytes = bytes;
  }
  get type() {
    return 'secret';
  }
  get symmetricKeySize() {
    return this.#bytes.length;
  }
  export() {
    return Buffer.from(this.#bytes);
  }
  equals(other) {
    return other instanceof SecretKeyObject && timingSafeEqual(this.#bytes, other.export());
  }
}

function createHash(algorithm) {
  return new Hash(TOKEN, 'digest', hashOf(algorithm));
}

function createHmac(algorithm, key) {
  const hash = hashOf(algorithm);
  if (key === undefined || key === null) throw invalidArg('key', 'of type string or an instance of Buffer, TypedArray, DataView, or KeyObject', key);
  return new Hmac(TOKEN, 'hmac', hash, bytesOf(key, 'utf8', 'key'));
}

function hash(algorithm, data, outputEncoding) {
  if (typeof data !== 'string' && !ArrayBuffer.isView(data)) throw invalidArg('data', 'of type string or an instance of Buffer, TypedArray, or DataView', data);
  return createHash(algorithm).update(data).digest(outputEncoding === undefined ? 'hex' : outputEncoding);
}

function createSecretKey(key, encoding) {
  return new SecretKeyObject(TOKEN, bytesOf(key, encoding, 'key'));
}

const MAX_RANDOM = 2 ** 31 - 1;
function checkSize(size) {
  if (typeof size !== 'number') throw invalidArg('size', 'of type number', size);
  if (!Number.isInteger(size) || size < 0 || size > MAX_RANDOM) {
    throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', 'The value of "size" is out of range. It must be >= 0 && <= ' + MAX_RANDOM + '. Received ' + size);
  }
}

function fill(bytes) {
  for (let at = 0; at < bytes.length; at += 65536) host.getRandomValues(bytes.subarray(at, Math.min(bytes.length, at + 65536)));
  return bytes;
}

function later(callback, err, value) {
  Promise.resolve().then(() => callback(err, value));
}

function randomBytes(size, callback) {
  checkSize(size);
  const buf = Buffer.alloc(size);
  fill(buf);
  if (typeof callback === 'function') {
    later(callback, null, buf);
    return undefined;
  }
  return buf;
}

function viewOf(buf, name) {
  if (ArrayBuffer.isView(buf)) return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf instanceof ArrayBuffer) return new Uint8Array(buf);
  throw invalidArg(name, 'an instance of ArrayBuffer or ArrayBufferView', buf);
}

function randomFillSync(buf, offset, size) {
  const bytes = viewOf(buf, 'buf');
  const start = offset === undefined ? 0 : offset;
  const end = size === undefined ? bytes.length : start + size;
  if (!Number.isInteger(start) || start < 0 || !Number.isInteger(end) || end > bytes.length || end < start) {
    throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', 'The value of "offset" or "size" is out of range');
  }
  fill(bytes.subarray(start, end));
  return buf;
}

function randomFill(buf, offset, size, callback) {
  const cb = [offset, size, callback].find((x) => typeof x === 'function');
  if (!cb) throw invalidArg('callback', 'of type function', callback);
  const out = randomFillSync(buf, typeof offset === 'function' ? undefined : offset, typeof size === 'function' ? undefined : size);
  later(cb, null, out);
}

function randomInt(min, max, callback) {
  if (typeof max !== 'number') {
    callback = max;
    max = min;
    min = 0;
  }
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || max <= min || max - min > 2 ** 48) {
    throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', 'randomInt: min and max must be safe integers with min < max and max - min <= 2^48');
  }
  const range = max - min;
  const limit = 2 ** 48 - (2 ** 48 % range);
  let n;
  do {
    const b = fill(new Uint8Array(6));
    n = ((b[0] * 256 + b[1]) * 256 + b[2]) * 2 ** 24 + ((b[3] * 256 + b[4]) * 256 + b[5]);
  } while (n >= limit);
  const value = min + (n % range);
  if (typeof callback === 'function') {
    later(callback, null, value);
    return undefined;
  }
  return value;
}

function timingSafeEqual(a, b) {
  const x = viewOf(a, 'buf1');
  const y = viewOf(b, 'buf2');
  if (x.length !== y.length) throw nodeError(RangeError, 'ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH', 'Input buffers must have the same byte length');
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
  return diff === 0;
}

function getHashes() {
  return ['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512'];
}

function unavailable(name) {
  return function notInSandbox() {
    throw nodeError(
      Error,
      'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM',
      'crypto.' + name + ' is not available in the function sandbox (it has createHash, createHmac, createSign, createVerify, createPrivateKey, createPublicKey, randomBytes, randomUUID, randomInt, timingSafeEqual, and crypto.subtle)',
    );
  };
}

const UNAVAILABLE = ['createCipheriv', 'createDecipheriv', 'createECDH', 'createDiffieHellman', 'generateKey', 'generateKeySync', 'generateKeyPair', 'generateKeyPairSync',
  'pbkdf2', 'pbkdf2Sync', 'scrypt', 'scryptSync', 'hkdf', 'hkdfSync', 'publicEncrypt', 'privateDecrypt',
  'privateEncrypt', 'publicDecrypt', 'diffieHellman', 'generatePrime', 'generatePrimeSync', 'checkPrime', 'checkPrimeSync'];

const crypto = {
  createHash,
  createHmac,
  hash,
  createSecretKey,
  randomBytes,
  pseudoRandomBytes: randomBytes,
  randomFillSync,
  randomFill,
  randomInt,
  randomUUID: (options) => host.randomUUID(options),
  getRandomValues: (array) => host.getRandomValues(array),
  timingSafeEqual,
  getHashes,
  getCiphers: () => [],
  getCurves: () => [],
  webcrypto: host.webcrypto,
  subtle: host.webcrypto.subtle,
  constants: Object.freeze(Object.assign({}, SWITCHYARD_CRYPTO_CONSTANTS)),
  Hash,
  Hmac,
  KeyObject: keys.KeyObject,
  createPrivateKey: keys.createPrivateKey,
  createPublicKey: keys.createPublicKey,
  createSign: keys.createSign,
  createVerify: keys.createVerify,
  sign: keys.sign,
  verify: keys.verify,
  Sign: keys.Sign,
  Verify: keys.Verify,
};
for (const name of UNAVAILABLE) crypto[name] = unavailable(name);
module.exports = crypto;
