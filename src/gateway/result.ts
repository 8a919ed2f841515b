/**
 * Turns what a handler returned into the HTTP response the caller gets
 * (docs/functions.md, "The result"); an unusable result into its `invalid_result`
 * answer (worded per API by error-answers.ts, as every invocation failure).
 * A function can set any header except `x-request-id` (ours, for tracing),
 * hop-by-hop / framing headers, which only the server may decide, and the
 * headers whose effect reaches past the answer to the whole origin or host
 * (docs/security.md, "What a function's answer cannot do"). Its cookies are
 * kept to its API's paths by the gateway (cookies.ts), which knows the API.
 */
import { INVOCATION_ERROR_STATUS } from '../errors.js';

export interface GatewayResponse {
  status: number;
  /** Lower-case names. Only `set-cookie` may be an array (cookies cannot be joined with ', '). */
  headers: Record<string, string | string[]>;
  body: string | Buffer | null;
  /** Set when the function's result was unusable (`invalid_result`), for the manual invoke's `error`. */
  invalid?: string;
  /** The API's `minimumCompressionSize`, when it has one: the invoke endpoint compresses a body of at least this many bytes. */
  compressAbove?: number;
  /** An `aws-v1` function's own answer: its Access-Control-* headers stand, as a REST API's proxy integration passes them on (cors.ts). */
  ownCors?: boolean;
  /** The code of the failure this answers (`function_error`, `no_route`, ...), for the access line; absent on a function's own answer. */
  errorCode?: string;
}

const JSON_CT = 'application/json; charset=utf-8';
export const TEXT_CT = 'text/plain; charset=utf-8';
export const BINARY_CT = 'application/octet-stream';

const FORBIDDEN = new Set([
  'x-request-id',
  'connection',
  'transfer-encoding',
  'content-length',
  'keep-alive',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
  // Origin- or host-wide: a function answering one of these would act on the
  // dashboard (same origin by default) and on every other API of the server.
  'service-worker-allowed',
  'clear-site-data',
  'cross-origin-opener-policy',
  'nel',
  'report-to',
  'alt-svc',
  'strict-transport-security',
]);

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// What node's setHeader would reject (CR, LF, NUL, other controls): dropped instead of crashing the response.
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** A value node can put on the wire as a header. */
export function isHeaderValue(v: string): boolean {
  return !BAD_VALUE.test(v);
}

function errorBody(error: string, code: string, requestId?: string): string {
  return JSON.stringify(requestId === undefined ? { error, code } : { error, code, requestId });
}

export function invalidResult(message: string, requestId?: string): GatewayResponse {
  return {
    status: INVOCATION_ERROR_STATUS.invalid_result,
    headers: { 'content-type': JSON_CT },
    body: errorBody(message, 'invalid_result', requestId),
    invalid: message,
  };
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function headerText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

function headerValues(v: unknown): string[] | null {
  if (Array.isArray(v)) {
    const out: string[] = [];
    for (const item of v) {
      const s = headerText(item);
      if (s !== null) out.push(s);
    }
    return out.length === 0 ? null : out;
  }
  const s = headerText(v);
  return s === null ? null : [s];
}

/** `multiValueHeaders` replace `headers` of the same name, as in API Gateway. */
export function copyHeaders(single: unknown, multi: unknown): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const put = (name: string, raw: unknown) => {
    const lower = name.toLowerCase();
    if (FORBIDDEN.has(lower) || !TOKEN.test(name) || lower === '__proto__') return;
    const values = headerValues(raw);
    if (values === null) return;
    for (const v of values) if (BAD_VALUE.test(v)) return;
    out[lower] = lower === 'set-cookie' ? values : values.join(', ');
  };
  if (isRecord(single)) for (const name in single) if (Object.hasOwn(single, name)) put(name, single[name]);
  if (isRecord(multi)) for (const name in multi) if (Object.hasOwn(multi, name)) put(name, multi[name]);
  return out;
}

/** Cheap pre-check before JSON.parse: most text bodies fail on the first character. */
export function parsesAsJson(s: string): boolean {
  let i = 0;
  while (i < s.length && (s[i] === ' ' || s[i] === '\n' || s[i] === '\r' || s[i] === '\t')) i++;
  if (i === s.length) return false;
  const c = s[i];
  if (c !== '{' && c !== '[' && c !== '"' && c !== '-' && c !== 't' && c !== 'f' && c !== 'n' && (c < '0' || c > '9')) {
    return false;
  }
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

export function jsonResponse(
  status: number,
  headers: Record<string, string | string[]>,
  value: unknown,
  requestId?: string,
  contentType = JSON_CT,
): GatewayResponse {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) return invalidResult('Function result body cannot be serialised as JSON', requestId);
  if (headers['content-type'] === undefined) headers['content-type'] = contentType;
  return { status, headers, body: text };
}

/**
 * `requestId`, when given, is added to the body of an `invalid_result` error
 * (like every other invocation failure).
 */
export function mapResult(result: unknown, requestId?: string): GatewayResponse {
  if (result === undefined) return { status: 204, headers: {}, body: null };
  if (!isRecord(result) || !Number.isInteger(result.statusCode)) return jsonResponse(200, {}, result, requestId);

  const status = result.statusCode as number;
  if (status < 100 || status > 599) {
    return invalidResult(`Function returned statusCode ${status}; it must be an integer from 100 to 599`, requestId);
  }
  const headers = copyHeaders(result.headers, result.multiValueHeaders);
  const body = result.body;
  // These statuses never carry a body on the wire; don't invent a content type for one.
  if (body === undefined || status < 200 || status === 204 || status === 304) return { status, headers, body: null };

  if (typeof body === 'string') {
    if (result.isBase64Encoded === true) {
      if (headers['content-type'] === undefined) headers['content-type'] = BINARY_CT;
      return { status, headers, body: Buffer.from(body, 'base64') };
    }
    if (headers['content-type'] === undefined) headers['content-type'] = parsesAsJson(body) ? JSON_CT : TEXT_CT;
    return { status, headers, body };
  }
  return jsonResponse(status, headers, body, requestId);
}
