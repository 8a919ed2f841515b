/**
 * The package entry (`switchyard-gateway`): the types a function written for
 * Switchyard's own event format is typed with, so users get the same checks
 * as with `@types/aws-lambda` (which `aws-v1` / `aws-v2` functions use as it
 * is):
 *
 *     import type { SwitchyardEvent, SwitchyardContext, SwitchyardResult } from 'switchyard-gateway';
 *     export async function handler(event: SwitchyardEvent, context: SwitchyardContext): Promise<SwitchyardResult> { ... }
 *
 * Why the types are written out here rather than re-exported: the declaration
 * file users get must not depend on the server's internal modules. They
 * describe what the gateway builds (src/gateway/event.ts), what the
 * dispatcher passes as the context (src/runtime/isolate/dispatcher.js) and what
 * src/gateway/result.ts reads back; test/unit/public-types.test.ts checks
 * that each stays assignable to and from the internal type it mirrors, and
 * that a consumer project type-checks against the built package.
 * docs/functions.md describes every field in prose.
 *
 * This module has no runtime code. A later entry (`switchyard-gateway/client`)
 * goes beside it in package.json `exports`.
 */

/** A JSON value, as a request body or a result can hold. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Ids and addresses for tracing one invocation (`event.requestContext`). */
export interface SwitchyardRequestContext {
  /** The request id; also `context.awsRequestId` and the response's `x-request-id` header. */
  requestId: string;
  /** The id of the API whose route matched (`api_...`); `null` for a manual invoke without one. */
  apiId: string | null;
  /** The id of the matched route (`rt_...`); `null` for a manual invoke. */
  routeId: string | null;
  /** The request method, as `event.httpMethod`. */
  httpMethod: string;
  /** The whole path the client called, `/api/invoke/fn/<apiId>/users/42` (AWS's is stage-prefixed likewise). */
  path: string;
  /** The address that connected (behind a proxy: the proxy's). */
  sourceIp: string;
  /** When the request arrived, in milliseconds since the Unix epoch. */
  requestTimeEpoch: number;
}

/**
 * The event a function with `event_format: "switchyard"` (the default)
 * receives: API Gateway's proxy event (format 1.0) with header names
 * lower-cased and a JSON body already parsed.
 */
export interface SwitchyardEvent {
  /** The request method (`GET`, `POST`, ...); a `HEAD` served by a `GET` route says `HEAD`. */
  httpMethod: string;
  /** The request path after `/api/invoke/fn/<apiId>`, such as `/users/42`. */
  path: string;
  /** The API's `basePath` plus the matched route's template, such as `/users/:id`. */
  resource: string;
  /** Header names lower-case; a repeated header's values joined with `, `. */
  headers: Record<string, string>;
  /** Every value of every header, names lower-case. */
  multiValueHeaders: Record<string, string[]>;
  /** The query, a repeated key giving its last value; `null` when the request has no query. */
  queryStringParameters: Record<string, string> | null;
  /** Every value of every query key; `null` when the request has no query. */
  multiValueQueryStringParameters: Record<string, string[]> | null;
  /** Values of the route's `:name` / `{name}` segments, `*` (and `proxy`) for a final wildcard; `null` when it has none. */
  pathParameters: Record<string, string> | null;
  /**
   * The body: the parsed value when the content type is JSON and it parses,
   * else the text (base64 when `isBase64Encoded`), `null` when empty. Code
   * receiving webhooks should accept a string and an object alike.
   */
  body: unknown;
  /** `true` when the body was not valid UTF-8 and `body` is its base64. */
  isBase64Encoded: boolean;
  requestContext: SwitchyardRequestContext;
}

/**
 * The second argument of the handler: the members of Lambda's Node.js
 * context. It is assignable to `Context` from `@types/aws-lambda`, so a
 * helper typed for Lambda accepts it. Values AWS has and Switchyard cannot
 * know are stable placeholders (docs/functions.md, "The context").
 */
export interface SwitchyardContext {
  /** The function's name. */
  functionName: string;
  /** The function's `version` as a string (`"3"`): which code answered. */
  functionVersion: string;
  /** A placeholder ARN, `arn:aws:lambda:us-east-1:123456789012:function:<name>`. */
  invokedFunctionArn: string;
  /** `memory_mb` as a string (`"128"`), as on Lambda. */
  memoryLimitInMB: string;
  /** The request id: `event.requestContext.requestId` and the response's `x-request-id`. */
  awsRequestId: string;
  /** The same request id (Switchyard's older name). */
  requestId: string;
  /**
   * The W3C `traceparent` of this invocation's span when the server traces
   * (docs/observability.md#traces): its `fetch` calls send children of it.
   * `undefined` when tracing is off (a caller's own header is still in the event's headers).
   */
  traceparent?: string;
  /** A placeholder, `/aws/lambda/<name>`; the lines themselves are in the function's logs. */
  logGroupName: string;
  /** A placeholder in Lambda's format, one per isolate: `2026/01/01/[<version>]<32 hex digits>`. */
  logStreamName: string;
  /** Always `undefined` (Lambda sets it only for calls from the AWS mobile SDK). */
  clientContext?: undefined;
  /** Always `undefined` (Lambda sets it only for calls from the AWS mobile SDK). */
  identity?: undefined;
  /** `true`, settable; changes nothing: the callback answers at once and what is left pending stops. */
  callbackWaitsForEmptyEventLoop: boolean;
  /** Milliseconds left before the time limit (`timeout_ms`) ends the invocation. */
  getRemainingTimeInMillis(): number;
  /** Answers the invocation with `result`, as `callback(null, result)`. Later answers are ignored. */
  succeed(result?: unknown): void;
  /** Fails the invocation (502 `function_error`); without an error the message is `handled`. */
  fail(error?: Error | string): void;
  /** `callback(error, result)`: fails when `error` is set, else answers with `result`. */
  done(error?: Error | string | null, result?: unknown): void;
}

/** A header value in a result; numbers and booleans are sent as their text. */
export type SwitchyardHeaderValue = string | number | boolean;

/** A result with a status: the proxy result of API Gateway, with any JSON value as `body`. */
export interface SwitchyardProxyResult {
  /** The HTTP status, an integer from 100 to 599 (a string of digits is read too); anything else is 502 `invalid_result`. */
  statusCode: number;
  /**
   * A string is sent as it is (`application/json` when it parses as JSON,
   * else `text/plain`, unless `headers` says); any other JSON value is sent
   * as JSON. Left out or `null`: no body.
   */
  body?: unknown;
  /** Response headers; `x-request-id` and framing headers (`content-length`, ...) are left out. */
  headers?: Record<string, SwitchyardHeaderValue>;
  /** Several values per header (each `Set-Cookie` its own line); these win over `headers` of the same name. */
  multiValueHeaders?: Record<string, SwitchyardHeaderValue[]>;
  /** With a string `body`: the body is base64, decoded and sent as bytes (`application/octet-stream` unless `headers` says). */
  isBase64Encoded?: boolean;
}

/**
 * What a handler may return (or pass to the callback / `context.succeed`):
 * a proxy result; any other JSON value, sent as a 200 JSON body; or nothing,
 * answered 204 with no body.
 */
export type SwitchyardResult = SwitchyardProxyResult | JsonValue | undefined | void;

/** The third argument: Lambda's callback. `callback(error)` fails the invocation, `callback(null, result)` answers it. */
export type SwitchyardCallback = (error?: Error | string | null, result?: SwitchyardResult) => void;

/** A handler for the `switchyard` event format, in any of Lambda's calling conventions. */
export type SwitchyardHandler = (
  event: SwitchyardEvent,
  context: SwitchyardContext,
  callback: SwitchyardCallback,
) => SwitchyardResult | Promise<SwitchyardResult>;
