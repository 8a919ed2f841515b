// @ts-check
/**
 * Isolate-side source: crypto.getRandomValues / randomUUID (bytes from the
 * host's CSPRNG) and a WebCrypto subset: HMAC importKey/exportKey/generateKey/
 * sign/verify and SHA digests, computed by node:crypto in the host
 * (`hostRandom`, `hostCrypto`). Key bytes live in a closure WeakMap, never on
 * the key object.
 */
// isolate source begins
{
  const pool = { bytes: new Uint8Array(0), pos: 0 };
  function hostBytes(n) {
    const b = hostRandom(n);
    if (!(b instanceof ArrayBuffer) || b.byteLength !== n) throw new Error('crypto: random source unavailable');
    return new Uint8Array(b);
  }
  function randomBytes(n) {
    if (n > 256) return hostBytes(n);
    if (pool.bytes.length - pool.pos < n) { pool.bytes = hostBytes(4096); pool.pos = 0; }
    const out = pool.bytes.slice(pool.pos, pool.pos + n);
    pool.bytes.fill(0, pool.pos, pool.pos + n);
    pool.pos += n;
    return out;
  }
  /** @type {Array<string | undefined>} */
  const INTEGER_ARRAYS = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array',
    'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array'];
  /** @type {(this: ArrayBufferView) => string} */
  // @ts-expect-error %TypedArray%.prototype always has its toStringTag getter
  const typedArrayTag = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;
  function getRandomValues(array) {
    const tag = ArrayBuffer.isView(array) ? typedArrayTag.call(array) : undefined;
    if (INTEGER_ARRAYS.indexOf(tag) < 0) {
      throw new DOMException('The data argument must be an integer-type TypedArray', 'TypeMismatchError');
    }
    if (array.byteLength > 65536) {
      throw new DOMException('The ArrayBufferView byte length (' + array.byteLength + ') exceeds 65536', 'QuotaExceededError');
    }
    new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(randomBytes(array.byteLength));
    return array;
  }
  const HEX = [];
  for (let i = 0; i < 256; i++) HEX.push((i < 16 ? '0' : '') + i.toString(16));
  function randomUUID() {
    const b = randomBytes(16);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let s = '';
    for (let i = 0; i < 16; i++) { s += HEX[b[i]]; if (i === 3 || i === 5 || i === 7 || i === 9) s += '-'; }
    return s;
  }

  const HASHES = { 'SHA-1': 64, 'SHA-256': 64, 'SHA-384': 128, 'SHA-512': 128 }; // name -> block size in bytes
  const algName = (a) => (typeof a === 'string' ? a : a && typeof a === 'object' ? String(a.name) : String(a));
  function normHash(h) {
    const name = algName(h).toUpperCase();
    if (!Object.prototype.hasOwnProperty.call(HASHES, name)) {
      throw new DOMException('Unrecognized or unsupported hash: ' + algName(h), 'NotSupportedError');
    }
    return name;
  }
  function requireHmac(a) {
    if (algName(a).toUpperCase() !== 'HMAC') {
      throw new DOMException('Unsupported algorithm: ' + algName(a) + ' (this sandbox supports HMAC and SHA digests)', 'NotSupportedError');
    }
  }
  function callHost(op, hash, key, data) {
    const out = hostCrypto(op, hash, key, data);
    if (!(out instanceof ArrayBuffer)) throw new DOMException('crypto operation failed', 'OperationError');
    return out;
  }
  function b64url(bytes) { return b64EncodeBytes(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''); }

  const KEYS = new WeakMap();
  const KEY_TOKEN = {};
  class CryptoKey {
    #type; #extractable; #algorithm; #usages;
    constructor(token, algorithm, extractable, usages, bytes) {
      if (token !== KEY_TOKEN) throw new TypeError('Illegal constructor');
      this.#type = 'secret'; this.#extractable = extractable; this.#algorithm = algorithm; this.#usages = usages;
      KEYS.set(this, bytes);
    }
    get type() { return this.#type; }
    get extractable() { return this.#extractable; }
    get algorithm() { return { name: this.#algorithm.name, hash: { name: this.#algorithm.hash.name }, length: this.#algorithm.length }; }
    get usages() { return this.#usages.slice(); }
    get [Symbol.toStringTag]() { return 'CryptoKey'; }
  }
  function checkUsages(usages) {
    const list = Array.from(usages || []).map(String);
    for (const u of list) {
      if (u !== 'sign' && u !== 'verify') throw new DOMException('Unsupported key usage for an HMAC key: ' + u, 'SyntaxError');
    }
    if (list.length === 0) throw new DOMException('Usages cannot be empty when creating a key.', 'SyntaxError');
    return list;
  }
  function keyFor(key, usage) {
    const bytes = KEYS.get(key);
    if (!bytes) throw new TypeError('key is not a CryptoKey');
    if (key.usages.indexOf(usage) < 0) throw new DOMException('Key does not support the "' + usage + '" operation', 'InvalidAccessError');
    return bytes;
  }

  const subtle = {
    async digest(algorithm, data) {
      return callHost('digest', normHash(algorithm), null, copyBytes(data, 'data'));
    },
    async importKey(format, keyData, algorithm, extractable, usages) {
      requireHmac(algorithm);
      const hash = normHash(algorithm.hash);
      let bytes;
      if (format === 'raw') bytes = copyBytes(keyData, 'keyData');
      else if (format === 'jwk') {
        if (!keyData || keyData.kty !== 'oct' || typeof keyData.k !== 'string') throw new DOMException('Invalid JWK for an HMAC key', 'DataError');
        bytes = b64DecodeBytes(keyData.k.replace(/-/g, '+').replace(/_/g, '/'));
        if (bytes === null) throw new DOMException('Invalid JWK "k"', 'DataError');
      } else throw new DOMException('Unsupported key format: ' + format, 'NotSupportedError');
      if (bytes.length === 0) throw new DOMException('HMAC key data must not be empty', 'DataError');
      const length = algorithm.length === undefined ? bytes.length * 8 : Number(algorithm.length);
      return new CryptoKey(KEY_TOKEN, { name: 'HMAC', hash: { name: hash }, length }, Boolean(extractable), checkUsages(usages), bytes);
    },
    async generateKey(algorithm, extractable, usages) {
      requireHmac(algorithm);
      const hash = normHash(algorithm.hash);
      const length = algorithm.length === undefined ? HASHES[hash] * 8 : Number(algorithm.length);
      if (!(length > 0 && length % 8 === 0 && length <= 8192)) throw new DOMException('Unsupported HMAC key length', 'OperationError');
      return new CryptoKey(KEY_TOKEN, { name: 'HMAC', hash: { name: hash }, length }, Boolean(extractable), checkUsages(usages), randomBytes(length / 8));
    },
    async exportKey(format, key) {
      const bytes = KEYS.get(key);
      if (!bytes) throw new TypeError('key is not a CryptoKey');
      if (!key.extractable) throw new DOMException('key is not extractable', 'InvalidAccessError');
      if (format === 'raw') return bytes.slice().buffer;
      if (format === 'jwk') {
        return { kty: 'oct', k: b64url(bytes), alg: 'HS' + key.algorithm.hash.name.slice(4), key_ops: key.usages, ext: true };
      }
      throw new DOMException('Unsupported key format: ' + format, 'NotSupportedError');
    },
    async sign(algorithm, key, data) {
      requireHmac(algorithm);
      const bytes = keyFor(key, 'sign');
      return callHost('hmac', key.algorithm.hash.name, bytes, copyBytes(data, 'data'));
    },
    async verify(algorithm, key, signature, data) {
      requireHmac(algorithm);
      const bytes = keyFor(key, 'verify');
      const sig = copyBytes(signature, 'signature');
      const mac = new Uint8Array(callHost('hmac', key.algorithm.hash.name, bytes, copyBytes(data, 'data')));
      if (sig.length !== mac.length) return false;
      let diff = 0;
      for (let i = 0; i < mac.length; i++) diff |= mac[i] ^ sig[i];
      return diff === 0;
    },
  };
  const crypto = { getRandomValues, randomUUID, subtle };
  def('CryptoKey', CryptoKey);
  def('crypto', crypto);
}
// isolate source ends
