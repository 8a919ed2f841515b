/**
 * The `aws-v2` event: payload format 2.0 of HTTP APIs and Lambda function
 * URLs, field by field as AWS documents and sends it (test/fixtures/aws holds
 * the published samples it is checked against). Header names are lower-case
 * and repeated headers or query keys are joined with commas; the Cookie header
 * becomes the `cookies` array; fields AWS leaves out when empty (`cookies`,
 * `queryStringParameters`, `pathParameters`, `body`) are left out.
 */
import { InvalidRequestError } from '../errors.js';
import {
  AWS_ACCOUNT_ID,
  AWS_STAGE,
  DEFAULT_DOMAIN,
  MANUAL_API_ID,
  awsBody,
  awsDomain,
  awsPathParameters,
  awsRequestTime,
  awsSourceIp,
  FORWARDED_PROTO,
  forwardedFor,
  forwardedPort,
  peerOf,
  type AwsEventMatch,
} from './aws-event-common.js';
import { awsBodyText } from './aws-event-v1.js';
import { isPlainObject, lowerKeys, parseQuery, stringMap, type RequestFacts } from './event.js';
import { setOwn } from './route-table.js';

export interface AwsV2Event {
  version: '2.0';
  routeKey: string;
  rawPath: string;
  rawQueryString: string;
  cookies?: string[];
  headers: Record<string, string>;
  queryStringParameters?: Record<string, string>;
  requestContext: {
    accountId: string;
    apiId: string;
    domainName: string;
    domainPrefix: string;
    http: { method: string; path: string; protocol: string; sourceIp: string; userAgent: string };
    requestId: string;
    routeKey: string;
    stage: string;
    time: string;
    timeEpoch: number;
    /** `{jwt: {claims, scopes}}` or `{lambda: context}` from the route's authorizer; absent without one. */
    authorizer?: Record<string, unknown>;
  };
  body?: string;
  pathParameters?: Record<string, string>;
  isBase64Encoded: boolean;
}

/** `a=1; b=2` -> `['a=1', 'b=2']`, over every Cookie header of the request. */
function splitCookies(value: string, into: string[]): void {
  for (const part of value.split(';')) {
    const cookie = part.trim();
    if (cookie !== '') into.push(cookie);
  }
}

export function buildAwsV2Event(req: RequestFacts, match: AwsEventMatch, authorizer: Record<string, unknown> | null = null): AwsV2Event {
  const headers: Record<string, string> = {};
  let cookies: string[] | undefined;
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    const value = raw[i + 1];
    if (name === 'cookie') splitCookies(value, (cookies ??= []));
    else setOwn(headers, name, Object.hasOwn(headers, name) ? headers[name] + ',' + value : value);
  }
  const sourceIp = awsSourceIp(req.sourceIp);
  headers['x-forwarded-for'] = forwardedFor(headers['x-forwarded-for'], peerOf(req, sourceIp));
  headers['x-forwarded-port'] ??= forwardedPort(req);
  headers['x-forwarded-proto'] ??= FORWARDED_PROTO;
  const { domainName, domainPrefix } = awsDomain(headers.host);

  let query: Record<string, string> | undefined;
  if (req.rawQuery !== '') {
    const q = parseQuery(req.rawQuery);
    if (q !== null) {
      query = {};
      for (const key of Object.keys(q.multi)) setOwn(query, key, q.multi[key].join(','));
    }
  }

  const rawPath = req.path === '' ? '/' : req.path;
  const routeKey = `${match.route.method} ${match.awsResource}`;
  const { body, isBase64Encoded } = awsBody(req.body);
  const pathParameters = awsPathParameters(match);
  const event: AwsV2Event = {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString: req.rawQuery,
    headers,
    requestContext: {
      accountId: AWS_ACCOUNT_ID,
      apiId: req.apiId,
      domainName,
      domainPrefix,
      http: {
        method: req.method,
        path: rawPath,
        protocol: `HTTP/${req.httpVersion ?? '1.1'}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: req.requestId,
      routeKey,
      stage: AWS_STAGE,
      time: awsRequestTime(req.requestTimeEpoch),
      timeEpoch: req.requestTimeEpoch,
    },
    isBase64Encoded,
  };
  if (cookies !== undefined) event.cookies = cookies;
  if (query !== undefined) event.queryStringParameters = query;
  if (body !== null) event.body = body;
  if (pathParameters !== null) event.pathParameters = pathParameters;
  if (authorizer !== null) event.requestContext.authorizer = authorizer;
  return event;
}

/**
 * Completes a user-supplied test event for an `aws-v2` function
 * (`POST /api/functions/:name/invoke`): given fields are kept (header names
 * lower-cased, as 2.0 has them), absent ones get what a function URL request
 * to `rawPath` would carry (`routeKey` `$default`), and
 * `requestContext.requestId` is this invocation's id so logs match.
 */
export function defaultAwsV2Event(partial: unknown, ids: { requestId: string; functionName: string }): AwsV2Event {
  if (partial === undefined || partial === null) partial = {};
  if (!isPlainObject(partial)) {
    throw new InvalidRequestError(`event for function '${ids.functionName}' must be a JSON object`);
  }
  const p = partial;
  const rawPath = typeof p.rawPath === 'string' ? p.rawPath : '/';
  const routeKey = typeof p.routeKey === 'string' ? p.routeKey : '$default';
  const headers = lowerKeys(stringMap(p.headers) ?? {});
  const ctx = isPlainObject(p.requestContext) ? p.requestContext : {};
  const http = isPlainObject(ctx.http) ? ctx.http : {};
  const epoch = typeof ctx.timeEpoch === 'number' ? ctx.timeEpoch : Date.now();
  const event: Record<string, unknown> = {
    ...p,
    version: typeof p.version === 'string' ? p.version : '2.0',
    routeKey,
    rawPath,
    rawQueryString: typeof p.rawQueryString === 'string' ? p.rawQueryString : '',
    headers,
    requestContext: {
      accountId: AWS_ACCOUNT_ID,
      apiId: MANUAL_API_ID,
      domainName: DEFAULT_DOMAIN,
      domainPrefix: DEFAULT_DOMAIN,
      routeKey,
      stage: AWS_STAGE,
      time: awsRequestTime(epoch),
      timeEpoch: epoch,
      ...ctx,
      http: {
        method: 'POST',
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
        ...http,
      },
      requestId: ids.requestId,
    },
    isBase64Encoded: p.isBase64Encoded === true,
  };
  const body = awsBodyText(p.body);
  if (body === null) delete event.body;
  else event.body = body;
  for (const field of ['queryStringParameters', 'pathParameters', 'stageVariables'] as const) {
    const map = stringMap(p[field]);
    if (map === null) delete event[field];
    else event[field] = map;
  }
  if (!Array.isArray(p.cookies)) delete event.cookies;
  return event as unknown as AwsV2Event;
}
