/**
 * The named shapes of the management API's answers: the one source of the
 * API's types. Each is a TypeBox schema registered with `app.addSchema` under
 * its `$id`, so routes reference it (`{ $ref: 'Function#' }`), Fastify
 * serialises answers with it, @fastify/swagger publishes it as
 * `components.schemas.<Name>`, and the views (src/http/views/) are typed
 * with `Static<typeof ...>` of it: a field added here and not to a view (or
 * the other way round) fails to compile, and what the document says is what
 * goes on the wire. The integration suite checks every answer against these
 * (test/helpers/service.ts).
 */
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES } from '../errors.js';
import { EVENT_FORMATS, ROUTE_METHODS, type LogLevel } from '../types.js';
import { WEBHOOK_METHODS } from '../webhooks/types.js';
import type { DryRunResult } from '../dry-run.js';
import { dryRunSchema } from './dry-run.js';
import {
  Type,
  anyObject,
  headerMap,
  instant,
  named,
  nullableInstant,
  nullableInteger,
  nullableString,
  refTo,
  stringEnum,
  type Static,
} from './schema/kit.js';
import { AttemptEventSchema, StatsSchema } from './stats-schemas.js';

const string = () => Type.String();

export const FUNCTION_RUNTIMES = ['javascript', 'typescript'] as const;
export const LOG_LEVELS = ['debug', 'info', 'log', 'warn', 'error'] as const satisfies readonly LogLevel[];
export const DELIVERY_TRIGGERS = ['test', 'schedule', 'event', 'destination'] as const;
export const INVOCATION_TRIGGERS = ['async', 'schedule', 'event', 'destination'] as const;
export const RUN_STATUSES = ['pending', 'succeeded', 'failed'] as const;

const ErrorSchema = named(
  'Error',
  Type.Object(
    {
      error: Type.String({ description: 'What went wrong, for people' }),
      code: stringEnum(ERROR_CODES, { description: 'Stable snake_case code (docs/errors.md says what each means)' }),
      details: Type.Optional(Type.Unknown({ description: 'More about the error, e.g. `{ "field": "timeout_ms" }`' })),
      requestId: Type.Optional(Type.String({ description: 'Only on 500s: the request id to look up in the server log' })),
    },
    { description: 'Every error answer. `code` is stable (docs/errors.md lists each); `details` names the field when one is wrong.' },
  ),
);

const DeletedSchema = named(
  'Deleted',
  Type.Object({
    deleted: Type.Literal(true),
    id: Type.Optional(Type.String({ description: 'The id of what was deleted (APIs, routes, webhooks)' })),
    name: Type.Optional(Type.String({ description: 'The name of what was deleted (functions)' })),
  }),
);

const DestinationSchema = named(
  'Destination',
  Type.Object(
    {
      type: stringEnum(['webhook', 'function']),
      id: Type.Optional(Type.String({ description: 'The webhook id (type webhook)' })),
      name: Type.Optional(Type.String({ description: 'The function name (type function)' })),
    },
    { description: "Where an asynchronous invocation's outcome record goes: a webhook, or another function (run asynchronously)" },
  ),
);

const FunctionSchema = named(
  'Function',
  Type.Object({
    name: string(),
    runtime: stringEnum(FUNCTION_RUNTIMES),
    env_keys: Type.Array(string(), { description: 'Names of the environment variables (values are write-only)' }),
    timeout_ms: Type.Integer(),
    memory_mb: Type.Integer(),
    handler: nullableString({ description: 'The export called; null: `handler`, else the default export, else the only exported function' }),
    event_format: stringEnum(EVENT_FORMATS),
    schedules: Type.Array(Type.Object({ cron: string(), timezone: string(), payload: Type.Optional(anyObject()) })),
    events: Type.Array(string()),
    async: Type.Object({
      retries: Type.Integer(),
      on_success: Type.Union([Type.Null(), refTo(DestinationSchema)]),
      on_failure: Type.Union([Type.Null(), refTo(DestinationSchema)]),
    }),
    version: Type.Integer({ description: 'Starts at 1; every update adds one' }),
    code_sha256: string(),
    created_at: instant(),
    updated_at: instant(),
    code: Type.Optional(Type.String({ description: 'The source as deployed; only in `GET /api/functions/{name}`' })),
  }),
);

const FunctionVersionSchema = named(
  'FunctionVersion',
  Type.Object(
    {
      version: Type.Integer(),
      runtime: stringEnum(FUNCTION_RUNTIMES),
      handler: nullableString(),
      event_format: stringEnum(EVENT_FORMATS),
      timeout_ms: Type.Integer(),
      memory_mb: Type.Integer(),
      code_sha256: Type.String({ description: 'SHA-256 of the code (hex), as the function answers it' }),
      code_bytes: Type.Integer({ description: 'Size of the code in bytes (UTF-8)' }),
      created_at: instant({ description: 'When this version was deployed' }),
      code: Type.Optional(Type.String({ description: 'The source of this version; only in `GET /api/functions/{name}/versions/{version}`' })),
    },
    {
      description:
        "One version in a function's history (the newest 50 are kept): what that deploy or update ran. " +
        'Never its environment: values are write-only, and a version does not keep them.',
    },
  ),
);

const LogEntrySchema = named(
  'LogEntry',
  Type.Object(
    {
      id: Type.Optional(Type.Integer({ description: 'Store id: orders all lines; `?since=` and `Last-Event-ID` of the log streams take it' })),
      version: Type.Optional(nullableInteger({ description: 'The function version that wrote the line (null for lines older than this field)' })),
      time: instant(),
      level: stringEnum(LOG_LEVELS),
      message: string(),
      request_id: nullableString(),
    },
    { description: 'One console line of a function. Stored lines (the logs endpoint) also carry their id and the version that wrote them.' },
  ),
);

const LogStreamEntrySchema = named(
  'LogStreamEntry',
  Type.Object(
    {
      id: Type.Integer(),
      function: string(),
      version: nullableInteger(),
      request_id: nullableString(),
      level: stringEnum(LOG_LEVELS),
      message: string(),
      ts: instant(),
      time: Type.Optional(instant({ description: 'Same as ts (the name the logs endpoint uses)' })),
    },
    { description: 'The data of an `event: log` of the log streams (the event id is `id`).' },
  ),
);

const InvocationEventSchema = named(
  'InvocationEvent',
  Type.Object(
    {
      function: string(),
      api_id: nullableString({ description: 'The API the request came through; null for the invoke endpoint' }),
      method: string(),
      path: Type.String({ description: 'The path after the API id (gateway), or the invoke endpoint path' }),
      status: Type.Integer(),
      duration_ms: Type.Number(),
      request_id: string(),
      ts: instant(),
      outcome: Type.String({ description: '`ok`, or the failure code (function_error, function_timeout, invalid_result, ...)' }),
      log_lines: Type.Integer({
        description:
          'How many console lines the call wrote. They arrive as `event: log` with this request_id, usually a few hundred milliseconds after this event: wait for them to print the call after its lines',
      }),
    },
    { description: 'The data of an `event: invocation` of the log streams: one finished invocation on the server that serves the stream.' },
  ),
);

const InvocationSchema = named(
  'Invocation',
  Type.Object(
    {
      status: Type.Integer({ description: 'The HTTP status the gateway would answer' }),
      result: Type.Unknown({ description: 'What the handler returned (null on failure)' }),
      error: Type.Union([Type.Null(), Type.Object({ code: string(), message: string() })]),
      logs: Type.Array(refTo(LogEntrySchema)),
      duration_ms: Type.Number(),
    },
    { description: 'What the gateway would answer for this event, with the console lines of the run.' },
  ),
);

const RouteSchema = named(
  'Route',
  Type.Object({ id: string(), method: stringEnum(ROUTE_METHODS), path: string(), function: string() }),
);

const ApiSchema = named(
  'Api',
  Type.Object({
    id: string(),
    name: string(),
    basePath: string(),
    routes: Type.Array(refTo(RouteSchema)),
    createdAt: instant(),
    updatedAt: instant(),
    invokeUrl: Type.String({ description: 'Where the routes answer (absolute, as the caller reached this server)' }),
  }),
);

const WebhookSchema = named(
  'Webhook',
  Type.Object({
    id: string(),
    name: string(),
    target_url: string(),
    method: stringEnum(WEBHOOK_METHODS),
    headers: headerMap({ description: 'Sensitive values masked ("***")' }),
    payload_template: anyObject({ description: 'A JSON object (any values) with optional {{placeholders}}' }),
    cron: nullableString(),
    timezone: nullableString(),
    mock_endpoint: Type.Union([Type.Null(), Type.Object({ api_id: string(), path: string() })]),
    events: Type.Unsafe<string[] | null>({ type: ['array', 'null'], items: { type: 'string' } }),
    enabled: Type.Boolean(),
    has_secret: Type.Boolean(),
    retry: Type.Object({ max_attempts: Type.Integer(), schedule_s: Type.Optional(Type.Array(Type.Integer())) }),
    timeout_ms: Type.Integer(),
    next_fire_at: nullableInstant(),
    created_at: instant(),
    updated_at: instant(),
    secret: Type.Optional(Type.String({ description: 'Only in the answer that generated or set it' })),
    next_fires: Type.Optional(Type.Array(instant(), { description: 'Only in `GET /api/webhooks/{id}`: the next 5 fire times' })),
    health: Type.Optional(
      Type.Object(
        {
          last_outcome: Type.Unsafe<'succeeded' | 'failed' | null>({
            type: ['string', 'null'],
            enum: ['succeeded', 'failed', null],
            description: 'The latest outcome of the newest delivery tried: `failed` also for one still retrying; null when none was tried',
          }),
          failures_in_a_row: Type.Integer({
            description: 'Deliveries that failed since the newest that succeeded, counting those retrying (pending ones not tried yet are skipped)',
          }),
          pending: Type.Integer({ description: 'Deliveries still pending, those retrying included' }),
          retrying: Type.Integer({ description: 'Pending deliveries whose latest attempt failed: waiting for their next attempt' }),
          window: Type.Integer({ description: 'How many of the newest deliveries were counted' }),
        },
        { description: "Only in `GET /api/webhooks`: counted over the webhook's `window` (20) newest deliveries" },
      ),
    ),
  }),
);

const AttemptSchema = named(
  'Attempt',
  Type.Object({
    attempt: Type.Integer(),
    started_at: instant(),
    duration_ms: Type.Number(),
    response_status: nullableInteger(),
    error: nullableString(),
  }),
);

/** A target's answer: a delivery's last one, or one attempt's. */
const responseOf = (description: string) =>
  Type.Union([Type.Null(), Type.Object({ status: Type.Integer(), headers: headerMap(), body: string() })], { description });

/** An attempt as `GET /api/deliveries/{id}` answers it: with its own response (lists leave it out: a body each). */
const AttemptDetailSchema = named(
  'AttemptDetail',
  Type.Object({
    ...AttemptSchema.properties,
    response: responseOf(
      "The target's answer to this attempt (sensitive header values masked, first 16 KiB of the body); " +
        'null when none came (a network error, a timeout) or the attempt predates migration 13, which began keeping them',
    ),
  }),
);

const deliveryProperties = {
  id: string(),
  webhook_id: string(),
  trigger: stringEnum(DELIVERY_TRIGGERS, {
    description: "`destination`: a function's invocation record (its `async.on_success` / `on_failure`), sent as the payload",
  }),
  event: nullableString(),
  status: stringEnum(RUN_STATUSES),
  error: nullableString(),
  scheduled_for: nullableInstant(),
  next_attempt_at: nullableInstant(),
  attempts: Type.Array(refTo(AttemptSchema)),
  request: Type.Union(
    [Type.Null(), Type.Object({ method: string(), url: string(), headers: headerMap(), body: nullableString() })],
    { description: 'The rendered request (sensitive header values masked); null until rendered' },
  ),
  response: responseOf("The target's last answer (sensitive header values masked, first 16 KiB of the body)"),
  created_at: instant(),
  completed_at: nullableInstant(),
};

const DeliverySchema = named('Delivery', Type.Object(deliveryProperties));

/** `GET /api/deliveries/{id}`: a delivery whose attempts each carry their response. */
const DeliveryDetailSchema = named(
  'DeliveryDetail',
  Type.Object({ ...deliveryProperties, attempts: Type.Array(refTo(AttemptDetailSchema)) }),
);

const InvocationAcceptedSchema = named(
  'InvocationAccepted',
  Type.Object(
    { invocation_id: string(), status: Type.Literal('pending') },
    { description: 'An asynchronous invocation, stored: it runs in the background (`GET /api/functions/{name}/invocations/{id}`)' },
  ),
);

const FunctionInvocationSchema = named(
  'FunctionInvocation',
  Type.Object(
    {
      id: Type.String({ description: 'Also the request id the function sees (awsRequestId) on every attempt: deduplicate with it' }),
      function: string(),
      trigger: Type.Object({ type: stringEnum(INVOCATION_TRIGGERS) }, { additionalProperties: true }),
      status: stringEnum(RUN_STATUSES),
      attempts: Type.Array(
        Type.Object({
          attempt: Type.Integer(),
          started_at: instant(),
          duration_ms: Type.Number(),
          outcome: Type.String({ description: '`ok`, or the error code (function_error, function_timeout, ...)' }),
          error: nullableString(),
          request_id: Type.Optional(nullableString()),
        }),
      ),
      event: Type.Unknown({ description: "The event as stored (an asynchronous invoke is completed in the function's format when run)" }),
      result: Type.Unknown({ description: "The function's result once it succeeded; else null" }),
      error: nullableString(),
      next_attempt_at: Type.Optional(nullableInstant()),
      created_at: instant(),
      completed_at: nullableInstant(),
    },
    { description: 'A background invocation of a function: asynchronous, scheduled, event-triggered or a destination' },
  ),
);

const PublishedEventSchema = named(
  'PublishedEvent',
  Type.Object({
    event: string(),
    deliveries: Type.Array(string(), { description: 'Ids of the deliveries created, one per subscribed webhook' }),
    functions: Type.Array(Type.Object({ name: string(), invocation_id: string() }), {
      description: 'The subscribed functions reached, each with the id of its invocation',
    }),
  }),
);

const DryRunSchema = named(
  'DryRun',
  Type.Unsafe<DryRunResult>({ description: 'The answer of a write sent with `?dry_run=true`: what it would do. Nothing is written.', ...dryRunSchema }),
);

const HealthSchema = named(
  'Health',
  Type.Object({
    status: Type.Literal('ok'),
    pid: Type.Integer({ description: 'Id of the server process that answered (one of several with --processes above 1).' }),
  }),
);

const ReadinessSchema = named(
  'Readiness',
  Type.Object({ status: stringEnum(['ready', 'unavailable']), error: Type.Optional(string()), code: Type.Optional(string()) }),
);

/** The answers' types, as the document describes them: the views return these. */
export type FunctionView = Static<typeof FunctionSchema>;
export type FunctionVersionView = Static<typeof FunctionVersionSchema>;
export type LogEntryView = Static<typeof LogEntrySchema>;
export type InvocationView = Static<typeof InvocationSchema>;
export type DestinationView = Static<typeof DestinationSchema>;
export type RouteView = Static<typeof RouteSchema>;
export type ApiView = Static<typeof ApiSchema>;
export type WebhookView = Static<typeof WebhookSchema>;
export type AttemptView = Static<typeof AttemptSchema>;
export type AttemptDetailView = Static<typeof AttemptDetailSchema>;
export type DeliveryView = Static<typeof DeliverySchema>;
export type DeliveryDetailView = Static<typeof DeliveryDetailSchema>;
export type FunctionInvocationView = Static<typeof FunctionInvocationSchema>;
export type InvocationAcceptedView = Static<typeof InvocationAcceptedSchema>;
export type PublishedEventView = Static<typeof PublishedEventSchema>;
export type DeletedView = Static<typeof DeletedSchema>;

export const COMPONENT_SCHEMAS = [
  ErrorSchema,
  DeletedSchema,
  FunctionSchema,
  FunctionVersionSchema,
  LogEntrySchema,
  LogStreamEntrySchema,
  InvocationEventSchema,
  InvocationSchema,
  RouteSchema,
  ApiSchema,
  WebhookSchema,
  AttemptSchema,
  AttemptDetailSchema,
  DeliverySchema,
  DeliveryDetailSchema,
  DestinationSchema,
  InvocationAcceptedSchema,
  FunctionInvocationSchema,
  PublishedEventSchema,
  DryRunSchema,
  HealthSchema,
  ReadinessSchema,
  StatsSchema,
  AttemptEventSchema,
] as const;

export type ComponentName = (typeof COMPONENT_SCHEMAS)[number]['$id'];

export function registerSchemas(app: FastifyInstance): void {
  for (const schema of COMPONENT_SCHEMAS) app.addSchema(schema);
}

/** `{ $ref: 'Name#' }`: a reference Fastify resolves and @fastify/swagger turns into `#/components/schemas/Name`. */
export const ref = (name: ComponentName) => ({ $ref: `${name}#` }) as const;
export const listOf = (name: ComponentName) => ({ type: 'array', items: ref(name) }) as const;

/** The 200 of a create sent with `?dry_run=true`. */
export const DRY_RUN_ANSWER = { description: 'With `?dry_run=true`: what would be created; nothing is written', ...ref('DryRun') } as const;

/** A 200 that is the resource, or with `?dry_run=true` what would change. */
export const orDryRun = (name: ComponentName, description: string) =>
  ({ description: `${description}; with \`?dry_run=true\`, a DryRun`, anyOf: [ref(name), ref('DryRun')] }) as const;

const errorRef = ref('Error');
type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 414 | 415 | 421 | 429 | 500 | 503 | 508;
const ERROR_TEXT: Record<ErrorStatus, string> = {
  400: 'Invalid request (the message and `details.field` name the field)',
  401: 'Missing or wrong admin key',
  403: 'Without an admin key: a request from a page of another origin (cross_origin_refused)',
  404: 'Not found',
  409: 'Conflict',
  413: 'Request body larger than the limit',
  414: 'A path segment is too long',
  415: 'The body is not JSON',
  421: 'Without an admin key: a Host that is not a loopback name (host_not_allowed)',
  429: 'Too many wrong admin keys from this address (too_many_failed_attempts; Retry-After says when to try again)',
  500: 'Internal error (see the server log for the request id)',
  503: 'The database does not answer, or the server is shutting down',
  508: 'The request is part of a chain of runs past 16 hops (`Switchyard-Depth`): a loop',
};

/**
 * Error answers of an operation. Every operation can answer 400, 401, 403,
 * 421, 429, 500 and 503; `extra` adds the ones it has besides (404 and 414
 * with a path parameter, 413 and 415 with a body, 409 for conflicts).
 */
export function errors(...extra: ErrorStatus[]): Record<number, { description: string; $ref: string }> {
  const out: Record<number, { description: string; $ref: string }> = {};
  for (const status of [400, 401, 403, ...extra, 421, 429, 500, 503] as ErrorStatus[]) {
    out[status] = { description: ERROR_TEXT[status], ...errorRef };
  }
  return out;
}

/** With a path parameter. */
export const ERRORS_BY_ID = errors(404, 414);
/** With a JSON body. */
export const ERRORS_WITH_BODY = errors(409, 413, 415);
/** With a path parameter and a JSON body. */
export const ERRORS_BY_ID_WITH_BODY = errors(404, 409, 413, 414, 415);
