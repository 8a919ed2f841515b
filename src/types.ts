/**
 * Domain types shared by every layer.
 *
 * Glossary
 * - API: a named group of routes served under one `basePath`, addressed by an
 *   opaque id (`api_...`). Invocation URL: `/api/invoke/fn/<apiId><basePath><routePath>`.
 * - Route: one HTTP method (or ANY) plus a path template (`/users/:id`, `/files/*`)
 *   bound to a function by name (`rt_...`).
 * - Function: user code with a `handler(event, context)`, keyed by `name`.
 * - Version: a function's deployment counter; every code or settings change bumps it.
 *   A running invocation finishes on the version it started with. The newest 50
 *   are kept with their code (version history), never with env values.
 * - Isolate: the V8 sandbox that runs one function version, kept warm and reused.
 * - Worker: a supervised child process that hosts isolates, so a catastrophic
 *   isolate failure never takes down the service.
 * - Event: a named payload (`order.created`) published by `POST /api/events` or
 *   a function's `emit`; `switchyard.*` names are the server's own (src/events/names.ts).
 * - Target: where a delivery goes, a webhook (sent over HTTP to its
 *   `target_url`) or a function (invoked in the background). The word means
 *   nothing else in code: an outbound address is a URL (the public names
 *   `private_target` and `SWITCHYARD_ALLOW_PRIVATE_TARGETS` keep the word),
 *   where an invocation's outcome goes is a destination.
 * - Destination: where an asynchronous invocation's outcome record goes
 *   (`async.on_success` / `on_failure`): a webhook or another function.
 * - Delivery: one event, scheduled run or background invocation for one
 *   target, kept until it succeeds or its attempts are spent
 *   (src/deliveries/types.ts; its `target` field is the target's key).
 * - Attempt: one try of a delivery.
 * - Slot: a schedule's fire time, and only that; each slot fires once
 *   (the store's unique key on owner and time).
 * - Lease: a node's claim on a due delivery until `leaseUntil`; an expired
 *   lease (a crashed node) lets another node take the delivery.
 * - Change: a write every process of every node must see (src/changes.ts),
 *   numbered so a request can wait for the one it depends on.
 */

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
export const ROUTE_METHODS = [...HTTP_METHODS, 'ANY'] as const;
export type RouteMethod = (typeof ROUTE_METHODS)[number];
/** What a CORS policy may allow: a method, or `*` for whatever a preflight asks. */
export const CORS_METHODS = [...HTTP_METHODS, '*'] as const;
export type CorsMethod = (typeof CORS_METHODS)[number];

/**
 * A route's own access policy, checked by the gateway before its function runs
 * (src/gateway/policy/). Stored as one JSON document per route (routes.policy_json),
 * so a new field needs no migration: add it here, to ROUTE_POLICY_FIELDS and to
 * src/schema/apis.ts. Every field is optional; absent means the default.
 */
export interface RoutePolicy {
  /** This route's own token bucket, checked besides the API's (src/gateway/policy/throttle.ts). */
  throttle?: ThrottleConfig;
  /** Callers must send an enabled API key (`x-api-key`) whose usage plan covers the API (src/gateway/policy/api-keys.ts). */
  apiKeyRequired?: boolean;
  /** What a request must carry before the function runs (src/gateway/policy/validation.ts). */
  request?: RequestModel;
  /** The name of one of the API's authorizers, or `NONE` for an open route under the API's default one; absent: the default. */
  authorizer?: string;
  /** A JWT authorizer's scopes for this route: the token must carry at least one of them (403 otherwise). */
  authorizationScopes?: string[];
}

/** The keys of RoutePolicy the store keeps and the API shows; a key not listed here is dropped. */
export const ROUTE_POLICY_FIELDS: readonly (keyof RoutePolicy)[] = ['throttle', 'apiKeyRequired', 'authorizer', 'authorizationScopes', 'request'];

/**
 * A token bucket, as API Gateway's throttle settings: `burstLimit` tokens at most,
 * refilled at `rateLimit` per second; each request takes one. Shared by every
 * process and node on the database (src/gateway/policy/throttle.ts).
 */
export interface ThrottleConfig {
  rateLimit: number;
  burstLimit: number;
}

/**
 * A route's request model, as a REST API's request validator checks it:
 * `body` is the JSON Schema of its JSON body (`requestModels`), `querystrings`
 * and `headers` map a parameter's name to whether it is required
 * (`requestParameters`' `method.request.querystring.<name>: true`).
 */
export interface RequestModel {
  body?: Record<string, unknown>;
  querystrings?: Record<string, boolean>;
  headers?: Record<string, boolean>;
}

/** A route's `authorizer` that opts it out of the API's default authorizer, as API Gateway spells it. */
export const NO_AUTHORIZER = 'NONE';

/** JWS algorithms a JWT authorizer may accept. */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'HS256', 'HS384', 'HS512'] as const;

/**
 * A JWT authorizer (an HTTP API's JWT authorizer, src/gateway/policy/jwt.ts):
 * the token's signature by one of the keys (a JWKS URL, a given key set, or an
 * HS256 shared secret), its issuer, audience, expiry and not-before.
 */
export interface JwtAuthorizer {
  name: string;
  type: 'jwt';
  /** The `iss` the token must carry. */
  issuer: string;
  /** The token's `aud` (or `client_id`) must be one of these. */
  audience: string[];
  /** Where the public keys are fetched (cached; fetched again for an unknown `kid`). */
  jwksUrl?: string;
  /** A JWK set given here instead (public keys only). */
  keys?: { keys: Record<string, unknown>[] };
  /** An HS256 shared secret: write-only, answered masked. */
  secret?: string;
  /** Accepted `alg` values; absent: each key's own (RS256, ES256, EdDSA, HS256 ...). */
  algorithms?: (typeof JWT_ALGORITHMS)[number][];
  /** Where the token is read; default `$request.header.Authorization` (a `Bearer ` prefix is taken off). */
  identitySource?: string;
  /** Seconds of clock difference allowed on `exp` and `nbf`; default 5. */
  leewaySeconds?: number;
}

/** Payload versions of function authorizers: 1.0 (REST API: TOKEN or REQUEST, IAM policy answers) and 2.0 (HTTP API). */
export const AUTHORIZER_PAYLOAD_VERSIONS = ['1.0', '2.0'] as const;
export const AUTHORIZER_KINDS = ['TOKEN', 'REQUEST'] as const;

/**
 * A function authorizer (a Lambda authorizer, src/gateway/policy/function-authorizer.ts):
 * a Switchyard function given API Gateway's authorizer event, whose answer
 * (an IAM policy, or with simple responses `{isAuthorized}`) admits or refuses.
 */
export interface FunctionAuthorizer {
  name: string;
  type: 'function';
  /** The Switchyard function that decides. */
  function: string;
  payloadFormatVersion: (typeof AUTHORIZER_PAYLOAD_VERSIONS)[number];
  /** 1.0 only: TOKEN (the token alone) or REQUEST (the whole request). 2.0 is always REQUEST. */
  kind: (typeof AUTHORIZER_KINDS)[number];
  /** `$request.header.X`, `$request.querystring.x`, or AWS's REST spellings `method.request.header.X`. */
  identitySources: string[];
  /** How long an answer is kept per identity (0: the function runs for every request). */
  resultTtlSeconds: number;
  /** 2.0 only: the function answers `{isAuthorized, context}` instead of an IAM policy. */
  enableSimpleResponses: boolean;
}

export type Authorizer = JwtAuthorizer | FunctionAuthorizer;

/** The policy fields set on a route (neither absent nor null), picked from a route as written. */
export function routePolicyOf(route: RoutePolicy): RoutePolicy {
  const policy: Record<string, unknown> = {};
  for (const key of ROUTE_POLICY_FIELDS) if (route[key] !== undefined && route[key] !== null) policy[key] = route[key];
  return policy as RoutePolicy;
}

export interface Route extends RoutePolicy {
  id: string;
  method: RouteMethod;
  path: string;
  function: string;
}

/** The periods a usage plan's quota counts over (UTC; weeks start on Monday). */
export const QUOTA_PERIODS = ['DAY', 'WEEK', 'MONTH'] as const;
export type QuotaPeriod = (typeof QUOTA_PERIODS)[number];

/** Requests a key may make per period (usage plans). */
export interface QuotaConfig {
  limit: number;
  period: QuotaPeriod;
}

/**
 * A usage plan (API Gateway's): the APIs its keys may call, and the throttle
 * (a bucket per key) and quota (a count per key and period) each key gets.
 */
export interface UsagePlan {
  id: string;
  name: string;
  apiIds: string[];
  throttle: ThrottleConfig | null;
  quota: QuotaConfig | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * An API key as stored: never its secret, only the secret's SHA-256 (kept by
 * the store, not on this record) and its first characters (`prefix`), so a
 * person can tell keys apart.
 */
export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  enabled: boolean;
  usagePlanId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** How the gateway words the answers it writes itself (refusals, a function's failure). */
export const ERROR_FORMATS = ['switchyard', 'aws'] as const;
export type ErrorFormat = (typeof ERROR_FORMATS)[number];

/**
 * An API's access policy beyond CORS and compression (src/gateway/policy/),
 * stored as one JSON document per API (apis.policy_json): a new field needs no
 * migration, only its entry here, in API_POLICY_DEFAULTS and in src/schema/apis.ts.
 */
export interface ApiPolicy {
  /** `switchyard`: the gateway's own error bodies; `aws`: API Gateway's (`{"message":"Internal server error"}`). */
  errorFormat: ErrorFormat;
  /** A function's error message and source position reach the caller; false: only its logs, under the request id. */
  exposeErrors: boolean;
  /** One token bucket for every request of the API, all routes together; null: none. */
  throttle: ThrottleConfig | null;
  /** The API's authorizers, named; routes pick one with `authorizer` (src/gateway/policy/authorizers.ts). */
  authorizers: Authorizer[];
  /** The authorizer of every route that names none; null: such routes are open. */
  defaultAuthorizer: string | null;
}

/** Each API policy field's value when not set; the store keeps only the fields that differ from these. */
export const API_POLICY_DEFAULTS: Readonly<ApiPolicy> = Object.freeze({
  errorFormat: 'switchyard',
  exposeErrors: false,
  throttle: null,
  authorizers: Object.freeze([]) as unknown as Authorizer[],
  defaultAuthorizer: null,
});

/**
 * An API's CORS policy (the HTTP API's CorsConfiguration): the gateway answers
 * preflights and adds the Access-Control-* headers itself (src/gateway/policy/cors.ts).
 */
export interface CorsConfig {
  /** Exact origins, or `*`. */
  allowOrigins: string[];
  allowMethods: CorsMethod[];
  allowHeaders: string[];
  exposeHeaders: string[];
  maxAge: number | null;
  allowCredentials: boolean;
}

export interface Api extends ApiPolicy {
  id: string;
  name: string;
  basePath: string;
  routes: Route[];
  /** Null: no CORS (the gateway adds no header and answers no preflight). */
  cors: CorsConfig | null;
  createdAt: string;
  updatedAt: string;
  /** Invoke answers above this many bytes are compressed when the caller accepts it; null: never. */
  minimumCompressionSize: number | null;
  /** REST API binary media types for aws-v1 functions; null: unset (every isBase64Encoded answer decoded). */
  binaryMediaTypes: string[] | null;
  /** The project whose `switchyard apply` made (or last took over) the API; null or absent: none (made by hand). */
  project?: string | null;
}

export type FunctionRuntimeName = 'javascript' | 'typescript';

/**
 * The event a function receives from the gateway and how its result is read:
 * `switchyard` (the proxy-event superset with a parsed JSON body), `aws-v1`
 * (API Gateway REST proxy integration) or `aws-v2` (HTTP API / function URL,
 * payload format 2.0), exactly as AWS sends them.
 */
export const EVENT_FORMATS = ['switchyard', 'aws-v1', 'aws-v2'] as const;
export type EventFormat = (typeof EVENT_FORMATS)[number];

/** A function as stored. `compiled` is the CommonJS JavaScript the isolate runs. */
export interface FunctionRecord {
  name: string;
  runtime: FunctionRuntimeName;
  code: string;
  compiled: string;
  env: Record<string, string>;
  timeoutMs: number;
  memoryMb: number;
  /**
   * The export to call, as given (`lambdaHandler`, or Lambda's `app.lambdaHandler`);
   * null: `handler`, else the default export, else the only exported function.
   */
  handler: string | null;
  eventFormat: EventFormat;
  /** Cron schedules that invoke the function (src/functions/triggers.ts); [] when none. */
  schedules: FunctionSchedule[];
  /** Event names (or `*`) whose events invoke the function, matched as webhooks' `events`. */
  events: string[];
  /** Asynchronous invocations: retries and destinations. */
  async: AsyncConfig;
  /** The project whose `switchyard apply` made (or last took over) the function; null or absent: none (made by hand). */
  project?: string | null;
  version: number;
  codeSha256: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * One version in a function's history (the newest FUNCTION_VERSIONS_KEPT are
 * kept): what that deploy or update ran. Never its env, whose values are write-only.
 */
export interface FunctionVersionSummary {
  version: number;
  runtime: FunctionRuntimeName;
  handler: string | null;
  eventFormat: EventFormat;
  timeoutMs: number;
  memoryMb: number;
  codeSha256: string;
  /** UTF-8 bytes of `code`. */
  codeBytes: number;
  createdAt: string;
}

export interface FunctionVersion extends FunctionVersionSummary {
  code: string;
}

export interface FunctionSchedule {
  cron: string;
  /** IANA time zone; UTC by default. */
  timezone: string;
  /** The event's `detail`; null sends `{}`. */
  payload: Record<string, unknown> | null;
}

/** Where an asynchronous invocation's outcome record goes: a webhook, or another function (asynchronously). */
export type Destination = { type: 'webhook'; id: string } | { type: 'function'; name: string };

export interface AsyncConfig {
  /** Attempts after the first on error or timeout, 0 to 5 (default 2). */
  retries: number;
  onSuccess: Destination | null;
  onFailure: Destination | null;
}

export const DEFAULT_ASYNC: Readonly<AsyncConfig> = { retries: 2, onSuccess: null, onFailure: null };

export type LogLevel = 'debug' | 'info' | 'log' | 'warn' | 'error';

export interface FunctionLogLine {
  time: string;
  level: LogLevel;
  message: string;
  requestId: string | null;
  /** The function version that wrote the line, when known (set by the log sink). */
  version?: number | null;
}

/** A console line as stored: its id orders every function's lines (streams resume after it). */
export interface StoredLogLine extends FunctionLogLine {
  id: number;
  function: string;
  version: number | null;
}

/** Keyset pagination shared by every list: ids sort by creation time. */
export interface Page {
  limit: number;
  after?: string;
}

/**
 * The one logger shape every part takes (pino's `Logger` satisfies it): an
 * object of fields first, then the message. Parts depend on this, not on pino,
 * so tests pass a recorder and the worker processes never load pino.
 */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/**
 * One run, for its start, end and report lines (SWITCHYARD_FUNCTION_REPORT_LINES):
 * its request id, how long it took, the function's memory limit and what the
 * runtime measured (the runtime's RunStats: start time when the run started the
 * isolate, heap used).
 */
export interface RunFacts {
  requestId: string;
  durationMs: number;
  memoryMb: number;
  stats?: { initMs: number | null; memoryUsedMb: number };
}

/** Where a run's console lines are handed (src/functions/log-sink.ts batches them into the store). */
export interface ConsoleLineSink {
  /** Every run is to be handed with its RunFacts, lines or not (report lines are on). */
  readonly runLines?: boolean;
  push(functionName: string, lines: FunctionLogLine[], version?: number | null, run?: RunFacts): void;
}
