/**
 * Validation of API basePaths and route path templates, plus the one rule for
 * joining them. Validators return a human message (naming the field) or null,
 * so the management layer decides how to wrap it (field prefix, error class).
 *
 * Static segments allow only RFC 3986 unreserved characters and
 * percent-escapes: anything else would be re-encoded differently by clients
 * and then never match. Dot segments are refused in any spelling (`..`,
 * `%2e%2e`, `.%2E`): clients resolve them away before sending.
 */

const STATIC_SEGMENT = /^(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2})+$/;
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Decodes a percent-encoded segment; a malformed escape yields the raw text instead of throwing. */
export function safeDecode(s: string): string {
  if (s.indexOf('%') === -1) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function checkStatic(field: string, seg: string): string | null {
  // Decoded first: clients resolve `%2e%2e` like `..` (WHATWG URL), so such a path could never be called.
  const decoded = safeDecode(seg);
  if (decoded === '.' || decoded === '..') {
    return seg === decoded
      ? `${field} must not contain '.' or '..' segments`
      : `${field} must not contain '.' or '..' segments, percent-encoded ('${seg}') or not`;
  }
  if (!STATIC_SEGMENT.test(seg)) {
    return `${field} segment '${seg}' may only contain letters, digits, '-', '.', '_', '~' and percent-escapes (%XX)`;
  }
  // A well-formed escape can still be invalid UTF-8 (%FF): such a segment could never be compared reliably.
  if (seg.indexOf('%') !== -1) {
    try {
      decodeURIComponent(seg);
    } catch {
      return `${field} segment '${seg}' contains a percent-escape that is not valid UTF-8`;
    }
  }
  return null;
}

/** Shared shape checks: leading slash, no trailing slash (except the root), no empty segments. */
function checkShape(field: string, p: unknown): string | null {
  if (typeof p !== 'string') return `${field} must be a string`;
  if (!p.startsWith('/')) return `${field} must start with /`;
  if (p.length > 1 && p.endsWith('/')) return `${field} must not end with / (except the root /)`;
  if (p.includes('//')) return `${field} must not contain empty segments (//)`;
  return null;
}

export function validateBasePath(p: string): string | null {
  const shape = checkShape('basePath', p);
  if (shape !== null || p === '/') return shape;
  for (const seg of p.slice(1).split('/')) {
    if (seg.startsWith(':') || seg.includes('*')) return `basePath segments must be static: '${seg}' found`;
    const err = checkStatic('basePath', seg);
    if (err !== null) return err;
  }
  return null;
}

export function validateRoutePath(p: string): string | null {
  const shape = checkShape('path', p);
  if (shape !== null || p === '/') return shape;
  const segs = p.slice(1).split('/');
  const seen = new Set<string>();
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i];
    if (seg === '*') {
      if (i !== segs.length - 1) return `path wildcard '*' is only allowed as the last segment`;
      continue;
    }
    if (seg.startsWith(':')) {
      const name = seg.slice(1);
      if (!PARAM_NAME.test(name)) {
        return `path parameter '${seg}' must be ':' followed by a name matching [A-Za-z_][A-Za-z0-9_]*`;
      }
      if (seen.has(name)) return `path parameter ':${name}' appears more than once`;
      seen.add(name);
      continue;
    }
    if (seg.includes('*')) return `path segment '${seg}' is invalid: '*' must be a whole, final segment`;
    const err = checkStatic('path', seg);
    if (err !== null) return err;
  }
  return null;
}

/** basePath + route path, where `/` on either side means "nothing to add". */
export function joinPath(basePath: string, routePath: string): string {
  if (basePath === '/' || basePath === '') return routePath === '' ? '/' : routePath;
  if (routePath === '/' || routePath === '') return basePath;
  return basePath + routePath;
}

/**
 * The shape of a route path for conflict detection: `/users/:id` and
 * `/users/:name` are the same shape. Used by the management layer (409).
 */
export function pathShape(template: string): string {
  if (template.indexOf(':') === -1) return template;
  return template
    .split('/')
    .map((s) => (s.startsWith(':') ? ':' : s))
    .join('/');
}
