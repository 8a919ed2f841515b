/**
 * The host's side of the Node modules that cannot run inside the isolate
 * (`hostNode(op, optionsJson, bytes)`, one ivm.Callback per context, see
 * index.ts): brotli, which has no maintained pure-JS port, done by the host's
 * zlib; and asymmetric keys and signatures (crypto's createPrivateKey,
 * createPublicKey, createSign, createVerify), done by the host's crypto,
 * the keys travelling as PEM text. Only data crosses: an op name, JSON
 * options and bytes in; bytes or JSON text out, or `{ error, code }` JSON
 * text. Output is capped, so a decompression bomb costs the host at most
 * HOST_NODE_MAX_OUTPUT bytes.
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/** The most bytes one host operation answers (a function's own memory limit does not cover the host's). */
export const HOST_NODE_MAX_OUTPUT = 64 * 1024 * 1024;
/**
 * The largest RSA or DSA modulus the host signs or verifies with: the host's
 * work is synchronous and outside the function's time limit, and a 16,384-bit
 * key costs the worker about a second a signature (WebCrypto's generateKey is
 * bounded the same way in host-subtle.ts).
 */
export const HOST_NODE_MAX_MODULUS_BITS = 8192;

/** The key, unless its size makes the host's work unbounded. */
export function bounded(key: KeyObject, maxBits = HOST_NODE_MAX_MODULUS_BITS): KeyObject {
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if (bits !== undefined && bits > maxBits) {
    throw Object.assign(new RangeError(`keys above ${maxBits} bits are not supported in functions`), { code: 'ERR_CRYPTO_INVALID_KEYLEN' });
  }
  return key;
}

function asBytes(x: unknown): Uint8Array | null {
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  return null;
}

/** Brotli `params` as Node takes them: numeric keys (BROTLI_PARAM_*) to numbers; anything else is dropped. */
function brotliParams(json: unknown): Record<number, number> {
  const out: Record<number, number> = {};
  if (typeof json !== 'string') return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return out;
  }
  const params = (parsed as { params?: unknown } | null)?.params;
  if (!params || typeof params !== 'object') return out;
  const known = new Set(Object.entries(constants).filter(([k]) => k.startsWith('BROTLI_PARAM_')).map(([, v]) => v));
  for (const [k, v] of Object.entries(params)) {
    if (known.has(Number(k)) && typeof v === 'number' && Number.isFinite(v)) out[Number(k)] = v;
  }
  return out;
}

const failure = (err: unknown) => JSON.stringify({ error: err instanceof Error ? err.message : String(err), code: (err as { code?: string }).code ?? 'ERR_HOST_OPERATION' });

interface KeyOptions {
  kind?: 'private' | 'public';
  format?: 'pem' | 'der' | 'jwk';
  type?: string;
  passphrase?: string;
  jwk?: Record<string, unknown>;
  pem?: string;
  algorithm?: string | null;
  padding?: number;
  saltLength?: number;
  dsaEncoding?: 'der' | 'ieee-p1363';
  signature?: string;
}

function options(json: unknown): KeyOptions {
  if (typeof json !== 'string') return {};
  const parsed = JSON.parse(json) as unknown;
  return parsed && typeof parsed === 'object' ? (parsed as KeyOptions) : {};
}

/** A key from what the isolate sent: a JWK in the options, else the bytes as PEM or DER. */
function keyOf(o: KeyOptions, bytes: Uint8Array): KeyObject {
  const make = o.kind === 'public' ? createPublicKey : createPrivateKey;
  if (o.format === 'jwk') return make({ key: o.jwk as never, format: 'jwk' });
  if (o.format === 'der') return make({ key: Buffer.from(bytes), format: 'der', type: o.type as never, passphrase: o.passphrase });
  const pem = Buffer.from(bytes).toString('utf8');
  // A public key asked of a private one (createPublicKey(privatePem)) is derived, as Node does.
  return make({ key: pem, format: 'pem', passphrase: o.passphrase });
}

/** What the isolate's KeyObject shows: type, asymmetric type and details (numbers, not bigints), and the key as PEM. */
function keyInfo(key: KeyObject): string {
  const details = { ...(key.asymmetricKeyDetails ?? {}) } as Record<string, unknown>;
  if (typeof details.publicExponent === 'bigint') details.publicExponent = Number(details.publicExponent);
  const pem = key.type === 'private' ? key.export({ format: 'pem', type: 'pkcs8' }) : key.export({ format: 'pem', type: 'spki' });
  return JSON.stringify({ type: key.type, asymmetricKeyType: key.asymmetricKeyType, asymmetricKeyDetails: details, pem: String(pem) });
}

function signingKey(o: KeyOptions) {
  const key = bounded(o.kind === 'public' ? createPublicKey(String(o.pem)) : createPrivateKey({ key: String(o.pem), passphrase: o.passphrase }));
  return { key, padding: o.padding, saltLength: o.saltLength, dsaEncoding: o.dsaEncoding };
}

export function hostNode(op: unknown, optionsJson: unknown, data: unknown): ArrayBuffer | string {
  const bytes = asBytes(data);
  if (!bytes) return failure(new TypeError('hostNode: bytes expected'));
  try {
    let out: Buffer;
    if (op === 'keyInfo') return keyInfo(bounded(keyOf(options(optionsJson), bytes)));
    if (op === 'keyJwk') {
      const o = options(optionsJson);
      const key = o.kind === 'public' ? createPublicKey(String(o.pem)) : createPrivateKey(String(o.pem));
      return JSON.stringify(key.export({ format: 'jwk' }));
    }
    if (op === 'sign') {
      const o = options(optionsJson);
      out = sign(o.algorithm ?? null, bytes, signingKey(o));
    } else if (op === 'verify') {
      const o = options(optionsJson);
      const ok = verify(o.algorithm ?? null, bytes, signingKey({ ...o, kind: o.kind ?? 'public' }), Buffer.from(String(o.signature), 'base64'));
      out = Buffer.from([ok ? 1 : 0]);
    } else if (op === 'brotliCompress') out = brotliCompressSync(bytes, { params: brotliParams(optionsJson), maxOutputLength: HOST_NODE_MAX_OUTPUT });
    else if (op === 'brotliDecompress') out = brotliDecompressSync(bytes, { params: brotliParams(optionsJson), maxOutputLength: HOST_NODE_MAX_OUTPUT });
    else return failure(new TypeError(`hostNode: unknown operation ${String(op)}`));
    return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength) as ArrayBuffer;
  } catch (err) {
    return failure(err);
  }
}
