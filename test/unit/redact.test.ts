/**
 * Query redaction for logged URLs (src/net/redact.ts): the default names,
 * case and escapes in names, `*`, `none`, and credentials in a full URL.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_QUERY_REDACTION, parseQueryRedaction, redactQuery, redactUrl } from '../../src/net/redact.js';

describe('query redaction', () => {
  it('redacts the default names whatever their case or escaping, and keeps the rest as sent', () => {
    expect(redactQuery('token=abc&color=red&API_KEY=k&api%5Fkey=z&q=a%20b', DEFAULT_QUERY_REDACTION)).toBe(
      'token=[redacted]&color=red&API_KEY=[redacted]&api%5Fkey=[redacted]&q=a%20b',
    );
    expect(redactQuery('X-Amz-Signature=f00&X-Amz-Date=2026', DEFAULT_QUERY_REDACTION)).toBe('X-Amz-Signature=[redacted]&X-Amz-Date=2026');
    // A name without a value has nothing to hide; a malformed escape is read as sent.
    expect(redactQuery('token&sig=%E0%A4%A', DEFAULT_QUERY_REDACTION)).toBe('token&sig=[redacted]');
  });

  it('takes a list of its own, * for every value and none for no value', () => {
    expect(redactQuery('token=a&ssn=1', parseQueryRedaction(' SSN , pin'))).toBe('token=a&ssn=[redacted]');
    expect(redactQuery('token=a&ssn=1&x=2', parseQueryRedaction('default,ssn'))).toBe('token=[redacted]&ssn=[redacted]&x=2');
    expect(redactQuery('a=1&b=2', parseQueryRedaction('*'))).toBe('a=[redacted]&b=[redacted]');
    expect(redactQuery('token=a', parseQueryRedaction('none'))).toBe('token=a');
  });

  it("masks a full URL's user and password and keeps its fragment", () => {
    expect(redactUrl('https://user:pw@hooks.example.com/in?sig=1&x=2#top', DEFAULT_QUERY_REDACTION)).toBe(
      'https://[redacted]@hooks.example.com/in?sig=[redacted]&x=2#top',
    );
    expect(redactUrl('https://hooks.example.com/a@b?x=1', DEFAULT_QUERY_REDACTION)).toBe('https://hooks.example.com/a@b?x=1');
    expect(redactUrl('/api/functions', DEFAULT_QUERY_REDACTION)).toBe('/api/functions');
  });
});
