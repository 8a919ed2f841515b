/**
 * What the two AWS event formats (aws-event-v1.ts, aws-event-v2.ts) share:
 * the values AWS has and Switchyard cannot know (docs/functions.md, "Event
 * formats", lists each), the request time in AWS's form, the body as a string
 * or base64, the AWS view of path parameters, and the X-Forwarded-* headers
 * API Gateway adds.
 */
import { isUtf8 } from 'node:buffer';
import type { Route } from '../types.js';
import type { RequestFacts } from './event.js';
import { setOwn } from './route-table.js';

export { AWS_ACCOUNT_ID } from '../aws-placeholders.js';
/** Switchyard has no stages; HTTP APIs call their default one this. */
export const AWS_STAGE = '$default';
/** `requestContext.apiId` of events made up for `POST /api/functions/:name/invoke`, which has no API. */
export const MANUAL_API_ID = 'manual';
/** The domain of a request without a Host header (the mock-endpoint fetch, a manual invoke). */
export const DEFAULT_DOMAIN = 'localhost';

/** A route match as the AWS formats need it (RouteTable's match result is one). */
export interface AwsEventMatch {
  route: Route;
  pathParameters: Record<string, string> | null;
  /** basePath + template in API Gateway's syntax: `/users/{id}`, `/files/{proxy+}`. */
  awsResource: string;
  /** The name AWS gives the greedy parameter (`proxy` for `*`), or null. */
  awsGreedy: string | null;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function two(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

/** `04/Mar/2020:19:15:17 +0000`: API Gateway's `requestTime` / `time` (CLF, always UTC). */
export function awsRequestTime(epochMs: number): string {
  const d = new Date(epochMs);
  return (
    `${two(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:` +
    `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`
  );
}

/**
 * The body as AWS formats carry it: always text, never parsed. Bytes that are
 * not valid UTF-8 are "binary" and travel base64 with isBase64Encoded (API
 * Gateway decides by binary media types; see docs/functions.md).
 */
export function awsBody(buf: Buffer | null): { body: string | null; isBase64Encoded: boolean } {
  if (buf === null || buf.length === 0) return { body: null, isBase64Encoded: false };
  if (!isUtf8(buf)) return { body: buf.toString('base64'), isBase64Encoded: true };
  return { body: buf.toString('utf8'), isBase64Encoded: false };
}

/**
 * The body as a REST API with binaryMediaTypes passes it: base64 with
 * isBase64Encoded when the request's Content-Type is one of them, else as
 * UTF-8 text whatever its bytes (API Gateway's "text payload").
 */
export function restBody(buf: Buffer | null, binary: boolean): { body: string | null; isBase64Encoded: boolean } {
  if (buf === null || buf.length === 0) return { body: null, isBase64Encoded: false };
  return binary ? { body: buf.toString('base64'), isBase64Encoded: true } : { body: buf.toString('utf8'), isBase64Encoded: false };
}

/**
 * Path parameters as AWS names them: the greedy value under its own name
 * (`proxy` for `*`, `key` for `{key+}`), never under `*`.
 */
export function awsPathParameters(match: AwsEventMatch): Record<string, string> | null {
  const params = match.pathParameters;
  if (params === null || match.awsGreedy === null) return params;
  const out: Record<string, string> = {};
  for (const key of Object.keys(params)) if (key !== '*') setOwn(out, key, params[key]);
  setOwn(out, match.awsGreedy, params['*']);
  return out;
}

/** A dual-stack socket reports IPv4 clients as `::ffff:1.2.3.4`; AWS reports `1.2.3.4`. */
export function awsSourceIp(ip: string): string {
  return ip.startsWith('::ffff:') && ip.indexOf('.') !== -1 ? ip.slice(7) : ip;
}

/** `domainName` is the Host header as sent (port included); `domainPrefix` its first label. */
export function awsDomain(host: string | undefined): { domainName: string; domainPrefix: string } {
  const domainName = host === undefined || host === '' ? DEFAULT_DOMAIN : host;
  let hostname = domainName;
  if (hostname.startsWith('[')) {
    const end = hostname.indexOf(']');
    hostname = end === -1 ? hostname : hostname.slice(0, end + 1);
  } else {
    const colon = hostname.indexOf(':');
    if (colon !== -1) hostname = hostname.slice(0, colon);
    const dot = hostname.indexOf('.');
    if (dot > 0) hostname = hostname.slice(0, dot);
  }
  return { domainName, domainPrefix: hostname };
}

/**
 * The X-Forwarded-* headers API Gateway adds: X-Forwarded-For gets the
 * caller's address appended to any the request carried. X-Forwarded-Proto
 * and -Port that a proxy in front of Switchyard already set are kept (it knows
 * the client's side of the connection), so these are only the values to add
 * when the request has none: Switchyard itself serves plain HTTP.
 */
export function forwardedFor(given: string | undefined, sourceIp: string): string {
  return given === undefined ? sourceIp : `${given}, ${sourceIp}`;
}

/**
 * The address X-Forwarded-For gets: the socket's peer. Behind trusted
 * proxies that is the nearest proxy, not `sourceIp` (the client, already
 * in the list the proxies sent).
 */
export function peerOf(req: RequestFacts, sourceIp: string): string {
  return req.peerIp === undefined || req.peerIp === req.sourceIp ? sourceIp : awsSourceIp(req.peerIp);
}

export const FORWARDED_PROTO = 'http';

export function forwardedPort(req: RequestFacts): string {
  return String(req.localPort ?? 80);
}
