/**
 * Validation of API basePaths and route path templates, plus the one rule for
 * joining them. Validators return a human message (naming the field) or null,
 * so the management layer decides how to wrap it (field prefix, error class).
 *
 * A template segment is static, a parameter (`:id`, or API Gateway's `{id}`),
 * or a final greedy one (`*`, or API Gateway's `{proxy+}`): the two spellings
 * are the same route, so templates copy from serverless.yml and SAM files.
 *
 * Static segments allow only RFC 3986 unreserved characters and
 * percent-escapes: anything else would be re-encoded differently by clients
 * and then never match. Dot segments are refused in any spelling (`..`,
 * `%2e%2e`, `.%2E`): clients resolve them away before sending.
 */

import { routeShape } from '../store/store.js';

/** Where invocations are served: `<prefix><api id><base path>/...`. */
export const INVOKE_PREFIX = '/api/invoke/fn/';

/** The path under which an API's routes answer: its invoke URL without the origin. */
export function invokePathOf(apiId: string, basePath: string): string {
  return `${INVOKE_PREFIX}${apiId}${basePath === '/' ? '' : basePath}`;
}

const STATIC_SEGMENT = /^(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2})+$/;
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** API Gateway's own rule for names in braces (`{produce-category}` is valid there). */
const BRACE_NAME = /^[A-Za-z0-9._-]+$/;

/** One segment of a route template, whichever spelling it uses. */
export type TemplateSegment =
  | { kind: 'static'; text: string }
  | { kind: 'param'; name: string }
  /** `name` is null for `*`, whose value is `pathParameters["*"]` (and `proxy` in the AWS formats). */
  | { kind: 'greedy'; name: string | null };

/** Classifies a segment of a template that validateRoutePath accepted. */
export function templateSegment(seg: string): TemplateSegment {
  if (seg === '*') return { kind: 'greedy', name: null };
  if (seg.charCodeAt(0) === 58 /* : */) return { kind: 'param', name: seg.slice(1) };
  if (seg.charCodeAt(0) === 123 /* { */ && seg.endsWith('}')) {
    return seg.endsWith('+}') ? { kind: 'greedy', name: seg.slice(1, -2) } : { kind: 'param', name: seg.slice(1, -1) };
  }
  return { kind: 'static', text: seg };
}

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
    if (seg.startsWith(':') || seg.includes('*') || seg.includes('{')) {
      return `basePath segments must be static: '${seg}' found`;
    }
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
    const problem = checkTemplateSegment(seg, i === segs.length - 1);
    if (problem !== null) return problem;
    const parsed = templateSegment(seg);
    if (parsed.kind === 'static' || parsed.name === null) continue;
    if (seen.has(parsed.name)) return `path parameter '${seg}' appears more than once`;
    seen.add(parsed.name);
  }
  return null;
}

function checkTemplateSegment(seg: string, last: boolean): string | null {
  if (seg === '*') return last ? null : `path wildcard '*' is only allowed as the last segment`;
  if (seg.startsWith(':')) {
    return PARAM_NAME.test(seg.slice(1))
      ? null
      : `path parameter '${seg}' must be ':' followed by a name matching [A-Za-z_][A-Za-z0-9_]*`;
  }
  if (seg.startsWith('{')) {
    const greedy = seg.endsWith('+}');
    const name = seg.endsWith('}') ? seg.slice(1, greedy ? -2 : -1) : '';
    if (!BRACE_NAME.test(name)) {
      return `path parameter '${seg}' must be '{name}' or a final '{name+}', the name made of letters, digits, '.', '_' and '-'`;
    }
    if (greedy && !last) return `path parameter '${seg}' is greedy and only allowed as the last segment`;
    return null;
  }
  if (seg.includes('*')) return `path segment '${seg}' is invalid: '*' must be a whole, final segment`;
  return checkStatic('path', seg);
}

/** basePath + route path, where `/` on either side means "nothing to add". */
export function joinPath(basePath: string, routePath: string): string {
  if (basePath === '/' || basePath === '') return routePath === '' ? '/' : routePath;
  if (routePath === '/' || routePath === '') return basePath;
  return basePath + routePath;
}

/**
 * The shape of a route path for conflict detection: `/users/:id`,
 * `/users/:name` and `/users/{id}` are the same shape, as are `/files/*` and
 * `/files/{proxy+}`. The store computes it for its uniqueness constraint.
 */
export const pathShape = routeShape;

/**
 * A template in API Gateway's syntax, as AWS events carry it in `resource`,
 * `resourcePath` and `routeKey`: `:id` -> `{id}`, `*` -> `{proxy+}`.
 */
export function awsTemplate(template: string): string {
  if (template.indexOf(':') === -1 && template.indexOf('*') === -1) return template;
  return template
    .split('/')
    .map((s) => (s === '*' ? '{proxy+}' : s.startsWith(':') ? `{${s.slice(1)}}` : s))
    .join('/');
}
