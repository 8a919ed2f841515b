/**
 * How the invocation endpoint splits its raw URL (src/http/invoke.ts): the
 * path that generated clients send as one encoded segment is read with its
 * `%2F` as `/`; anything else is left exactly as sent.
 */
import { describe, expect, it } from 'vitest';
import { splitInvokeUrl } from '../../src/http/invoke.js';

const P = '/api/invoke/fn/';

describe('splitInvokeUrl', () => {
  it('reads the encoded slashes of a one-segment path (what generated clients send) as slashes', () => {
    expect(splitInvokeUrl(`${P}api_1/v1%2Fusers%2F42?x=1`)).toEqual({ apiId: 'api_1', path: '/v1/users/42', rawQuery: 'x=1' });
    expect(splitInvokeUrl(`${P}api_1/v1%2fusers`).path).toBe('/v1/users');
    // The path given with its leading slash is not doubled.
    expect(splitInvokeUrl(`${P}api_1/%2Fv1%2Fusers`).path).toBe('/v1/users');
    expect(splitInvokeUrl(`${P}api_1/users%2F`).path).toBe('/users/');
  });

  it('leaves raw paths, other escapes and the API id as sent', () => {
    expect(splitInvokeUrl(`${P}api_1/v1/users/42`).path).toBe('/v1/users/42');
    // Several segments: an encoded slash stays part of its segment's value.
    expect(splitInvokeUrl(`${P}api_1/files/a%2Fb`).path).toBe('/files/a%2Fb');
    expect(splitInvokeUrl(`${P}api_1/a%20b`).path).toBe('/a%20b');
    // Decoded once: an escaped %2F stays escaped.
    expect(splitInvokeUrl(`${P}api_1/files%2Fa%252Fb`).path).toBe('/files/a%252Fb');
    expect(splitInvokeUrl(`${P}api_1%2Fv1%2Fusers`)).toEqual({ apiId: 'api_1%2Fv1%2Fusers', path: '', rawQuery: '' });
    expect(splitInvokeUrl(`${P}api_1`)).toEqual({ apiId: 'api_1', path: '', rawQuery: '' });
    expect(splitInvokeUrl(`${P}api_1/`).path).toBe('/');
  });
});
