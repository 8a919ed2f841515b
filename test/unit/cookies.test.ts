/**
 * The cookies a function sets, kept to its API's invoke path
 * (src/gateway/cookies.ts): Path forced under it, Domain dropped, the rest
 * untouched, read the way browsers read the attribute list.
 */
import { describe, expect, it } from 'vitest';
import { scopeCookie, scopeCookies } from '../../src/gateway/cookies.js';

const SCOPE = '/api/invoke/fn/api_1/shop';

describe('scopeCookie', () => {
  it('gives a cookie without a Path the API\'s path, keeping its other attributes', () => {
    expect(scopeCookie('sid=abc; HttpOnly; Max-Age=60; SameSite=Lax', SCOPE)).toBe(
      `sid=abc; HttpOnly; Max-Age=60; SameSite=Lax; Path=${SCOPE}`,
    );
    expect(scopeCookie('sid=abc', SCOPE)).toBe(`sid=abc; Path=${SCOPE}`);
  });

  it('replaces a Path outside the API, whatever its case or spacing', () => {
    for (const path of ['path=/', ' PATH = / ', 'Path=/api', 'Path=/api/invoke/fn/api_1/sho', 'Path=/api/invoke/fn/api_10/shop', 'Path=', 'Path']) {
      expect(scopeCookie(`a=1; ${path}; Secure`, SCOPE), path).toBe(`a=1; Secure; Path=${SCOPE}`);
    }
  });

  it('keeps a Path at or under the API', () => {
    expect(scopeCookie(`a=1; Path=${SCOPE}`, SCOPE)).toBe(`a=1; Path=${SCOPE}`);
    expect(scopeCookie(`a=1; Path=${SCOPE}/cart`, SCOPE)).toBe(`a=1; Path=${SCOPE}/cart`);
  });

  it('reads the last Path, as browsers do', () => {
    expect(scopeCookie(`a=1; Path=${SCOPE}/cart; Path=/`, SCOPE)).toBe(`a=1; Path=${SCOPE}`);
    expect(scopeCookie(`a=1; Path=/; Path=${SCOPE}/cart`, SCOPE)).toBe(`a=1; Path=${SCOPE}/cart`);
  });

  it('drops every Domain, so the cookie stays on the host that set it', () => {
    expect(scopeCookie('a=1; Domain=example.com; domain=.example.com; Secure', SCOPE)).toBe(`a=1; Secure; Path=${SCOPE}`);
  });

  it('leaves the name and value as they are (a value may hold = and spaces)', () => {
    expect(scopeCookie('token=a=b c==; Path=/', SCOPE)).toBe(`token=a=b c==; Path=${SCOPE}`);
  });
});

describe('scopeCookies', () => {
  it('scopes each cookie of a list, and a lone value', () => {
    expect(scopeCookies(['a=1; Path=/', 'b=2; Domain=x.test'], SCOPE)).toEqual([`a=1; Path=${SCOPE}`, `b=2; Path=${SCOPE}`]);
    expect(scopeCookies('a=1', SCOPE)).toEqual([`a=1; Path=${SCOPE}`]);
  });
});
