/**
 * Builds the event a `switchyard`-format function receives: a superset of the
 * AWS API Gateway proxy event (format 1.0) with the JSON body already parsed.
 * (The exact AWS formats are aws-event-v1.ts and aws-event-v2.ts.)
 * Runs once per request: single passes over headers and query, no URL objects.
 */
import { isUtf8 } from 'node:buffer';
import { unescape as qsUnescape } from 'node:querystring';
import { InvalidRequestError, jsonTooDeep } from '../errors.js';
import { jsonTextTooDeep } from '../json-limits.js';
import type { Route } from '../types.js';
import { setOwn } from './route-table.js';

export interface RequestFacts {
  method: string;
  /** After `/api/invoke/fn/<apiId>`, e.g. `/users/42`; still percent-encoded. */
  path: string;
  /** Text after `?`, '' if none. */
  rawQuery: string;
  /** node `req.rawHeaders`: [name, value, name, value, ...]. */
  rawHeaders: string[];
  body: Buffer | null;
  /** The client's address: the socket's peer, or behind trusted proxies the one X-Forwarded-For names. */
  sourceIp: string;
  /** The socket's peer (a proxy's address behind one), appended to the AWS formats' X-Forwarded-For; default sourceIp. */
  peerIp?: string;
  requestId: string;
  apiId: string;
  requestTimeEpoch: number;
  /** `1.1` (node's `req.httpVersion`); the AWS formats report `HTTP/<it>`. Default 1.1. */
  httpVersion?: string;
  /** The server port the client connected to, for the AWS formats' X-Forwarded-Port. */
  localPort?: number;
}

export interface InvocationRequestContext {
  requestId: string;
  apiId: string | null;
  routeId: string | null;
  httpMethod: string;
  /** The full request path, like AWS's stage-prefixed one: `/api/invoke/fn/<apiId>/users/42`. */
  path: string;
  sourceIp: string;
  requestTimeEpoch: number;
  /** What the route's authorizer passed on, as in the aws-v1 event (a JWT's claims keep their JSON types); absent without one. */
  authorizer?: Record<string, unknown>;
}

export interface InvocationEvent {
  httpMethod: string;
  path: string;
  resource: string;
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  queryStringParameters: Record<string, string> | null;
  multiValueQueryStringParameters: Record<string, string[]> | null;
  pathParameters: Record<string, string> | null;
  body: unknown;
  isBase64Encoded: boolean;
  requestContext: InvocationRequestContext;
}

export interface EventMatch {
  route: Route;
  pathParameters: Record<string, string> | null;
  resource: string;
}

/** `parsedBody`: the JSON body as the route's request validation parsed it, reused instead of parsed again. */
export function buildEvent(
  req: RequestFacts,
  match: EventMatch,
  authorizer: Record<string, unknown> | null = null,
  parsedBody?: { value: unknown },
): InvocationEvent {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    const value = raw[i + 1];
    const list = multiValueHeaders[name];
    if (list === undefined || !Object.hasOwn(multiValueHeaders, name)) {
      setOwn(multiValueHeaders, name, [value]);
      setOwn(headers, name, value);
    } else {
      list.push(value);
      headers[name] += ', ' + value;
    }
  }

  const q = parseQuery(req.rawQuery);
  const query = q?.single ?? null;
  const multiQuery = q?.multi ?? null;

  const path = req.path === '' ? '/' : req.path;
  const { body, isBase64Encoded } =
    parsedBody !== undefined && isJsonContentType(headers['content-type'])
      ? { body: parsedBody.value, isBase64Encoded: false }
      : decodeBody(req.body, headers['content-type']);
  const event: InvocationEvent = {
    httpMethod: req.method,
    path,
    resource: match.resource,
    headers,
    multiValueHeaders,
    queryStringParameters: query,
    multiValueQueryStringParameters: multiQuery,
    pathParameters: match.pathParameters,
    body,
    isBase64Encoded,
    requestContext: {
      requestId: req.requestId,
      apiId: req.apiId,
      routeId: match.route.id,
      httpMethod: req.method,
      path: `/api/invoke/fn/${req.apiId}${req.path}`,
      sourceIp: req.sourceIp,
      requestTimeEpoch: req.requestTimeEpoch,
    },
  };
  if (authorizer !== null) event.requestContext.authorizer = authorizer;
  return event;
}

/** Form-style decoding: `+` is a space, bad escapes are kept rather than rejected. */
function decodeComponent(s: string): string {
  if (s.indexOf('+') !== -1) s = s.replace(/\+/g, ' ');
  return s.indexOf('%') === -1 ? s : qsUnescape(s);
}

/** null when the query holds no parameter at all (``, `?` or `?&`). */
export function parseQuery(
  raw: string,
): { single: Record<string, string>; multi: Record<string, string[]> } | null {
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  let any = false;
  let start = 0;
  while (start <= raw.length) {
    let end = raw.indexOf('&', start);
    if (end === -1) end = raw.length;
    if (end > start) {
      const eq = raw.indexOf('=', start);
      const hasValue = eq !== -1 && eq < end;
      const key = decodeComponent(raw.slice(start, hasValue ? eq : end));
      const value = hasValue ? decodeComponent(raw.slice(eq + 1, end)) : '';
      const list = Object.hasOwn(multi, key) ? multi[key] : undefined;
      if (list === undefined) setOwn(multi, key, [value]);
      else list.push(value);
      setOwn(single, key, value);
      any = true;
    }
    start = end + 1;
  }
  return any ? { single, multi } : null;
}

const JSON_TYPE = /^application\/(?:[^;\s]*\+)?json\s*(?:;|$)/i;

export function isJsonContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && JSON_TYPE.test(contentType.trimStart());
}

/**
 * JSON that parses -> the value; other valid UTF-8 (any type, or none) -> the
 * string; anything else -> base64 with isBase64Encoded. JSON nested deeper
 * than MAX_JSON_DEPTH is refused (400) before parsing: the event is serialised
 * with JSON.stringify, which would overflow the stack on it.
 */
export function decodeBody(
  buf: Buffer | null,
  contentType: string | undefined,
): { body: unknown; isBase64Encoded: boolean } {
  if (buf === null || buf.length === 0) return { body: null, isBase64Encoded: false };
  if (!isUtf8(buf)) return { body: buf.toString('base64'), isBase64Encoded: true };
  const text = buf.toString('utf8');
  if (isJsonContentType(contentType)) {
    if (jsonTextTooDeep(text)) throw jsonTooDeep('body');
    try {
      return { body: JSON.parse(text), isBase64Encoded: false };
    } catch {
      // Malformed JSON still reaches the function as text: it owns the 400.
    }
  }
  return { body: text, isBase64Encoded: false };
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function stringMap(v: unknown): Record<string, string> | null {
  if (!isPlainObject(v)) return null;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (typeof val === 'string' || typeof val === 'number' || typeof val === 'boolean') setOwn(out, k, String(val));
  }
  return out;
}

export function lowerKeys<T>(obj: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [k, v] of Object.entries(obj)) setOwn(out, k.toLowerCase(), v);
  return out;
}

export function toMulti(single: Record<string, string>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(single)) setOwn(out, k, [v]);
  return out;
}

/**
 * Completes a user-supplied test event (`POST /api/functions/:name/invoke`):
 * fields the user gave are kept as given, except that header names are
 * lower-cased (handlers rely on it) and absent multi-value maps are derived
 * from their single-value twins.
 */
export function defaultEvent(
  partial: unknown,
  ids: { requestId: string; functionName: string },
): InvocationEvent {
  if (partial === undefined || partial === null) partial = {};
  if (!isPlainObject(partial)) {
    throw new InvalidRequestError(`event for function '${ids.functionName}' must be a JSON object`);
  }
  const p = partial;
  const httpMethod = typeof p.httpMethod === 'string' ? p.httpMethod : 'POST';
  const path = typeof p.path === 'string' ? p.path : '/';

  let headers: Record<string, string> = {};
  if (isPlainObject(p.headers)) headers = lowerKeys(stringMap(p.headers) ?? {});
  let multiValueHeaders: Record<string, string[]>;
  if (isPlainObject(p.multiValueHeaders)) {
    multiValueHeaders = lowerKeys(p.multiValueHeaders as Record<string, string[]>);
  } else {
    multiValueHeaders = toMulti(headers);
  }

  const query = stringMap(p.queryStringParameters);
  const multiQuery = isPlainObject(p.multiValueQueryStringParameters)
    ? (p.multiValueQueryStringParameters as Record<string, string[]>)
    : query === null
      ? null
      : toMulti(query);

  const ctx = isPlainObject(p.requestContext) ? p.requestContext : {};
  const event: InvocationEvent & Record<string, unknown> = {
    ...p,
    httpMethod,
    path,
    resource: typeof p.resource === 'string' ? p.resource : path,
    headers,
    multiValueHeaders,
    queryStringParameters: query,
    multiValueQueryStringParameters: multiQuery,
    pathParameters: stringMap(p.pathParameters),
    body: p.body === undefined ? null : p.body,
    isBase64Encoded: p.isBase64Encoded === true,
    requestContext: {
      ...ctx,
      requestId: ids.requestId,
      apiId: typeof ctx.apiId === 'string' ? ctx.apiId : null,
      routeId: typeof ctx.routeId === 'string' ? ctx.routeId : null,
      httpMethod,
      path: typeof ctx.path === 'string' ? ctx.path : path,
      sourceIp: typeof ctx.sourceIp === 'string' ? ctx.sourceIp : '127.0.0.1',
      requestTimeEpoch: typeof ctx.requestTimeEpoch === 'number' ? ctx.requestTimeEpoch : Date.now(),
    },
  };
  return event;
}
