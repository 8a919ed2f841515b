/**
 * The `aws-v1` event: API Gateway's REST API Lambda proxy integration input,
 * field by field as AWS documents and sends it (test/fixtures/aws holds the
 * published samples it is checked against). Unlike the `switchyard` event,
 * header names keep the client's case, a repeated header or query key gives
 * its last value in the single-value maps, and the body is always a string.
 */
import { InvalidRequestError } from '../errors.js';
import {
  AWS_ACCOUNT_ID,
  AWS_STAGE,
  DEFAULT_DOMAIN,
  MANUAL_API_ID,
  awsBody,
  restBody,
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
import { isPlainObject, parseQuery, stringMap, toMulti, type RequestFacts } from './event.js';
import type { BinaryMediaTypes } from './policy/media-types.js';
import { setOwn } from './route-table.js';

export interface AwsV1Identity {
  accessKey: null;
  accountId: null;
  /** The API key the request was admitted with (routes with apiKeyRequired), as sent and by id. */
  apiKey: string | null;
  apiKeyId: string | null;
  caller: null;
  clientCert: null;
  cognitoAuthenticationProvider: null;
  cognitoAuthenticationType: null;
  cognitoIdentityId: null;
  cognitoIdentityPoolId: null;
  principalOrgId: null;
  sourceIp: string;
  user: null;
  userAgent: string | null;
  userArn: null;
}

export interface AwsV1Event {
  resource: string;
  path: string;
  httpMethod: string;
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  queryStringParameters: Record<string, string> | null;
  multiValueQueryStringParameters: Record<string, string[]> | null;
  pathParameters: Record<string, string> | null;
  stageVariables: null;
  requestContext: {
    accountId: string;
    apiId: string;
    domainName: string;
    domainPrefix: string;
    extendedRequestId: string;
    httpMethod: string;
    identity: AwsV1Identity;
    path: string;
    protocol: string;
    requestId: string;
    requestTime: string;
    requestTimeEpoch: number;
    resourceId: string | null;
    resourcePath: string;
    stage: string;
    /** What the route's authorizer passed on (principalId and context, or a JWT's claims); absent without one. */
    authorizer?: Record<string, unknown>;
  };
  body: string | null;
  isBase64Encoded: boolean;
}

/** What an unauthenticated REST call's identity holds: everything but the caller's address and agent is null. */
function identity(sourceIp: string, userAgent: string | null): AwsV1Identity {
  return {
    accessKey: null,
    accountId: null,
    apiKey: null,
    apiKeyId: null,
    caller: null,
    clientCert: null,
    cognitoAuthenticationProvider: null,
    cognitoAuthenticationType: null,
    cognitoIdentityId: null,
    cognitoIdentityPoolId: null,
    principalOrgId: null,
    sourceIp,
    user: null,
    userAgent,
    userArn: null,
  };
}

/**
 * `binary`: the API's binaryMediaTypes (null: unset, and bytes that are not
 * UTF-8 travel base64, as before the field).
 */
export function buildAwsV1Event(
  req: RequestFacts,
  match: AwsEventMatch,
  binary: BinaryMediaTypes | null = null,
  authorizer: Record<string, unknown> | null = null,
): AwsV1Event {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  // Lower-case name -> the spelling it was first sent with, which names it in both maps.
  const spelling = new Map<string, string>();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i];
    const value = raw[i + 1];
    const lower = name.toLowerCase();
    const key = spelling.get(lower);
    if (key === undefined) {
      spelling.set(lower, name);
      setOwn(headers, name, value);
      setOwn(multiValueHeaders, name, [value]);
    } else {
      setOwn(headers, key, value);
      multiValueHeaders[key].push(value);
    }
  }
  const valueOf = (lower: string): string | undefined => {
    const key = spelling.get(lower);
    return key === undefined ? undefined : headers[key];
  };
  const sourceIp = awsSourceIp(req.sourceIp);
  const userAgent = valueOf('user-agent') ?? null;
  const { domainName, domainPrefix } = awsDomain(valueOf('host'));

  const put = (key: string, value: string) => {
    setOwn(headers, key, value);
    setOwn(multiValueHeaders, key, [value]);
  };
  const xffKey = spelling.get('x-forwarded-for');
  put(xffKey ?? 'X-Forwarded-For', forwardedFor(xffKey && multiValueHeaders[xffKey].join(', '), peerOf(req, sourceIp)));
  if (!spelling.has('x-forwarded-port')) put('X-Forwarded-Port', forwardedPort(req));
  if (!spelling.has('x-forwarded-proto')) put('X-Forwarded-Proto', FORWARDED_PROTO);

  const q = parseQuery(req.rawQuery);
  const query = q?.single ?? null;
  const multiQuery = q?.multi ?? null;

  const path = req.path === '' ? '/' : req.path;
  const { body, isBase64Encoded } = binary === null ? awsBody(req.body) : restBody(req.body, binary.matches(valueOf('content-type')));
  const event: AwsV1Event = {
    resource: match.awsResource,
    path,
    httpMethod: req.method,
    headers,
    multiValueHeaders,
    queryStringParameters: query,
    multiValueQueryStringParameters: multiQuery,
    pathParameters: awsPathParameters(match),
    stageVariables: null,
    requestContext: {
      accountId: AWS_ACCOUNT_ID,
      apiId: req.apiId,
      domainName,
      domainPrefix,
      extendedRequestId: req.requestId,
      httpMethod: req.method,
      identity: identity(sourceIp, userAgent),
      // Stage-prefixed in AWS: here the prefix the function is reached under.
      path: `/api/invoke/fn/${req.apiId}${req.path}`,
      protocol: `HTTP/${req.httpVersion ?? '1.1'}`,
      requestId: req.requestId,
      requestTime: awsRequestTime(req.requestTimeEpoch),
      requestTimeEpoch: req.requestTimeEpoch,
      resourceId: match.route.id,
      resourcePath: match.awsResource,
      stage: AWS_STAGE,
    },
    body,
    isBase64Encoded,
  };
  if (authorizer !== null) event.requestContext.authorizer = authorizer;
  return event;
}

/** A body given to the manual invoke as a value (not text) is sent as its JSON, since AWS bodies are strings. */
export function awsBodyText(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/**
 * Completes a user-supplied test event for an `aws-v1` function
 * (`POST /api/functions/:name/invoke`): given fields are kept as given (header
 * names too), absent ones get what a request to `path` would carry, and
 * `requestContext.requestId` is this invocation's id so logs match.
 */
export function defaultAwsV1Event(partial: unknown, ids: { requestId: string; functionName: string }): AwsV1Event {
  if (partial === undefined || partial === null) partial = {};
  if (!isPlainObject(partial)) {
    throw new InvalidRequestError(`event for function '${ids.functionName}' must be a JSON object`);
  }
  const p = partial;
  const httpMethod = typeof p.httpMethod === 'string' ? p.httpMethod : 'POST';
  const path = typeof p.path === 'string' ? p.path : '/';
  const resource = typeof p.resource === 'string' ? p.resource : path;
  const headers = stringMap(p.headers) ?? {};
  const multiValueHeaders = isPlainObject(p.multiValueHeaders)
    ? (p.multiValueHeaders as Record<string, string[]>)
    : toMulti(headers);
  const query = stringMap(p.queryStringParameters);
  const multiQuery = isPlainObject(p.multiValueQueryStringParameters)
    ? (p.multiValueQueryStringParameters as Record<string, string[]>)
    : query === null
      ? null
      : toMulti(query);
  const ctx = isPlainObject(p.requestContext) ? p.requestContext : {};
  const givenIdentity = isPlainObject(ctx.identity) ? ctx.identity : {};
  const userAgent = Object.entries(headers).find(([k]) => k.toLowerCase() === 'user-agent')?.[1] ?? null;
  const epoch = typeof ctx.requestTimeEpoch === 'number' ? ctx.requestTimeEpoch : Date.now();
  const event = {
    ...p,
    resource,
    path,
    httpMethod,
    headers,
    multiValueHeaders,
    queryStringParameters: query,
    multiValueQueryStringParameters: multiQuery,
    pathParameters: stringMap(p.pathParameters),
    stageVariables: stringMap(p.stageVariables),
    requestContext: {
      accountId: AWS_ACCOUNT_ID,
      apiId: MANUAL_API_ID,
      domainName: DEFAULT_DOMAIN,
      domainPrefix: DEFAULT_DOMAIN,
      extendedRequestId: ids.requestId,
      httpMethod,
      path,
      protocol: 'HTTP/1.1',
      requestTime: awsRequestTime(epoch),
      requestTimeEpoch: epoch,
      resourceId: null,
      resourcePath: resource,
      stage: AWS_STAGE,
      ...ctx,
      identity: { ...identity('127.0.0.1', userAgent), ...givenIdentity },
      requestId: ids.requestId,
    },
    body: awsBodyText(p.body),
    isBase64Encoded: p.isBase64Encoded === true,
  };
  return event as AwsV1Event;
}
