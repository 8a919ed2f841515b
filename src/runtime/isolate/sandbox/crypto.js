// @ts-check
/**
 * Isolate-side source: crypto.getRandomValues / randomUUID (bytes from the
 * host's CSPRNG) and crypto.subtle: SHA digests computed synchronously by the
 * host (`hostCrypto`), everything else (HMAC, AES-GCM/CBC/CTR/KW, RSASSA-PKCS1-v1_5,
 * RSA-PSS, RSA-OAEP, ECDSA, ECDH, Ed25519, X25519, PBKDF2, HKDF: importKey,
 * exportKey, generateKey, sign, verify, encrypt, decrypt, deriveBits, deriveKey,
 * wrapKey, unwrapKey) run by the host's WebCrypto (`hostSubtle`,
 * ../../sandbox/host-subtle.ts), answered through `handlers.subtle`. A
 * CryptoKey here holds only its description and the host's handle for it
 * (in a closure WeakMap); key material never enters the isolate unless exported.
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

  const DIGESTS = ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512'];
  const algName = (a) => (typeof a === 'string' ? a : a && typeof a === 'object' ? String(a.name) : String(a));
  function digestName(h) {
    const name = algName(h).toUpperCase();
    if (DIGESTS.indexOf(name) < 0) throw new DOMException('Unrecognized or unsupported hash: ' + algName(h), 'NotSupportedError');
    return name;
  }
  const BUFFER_FIELDS = ['iv', 'counter', 'additionalData', 'label', 'publicExponent', 'salt', 'info'];
  // The algorithm as data for the host (host-subtle.ts checks each field): buffers copied, the hash by name.
  function algorithmData(a) {
    if (typeof a === 'string') return { name: a };
    if (!a || typeof a !== 'object') throw new TypeError('algorithm must be a string or an object');
    const out = { name: String(a.name) };
    if (a.hash !== undefined) out.hash = algName(a.hash);
    for (const f of ['namedCurve', 'length', 'tagLength', 'saltLength', 'modulusLength', 'iterations']) {
      if (a[f] !== undefined) out[f] = typeof a[f] === 'string' ? a[f] : Number(a[f]);
    }
    for (const f of BUFFER_FIELDS) if (a[f] !== undefined) out[f] = copyBytes(a[f], 'algorithm.' + f).buffer;
    // ECDH's and X25519's other party: its key's handle (the host finds the key).
    if (a.public !== undefined) out.public = handleOf(a.public);
    return out;
  }

  // id -> { resolve, reject, op, meta, data }; kept until answered, so what the host answered while
  // no invocation was in flight (and so never delivered) is asked again when the next one starts.
  // An operation still running then is asked twice: the second answer finds no caller (a key made
  // twice holds a host handle until the isolate goes, within the host's bound).
  let pending = createObject(null);
  let seq = 0;
  function hostCall(op, meta, data) {
    return new Promise((resolve, reject) => {
      const id = ++seq;
      pending[id] = { resolve, reject, op, meta, data };
      hostSubtle(id, op, meta, data);
    });
  }
  handlers.subtle = (id, env) => {
    const p = pending[id];
    if (p === undefined) return;
    delete pending[id];
    if (env && 'ok' in env) { p.resolve(env.ok); return; }
    const info = (env && env.error) || { name: 'OperationError', message: 'crypto operation failed' };
    p.reject(info.name === 'TypeError' ? new TypeError(info.message) : new DOMException(info.message, info.name));
  };
  wakeHooks.push(() => {
    for (const id in pending) { const p = pending[id]; hostSubtle(Number(id), p.op, p.meta, p.data); }
  });

  const KEY_TOKEN = {};
  const HANDLES = new WeakMap();
  // A collected key's host copy is dropped (best effort: the host's map is bounded either way).
  // Made with the first key, so an isolate that never makes one does not pay for it.
  /** @type {FinalizationRegistry<number> | null} */
  let released = null;
  const releaseKey = (h) => { try { hostSubtle(0, 'release', { key: h }, null); } catch (_) { /* isolate going away */ } };
  function plainAlgorithm(a) {
    const out = { name: a.name };
    if (a.hash) out.hash = { name: a.hash.name };
    for (const f of ['namedCurve', 'length', 'modulusLength']) if (a[f] !== undefined) out[f] = a[f];
    if (a.publicExponent) out.publicExponent = new Uint8Array(a.publicExponent);
    return out;
  }
  class CryptoKey {
    #type; #extractable; #algorithm; #usages;
    constructor(token, d) {
      if (token !== KEY_TOKEN) throw new TypeError('Illegal constructor');
      this.#type = String(d.type); this.#extractable = Boolean(d.extractable);
      this.#algorithm = plainAlgorithm(d.algorithm); this.#usages = Array.from(d.usages, String);
      HANDLES.set(this, d.h);
      released ??= new FinalizationRegistry(releaseKey);
      released.register(this, d.h);
    }
    get type() { return this.#type; }
    get extractable() { return this.#extractable; }
    get algorithm() { return plainAlgorithm(this.#algorithm); }
    get usages() { return this.#usages.slice(); }
    get [Symbol.toStringTag]() { return 'CryptoKey'; }
  }
  function handleOf(key) {
    const h = key !== null && typeof key === 'object' ? HANDLES.get(key) : undefined;
    if (h === undefined) throw new TypeError('key is not a CryptoKey');
    return h;
  }
  const newKey = (d) => (d && d.privateKey ? { publicKey: new CryptoKey(KEY_TOKEN, d.publicKey), privateKey: new CryptoKey(KEY_TOKEN, d.privateKey) } : new CryptoKey(KEY_TOKEN, d));
  const usagesOf = (u) => Array.from(u || [], String);

  const subtle = {
    async digest(algorithm, data) {
      const out = hostCrypto('digest', digestName(algorithm), null, copyBytes(data, 'data'));
      if (!(out instanceof ArrayBuffer)) throw new DOMException('crypto operation failed', 'OperationError');
      return out;
    },
    async importKey(format, keyData, algorithm, extractable, usages) {
      const f = String(format);
      const meta = { format: f, algorithm: algorithmData(algorithm), extractable: Boolean(extractable), usages: usagesOf(usages) };
      if (f === 'jwk') {
        if (!keyData || typeof keyData !== 'object') throw new TypeError('keyData must be a JWK object');
        meta.jwk = JSON.parse(JSON.stringify(keyData));
        return newKey(await hostCall('importKey', meta, null));
      }
      return newKey(await hostCall('importKey', meta, copyBytes(keyData, 'keyData').buffer));
    },
    async generateKey(algorithm, extractable, usages) {
      return newKey(await hostCall('generateKey', { algorithm: algorithmData(algorithm), extractable: Boolean(extractable), usages: usagesOf(usages) }, null));
    },
    async exportKey(format, key) {
      return hostCall('exportKey', { format: String(format), key: handleOf(key) }, null);
    },
    async sign(algorithm, key, data) {
      return hostCall('sign', { algorithm: algorithmData(algorithm), key: handleOf(key) }, copyBytes(data, 'data').buffer);
    },
    async verify(algorithm, key, signature, data) {
      const meta = { algorithm: algorithmData(algorithm), key: handleOf(key), signature: copyBytes(signature, 'signature').buffer };
      return hostCall('verify', meta, copyBytes(data, 'data').buffer);
    },
    async encrypt(algorithm, key, data) {
      return hostCall('encrypt', { algorithm: algorithmData(algorithm), key: handleOf(key) }, copyBytes(data, 'data').buffer);
    },
    async decrypt(algorithm, key, data) {
      return hostCall('decrypt', { algorithm: algorithmData(algorithm), key: handleOf(key) }, copyBytes(data, 'data').buffer);
    },
    async deriveBits(algorithm, baseKey, length) {
      return hostCall('deriveBits', { algorithm: algorithmData(algorithm), key: handleOf(baseKey), length: length === undefined || length === null ? null : Number(length) }, null);
    },
    async deriveKey(algorithm, baseKey, derivedKeyType, extractable, usages) {
      return newKey(await hostCall('deriveKey', { algorithm: algorithmData(algorithm), key: handleOf(baseKey),
        derivedKeyAlgorithm: algorithmData(derivedKeyType), extractable: Boolean(extractable), usages: usagesOf(usages) }, null));
    },
    async wrapKey(format, key, wrappingKey, wrapAlgorithm) {
      return hostCall('wrapKey', { format: String(format), key: handleOf(key), wrappingKey: handleOf(wrappingKey), algorithm: algorithmData(wrapAlgorithm) }, null);
    },
    async unwrapKey(format, wrappedKey, unwrappingKey, unwrapAlgorithm, unwrappedKeyAlgorithm, extractable, usages) {
      return newKey(await hostCall('unwrapKey', { format: String(format), unwrappingKey: handleOf(unwrappingKey),
        algorithm: algorithmData(unwrapAlgorithm), unwrappedKeyAlgorithm: algorithmData(unwrappedKeyAlgorithm),
        extractable: Boolean(extractable), usages: usagesOf(usages) }, copyBytes(wrappedKey, 'wrappedKey').buffer));
    },
  };
  const crypto = { getRandomValues, randomUUID, subtle };
  def('CryptoKey', CryptoKey);
  def('crypto', crypto);
}
// isolate source ends
