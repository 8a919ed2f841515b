import { describe, expect, it } from 'vitest';
import {
  hasMaskedCredential,
  isSensitiveHeader,
  maskHeaders,
  maskUrl,
  maskValue,
  unmaskHeaders,
  unmaskUrl,
} from '../../src/webhooks/masking.js';

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

describe('webhook target URL masking', () => {
  it('masks the userinfo and credential-like query values, and keeps the rest byte for byte', () => {
    expect(maskUrl('https://user:pa55word@hooks.example.com/in?x=1')).toBe('https://***:***@hooks.example.com/in?x=1');
    // A key as the user name, with an empty password (as some APIs take it).
    expect(maskUrl('https://sk_live_0123456789abcdefWXYZ:@api.example/v1')).toBe('https://***WXYZ:@api.example/v1');
    expect(maskUrl('https://token@h.example/')).toBe('https://***@h.example/');
    expect(maskUrl('https://h.example/p?token=abc&x=1&api_key=k&Signature=s&sig=q&code=c&page=2#frag')).toBe(
      'https://h.example/p?token=***&x=1&api_key=***&Signature=***&sig=***&code=***&page=2#frag',
    );
    expect(maskUrl('https://h.example/p?access%5Ftoken=abc')).toBe('https://h.example/p?access%5Ftoken=***');
    // Without credentials the URL is shown exactly as stored, odd spellings included.
    for (const plain of ['HTTPS://Hooks.Example.com:443/a/../b?x=1&y', 'http://127.0.0.1:9/hook', 'https://h.example/?token=', 'https://h.example/a@b']) {
      expect(maskUrl(plain)).toBe(plain);
    }
  });

  it('takes the URL back as shown for the stored one, refuses other masked ones, and passes real ones', () => {
    const stored = 'https://user:pa55word@hooks.example.com/in?token=t0k&x=1';
    expect(unmaskUrl(maskUrl(stored), stored)).toBe(stored);
    expect(unmaskUrl('https://other:new@hooks.example.com/in', stored)).toBe('https://other:new@hooks.example.com/in');
    for (const masked of ['https://***:***@hooks.example.com/in?token=***&x=1', 'https://h.example/?token=***', 'https://***@h.example/']) {
      expect(hasMaskedCredential(masked), masked).toBe(true);
      expect(() => unmaskUrl(masked)).toThrow(/target_url/);
    }
    // A masked URL whose rest differs from the stored one's is not the stored one.
    expect(() => unmaskUrl(maskUrl(stored).replace('/in', '/out'), stored)).toThrow(/target_url/);
    expect(hasMaskedCredential('https://h.example/p?note=***')).toBe(false);
  });
});
