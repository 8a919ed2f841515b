/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com), both
 * schemes the spec names, over `<webhook-id>.<webhook-timestamp>.<body>`:
 * - symmetric: the secret is `whsec_` + base64 key bytes; a signature is
 *   `v1,` + base64 HMAC-SHA256 under those bytes;
 * - asymmetric: the secret is `whsk_` + base64 of an ed25519 private key (its
 *   32-byte seed, or seed and public key, 64 bytes); receivers hold `whpk_` +
 *   base64 of the 32-byte public key; a signature is `v1a,` + base64 ed25519.
 * A header carries one signature per secret still valid, space-separated
 * (secret rotation with overlap). node:crypto does both; no library needed.
 */
import { createHmac, createPrivateKey, createPublicKey, createSecretKey, generateKeyPairSync, randomBytes, sign as edSign, type KeyObject } from 'node:crypto';

export type SecretKind = 'hmac' | 'ed25519';

const HMAC_PREFIX = 'whsec_';
const PRIVATE_PREFIX = 'whsk_';
const PUBLIC_PREFIX = 'whpk_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** DER of a PKCS#8 ed25519 private key, less its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The bytes of canonical base64 (unpadded accepted too), or null. */
function base64Bytes(text: string): Buffer | null {
  if (!BASE64.test(text)) return null;
  const unpadded = text.replace(/=+$/, '');
  if (unpadded.length % 4 === 1) return null;
  const bytes = Buffer.from(unpadded, 'base64');
  // Round trip: rejects non-canonical trailing bits and stray padding.
  if (bytes.toString('base64').replace(/=+$/, '') !== unpadded) return null;
  if (text.length !== unpadded.length && text.length % 4 !== 0) return null;
  return bytes;
}

/** The key bytes of a valid `whsec_` secret, or null. */
function hmacBytes(secret: string): Buffer | null {
  return secret.startsWith(HMAC_PREFIX) ? base64Bytes(secret.slice(HMAC_PREFIX.length)) : null;
}

/** The private key of a valid `whsk_` secret, or null (a 64-byte form whose public half does not match is not valid). */
function ed25519Key(secret: string): KeyObject | null {
  if (!secret.startsWith(PRIVATE_PREFIX)) return null;
  const bytes = base64Bytes(secret.slice(PRIVATE_PREFIX.length));
  if (!bytes || (bytes.length !== 32 && bytes.length !== 64)) return null;
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, bytes.subarray(0, 32)]), format: 'der', type: 'pkcs8' });
  if (bytes.length === 64 && !rawPublicKey(key).equals(bytes.subarray(32))) return null;
  return key;
}

function rawPublicKey(privateKey: KeyObject): Buffer {
  // The SPKI DER of an ed25519 key ends with its 32 raw bytes.
  return createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
}

/** Which scheme a secret signs with: its prefix says (as the spec intends). */
export function kindOf(secret: string): SecretKind {
  return secret.startsWith(PRIVATE_PREFIX) ? 'ed25519' : 'hmac';
}

/** `whsec_` + base64 decoding to 24 to 64 bytes, or `whsk_` + base64 of an ed25519 private key (32 or 64 bytes). */
export function isValidSecret(secret: string): boolean {
  if (secret.startsWith(PRIVATE_PREFIX)) return ed25519Key(secret) !== null;
  const bytes = hmacBytes(secret);
  return bytes !== null && bytes.length >= 24 && bytes.length <= 64;
}

/** A fresh secret: 32 random bytes for HMAC, a new key pair's 32-byte seed for ed25519. */
export function generateSecret(kind: SecretKind = 'hmac'): string {
  if (kind === 'hmac') return HMAC_PREFIX + randomBytes(32).toString('base64');
  const { privateKey } = generateKeyPairSync('ed25519');
  return PRIVATE_PREFIX + privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32).toString('base64');
}

interface SigningKey {
  kind: SecretKind;
  key: KeyObject;
  publicKey: string | null;
}

/**
 * Deliveries of one webhook share their secrets: decode each once, not per
 * attempt, into a KeyObject (createHmac with a Buffer key checks and copies it
 * on each call: 13 µs against 3 µs per signature, a tenth of an attempt's
 * CPU; an ed25519 key parsed from DER per call would cost more than signing).
 */
const keyCache = new Map<string, SigningKey>();

function cachedKey(secret: string): SigningKey {
  let entry = keyCache.get(secret);
  if (!entry) {
    const ed = kindOf(secret) === 'ed25519' ? ed25519Key(secret) : null;
    if (ed) entry = { kind: 'ed25519', key: ed, publicKey: PUBLIC_PREFIX + rawPublicKey(ed).toString('base64') };
    else {
      // The service refuses invalid secrets; a stored one that is not base64 still signs (HMAC) with its raw text.
      const bytes = hmacBytes(secret);
      const raw = secret.startsWith(HMAC_PREFIX) ? secret.slice(HMAC_PREFIX.length) : secret;
      entry = { kind: 'hmac', key: createSecretKey(bytes ?? Buffer.from(raw)), publicKey: null };
    }
    if (keyCache.size >= 1000) keyCache.clear();
    keyCache.set(secret, entry);
  }
  return entry;
}

/** The `whpk_` public key of an ed25519 secret; null for an HMAC one. */
export function publicKeyOf(secret: string): string | null {
  return kindOf(secret) === 'ed25519' ? cachedKey(secret).publicKey : null;
}

/** One signature (`v1,` or `v1a,`) of one attempt under one secret. */
export function sign(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  const { kind, key } = cachedKey(secret);
  const content = `${msgId}.${timestampSeconds}.${body}`;
  if (kind === 'ed25519') return `v1a,${edSign(null, Buffer.from(content), key).toString('base64')}`;
  return `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
}

/** The `webhook-signature` header value: one signature per secret, in the order given (newest first). */
export function signAll(secrets: readonly string[], msgId: string, timestampSeconds: number, body: string): string {
  if (secrets.length === 1) return sign(secrets[0], msgId, timestampSeconds, body);
  return secrets.map((s) => sign(s, msgId, timestampSeconds, body)).join(' ');
}
