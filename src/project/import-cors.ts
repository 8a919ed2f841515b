/**
 * CORS from serverless.yml and SAM templates, as the project file's `cors`
 * (one policy per API: Switchyard's CORS is the HTTP API's, per API).
 *
 * - serverless.yml `http` events: `cors: true` allows any origin, the
 *   Serverless Framework's default headers, and the event's method with
 *   OPTIONS; the object form gives `origin`/`origins`, `headers`, `methods`,
 *   `allowCredentials`, `maxAge`. A REST API's CORS is per path there: the
 *   policies of an API's events are merged into one (reported).
 * - serverless.yml `provider.httpApi.cors`: `true` (any origin, the default
 *   headers, the methods of the API's routes) or `allowedOrigins`,
 *   `allowedHeaders`, `allowedMethods`, `allowCredentials`,
 *   `exposedResponseHeaders`, `maxAge`.
 * - SAM `Cors` of an Api (a quoted origin, or `AllowOrigin`, `AllowMethods`,
 *   `AllowHeaders`, `MaxAge`, `AllowCredentials`, each a quoted header value)
 *   and `CorsConfiguration` of an HttpApi (`true`: everything, or the lists).
 */
import type { CorsMethod } from '../types.js';
import type { FileCors } from './types.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The headers the Serverless Framework allows for `cors: true`. */
export const SERVERLESS_CORS_HEADERS = [
  'Content-Type',
  'X-Amz-Date',
  'Authorization',
  'X-Api-Key',
  'X-Amz-Security-Token',
  'X-Amz-User-Agent',
  'X-Amzn-Trace-Id',
];

const METHODS = new Set<string>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', '*']);
const ORIGIN = /^(\*|[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\s*]+)$/;
const HEADER = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const listOf = (v: unknown): string[] =>
  (Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : []).filter((x): x is string => typeof x === 'string').map((s) => s.trim()).filter(Boolean);

/** `'a, b'` (SAM's quoted header values) -> `a, b`. */
const unquote = (v: unknown): string | undefined => (typeof v === 'string' ? v.trim().replace(/^'(.*)'$/s, '$1') : undefined);

/** Keeps what the file's schema takes, naming what it drops. */
function cleaned(raw: { origins: string[]; methods: string[]; headers: string[]; expose?: string[]; maxAge?: unknown; credentials?: unknown }, where: string, notes: string[]): FileCors | null {
  const origins = raw.origins.filter((o) => ORIGIN.test(o));
  const dropped = raw.origins.filter((o) => !ORIGIN.test(o));
  if (dropped.length > 0) notes.push(`${where}: origins ${dropped.join(', ')} not carried (an origin is exact, scheme://host[:port], or *)`);
  if (origins.length === 0) {
    notes.push(`${where}: no origin to allow; CORS not carried`);
    return null;
  }
  const out: FileCors = { allow_origins: [...new Set(origins)] };
  const methods = [...new Set(raw.methods.map((m) => (m.toUpperCase() === 'ANY' ? '*' : m.toUpperCase())).filter((m) => METHODS.has(m)))];
  if (methods.length > 0) out.allow_methods = methods.includes('*') ? ['*'] : (methods as CorsMethod[]);
  const headers = [...new Set(raw.headers.filter((h) => HEADER.test(h)))];
  if (headers.length > 0) out.allow_headers = headers;
  const expose = [...new Set((raw.expose ?? []).filter((h) => HEADER.test(h)))];
  if (expose.length > 0) out.expose_headers = expose;
  const maxAge = Number(raw.maxAge);
  if (raw.maxAge !== undefined && Number.isInteger(maxAge) && maxAge >= 0) out.max_age = Math.min(maxAge, 86_400);
  if (raw.credentials === true || raw.credentials === 'true') {
    if (out.allow_origins.includes('*')) notes.push(`${where}: allowCredentials with the origin * not carried (browsers refuse it; list the origins)`);
    else out.allow_credentials = true;
  }
  return out;
}

/** An `http` event's `cors` (true or the object form) for a route of `method`. */
export function serverlessHttpCors(spec: unknown, method: string, where: string, notes: string[]): FileCors | null {
  if (spec === true) return cleaned({ origins: ['*'], methods: [method, 'OPTIONS'], headers: SERVERLESS_CORS_HEADERS }, where, notes);
  if (!isObj(spec)) return null;
  const origins = spec.origins !== undefined ? listOf(spec.origins) : spec.origin !== undefined ? listOf(spec.origin) : ['*'];
  const headers = spec.headers !== undefined ? listOf(spec.headers) : SERVERLESS_CORS_HEADERS;
  const methods = spec.methods !== undefined ? listOf(spec.methods) : [method, 'OPTIONS'];
  if (spec.cacheControl !== undefined) notes.push(`${where}.cacheControl: not carried (preflight answers carry Access-Control-Max-Age)`);
  return cleaned({ origins, methods, headers, maxAge: spec.maxAge, credentials: spec.allowCredentials }, where, notes);
}

/** `provider.httpApi.cors`: `methods` are those of the API's routes, for `true` and where `allowedMethods` is absent. */
export function serverlessHttpApiCors(spec: unknown, methods: string[], where: string, notes: string[]): FileCors | null {
  if (spec === true) return cleaned({ origins: ['*'], methods: [...methods, 'OPTIONS'], headers: SERVERLESS_CORS_HEADERS }, where, notes);
  if (!isObj(spec)) return null;
  return cleaned(
    {
      origins: spec.allowedOrigins !== undefined ? listOf(spec.allowedOrigins) : ['*'],
      methods: spec.allowedMethods !== undefined ? listOf(spec.allowedMethods) : [...methods, 'OPTIONS'],
      headers: spec.allowedHeaders !== undefined ? listOf(spec.allowedHeaders) : SERVERLESS_CORS_HEADERS,
      expose: listOf(spec.exposedResponseHeaders),
      maxAge: spec.maxAge,
      credentials: spec.allowCredentials,
    },
    where,
    notes,
  );
}

/** SAM `Cors` of an Api: a quoted origin, or the object of quoted header values. */
export function samApiCors(spec: unknown, where: string, notes: string[]): FileCors | null {
  if (typeof spec === 'string') return cleaned({ origins: listOf(unquote(spec)), methods: ['*'], headers: [] }, where, notes);
  if (!isObj(spec)) return null;
  return cleaned(
    {
      origins: listOf(unquote(spec.AllowOrigin)),
      // SAM allows every method when AllowMethods is left out.
      methods: spec.AllowMethods !== undefined ? listOf(unquote(spec.AllowMethods)) : ['*'],
      headers: listOf(unquote(spec.AllowHeaders)),
      maxAge: unquote(spec.MaxAge),
      credentials: spec.AllowCredentials,
    },
    where,
    notes,
  );
}

/** SAM `CorsConfiguration` of an HttpApi: `true` allows everything; else the lists. */
export function samHttpApiCors(spec: unknown, where: string, notes: string[]): FileCors | null {
  if (spec === true) return { allow_origins: ['*'], allow_methods: ['*'], allow_headers: ['*'] };
  if (!isObj(spec)) return null;
  return cleaned(
    {
      origins: listOf(spec.AllowOrigins),
      methods: listOf(spec.AllowMethods),
      headers: listOf(spec.AllowHeaders),
      expose: listOf(spec.ExposeHeaders),
      maxAge: spec.MaxAge,
      credentials: spec.AllowCredentials,
    },
    where,
    notes,
  );
}

/** Two policies of one API as one: every list joined, the longer max age, credentials if either. */
export function mergeCors(a: FileCors | undefined, b: FileCors): FileCors {
  if (!a) return b;
  const join = (x?: string[], y?: string[]) => {
    const all = [...new Set([...(x ?? []), ...(y ?? [])])];
    return all.length === 0 ? undefined : all.includes('*') ? ['*'] : all;
  };
  const out: FileCors = { allow_origins: join(a.allow_origins, b.allow_origins)! };
  const methods = join(a.allow_methods, b.allow_methods);
  if (methods) out.allow_methods = methods;
  const headers = join(a.allow_headers, b.allow_headers);
  if (headers) out.allow_headers = headers;
  const expose = join(a.expose_headers, b.expose_headers);
  if (expose) out.expose_headers = expose;
  const ages = [a.max_age, b.max_age].filter((x): x is number => typeof x === 'number');
  if (ages.length > 0) out.max_age = Math.max(...ages);
  if ((a.allow_credentials || b.allow_credentials) && !out.allow_origins.includes('*')) out.allow_credentials = true;
  return out;
}
