/**
 * How API Gateway reads a Lambda proxy result, for the `aws-v1` and `aws-v2`
 * formats (docs/functions.md, "Event formats"). Where AWS answers a malformed
 * result with its own 502 (REST's "Malformed Lambda proxy response"), the
 * gateway answers 502 `invalid_result` saying what is wrong.
 */
import {
  BINARY_CT,
  TEXT_CT,
  copyHeaders,
  invalidResult,
  isHeaderValue,
  isRecord,
  jsonResponse,
  parsesAsJson,
  type GatewayResponse,
} from './result.js';
import { firstAccept, type BinaryMediaTypes } from './policy/media-types.js';

/** An API's binaryMediaTypes with the request they are weighed against (REST semantics, aws-v1 only). */
export interface BinaryRule {
  types: BinaryMediaTypes;
  rawHeaders: string[];
}

/** What API Gateway puts on a proxy response whose function set no content type. */
const AWS_JSON_CT = 'application/json';

/** An integer, or a string of one (API Gateway reads `"200"` as 200); null otherwise. */
function statusOf(v: unknown): number | null {
  if (typeof v === 'number') return Number.isInteger(v) ? v : null;
  if (typeof v === 'string' && /^\d{1,3}$/.test(v)) return Number(v);
  return null;
}

/** The part both formats share once `statusCode` is known to be there. */
function proxyResponse(
  result: Record<string, unknown>,
  headers: Record<string, string | string[]>,
  requestId: string | undefined,
  defaultType: (body: string) => string,
  binary: BinaryRule | null = null,
): GatewayResponse {
  const status = statusOf(result.statusCode);
  if (status === null || status < 100 || status > 599) {
    return invalidResult(
      `Function returned statusCode ${shown(result.statusCode)}; it must be an integer from 100 to 599`,
      requestId,
    );
  }
  const body = result.body;
  if (body !== undefined && body !== null && typeof body !== 'string') {
    return invalidResult(
      `Function returned a ${Array.isArray(body) ? 'array' : typeof body} body; in the AWS formats body must be a string (JSON.stringify it)`,
      requestId,
    );
  }
  // These statuses never carry a body on the wire; don't invent a content type for one.
  if (body === undefined || body === null || status < 200 || status === 204 || status === 304) {
    return { status, headers, body: null };
  }
  if (result.isBase64Encoded === true) {
    if (binary === null) {
      if (headers['content-type'] === undefined) headers['content-type'] = BINARY_CT;
      return { status, headers, body: Buffer.from(body, 'base64') };
    }
    // REST API: decoded only when the answer's Content-Type or the caller's first Accept
    // type is a binary media type; otherwise the base64 text goes out as it is.
    const type = headers['content-type'];
    if (binary.types.matches(typeof type === 'string' ? type : undefined) || binary.types.matches(firstAccept(binary.rawHeaders))) {
      return { status, headers, body: Buffer.from(body, 'base64') };
    }
  }
  if (headers['content-type'] === undefined) headers['content-type'] = defaultType(body);
  return { status, headers, body };
}

/**
 * REST API rules: the result must be an object with a `statusCode` and a
 * string (or absent) `body`; anything else, `undefined` and plain values
 * included, is malformed. `multiValueHeaders` win over `headers` of the same
 * name. A base64 body with `isBase64Encoded` is sent decoded when the API has
 * no binaryMediaTypes set (`binary` null); with them, only when the answer's
 * Content-Type or the request's first Accept type is one of them, as a REST
 * API does.
 */
export function mapAwsV1Result(result: unknown, requestId?: string, binary: BinaryRule | null = null): GatewayResponse {
  if (!isRecord(result) || result.statusCode === undefined) {
    return invalidResult(
      'Function result must be an object with statusCode (and a string body) in the aws-v1 format; ' +
        `it returned ${describe(result)}`,
      requestId,
    );
  }
  return proxyResponse(result, copyHeaders(result.headers, result.multiValueHeaders), requestId, () => AWS_JSON_CT, binary);
}

/**
 * Payload format 2.0 rules: a result without `statusCode` (any JSON value,
 * `undefined` read as `null`) is a 200 whose JSON body is the whole value;
 * otherwise `headers` (no `multiValueHeaders` in 2.0) and each of `cookies`
 * as its own `set-cookie` header.
 */
export function mapAwsV2Result(result: unknown, requestId?: string): GatewayResponse {
  if (!isRecord(result) || result.statusCode === undefined) {
    return jsonResponse(200, {}, result === undefined ? null : result, requestId, AWS_JSON_CT);
  }
  const headers = copyHeaders(result.headers, undefined);
  if (Array.isArray(result.cookies)) {
    const cookies = result.cookies.filter((c): c is string => typeof c === 'string' && isHeaderValue(c));
    if (cookies.length > 0) {
      const given = headers['set-cookie'] ?? [];
      headers['set-cookie'] = [...(Array.isArray(given) ? given : [given]), ...cookies];
    }
  }
  return proxyResponse(result, headers, requestId, (body) => (parsesAsJson(body) ? AWS_JSON_CT : TEXT_CT));
}

/** A returned value, briefly: the user sees it in an error message. */
function shown(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '...' : v);
  return Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v;
}

function describe(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object without statusCode';
  return `a ${typeof v}`;
}
