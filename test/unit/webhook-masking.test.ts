import { describe, expect, it } from 'vitest';
import { isSensitiveHeader, maskHeaders, maskValue, unmaskHeaders } from '../../src/webhooks/masking.js';

const TOKEN = 'Bearer sk_live_0123456789abcdefWXYZ';

describe('webhook header masking', () => {
  it('finds sensitive headers by name, in any case, and credential schemes by value', () => {
    for (const name of ['Authorization', 'proxy-authorization', 'Cookie', 'set-cookie', 'X-API-Key', 'apikey', 'x-auth-token',
      'X-Webhook-Secret', 'x-hub-signature-256', 'x-session-id', 'x-password', 'X-Credentials', 'x-csrf-token']) {
      expect(isSensitiveHeader(name), name).toBe(true);
    }
    for (const name of ['content-type', 'user-agent', 'x-source', 'webhook-id', 'accept', 'keep-alive']) {
      expect(isSensitiveHeader(name, 'plain'), name).toBe(false);
    }
    expect(isSensitiveHeader('x-forward-to', 'Bearer abc')).toBe(true);
    expect(isSensitiveHeader('x-forward-to', 'basic dXNlcjpwYXNz')).toBe(true);
    expect(isSensitiveHeader('x-note', 'Bearer')).toBe(false);
  });

  it('masks a value whole, or keeps the last 4 characters of a long one', () => {
    expect(maskValue('short-secret')).toBe('***');
    expect(maskValue(TOKEN)).toBe('***WXYZ');
    expect(
      maskHeaders({ Authorization: TOKEN, 'x-api-key': 'k1', 'x-source': 'shop', 'x-forward': 'Bearer t0k', cookie: 'a=b' }),
    ).toEqual({ Authorization: '***WXYZ', 'x-api-key': '***', 'x-source': 'shop', 'x-forward': '***', cookie: '***' });
  });

  it('puts stored values back where the masked value is sent back as shown', () => {
    const stored = { Authorization: TOKEN, 'x-api-key': 'k1', 'x-forward': 'Bearer t0k', 'x-source': 'shop' };
    const shown = maskHeaders(stored);
    expect(unmaskHeaders(shown, stored)).toEqual(stored);
    // Another case of the same name still matches; a new real value replaces.
    expect(unmaskHeaders({ authorization: '***WXYZ', 'x-api-key': 'k2' }, stored)).toEqual({ authorization: TOKEN, 'x-api-key': 'k2' });
    // Plain values that happen to start with *** are kept as given.
    expect(unmaskHeaders({ 'x-note': '***important' }, {})).toEqual({ 'x-note': '***important' });
  });

  it('refuses a masked-looking credential that matches nothing stored, naming the header', () => {
    const stored = { Authorization: TOKEN };
    for (const [headers, from] of [
      [{ authorization: '***' }, stored], // the hint is part of what was shown
      [{ authorization: '***ABCD' }, stored],
      [{ 'x-api-key': '***' }, stored], // nothing stored under that name
      [{ Authorization: '***WXYZ' }, {}], // a create has nothing stored
    ] as const) {
      expect(() => unmaskHeaders(headers, from)).toThrow(/headers: the value of '.+' is masked/);
    }
  });
});
