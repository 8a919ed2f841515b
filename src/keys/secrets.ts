/**
 * API key secrets: made here, shown once, stored only as their SHA-256. A
 * secret is `sy_` and 32 URL-safe characters of 24 random bytes (192 bits): a
 * fast hash is enough for secrets that cannot be guessed, and lets the gateway
 * find a key by its hash in one indexed read. The first characters are kept
 * in clear (`prefix`) so a person can tell keys apart in lists and logs.
 */
import { hash, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'sy_';
/** `sy_` and the first 5 random characters: 30 bits, never enough to find the key by. */
const SHOWN = SECRET_PREFIX.length + 5;

export function newSecret(): { secret: string; prefix: string; hash: string } {
  const secret = SECRET_PREFIX + randomBytes(24).toString('base64url');
  return { secret, prefix: secret.slice(0, SHOWN), hash: hashSecret(secret) };
}

export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}
