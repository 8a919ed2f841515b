import { createHmac, createPublicKey, verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSecret, isValidSecret, kindOf, publicKeyOf, sign, signAll } from '../../src/webhooks/signing.js';
import { MAX_SECRETS, rotatedSecrets, signingSecrets, type PreviousSecret, type Webhook as WebhookRecord } from '../../src/webhooks/types.js';

// The Standard Webhooks / svix reference vector.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const MSG_ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TIMESTAMP = 1614265330;
const BODY = '{"test": 2432232314}';

describe('webhook signing', () => {
  it('matches the known-answer vector', () => {
    expect(sign(SECRET, MSG_ID, TIMESTAMP, BODY)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    const byHand = createHmac('sha256', Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'))
      .update(`${MSG_ID}.${TIMESTAMP}.${BODY}`)
      .digest('base64');
    expect(sign(SECRET, MSG_ID, TIMESTAMP, BODY)).toBe(`v1,${byHand}`);
  });

  it('is accepted by the stock standardwebhooks verifier, and a changed body is not', () => {
    const secret = generateSecret();
    const ts = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ hello: 'world', n: [1, 2, 3] });
    const headers = { 'webhook-id': 'dlv_1', 'webhook-timestamp': String(ts), 'webhook-signature': sign(secret, 'dlv_1', ts, body) };
    expect(new Webhook(secret).verify(body, headers)).toEqual({ hello: 'world', n: [1, 2, 3] });
    expect(() => new Webhook(secret).verify(body.replace('world', 'w0rld'), headers)).toThrow();
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
  });

  it('generates valid 32-byte secrets, different each time', () => {
    const a = generateSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(isValidSecret(a)).toBe(true);
    expect(generateSecret()).not.toBe(a);
  });

  it('validates secrets: prefix, base64, 24 to 64 bytes', () => {
    expect(isValidSecret(SECRET)).toBe(true);
    expect(isValidSecret(`whsec_${Buffer.alloc(24, 7).toString('base64')}`)).toBe(true);
    expect(isValidSecret(`whsec_${Buffer.alloc(64, 7).toString('base64')}`)).toBe(true);
    expect(isValidSecret(`whsec_${Buffer.alloc(23, 7).toString('base64')}`)).toBe(false);
    expect(isValidSecret(`whsec_${Buffer.alloc(65, 7).toString('base64')}`)).toBe(false);
    expect(isValidSecret('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBe(false);
    expect(isValidSecret('whsec_not base64 at all!!!!!!!!!!!!!!!!!!!!!')).toBe(false);
    expect(isValidSecret('whsec_')).toBe(false);
  });

  // RFC 8032, section 7.1, test 1: the seed and its public key.
  const RFC_SEED = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
  const RFC_PUBLIC = Buffer.from('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', 'hex');

  it('derives the ed25519 public key of RFC 8032 and signs v1a that node:crypto verifies under it', () => {
    const secret = 'whsk_' + RFC_SEED.toString('base64');
    expect(kindOf(secret)).toBe('ed25519');
    expect(isValidSecret(secret)).toBe(true);
    expect(publicKeyOf(secret)).toBe('whpk_' + RFC_PUBLIC.toString('base64'));
    const signature = sign(secret, MSG_ID, TIMESTAMP, BODY);
    expect(signature).toMatch(/^v1a,/);
    const key = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), RFC_PUBLIC]), format: 'der', type: 'spki' });
    const content = Buffer.from(`${MSG_ID}.${TIMESTAMP}.${BODY}`);
    expect(verify(null, content, key, Buffer.from(signature.slice(4), 'base64'))).toBe(true);
    expect(verify(null, Buffer.from(`${MSG_ID}.${TIMESTAMP + 1}.${BODY}`), key, Buffer.from(signature.slice(4), 'base64'))).toBe(false);
    // The 64-byte form (seed, then public key) is the same key; one whose public half is wrong is refused.
    const long = 'whsk_' + Buffer.concat([RFC_SEED, RFC_PUBLIC]).toString('base64');
    expect(isValidSecret(long)).toBe(true);
    expect(sign(long, MSG_ID, TIMESTAMP, BODY)).toBe(signature);
    expect(isValidSecret('whsk_' + Buffer.concat([RFC_SEED, Buffer.alloc(32)]).toString('base64'))).toBe(false);
    expect(isValidSecret('whsk_' + Buffer.alloc(31).toString('base64'))).toBe(false);
    expect(publicKeyOf(SECRET)).toBeNull();
  });

  it('generates ed25519 keys as a 32-byte seed', () => {
    const a = generateSecret('ed25519');
    expect(a).toMatch(/^whsk_[A-Za-z0-9+/]{43}=$/);
    expect(isValidSecret(a)).toBe(true);
    expect(publicKeyOf(a)).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(generateSecret('ed25519')).not.toBe(a);
  });

  it('signs with several secrets space-separated in the order given, each verifiable', () => {
    const other = generateSecret();
    const header = signAll([SECRET, other], MSG_ID, TIMESTAMP, BODY);
    expect(header.split(' ')).toEqual([sign(SECRET, MSG_ID, TIMESTAMP, BODY), sign(other, MSG_ID, TIMESTAMP, BODY)]);
  });
});

describe('secret rotation', () => {
  const at = (h: number) => new Date(Date.UTC(2026, 11, 1, h)).toISOString();
  const s = (n: number) => `whsec_${Buffer.alloc(32, n).toString('base64')}`;

  it('keeps the replaced secret until the overlap ends, then only the current one signs', () => {
    const next = rotatedSecrets({ secret: s(1), secretCreatedAt: at(0), previousSecrets: [] }, { secret: s(2), at: at(1), overlapUntil: at(3) });
    expect(next).toEqual({ secret: s(2), secretCreatedAt: at(1), previousSecrets: [{ secret: s(1), createdAt: at(0), expiresAt: at(3) }] });
    expect(signingSecrets(next, Date.parse(at(2)))).toEqual([s(2), s(1)]);
    expect(signingSecrets(next, Date.parse(at(3)))).toEqual([s(2)]);
  });

  it('an overlap of 0 keeps nothing; expired secrets are pruned; at most MAX_SECRETS are kept, the oldest dropped', () => {
    expect(rotatedSecrets({ secret: s(1), secretCreatedAt: null, previousSecrets: [] }, { secret: s(2), at: at(1), overlapUntil: at(1) }).previousSecrets).toEqual([]);
    const old: PreviousSecret[] = [{ secret: s(9), createdAt: null, expiresAt: at(1) }];
    expect(rotatedSecrets({ secret: s(1), secretCreatedAt: null, previousSecrets: old }, { secret: s(2), at: at(2), overlapUntil: at(5) }).previousSecrets.map((p) => p.secret)).toEqual([s(1)]);
    let w: Pick<WebhookRecord, 'secret' | 'secretCreatedAt' | 'previousSecrets'> = { secret: s(0), secretCreatedAt: at(0), previousSecrets: [] };
    for (let i = 1; i <= 12; i++) w = rotatedSecrets(w, { secret: s(i), at: at(i), overlapUntil: at(i + 24) });
    expect(w.previousSecrets).toHaveLength(MAX_SECRETS - 1);
    expect(w.previousSecrets.map((p) => p.secret)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3].map(s));
  });

  it('no older secret outlives a new, shorter overlap: 0 leaves only the new secret', () => {
    const w = rotatedSecrets({ secret: s(1), secretCreatedAt: null, previousSecrets: [] }, { secret: s(2), at: at(1), overlapUntil: at(20) });
    const shorter = rotatedSecrets(w, { secret: s(3), at: at(2), overlapUntil: at(4) });
    expect(shorter.previousSecrets).toEqual([
      { secret: s(2), createdAt: at(1), expiresAt: at(4) },
      { secret: s(1), createdAt: null, expiresAt: at(4) },
    ]);
    expect(rotatedSecrets(w, { secret: s(3), at: at(2), overlapUntil: at(2) }).previousSecrets).toEqual([]);
  });
});
