/**
 * Every error Switchyard raises on purpose, in one registry: `ERRORS` maps each
 * stable snake_case code to its HTTP status and a one-line summary, and the
 * classes and factories below are built on it, so a code's status is written
 * once. One handler (src/http/errors.ts) turns them into `{error, code, details?}`;
 * anything else is a logged 500 with no internals. docs/errors.md lists each
 * code, its cause and the fix; test/unit/error-registry.test.ts checks the two
 * agree both ways.
 */
import { MAX_JSON_DEPTH } from './json-limits.js';

interface ErrorEntry {
  readonly status: number;
  /** The summary, and the message of errors that take none. */
  readonly message: string;
}

/**
 * Every `code` an HTTP answer of Switchyard can carry. The order is the
 * OpenAPI document's: its Error schema takes its `code` enum from here, so
 * typed clients get the union.
 */
export const ERRORS = {
  // Requests in general and the management API
  invalid_request: { status: 400, message: 'The request is invalid' },
  invalid_filter: { status: 400, message: "A webhook's filter is not one Switchyard can evaluate" },
  invalid_code: { status: 400, message: "The function's code cannot be deployed" },
  invalid_transformation: { status: 400, message: "The webhook's transformation cannot be used" },
  unknown_function: { status: 400, message: 'A route names a function that does not exist' },
  event_invalid: { status: 400, message: "The event's data does not match its type's schema (validation mode reject)" },
  private_target: { status: 400, message: 'The URL points at a private, loopback or metadata address' },
  unauthorized: { status: 401, message: 'Missing or wrong admin key: send Authorization: Bearer <SWITCHYARD_ADMIN_KEY>' },
  portal_token_invalid: { status: 401, message: 'The portal token is missing, unknown, expired or revoked' },
  application_limit_reached: { status: 422, message: "One of the application's limits is reached (its endpoints)" },
  application_rate_limited: { status: 429, message: "Events published to the application are past its events per second: retry after Retry-After seconds" },
  cross_origin_refused: { status: 403, message: 'A cross-site request to a server without an admin key' },
  host_not_allowed: { status: 421, message: 'A server without an admin key answers only loopback names' },
  too_many_failed_attempts: { status: 429, message: 'Too many wrong keys from this address' },
  not_found: { status: 404, message: 'No such endpoint' },
  method_not_allowed: { status: 405, message: 'The method is not allowed on this path' },
  api_not_found: { status: 404, message: 'No API has that id' },
  route_not_found: { status: 404, message: 'No route has that id' },
  function_not_found: { status: 404, message: 'No function has that name' },
  function_version_not_found: { status: 404, message: 'The function has no such version' },
  invocation_not_found: { status: 404, message: 'No background invocation has that id' },
  webhook_not_found: { status: 404, message: 'No webhook has that id' },
  delivery_not_found: { status: 404, message: 'No delivery has that id' },
  api_key_not_found: { status: 404, message: 'No API key has that id' },
  usage_plan_not_found: { status: 404, message: 'No usage plan has that id' },
  recovery_not_found: { status: 404, message: 'No recovery job has that id' },
  event_type_not_found: { status: 404, message: 'No event type has that name' },
  application_not_found: { status: 404, message: 'No application has that id or uid' },
  delivery_pending: { status: 409, message: 'The delivery is still pending' },
  delivery_busy: { status: 409, message: 'The delivery is being attempted right now' },
  invocation_not_failed: { status: 409, message: 'Only a failed invocation can be retried' },
  recovery_finished: { status: 409, message: 'The recovery job is no longer running' },
  api_in_use: { status: 409, message: 'Webhooks use the API as their mock endpoint' },
  usage_plan_in_use: { status: 409, message: 'API keys are on the usage plan' },
  function_exists: { status: 409, message: 'A function of that name exists' },
  event_type_exists: { status: 409, message: 'An event type of that name exists' },
  application_exists: { status: 409, message: 'An application with that uid exists' },
  function_in_use: { status: 409, message: 'Routes still bind the function' },
  limit_reached: { status: 409, message: 'A configured limit on what the server holds is reached' },
  route_conflict: { status: 409, message: 'Two routes of one API have the same method and path shape' },
  slot_taken: { status: 409, message: 'The scheduled run was already recorded' },
  idempotency_key_reused: { status: 409, message: 'The Idempotency-Key (or event id) was used with a different request body' },
  idempotency_key_in_progress: { status: 409, message: 'The first request with this Idempotency-Key (or event id) is still running' },
  request_timeout: { status: 408, message: 'The request was not received in time' },
  payload_too_large: { status: 413, message: 'Request body is larger than the limit' },
  uri_too_long: { status: 414, message: 'A path segment is too long' },
  unsupported_media_type: { status: 415, message: 'The body is not sent as JSON' },
  headers_too_large: { status: 431, message: 'The request headers are larger than the limit' },
  internal_error: { status: 500, message: 'Internal error; see the server log' },
  shutting_down: { status: 503, message: 'Switchyard is shutting down' },
  store_unavailable: { status: 503, message: 'The database is not answering' },
  runtime_unavailable: { status: 503, message: 'The isolate workers of this server process are not running' },
  too_many_scrapes: { status: 503, message: 'Too many scrapes of /metrics wait for the next collection' },
  too_many_streams: { status: 503, message: 'Every event stream this server serves is taken' },
  // Invocations: routing, then failures of the function itself
  no_route: { status: 404, message: 'No route matches the method and path' },
  loop_stopped: { status: 508, message: 'The chain of runs is past its hop bound' },
  // Invocations refused by the route's policy (src/gateway/policy/) before the function runs
  invocation_unauthorized: { status: 401, message: 'The route needs credentials the request did not carry, or they are not valid' },
  invocation_forbidden: { status: 403, message: 'The credentials do not allow this route' },
  throttled: { status: 429, message: 'Too many requests for this API, route or key: retry after Retry-After seconds' },
  quota_exceeded: { status: 429, message: "The API key's quota for the period is spent" },
  request_invalid: { status: 400, message: "The request does not match the route's request model" },
  authorizer_failed: { status: 500, message: "The route's authorizer function failed or gave an answer that is not an authorizer's" },
  service_worker_refused: { status: 403, message: 'Functions cannot serve service worker scripts (the request carried Service-Worker: script)' },
  function_error: { status: 502, message: 'The handler threw' },
  function_timeout: { status: 504, message: 'The invocation ran past its timeout' },
  // Webhook attempts whose transformation failed (an attempt's outcome, the try-it endpoint's error)
  transformation_error: { status: 502, message: "The webhook's transformation threw" },
  transformation_cpu_limit: { status: 502, message: "The webhook's transformation ran past its CPU limit" },
  transformation_invalid_result: { status: 502, message: "The webhook's transformation returned something that is not a request" },
  function_memory_limit: { status: 502, message: "The function's isolate went over its memory limit" },
  function_crashed: { status: 502, message: 'The isolate or its worker process died' },
  invalid_result: { status: 502, message: "The handler's result cannot become a response" },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERRORS;
/** The registry's codes in its order. */
export const ERROR_CODES = Object.keys(ERRORS) as readonly ErrorCode[];
/** The codes answered with `status`: what NotFoundError and ConflictError accept. */
export type CodeWithStatus<S extends number> = { [C in ErrorCode]: (typeof ERRORS)[C]['status'] extends S ? C : never }[ErrorCode];

export abstract class SwitchyardError extends Error {
  abstract readonly code: ErrorCode;
  abstract readonly status: number;
  readonly details?: unknown;
  /**
   * Headers the answer carries besides its own, set by whoever learns them on
   * the way out (a CORS API's Access-Control-* headers on a gateway error).
   */
  headers?: Record<string, string>;
  constructor(message: string, details?: unknown) {
    super(message);
    this.name = new.target.name;
    if (details !== undefined) this.details = details;
  }
}

/** The base of an error class with one code (`class X extends coded('x')`): its status comes from the registry. */
export function coded<C extends ErrorCode>(code: C) {
  abstract class Coded extends SwitchyardError {
    readonly code: C = code;
    readonly status: (typeof ERRORS)[C]['status'] = ERRORS[code].status;
  }
  return Coded;
}

/** An error whose code is chosen by the caller among those of one status. */
function ofStatus<S extends number>() {
  abstract class OfStatus extends SwitchyardError {
    readonly code: CodeWithStatus<S>;
    readonly status: S;
    constructor(code: CodeWithStatus<S>, message: string = ERRORS[code].message, details?: unknown) {
      super(message, details);
      this.code = code;
      this.status = ERRORS[code].status as S;
    }
  }
  return OfStatus;
}

/**
 * Why a route's policy refused an invocation, as `switchyard_gateway_refusals_total`
 * labels it, and the code each answers with.
 */
export const REFUSAL_CODES = {
  unauthorized: 'invocation_unauthorized',
  forbidden: 'invocation_forbidden',
  throttled: 'throttled',
  quota_exceeded: 'quota_exceeded',
  invalid_request: 'request_invalid',
} as const satisfies Record<string, ErrorCode>;
export type RefusalReason = keyof typeof REFUSAL_CODES;

/**
 * The gateway's policy refused an invocation before its function ran (an authorizer,
 * an API key, a throttle, request validation). `headers` carries what the answer
 * needs (`Retry-After`, `WWW-Authenticate`); the API's errorFormat words the body.
 */
export class PolicyRefusalError extends SwitchyardError {
  readonly code: (typeof REFUSAL_CODES)[RefusalReason];
  readonly status: number;
  constructor(
    readonly reason: RefusalReason,
    message?: string,
    details?: unknown,
    headers?: Record<string, string>,
  ) {
    const code = REFUSAL_CODES[reason];
    super(message ?? ERRORS[code].message, details);
    this.code = code;
    this.status = ERRORS[code].status;
    if (headers !== undefined) this.headers = headers;
  }
}

export class InvalidRequestError extends coded('invalid_request') {}

/** A webhook's `filter` (src/events/filters.ts) is malformed or past a bound: `path` names the bad part, e.g. `filter.data.amount.$gte`. */
export class InvalidFilterError extends coded('invalid_filter') {
  constructor(path: string, problem: string, extra: Record<string, unknown> = {}) {
    super(`${path} ${problem}`, { field: path.split('.')[0], path, ...extra });
  }
}

/** A function authorizer threw (other than `Unauthorized`), is gone, or answered the wrong shape: API Gateway's 500. */
export class AuthorizerFailedError extends coded('authorizer_failed') {}

/** A JSON body (or one of its fields) nests arrays and objects deeper than the one bound. */
export const jsonTooDeep = (field: string) =>
  new InvalidRequestError(`${field} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, {
    field,
    max_depth: MAX_JSON_DEPTH,
  });

export class UnauthorizedError extends coded('unauthorized') {
  constructor(message: string = ERRORS.unauthorized.message) {
    super(message);
  }
}

/** An error whose answer carries `Retry-After` (seconds): the handlers set the header from it. */
export interface RetryLater {
  readonly retryAfterS: number;
}

/** Too many wrong keys from one address: no key is checked from it until `retryAfterS` have passed. */
export class TooManyFailedAttemptsError extends coded('too_many_failed_attempts') implements RetryLater {
  constructor(readonly retryAfterS: number) {
    super(`Too many wrong keys from this address; no key is checked from it for ${retryAfterS} s`, {
      retry_after_s: retryAfterS,
    });
  }
}

/** A portal token that is missing, unknown, expired or revoked: the consumer API's only refusal of its caller. */
export class PortalTokenInvalidError extends coded('portal_token_invalid') {
  constructor(message: string = ERRORS.portal_token_invalid.message) {
    super(message);
  }
}

/** An application already owns as many webhooks as its `max_endpoints` allows. */
export class ApplicationLimitError extends coded('application_limit_reached') {
  constructor(applicationId: string, max: number) {
    super(`application_id: application '${applicationId}' already has its ${max} endpoint(s) (limits.max_endpoints)`, { field: 'application_id', limit: 'max_endpoints', max });
  }
}

/** Events published to an application past its `events_per_second` (a bucket shared by the cluster). */
export class ApplicationRateLimitedError extends coded('application_rate_limited') implements RetryLater {
  constructor(applicationId: string, readonly retryAfterS: number) {
    super(`Application '${applicationId}' is past its events per second; retry after ${retryAfterS} s`, { retry_after_s: retryAfterS });
  }
}

/**
 * A server without an admin key answers its management API and dashboard only
 * under a loopback name: a DNS name an attacker controls can point at
 * 127.0.0.1 (DNS rebinding), but it still arrives as that name in `Host`.
 */
export class HostNotAllowedError extends coded('host_not_allowed') {
  constructor(host: string) {
    super(
      `Host '${host.slice(0, 100)}' is not a loopback name: a server without SWITCHYARD_ADMIN_KEY answers only ` +
        'localhost, *.localhost, 127.0.0.0/8 and [::1]; set SWITCHYARD_ADMIN_KEY to serve it under other names',
      { host: host.slice(0, 100) },
    );
  }
}

/** A page of another origin asked a server without an admin key to act (its browser said so in `Origin` or `Sec-Fetch-Site`). */
export class CrossOriginRefusedError extends coded('cross_origin_refused') {
  constructor(from: string) {
    super(
      `Refused a cross-site request (${from.slice(0, 120)}): a server without SWITCHYARD_ADMIN_KEY answers its management ` +
        'API only to its own pages and to clients that send no Origin (curl, scripts)',
    );
  }
}

/** The configurable bounds on what the store holds, by the setting that raises each. */
export const LIMIT_SETTINGS = {
  functions: 'SWITCHYARD_MAX_FUNCTIONS',
  apis: 'SWITCHYARD_MAX_APIS',
  webhooks: 'SWITCHYARD_MAX_WEBHOOKS',
  routes: 'SWITCHYARD_MAX_ROUTES_PER_API',
} as const;
export type LimitName = keyof typeof LIMIT_SETTINGS;
/** The bounds themselves (`routes`: per API). */
export type ResourceLimits = Record<LimitName, number>;

/** A creation past a configured bound (LIMIT_SETTINGS): nothing was written. */
export class LimitReachedError extends coded('limit_reached') {
  constructor(limit: LimitName, max: number) {
    const what = limit === 'routes' ? `an API has ${max} routes` : `this server holds ${max} ${limit}`;
    super(`Limit reached: ${what}, the most ${LIMIT_SETTINGS[limit]} allows; delete some or raise the setting`, {
      limit,
      max,
      setting: LIMIT_SETTINGS[limit],
    });
  }
}

/** Every place for a scrape waiting on the shared collection of /metrics is taken. */
export class TooManyScrapesError extends coded('too_many_scrapes') implements RetryLater {
  readonly retryAfterS = 1;
  constructor(max: number) {
    super(`${max} scrapes of /metrics already wait for the next collection; try again in a second`, { max });
  }
}

/**
 * A service worker's script was asked of a function: a worker registered on
 * the origin would see every later request of it, the dashboard's admin key
 * included (docs/security.md).
 */
export class ServiceWorkerRefusedError extends coded('service_worker_refused') {
  constructor() {
    super(ERRORS.service_worker_refused.message);
  }
}

export class NotFoundError extends ofStatus<404>() {}

export const apiNotFound = (id: string) => new NotFoundError('api_not_found', `API '${id}' does not exist`);
export const routeNotFound = (id: string) => new NotFoundError('route_not_found', `Route '${id}' does not exist`);
export const functionNotFound = (name: string) =>
  new NotFoundError('function_not_found', `Function '${name}' does not exist`);
/** A version the function never had, or one older than the kept history. */
export const functionVersionNotFound = (name: string, version: number) =>
  new NotFoundError('function_version_not_found', `Function '${name}' has no version ${version} (the newest 50 are kept)`);
export const apiKeyNotFound = (id: string) => new NotFoundError('api_key_not_found', `API key '${id}' does not exist`);
export const usagePlanNotFound = (id: string) => new NotFoundError('usage_plan_not_found', `Usage plan '${id}' does not exist`);
export const webhookNotFound = (id: string) => new NotFoundError('webhook_not_found', `Webhook '${id}' does not exist`);
export const deliveryNotFound = (id: string, gone = false) =>
  new NotFoundError('delivery_not_found', `Delivery '${id}' ${gone ? 'no longer exists' : 'does not exist'}`);
export const eventTypeNotFound = (name: string) => new NotFoundError('event_type_not_found', `Event type '${name}' does not exist`);
export const applicationNotFound = (idOrUid: string, field?: string) =>
  new NotFoundError('application_not_found', `${field ? `${field}: ` : ''}Application '${idOrUid}' does not exist`, field ? { field } : undefined);
export const recoveryNotFound = (id: string) => new NotFoundError('recovery_not_found', `Recovery '${id}' does not exist`);
export const invocationNotFound = (name: string, id: string) =>
  new NotFoundError('invocation_not_found', `Function '${name}' has no invocation '${id}'`);

export class NoRouteError extends coded('no_route') {
  constructor(method: string, path: string) {
    super(`No route matches ${method} ${path}`);
  }
}

export class MethodNotAllowedError extends coded('method_not_allowed') {
  constructor(
    method: string,
    path: string,
    readonly allow: string[],
  ) {
    super(`${method} is not allowed on ${path}; allowed: ${allow.join(', ')}`, { allow });
  }
}

export class ConflictError extends ofStatus<409>() {}

export const applicationExists = (uid: string) => new ConflictError('application_exists', `An application with uid '${uid}' exists`, { field: 'uid' });
export const functionExists = (name: string) => new ConflictError('function_exists', `Function '${name}' already exists`);
/** `routes`: those that still bind the function, as the answer's `details.routes` lists them. */
export const functionInUse = (name: string, routes: Array<{ apiId: string; id: string; method: string; path: string }>) =>
  new ConflictError('function_in_use', `Function '${name}' is bound by ${routes.length} route${routes.length === 1 ? '' : 's'}`, {
    routes: routes.map((r) => ({ apiId: r.apiId, id: r.id, method: r.method, path: r.path })),
  });
/** `other`: the route already there (its id null when it is one of the same request's). */
export const routeConflict = (route: { method: string; path: string }, other: { id: string | null; method: string; path: string }) =>
  new ConflictError('route_conflict', `${route.method} ${route.path} conflicts with existing route ${other.method} ${other.path}`, {
    route: other.id,
  });
export const slotTaken = (scheduledFor: string, owner: string) =>
  new ConflictError('slot_taken', `Slot ${scheduledFor} of '${owner}' was already fired`);
/** `field`: what carried the key (the Idempotency-Key header, or the event's `id`). */
export const idempotencyKeyReused = (field: string) =>
  new ConflictError('idempotency_key_reused', `${field} was already used with a different request body within the idempotency window`, {
    field,
  });
/** The first request with the key has not answered yet; its answer is expected soon, hence Retry-After. */
export const eventTypeExists = (name: string) => new ConflictError('event_type_exists', `Event type '${name}' already exists`);

/** An event refused by its type's schema (mode `reject`): `path` is the failing instance path in `data` (JSON Pointer). */
export class EventInvalidError extends coded('event_invalid') {
  constructor(
    readonly event: string,
    readonly version: number,
    readonly path: string,
    reason: string,
  ) {
    super(`data${path}: ${reason} (event type '${event}' version ${version})`, { field: `data${path}`, event, version, path, reason });
  }
}

export class IdempotencyKeyInProgressError extends coded('idempotency_key_in_progress') implements RetryLater {
  readonly retryAfterS = 1;
  constructor(field: string) {
    super(`The first request with this ${field} is still running: retry shortly to get its answer`, { field });
  }
}
export const deliveryBusy = (id: string) => new ConflictError('delivery_busy', `Delivery '${id}' is being attempted right now`);

export class UnknownFunctionError extends coded('unknown_function') {
  constructor(name: string, field = 'function') {
    super(`${field}: function '${name}' does not exist`, { function: name });
  }
}

export class InvalidCodeError extends coded('invalid_code') {
  /** `file`: the user's file name (compile.ts `userFileName`), named with the position. */
  constructor(message: string, line?: number, column?: number, file?: string) {
    const where = line ? ` (${file ? `${file}, ` : ''}line ${line}${column ? `, column ${column}` : ''})` : '';
    super(`code: ${message}${where}`, {
      line: line ?? null,
      column: column ?? null,
    });
  }
}

/** A transformation that does not compile, throws at its top level or has no handler; the position is the user's source. */
export class InvalidTransformationError extends coded('invalid_transformation') {
  constructor(message: string, line?: number, column?: number) {
    const where = line ? ` (line ${line}${column ? `, column ${column}` : ''})` : '';
    super(`transformation: ${message}${where}`, { field: 'transformation', line: line ?? null, column: column ?? null });
  }
}

export class PayloadTooLargeError extends coded('payload_too_large') {
  constructor(limit: number) {
    super(`Request body is larger than ${limit} bytes`);
  }
}

/** Every server-sent event stream this server serves is taken; the client retries later. */
export class TooManyStreamsError extends coded('too_many_streams') {
  constructor(max: number) {
    super(`This server already serves ${max} event streams; close one or try again later`, { max });
  }
}

/** A request that would take a chain of runs past its hop bound (src/hops.ts). */
export class LoopStoppedError extends coded('loop_stopped') {
  constructor(depth: number, max: number) {
    super(`This request is hop ${depth} of a chain of runs, past the bound of ${max} (a loop?)`, { depth, max_hops: max });
  }
}

/** Failures of user code during an invocation. */
export const INVOCATION_ERROR_CODES = ['function_error', 'function_timeout', 'function_memory_limit', 'function_crashed', 'invalid_result'] as const satisfies readonly ErrorCode[];
export type InvocationErrorCode = (typeof INVOCATION_ERROR_CODES)[number];

export const INVOCATION_ERROR_STATUS = Object.fromEntries(INVOCATION_ERROR_CODES.map((c) => [c, ERRORS[c].status])) as {
  [C in InvocationErrorCode]: (typeof ERRORS)[C]['status'];
};

export class StoreUnavailableError extends coded('store_unavailable') {}

/** Connection-level failures of either database driver: the store is away, not the request wrong. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'SQLITE_BUSY',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300', // too_many_connections
]);

export function asStoreUnavailable(err: unknown): StoreUnavailableError | null {
  if (!(err instanceof Error)) return null;
  const code = (err as { code?: unknown }).code;
  const unavailable =
    (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
      err.message,
    );
  return unavailable ? new StoreUnavailableError(`The database is not answering (${err.message}); try again shortly`) : null;
}

export class ConfigError extends Error {
  readonly code = 'invalid_config';
}
