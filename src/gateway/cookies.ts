/**
 * Keeps the cookies a function sets to its own API's paths. A function is
 * served on the same host as the dashboard and every other API (by default
 * the same origin; cookies ignore ports, so also with the admin listener): a
 * cookie with `Path=/` or a `Domain` would ride along on every dashboard and
 * management request from that browser, and enough of them make each one
 * fail with 431 for as long as they last. So every cookie gets
 * `Path=<the API's invoke path>` (a Path already under it is kept) and loses
 * its `Domain` (a cookie without one stays on the host that set it; with one,
 * it would reach sibling host names too).
 *
 * Written by hand rather than with a cookie library: only the attribute list
 * is touched (split on `;`, names compared case-insensitively, as browsers
 * read it, RFC 6265bis section 5.6); the name and value pass unchanged.
 */

function within(path: string, scope: string): boolean {
  return path === scope || (path.startsWith(scope) && path.charCodeAt(scope.length) === 47 /* / */);
}

/** One `Set-Cookie` value with its Path forced under `scope` and no Domain. */
export function scopeCookie(cookie: string, scope: string): string {
  const parts = cookie.split(';');
  let out = parts[0];
  let path: string | null = null;
  for (let i = 1; i < parts.length; i++) {
    const attribute = parts[i].trim();
    if (attribute === '') continue;
    const eq = attribute.indexOf('=');
    const name = (eq === -1 ? attribute : attribute.slice(0, eq)).trim().toLowerCase();
    if (name === 'domain') continue;
    if (name === 'path') {
      // The last Path counts, as in browsers; one outside the API is replaced.
      const value = eq === -1 ? '' : attribute.slice(eq + 1).trim();
      path = within(value, scope) ? value : null;
      continue;
    }
    out += `; ${attribute}`;
  }
  return `${out}; Path=${path ?? scope}`;
}

/** Every `Set-Cookie` value of a function's answer, scoped to `scope`. */
export function scopeCookies(cookies: string | string[], scope: string): string[] {
  if (typeof cookies === 'string') return [scopeCookie(cookies, scope)];
  const out = new Array<string>(cookies.length);
  for (let i = 0; i < cookies.length; i++) out[i] = scopeCookie(cookies[i], scope);
  return out;
}
