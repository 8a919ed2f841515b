/** Accept-Encoding negotiation and binaryMediaTypes matching, the pure parts of src/gateway/policy/. */
import { describe, expect, it } from 'vitest';
import { negotiateEncoding, varyOnAcceptEncoding } from '../../src/gateway/policy/compression.js';
import { compileBinaryMediaTypes, firstAccept } from '../../src/gateway/policy/media-types.js';

describe('negotiateEncoding', () => {
  it.each([
    [undefined, null],
    ['', null],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['GZIP, BR', 'br'],
    ['br;q=0.9, gzip', 'gzip'],
    ['br; q=0.9 , gzip;q=0.9', 'br'],
    ['gzip;q=abc', null],
    ['gzip;q=2', null],
    ['*;q=0.5, identity;q=0.6', null],
    ['*;q=0.5, identity;q=0.5', 'br'],
    ['identity;q=0, gzip;q=0.1', 'gzip'],
    ['deflate, compress', null],
  ] as const)('%j -> %j', (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected);
  });
});

describe('varyOnAcceptEncoding', () => {
  it('adds to what is there, once, and leaves *', () => {
    const cases: Array<[string | string[] | undefined, string | string[]]> = [
      [undefined, 'Accept-Encoding'],
      ['Origin', 'Origin, Accept-Encoding'],
      ['origin, accept-encoding', 'origin, accept-encoding'],
      ['*', '*'],
      [['Origin', 'Cookie'], 'Origin, Cookie, Accept-Encoding'],
    ];
    for (const [given, expected] of cases) {
      const headers: Record<string, string | string[]> = given === undefined ? {} : { vary: given };
      varyOnAcceptEncoding(headers);
      expect(headers.vary).toEqual(expected);
    }
  });
});

describe('binaryMediaTypes', () => {
  it('matches exact types, type/* and */*, case and parameters aside', () => {
    const types = compileBinaryMediaTypes(['image/*', 'application/pdf'])!;
    expect(types.matches('image/png')).toBe(true);
    expect(types.matches('IMAGE/PNG; q=0.8')).toBe(true);
    expect(types.matches('application/pdf;name=a')).toBe(true);
    expect(types.matches('application/json')).toBe(false);
    expect(types.matches('text/html')).toBe(false);
    expect(types.matches('image')).toBe(false);
    expect(types.matches(undefined)).toBe(false);
    expect(compileBinaryMediaTypes(['*/*'])!.matches('text/plain')).toBe(true);
    expect(compileBinaryMediaTypes([])!.matches('image/png')).toBe(false);
    expect(compileBinaryMediaTypes(null)).toBeNull();
  });

  it("reads the first type of the request's first Accept header", () => {
    expect(firstAccept(['Host', 'x', 'Accept', 'image/webp,text/html', 'accept', 'text/plain'])).toBe('image/webp');
    expect(firstAccept(['Host', 'x'])).toBeUndefined();
  });
});
