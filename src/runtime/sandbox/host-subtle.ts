/**
 * Host side of the sandbox's `crypto.subtle` (all but `digest`, which is
 * synchronous in index.ts): the isolate names an operation with plain data
 * (algorithm fields, usages, a JWK) and copied ArrayBuffers; this file checks
 * every field against WebCrypto's own lists, runs it on node:crypto's
 * webcrypto, and answers with data again. The real CryptoKey objects stay
 * here, in one bounded map per isolate context, under numeric handles; the
 * isolate's CryptoKey only carries its handle and its public description.
 */
import { webcrypto } from 'node:crypto';

type SubtleKey = webcrypto.CryptoKey;

/** Keys one context may hold at once (every import and generation adds one; the isolate releases the ones it collects). */
export const SUBTLE_MAX_KEYS = 10_000;
/** Operations one context may have in flight. */
export const SUBTLE_MAX_PENDING = 256;
/** The largest data, signature or additional data one call takes. */
export const SUBTLE_MAX_BYTES = 32 * 1024 * 1024;

export type SubtleEnvelope = { ok: unknown } | { error: { name: string; message: string } };

/** A key's description as the isolate keeps it: no key material. */
export interface KeyDescription {
  h: number;
  type: string;
  extractable: boolean;
  algorithm: Record<string, unknown>;
  usages: string[];
}

const ALGORITHMS = [
  ...['HMAC', 'AES-GCM', 'AES-CBC', 'AES-CTR', 'AES-KW', 'RSASSA-PKCS1-v1_5', 'RSA-PSS', 'RSA-OAEP'],
  ...['ECDSA', 'ECDH', 'Ed25519', 'X25519', 'PBKDF2', 'HKDF'],
];
/** WebCrypto matches algorithm names without regard to case; the canonical spelling by upper case. */
const NAMES = new Map(ALGORITHMS.map((n) => [n.toUpperCase(), n]));
const HASHES = new Set(['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512']);
const CURVES = new Set(['P-256', 'P-384', 'P-521']);
const USAGES = new Set(['encrypt', 'decrypt', 'sign', 'verify', 'wrapKey', 'unwrapKey', 'deriveKey', 'deriveBits']);
const FORMATS = new Set(['raw', 'spki', 'pkcs8', 'jwk']);
/** Buffer-valued algorithm fields, with the most bytes each may have. */
const BUFFER_FIELDS: Record<string, number> = {
  iv: 1024,
  counter: 16,
  additionalData: SUBTLE_MAX_BYTES,
  label: 65536,
  publicExponent: 8,
  salt: 65536,
  info: 65536,
};
/** PBKDF2's iterations at most: each call holds a thread of the worker's pool for its whole run. */
export const SUBTLE_MAX_ITERATIONS = 2_000_000;
const ERROR_NAMES = new Set([
  'DataError',
  'NotSupportedError',
  'InvalidAccessError',
  'OperationError',
  'SyntaxError',
  'QuotaExceededError',
]);

class Refusal extends Error {
  constructor(
    message: string,
    readonly domName: string = 'NotSupportedError',
  ) {
    super(message);
  }
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function bytesOf(x: unknown, what: string, max: number): Uint8Array {
  if (!(x instanceof ArrayBuffer)) throw new Refusal(`${what} must be an ArrayBuffer or ArrayBufferView`, 'TypeError');
  if (x.byteLength > max) throw new Refusal(`${what} is larger than ${max} bytes`, 'QuotaExceededError');
  return new Uint8Array(x);
}

function intField(a: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const v = a[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new Refusal(`algorithm.${name} must be an integer from ${min} to ${max}`, 'OperationError');
  }
  return v;
}

/**
 * The algorithm argument, rebuilt from the fields WebCrypto knows, each checked. `keyOf` resolves
 * ECDH's and X25519's `public`, which the isolate sends as its key's handle.
 */
function algorithmOf(raw: unknown, keyOf?: (h: unknown) => SubtleKey): Record<string, unknown> & { name: string } {
  const a = typeof raw === 'string' ? { name: raw } : raw;
  if (!isRecord(a) || typeof a.name !== 'string') throw new Refusal('algorithm must be a name or an object with a name', 'TypeError');
  const name = NAMES.get(a.name.toUpperCase());
  if (!name) throw new Refusal(`Unrecognized or unsupported algorithm: ${a.name.slice(0, 64)}`);
  const out: Record<string, unknown> & { name: string } = { name };
  if (a.hash !== undefined) {
    const h = typeof a.hash === 'string' ? a.hash : isRecord(a.hash) && typeof a.hash.name === 'string' ? a.hash.name : '';
    const hash = h.toUpperCase();
    if (!HASHES.has(hash)) throw new Refusal(`Unrecognized or unsupported hash: ${h.slice(0, 64)}`);
    out.hash = hash;
  }
  if (a.namedCurve !== undefined) {
    if (typeof a.namedCurve !== 'string' || !CURVES.has(a.namedCurve)) {
      throw new Refusal(`Unsupported named curve: ${String(a.namedCurve).slice(0, 64)}`);
    }
    out.namedCurve = a.namedCurve;
  }
  const length = intField(a, 'length', 1, 8192);
  if (length !== undefined) out.length = length;
  const tagLength = intField(a, 'tagLength', 32, 128);
  if (tagLength !== undefined) out.tagLength = tagLength;
  const saltLength = intField(a, 'saltLength', 0, 1024);
  if (saltLength !== undefined) out.saltLength = saltLength;
  // 4096 bits at most: a larger RSA key takes the worker's thread pool for seconds to generate.
  const modulusLength = intField(a, 'modulusLength', 1024, 4096);
  if (modulusLength !== undefined) out.modulusLength = modulusLength;
  const iterations = intField(a, 'iterations', 1, SUBTLE_MAX_ITERATIONS);
  if (iterations !== undefined) out.iterations = iterations;
  if (a.public !== undefined) {
    if (!keyOf) throw new Refusal('algorithm.public is only for deriving', 'TypeError');
    out.public = keyOf(a.public);
  }
  for (const [field, max] of Object.entries(BUFFER_FIELDS)) {
    if (a[field] !== undefined) out[field] = bytesOf(a[field], `algorithm.${field}`, max);
  }
  return out;
}

function usagesOf(raw: unknown): webcrypto.KeyUsage[] {
  if (!Array.isArray(raw) || raw.length > USAGES.size) throw new Refusal('keyUsages must be a list of key usages', 'TypeError');
  for (const u of raw) {
    if (typeof u !== 'string' || !USAGES.has(u)) throw new Refusal(`Unrecognized key usage: ${String(u).slice(0, 32)}`, 'TypeError');
  }
  return raw as webcrypto.KeyUsage[];
}

function formatOf(raw: unknown): 'raw' | 'spki' | 'pkcs8' | 'jwk' {
  if (typeof raw !== 'string' || !FORMATS.has(raw)) throw new Refusal(`Unsupported key format: ${String(raw).slice(0, 32)}`, 'TypeError');
  return raw as 'raw' | 'spki' | 'pkcs8' | 'jwk';
}

/** A JWK: string members (and `key_ops`, `ext`), 64 KiB of JSON at most. */
function jwkOf(raw: unknown): webcrypto.JsonWebKey {
  if (!isRecord(raw)) throw new Refusal('keyData must be a JWK object', 'DataError');
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'ext' && typeof v === 'boolean') out[k] = v;
    else if (k === 'key_ops' && Array.isArray(v) && v.every((x) => typeof x === 'string')) out[k] = v;
    else if (typeof v === 'string') out[k] = v;
    else if (v !== undefined) throw new Refusal(`JWK member "${k.slice(0, 32)}" must be a string`, 'DataError');
  }
  if (JSON.stringify(out).length > 65536) throw new Refusal('The JWK is larger than 64 KiB', 'DataError');
  return out as webcrypto.JsonWebKey;
}

function exactCopy(buf: ArrayBuffer | ArrayBufferView): ArrayBuffer {
  const view = buf instanceof ArrayBuffer ? new Uint8Array(buf) : new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  return view.slice().buffer;
}

/** A key's algorithm as plain data (the hash as `{ name }`, the exponent as an ArrayBuffer). */
function describeAlgorithm(alg: webcrypto.KeyAlgorithm): Record<string, unknown> {
  const src = alg as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = { name: alg.name };
  if (isRecord(src.hash) && typeof src.hash.name === 'string') out.hash = { name: src.hash.name };
  for (const f of ['namedCurve', 'length', 'modulusLength']) if (src[f] !== undefined) out[f] = src[f];
  if (src.publicExponent instanceof Uint8Array) out.publicExponent = exactCopy(src.publicExponent);
  return out;
}

/**
 * One context's keys and operations. `send` delivers an answer into the isolate
 * (dropped while no invocation is in flight: the isolate asks again when the next one starts).
 */
export function createSubtleBridge(send: (id: number, env: SubtleEnvelope) => void, limits: { maxKeys?: number } = {}) {
  const maxKeys = limits.maxKeys ?? SUBTLE_MAX_KEYS;
  const keys = new Map<number, SubtleKey>();
  let nextHandle = 0;
  let inFlight = 0;
  let disposed = false;

  function keep(key: SubtleKey): KeyDescription {
    if (keys.size >= maxKeys) throw new Refusal(`more than ${maxKeys} CryptoKeys in this function's isolate`, 'QuotaExceededError');
    const h = ++nextHandle;
    keys.set(h, key);
    return { h, type: key.type, extractable: key.extractable, algorithm: describeAlgorithm(key.algorithm), usages: [...key.usages] };
  }
  function keyOf(h: unknown): SubtleKey {
    const key = typeof h === 'number' ? keys.get(h) : undefined;
    if (!key) throw new Refusal('key is not a CryptoKey of this isolate', 'TypeError');
    return key;
  }
  const dataOf = (x: unknown, what = 'data') => bytesOf(x, what, SUBTLE_MAX_BYTES);

  async function run(op: string, m: Record<string, unknown>, data: unknown): Promise<unknown> {
    const s = webcrypto.subtle;
    switch (op) {
      case 'importKey': {
        const format = formatOf(m.format);
        const alg = algorithmOf(m.algorithm);
        const usages = usagesOf(m.usages);
        const extractable = m.extractable === true;
        const key =
          format === 'jwk'
            ? await s.importKey('jwk', jwkOf(m.jwk), alg as webcrypto.AlgorithmIdentifier, extractable, usages)
            : await s.importKey(format, dataOf(data, 'keyData'), alg as webcrypto.AlgorithmIdentifier, extractable, usages);
        return keep(key);
      }
      case 'generateKey': {
        const alg = algorithmOf(m.algorithm);
        const made = (await s.generateKey(alg as unknown as webcrypto.RsaHashedKeyGenParams, m.extractable === true, usagesOf(m.usages))) as
          | SubtleKey
          | webcrypto.CryptoKeyPair;
        if ('privateKey' in made) return { publicKey: keep(made.publicKey), privateKey: keep(made.privateKey) };
        return keep(made);
      }
      case 'exportKey': {
        const format = formatOf(m.format);
        const key = keyOf(m.key);
        const out = format === 'jwk' ? await s.exportKey('jwk', key) : await s.exportKey(format, key);
        return out instanceof ArrayBuffer ? exactCopy(out) : (JSON.parse(JSON.stringify(out)) as unknown);
      }
      case 'sign':
        return exactCopy(await s.sign(algorithmOf(m.algorithm) as webcrypto.AlgorithmIdentifier, keyOf(m.key), dataOf(data)));
      case 'verify':
        return s.verify(
          algorithmOf(m.algorithm) as webcrypto.AlgorithmIdentifier,
          keyOf(m.key),
          dataOf(m.signature, 'signature'),
          dataOf(data),
        );
      case 'encrypt':
        return exactCopy(await s.encrypt(algorithmOf(m.algorithm) as webcrypto.AlgorithmIdentifier, keyOf(m.key), dataOf(data)));
      case 'decrypt':
        return exactCopy(await s.decrypt(algorithmOf(m.algorithm) as webcrypto.AlgorithmIdentifier, keyOf(m.key), dataOf(data)));
      case 'deriveBits': {
        // null: ECDH's and X25519's whole shared secret.
        const length = m.length;
        const bits = typeof length === 'number' && Number.isInteger(length) && length > 0 && length <= 65536;
        if (length !== null && !bits) throw new Refusal('length must be a whole number of bits from 1 to 65536', 'OperationError');
        const alg = algorithmOf(m.algorithm, keyOf) as unknown as webcrypto.EcdhKeyDeriveParams;
        return exactCopy(await s.deriveBits(alg, keyOf(m.key), length as number));
      }
      case 'deriveKey': {
        const alg = algorithmOf(m.algorithm, keyOf) as unknown as webcrypto.EcdhKeyDeriveParams;
        const derived = algorithmOf(m.derivedKeyAlgorithm) as unknown as webcrypto.AesDerivedKeyParams;
        return keep(await s.deriveKey(alg, keyOf(m.key), derived, m.extractable === true, usagesOf(m.usages)));
      }
      case 'wrapKey': {
        const format = formatOf(m.format);
        const alg = algorithmOf(m.algorithm) as webcrypto.AlgorithmIdentifier;
        return exactCopy(await s.wrapKey(format, keyOf(m.key), keyOf(m.wrappingKey), alg));
      }
      case 'unwrapKey': {
        const format = formatOf(m.format);
        const alg = algorithmOf(m.algorithm) as webcrypto.AlgorithmIdentifier;
        const unwrapped = algorithmOf(m.unwrappedKeyAlgorithm) as webcrypto.AlgorithmIdentifier;
        const wrapped = dataOf(data, 'wrappedKey');
        return keep(await s.unwrapKey(format, wrapped, keyOf(m.unwrappingKey), alg, unwrapped, m.extractable === true, usagesOf(m.usages)));
      }
      default:
        throw new Refusal(`Unsupported operation: ${op.slice(0, 32)}`);
    }
  }

  function errorOf(err: unknown): SubtleEnvelope {
    const e = err as { name?: unknown; message?: unknown };
    // WebCrypto's own DOMException names pass; anything else the host threw is an OperationError.
    let name = 'OperationError';
    if (err instanceof Refusal) name = err.domName;
    else if (typeof e?.name === 'string' && (ERROR_NAMES.has(e.name) || e.name === 'TypeError')) name = e.name;
    const message = typeof e?.message === 'string' && e.message !== '' ? e.message : 'The operation failed';
    return { error: { name, message } };
  }

  return {
    /** One call from the isolate: `hostSubtle(id, op, meta, data)`. Never throws. */
    call(id: unknown, op: unknown, meta: unknown, data: unknown): void {
      if (disposed || typeof id !== 'number' || typeof op !== 'string') return;
      if (op === 'release') {
        if (isRecord(meta) && typeof meta.key === 'number') keys.delete(meta.key);
        return;
      }
      if (inFlight >= SUBTLE_MAX_PENDING) {
        send(id, { error: { name: 'QuotaExceededError', message: `more than ${SUBTLE_MAX_PENDING} crypto.subtle operations in flight` } });
        return;
      }
      inFlight++;
      Promise.resolve()
        .then(() => run(op, isRecord(meta) ? meta : {}, data))
        .then(
          (ok) => ({ ok }) as SubtleEnvelope,
          (err: unknown) => errorOf(err),
        )
        .then((env) => {
          inFlight--;
          if (!disposed) send(id, env);
        });
    },
    /** Drops every key (the context is going away). */
    dispose(): void {
      disposed = true;
      keys.clear();
    },
    /** Keys held now (tests and metrics). */
    get size(): number {
      return keys.size;
    },
  };
}
