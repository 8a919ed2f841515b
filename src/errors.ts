/**
 * Every error Switchyard raises on purpose, each with a stable snake_case `code`
 * and an HTTP status. One handler (src/http/errors.ts) turns them into
 * `{error, code, details?}`; anything else is a logged 500 with no internals.
 * docs/errors.md lists each code, its cause and the fix.
 */
import { MAX_JSON_DEPTH } from './json-limits.js';

/**
 * Every `code` an HTTP answer of Switchyard can carry, in one list: the
 * OpenAPI document's Error schema takes its `code` enum from it (so typed
 * clients get the union), every error class below is typed by it, and a test
 * checks it against docs/errors.md both ways.
 */
export const ERROR_CODES = [
  // Requests in general and the management API
  'invalid_request',
  'invalid_code',
  'unknown_function',
  'private_target',
  'unauthorized',
  'cross_origin_refused',
  'host_not_allowed',
  'too_many_failed_attempts',
  'not_found',
  'method_not_allowed',
  'api_not_found',
  'route_not_found',
  'function_not_found',
  'function_version_not_found',
  'invocation_not_found',
  'webhook_not_found',
  'delivery_not_found',
  'delivery_pending',
  'delivery_busy',
  'invocation_not_failed',
  'api_in_use',
  'function_exists',
  'function_in_use',
  'limit_reached',
  'route_conflict',
  'slot_taken',
  'request_timeout',
  'payload_too_large',
  'uri_too_long',
  'unsupported_media_type',
  'headers_too_large',
  'internal_error',
  'shutting_down',
  'store_unavailable',
  'too_many_scrapes',
  'too_many_streams',
  // Invocations: routing, then failures of the function itself
  'no_route',
  'loop_stopped',
  'service_worker_refused',
  'function_error',
  'function_timeout',
  'function_memory_limit',
  'function_crashed',
  'invalid_result',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export abstract class SwitchyardError extends Error {
  abstract readonly code: ErrorCode;
  abstract readonly status: number;
  readonly details?: unknown;
  constructor(message: string, details?: unknown) {
    super(message);
    this.name = new.target.name;
    if (details !== undefined) this.details = details;
  }
}

export class InvalidRequestError extends SwitchyardError {
  readonly code = 'invalid_request';
  readonly status = 400;
}

/** A JSON body (or one of its fields) nests arrays and objects deeper than the one bound. */
export const jsonTooDeep = (field: string) =>
  new InvalidRequestError(`${field} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, {
    field,
    max_depth: MAX_JSON_DEPTH,
  });

export class UnauthorizedError extends SwitchyardError {
  readonly code = 'unauthorized';
  readonly status = 401;
  constructor(message = 'Missing or wrong admin key: send Authorization: Bearer <SWITCHYARD_ADMIN_KEY>') {
    super(message);
  }
}

/** An error whose answer carries `Retry-After` (seconds): the handlers set the header from it. */
export interface RetryLater {
  readonly retryAfterS: number;
}

/** Too many wrong keys from one address: no key is checked from it until `retryAfterS` have passed. */
export class TooManyFailedAttemptsError extends SwitchyardError implements RetryLater {
  readonly code = 'too_many_failed_attempts';
  readonly status = 429;
  constructor(readonly retryAfterS: number) {
    super(`Too many wrong keys from this address; no key is checked from it for ${retryAfterS} s`, {
      retry_after_s: retryAfterS,
    });
  }
}

/**
 * A server without an admin key answers its management API and dashboard only
 * under a loopback name: a DNS name an attacker controls can point at
 * 127.0.0.1 (DNS rebinding), but it still arrives as that name in `Host`.
 */
export class HostNotAllowedError extends SwitchyardError {
  readonly code = 'host_not_allowed';
  readonly status = 421;
  constructor(host: string) {
    super(
      `Host '${host.slice(0, 100)}' is not a loopback name: a server without SWITCHYARD_ADMIN_KEY answers only ` +
        'localhost, *.localhost, 127.0.0.0/8 and [::1]; set SWITCHYARD_ADMIN_KEY to serve it under other names',
      { host: host.slice(0, 100) },
    );
  }
}

/** A page of another origin asked a server without an admin key to act (its browser said so in `Origin` or `Sec-Fetch-Site`). */
export class CrossOriginRefusedError extends SwitchyardError {
  readonly code = 'cross_origin_refused';
  readonly status = 403;
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
export class LimitReachedError extends SwitchyardError {
  readonly code = 'limit_reached';
  readonly status = 409;
  constructor(limit: LimitName, max: number) {
    const what = limit === 'routes' ? `an API has ${max} routes` : `this server holds ${max} ${limit}`;
    super(`Limit reached: ${what}, the most ${LIMIT_SETTINGS[limit]} allows; delete some or raise the setting`, {
      limit,
      max,
      setting: LIMIT_SETTINGS[limit],
    });
  }
}

/** Every slot for a scrape waiting on the shared collection of /metrics is taken. */
export class TooManyScrapesError extends SwitchyardError implements RetryLater {
  readonly code = 'too_many_scrapes';
  readonly status = 503;
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
export class ServiceWorkerRefusedError extends SwitchyardError {
  readonly code = 'service_worker_refused';
  readonly status = 403;
  constructor() {
    super('Functions cannot serve service worker scripts (the request carried Service-Worker: script)');
  }
}

export class NotFoundError extends SwitchyardError {
  readonly code: ErrorCode;
  readonly status = 404;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export const apiNotFound = (id: string) => new NotFoundError('api_not_found', `API '${id}' does not exist`);
export const routeNotFound = (id: string) => new NotFoundError('route_not_found', `Route '${id}' does not exist`);
export const functionNotFound = (name: string) =>
  new NotFoundError('function_not_found', `Function '${name}' does not exist`);
/** A version the function never had, or one older than the kept history. */
export const functionVersionNotFound = (name: string, version: number) =>
  new NotFoundError('function_version_not_found', `Function '${name}' has no version ${version} (the newest 50 are kept)`);

export class NoRouteError extends SwitchyardError {
  readonly code = 'no_route';
  readonly status = 404;
  constructor(method: string, path: string) {
    super(`No route matches ${method} ${path}`);
  }
}

export class MethodNotAllowedError extends SwitchyardError {
  readonly code = 'method_not_allowed';
  readonly status = 405;
  constructor(
    method: string,
    path: string,
    readonly allow: string[],
  ) {
    super(`${method} is not allowed on ${path}; allowed: ${allow.join(', ')}`, { allow });
  }
}

export class ConflictError extends SwitchyardError {
  readonly code: ErrorCode;
  readonly status = 409;
  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message, details);
    this.code = code;
  }
}

export class UnknownFunctionError extends SwitchyardError {
  readonly code = 'unknown_function';
  readonly status = 400;
  constructor(name: string, field = 'function') {
    super(`${field}: function '${name}' does not exist`, { function: name });
  }
}

export class InvalidCodeError extends SwitchyardError {
  readonly code = 'invalid_code';
  readonly status = 400;
  /** `file`: the user's file name (compile.ts `userFileName`), named with the position. */
  constructor(message: string, line?: number, column?: number, file?: string) {
    const where = line ? ` (${file ? `${file}, ` : ''}line ${line}${column ? `, column ${column}` : ''})` : '';
    super(`code: ${message}${where}`, {
      line: line ?? null,
      column: column ?? null,
    });
  }
}

export class PayloadTooLargeError extends SwitchyardError {
  readonly code = 'payload_too_large';
  readonly status = 413;
  constructor(limit: number) {
    super(`Request body is larger than ${limit} bytes`);
  }
}

/** Every server-sent event stream slot is taken; the client retries later. */
export class TooManyStreamsError extends SwitchyardError {
  readonly code = 'too_many_streams';
  readonly status = 503;
  constructor(max: number) {
    super(`This server already serves ${max} event streams; close one or try again later`, { max });
  }
}

/** A request that would take a chain of runs past its hop bound (src/hops.ts). */
export class LoopStoppedError extends SwitchyardError {
  readonly code = 'loop_stopped';
  readonly status = 508;
  constructor(depth: number, max: number) {
    super(`This request is hop ${depth} of a chain of runs, past the bound of ${max} (a loop?)`, { depth, max_hops: max });
  }
}

/** Failures of user code during an invocation. `code` is one of docs/errors.md. */
export const INVOCATION_ERROR_CODES = ['function_error', 'function_timeout', 'function_memory_limit', 'function_crashed', 'invalid_result'] as const;
export type InvocationErrorCode = (typeof INVOCATION_ERROR_CODES)[number] & ErrorCode;

export const INVOCATION_ERROR_STATUS: Record<InvocationErrorCode, number> = {
  function_error: 502,
  function_timeout: 504,
  function_memory_limit: 502,
  function_crashed: 502,
  invalid_result: 502,
};

export class StoreUnavailableError extends SwitchyardError {
  readonly code = 'store_unavailable';
  readonly status = 503;
}

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
