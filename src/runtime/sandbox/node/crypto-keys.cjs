/**
 * crypto's asymmetric keys and signatures: KeyObject, createPrivateKey,
 * createPublicKey, createSign, createVerify, sign and verify, for RS256,
 * PS256, ES256 and EdDSA tokens (jsonwebtoken through jwa). The host parses
 * keys and signs (../host-node.ts); a key lives here as its PEM text and what
 * Node shows of it (type, asymmetricKeyType, asymmetricKeyDetails), so only
 * text and bytes cross. Signing input is gathered here and crosses once.
 */
'use strict';
const { Buffer } = require('./buffer.cjs');
const host = require('./host.cjs');

const TOKEN = Symbol('crypto-keys');

function nodeError(Ctor, code, message) {
  const e = new Ctor(message);
  e.code = code;
  return e;
}

function callHost(op, options, bytes) {
  const out = host.node(op, JSON.stringify(options), bytes);
  if (typeof out === 'string') {
    const parsed = JSON.parse(out);
    if (parsed && typeof parsed.error === 'string' && typeof parsed.code === 'string' && Object.keys(parsed).length === 2) {
      throw nodeError(Error, parsed.code, parsed.error);
    }
    return parsed;
  }
  return Buffer.from(out);
}

/** The base of every key: `instanceof KeyObject` holds for secret and asymmetric keys alike. */
class KeyObject {
  constructor(token) {
    if (token !== TOKEN) throw new TypeError('use crypto.createSecretKey(), createPrivateKey() or createPublicKey()');
  }
}

class AsymmetricKeyObject extends KeyObject {
  #info;
  constructor(token, info) {
    super(token);
    this.#info = info;
  }
  get type() {
    return this.#info.type;
  }
  get asymmetricKeyType() {
    return this.#info.asymmetricKeyType;
  }
  get asymmetricKeyDetails() {
    const d = Object.assign({}, this.#info.asymmetricKeyDetails);
    if (typeof d.publicExponent === 'number') d.publicExponent = BigInt(d.publicExponent);
    return d;
  }
  /** The PEM text the host gave, the DER under it, or the JWK. */
  export(options = {}) {
    const pem = this.#info.pem;
    if (options.format === 'jwk') return callHost('keyJwk', { kind: this.type, pem }, new ArrayBuffer(0));
    if (options.format === 'der') return Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    return pem;
  }
  equals(other) {
    return other instanceof AsymmetricKeyObject && other.type === this.type && other.export() === this.export();
  }
  /** What ../host-node.ts takes to use this key. */
  static pemOf(key) {
    return key.#info.pem;
  }
}

function keyBytes(key, encoding) {
  if (typeof key === 'string') return Buffer.from(key, encoding || 'utf8');
  if (ArrayBuffer.isView(key)) return Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  if (key instanceof ArrayBuffer) return Buffer.from(key);
  throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "key" argument must be of type string or an instance of ArrayBuffer, Buffer, TypedArray, DataView, KeyObject, or CryptoKey.');
}

function makeKey(kind, input) {
  if (input instanceof AsymmetricKeyObject) {
    if (kind === 'public' && input.type === 'private') return makeKey('public', input.export());
    return input;
  }
  if (input instanceof KeyObject) throw nodeError(TypeError, 'ERR_CRYPTO_INVALID_KEY_OBJECT_TYPE', 'Invalid key object type secret, expected ' + kind + '.');
  const opts = input !== null && typeof input === 'object' && !ArrayBuffer.isView(input) && !(input instanceof ArrayBuffer) ? input : { key: input };
  if (opts.key instanceof AsymmetricKeyObject) return makeKey(kind, opts.key);
  const format = opts.format || 'pem';
  const options = { kind, format, type: opts.type, passphrase: opts.passphrase === undefined ? undefined : String(opts.passphrase) };
  let bytes = new ArrayBuffer(0);
  if (format === 'jwk') options.jwk = opts.key;
  else bytes = keyBytes(opts.key, opts.encoding).slice().buffer;
  return new AsymmetricKeyObject(TOKEN, callHost('keyInfo', options, bytes));
}

const createPrivateKey = (key) => makeKey('private', key);
const createPublicKey = (key) => makeKey('public', key);

/** The key and its options (padding, saltLength, dsaEncoding, passphrase) as sign/verify take them. */
function signingOptions(key, kind) {
  const opts = key !== null && typeof key === 'object' && !(key instanceof KeyObject) && !ArrayBuffer.isView(key) ? key : { key };
  const k = makeKey(kind, opts.key instanceof KeyObject || opts.format ? opts : opts.key);
  return {
    kind: k.type,
    pem: AsymmetricKeyObject.pemOf(k),
    padding: opts.padding,
    saltLength: opts.saltLength,
    dsaEncoding: opts.dsaEncoding,
  };
}

function digestName(algorithm) {
  if (algorithm === null || algorithm === undefined) return null;
  return String(algorithm).toLowerCase().replace(/^rsa-/, '');
}

class SignBase {
  #algorithm;
  #chunks = [];
  constructor(token, algorithm) {
    if (token !== TOKEN) throw new TypeError('use crypto.createSign() or createVerify()');
    this.#algorithm = digestName(algorithm);
  }
  update(data, encoding) {
    this.#chunks.push(typeof data === 'string' ? Buffer.from(data, encoding || 'utf8') : keyBytes(data));
    return this;
  }
  write(data, encoding) {
    this.update(data, encoding);
    return true;
  }
  end(data, encoding) {
    if (data !== undefined && data !== null) this.update(data, encoding);
    return this;
  }
  _input() {
    return { algorithm: this.#algorithm, bytes: Buffer.concat(this.#chunks) };
  }
}

class Sign extends SignBase {
  sign(privateKey, outputEncoding) {
    const { algorithm, bytes } = this._input();
    const sig = callHost('sign', Object.assign({ algorithm }, signingOptions(privateKey, 'private')), bytes.slice().buffer);
    return outputEncoding === undefined || outputEncoding === 'buffer' ? sig : sig.toString(outputEncoding);
  }
}

class Verify extends SignBase {
  verify(key, signature, signatureEncoding) {
    const { algorithm, bytes } = this._input();
    const sig = typeof signature === 'string' ? Buffer.from(signature, signatureEncoding || 'utf8') : keyBytes(signature);
    const o = signingOptions(key, 'public');
    const out = callHost('verify', Object.assign({ algorithm, signature: sig.toString('base64') }, o), bytes.slice().buffer);
    return out[0] === 1;
  }
}

function later(callback, fn) {
  let value;
  let error = null;
  try {
    value = fn();
  } catch (e) {
    error = e;
  }
  host.queueMicrotask(() => (error ? callback(error) : callback(null, value)));
}

function sign(algorithm, data, key, callback) {
  const run = () => new Sign(TOKEN, algorithm).update(data).sign(key);
  if (typeof callback === 'function') return later(callback, run);
  return run();
}

function verify(algorithm, data, key, signature, callback) {
  const run = () => new Verify(TOKEN, algorithm).update(data).verify(key, signature);
  if (typeof callback === 'function') return later(callback, run);
  return run();
}

module.exports = {
  TOKEN,
  KeyObject,
  createPrivateKey,
  createPublicKey,
  createSign: (algorithm) => new Sign(TOKEN, algorithm),
  createVerify: (algorithm) => new Verify(TOKEN, algorithm),
  sign,
  verify,
  Sign,
  Verify,
};
