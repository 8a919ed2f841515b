import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSecret, isValidSecret, sign } from '../../src/webhooks/signing.js';

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
});
