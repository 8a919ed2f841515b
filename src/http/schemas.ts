/**
 * The named shapes of the management API's answers. Each is registered with
 * `app.addSchema` under its `$id`, so routes reference it (`{ $ref: 'Function#' }`)
 * and Fastify serialises answers with it, and @fastify/swagger publishes it as
 * `components.schemas.<Name>`: what the document says is what goes on the wire,
 * and generated clients get readable type names.
 *
 * A response schema drops properties it does not name: a field added to a view
 * (functionView, webhookView, ...) must be added here too. The integration
 * suite checks every answer against these (test/helpers/service.ts).
 */
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES } from '../errors.js';
import { EVENT_FORMATS, ROUTE_METHODS } from '../types.js';
import { WEBHOOK_METHODS } from '../webhooks/types.js';
import { dryRunSchema } from './dry-run.js';
import { AttemptEventSchema, StatsSchema } from './stats-schemas.js';

const string = { type: 'string' } as const;
const nullableString = { type: ['string', 'null'] } as const;
const instant = { type: 'string', format: 'date-time' } as const;
const nullableInstant = { type: ['string', 'null'], format: 'date-time' } as const;
const headerMap = { type: 'object', additionalProperties: { type: 'string' } } as const;

const ErrorSchema = {
  $id: 'Error',
  type: 'object',
  description: 'Every error answer. `code` is stable (docs/errors.md lists each); `details` names the field when one is wrong.',
  properties: {
    error: { type: 'string', description: 'What went wrong, for people' },
    code: { type: 'string', enum: [...ERROR_CODES], description: 'Stable snake_case code (docs/errors.md says what each means)' },
    details: { description: 'More about the error, e.g. `{ "field": "timeout_ms" }`' },
    requestId: { type: 'string', description: 'Only on 500s: the request id to look up in the server log' },
  },
  required: ['error', 'code'],
} as const;

const DeletedSchema = {
  $id: 'Deleted',
  type: 'object',
  properties: {
    deleted: { type: 'boolean', const: true },
    id: { type: 'string', description: 'The id of what was deleted (APIs, routes, webhooks)' },
    name: { type: 'string', description: 'The name of what was deleted (functions)' },
  },
  required: ['deleted'],
} as const;

const FunctionSchema = {
  $id: 'Function',
  type: 'object',
  properties: {
    name: string,
    runtime: { type: 'string', enum: ['javascript', 'typescript'] },
    env_keys: { type: 'array', items: string, description: 'Names of the environment variables (values are write-only)' },
    timeout_ms: { type: 'integer' },
    memory_mb: { type: 'integer' },
    handler: { ...nullableString, description: 'The export called; null: `handler`, else the default export, else the only exported function' },
    event_format: { type: 'string', enum: [...EVENT_FORMATS] },
    schedules: {
      type: 'array',
      items: {
        type: 'object',
        properties: { cron: string, timezone: string, payload: { type: 'object', additionalProperties: true } },
        required: ['cron', 'timezone'],
      },
    },
    events: { type: 'array', items: string },
    async: {
      type: 'object',
      properties: {
        retries: { type: 'integer' },
        on_success: { anyOf: [{ type: 'null' }, { $ref: 'Destination#' }] },
        on_failure: { anyOf: [{ type: 'null' }, { $ref: 'Destination#' }] },
      },
      required: ['retries', 'on_success', 'on_failure'],
    },
    version: { type: 'integer', description: 'Starts at 1; every update adds one' },
    code_sha256: string,
    created_at: instant,
    updated_at: instant,
    code: { type: 'string', description: 'The source as deployed; only in `GET /api/functions/{name}`' },
  },
  required: [
    'name',
    'runtime',
    'env_keys',
    'timeout_ms',
    'memory_mb',
    'handler',
    'event_format',
    'schedules',
    'events',
    'async',
    'version',
    'code_sha256',
    'created_at',
    'updated_at',
  ],
} as const;

const FunctionVersionSchema = {
  $id: 'FunctionVersion',
  type: 'object',
  description:
    "One version in a function's history (the newest 50 are kept): what that deploy or update ran. " +
    'Never its environment: values are write-only, and a version does not keep them.',
  properties: {
    version: { type: 'integer' },
    runtime: { type: 'string', enum: ['javascript', 'typescript'] },
    handler: nullableString,
    event_format: { type: 'string', enum: [...EVENT_FORMATS] },
    timeout_ms: { type: 'integer' },
    memory_mb: { type: 'integer' },
    code_sha256: { type: 'string', description: 'SHA-256 of the code (hex), as the function answers it' },
    code_bytes: { type: 'integer', description: 'Size of the code in bytes (UTF-8)' },
    created_at: { ...instant, description: 'When this version was deployed' },
    code: { type: 'string', description: 'The source of this version; only in `GET /api/functions/{name}/versions/{version}`' },
  },
  required: ['version', 'runtime', 'handler', 'event_format', 'timeout_ms', 'memory_mb', 'code_sha256', 'code_bytes', 'created_at'],
} as const;

const LOG_LEVELS = ['debug', 'info', 'log', 'warn', 'error'] as const;

const LogEntrySchema = {
  $id: 'LogEntry',
  type: 'object',
  description: 'One console line of a function. Stored lines (the logs endpoint) also carry their id and the version that wrote them.',
  properties: {
    id: { type: 'integer', description: 'Store id: orders all lines; `?since=` and `Last-Event-ID` of the log streams take it' },
    version: { type: ['integer', 'null'], description: 'The function version that wrote the line (null for lines older than this field)' },
    time: instant,
    level: { type: 'string', enum: [...LOG_LEVELS] },
    message: string,
    request_id: nullableString,
  },
  required: ['time', 'level', 'message', 'request_id'],
} as const;

const LogStreamEntrySchema = {
  $id: 'LogStreamEntry',
  type: 'object',
  description: 'The data of an `event: log` of the log streams (the event id is `id`).',
  properties: {
    id: { type: 'integer' },
    function: string,
    version: { type: ['integer', 'null'] },
    request_id: nullableString,
    level: { type: 'string', enum: [...LOG_LEVELS] },
    message: string,
    ts: instant,
    time: { ...instant, description: 'Same as ts (the name the logs endpoint uses)' },
  },
  required: ['id', 'function', 'version', 'request_id', 'level', 'message', 'ts'],
} as const;

const InvocationEventSchema = {
  $id: 'InvocationEvent',
  type: 'object',
  description: "The data of an `event: invocation` of the log streams: one finished invocation on the server that serves the stream.",
  properties: {
    function: string,
    api_id: { ...nullableString, description: 'The API the request came through; null for the invoke endpoint' },
    method: string,
    path: { type: 'string', description: 'The path after the API id (gateway), or the invoke endpoint path' },
    status: { type: 'integer' },
    duration_ms: { type: 'number' },
    request_id: string,
    ts: instant,
    outcome: { type: 'string', description: '`ok`, or the failure code (function_error, function_timeout, invalid_result, ...)' },
    log_lines: {
      type: 'integer',
      description: 'How many console lines the call wrote. They arrive as `event: log` with this request_id, usually a few hundred milliseconds after this event: wait for them to print the call after its lines',
    },
  },
  required: ['function', 'api_id', 'method', 'path', 'status', 'duration_ms', 'request_id', 'ts', 'outcome', 'log_lines'],
} as const;

const InvocationSchema = {
  $id: 'Invocation',
  type: 'object',
  description: 'What the gateway would answer for this event, with the console lines of the run.',
  properties: {
    status: { type: 'integer', description: 'The HTTP status the gateway would answer' },
    result: { description: 'What the handler returned (null on failure)' },
    error: {
      anyOf: [
        { type: 'null' },
        { type: 'object', properties: { code: string, message: string }, required: ['code', 'message'] },
      ],
    },
    logs: { type: 'array', items: { $ref: 'LogEntry#' } },
    duration_ms: { type: 'number' },
  },
  required: ['status', 'result', 'error', 'logs', 'duration_ms'],
} as const;

const RouteSchema = {
  $id: 'Route',
  type: 'object',
  properties: {
    id: string,
    method: { type: 'string', enum: [...ROUTE_METHODS] },
    path: string,
    function: string,
  },
  required: ['id', 'method', 'path', 'function'],
} as const;

const ApiSchema = {
  $id: 'Api',
  type: 'object',
  properties: {
    id: string,
    name: string,
    basePath: string,
    routes: { type: 'array', items: { $ref: 'Route#' } },
    createdAt: instant,
    updatedAt: instant,
    invokeUrl: { type: 'string', description: 'Where the routes answer (absolute, as the caller reached this server)' },
  },
  required: ['id', 'name', 'basePath', 'routes', 'createdAt', 'updatedAt', 'invokeUrl'],
} as const;

const WebhookSchema = {
  $id: 'Webhook',
  type: 'object',
  properties: {
    id: string,
    name: string,
    target_url: string,
    method: { type: 'string', enum: [...WEBHOOK_METHODS] },
    headers: { ...headerMap, description: 'Sensitive values masked ("***")' },
    payload_template: {
      type: 'object',
      additionalProperties: true,
      description: 'A JSON object (any values) with optional {{placeholders}}',
    },
    cron: nullableString,
    timezone: nullableString,
    mock_endpoint: {
      anyOf: [
        { type: 'null' },
        { type: 'object', properties: { api_id: string, path: string }, required: ['api_id', 'path'] },
      ],
    },
    events: { type: ['array', 'null'], items: string },
    enabled: { type: 'boolean' },
    has_secret: { type: 'boolean' },
    retry: {
      type: 'object',
      properties: { max_attempts: { type: 'integer' }, schedule_s: { type: 'array', items: { type: 'integer' } } },
      required: ['max_attempts'],
    },
    timeout_ms: { type: 'integer' },
    next_fire_at: nullableInstant,
    created_at: instant,
    updated_at: instant,
    secret: { type: 'string', description: 'Only in the answer that generated or set it' },
    next_fires: { type: 'array', items: instant, description: 'Only in `GET /api/webhooks/{id}`: the next 5 fire times' },
    health: {
      type: 'object',
      description: 'Only in `GET /api/webhooks`: counted over the webhook\'s `window` (20) newest deliveries',
      properties: {
        last_outcome: {
          type: ['string', 'null'],
          enum: ['succeeded', 'failed', null],
          description: 'The latest outcome of the newest delivery tried: `failed` also for one still retrying; null when none was tried',
        },
        failures_in_a_row: {
          type: 'integer',
          description: 'Deliveries that failed since the newest that succeeded, counting those retrying (pending ones not tried yet are skipped)',
        },
        pending: { type: 'integer', description: 'Deliveries still pending, those retrying included' },
        retrying: { type: 'integer', description: 'Pending deliveries whose latest attempt failed: waiting for their next attempt' },
        window: { type: 'integer', description: 'How many of the newest deliveries were counted' },
      },
      required: ['last_outcome', 'failures_in_a_row', 'pending', 'retrying', 'window'],
    },
  },
  required: [
    'id',
    'name',
    'target_url',
    'method',
    'headers',
    'payload_template',
    'cron',
    'timezone',
    'mock_endpoint',
    'events',
    'enabled',
    'has_secret',
    'retry',
    'timeout_ms',
    'next_fire_at',
    'created_at',
    'updated_at',
  ],
} as const;

const AttemptSchema = {
  $id: 'Attempt',
  type: 'object',
  properties: {
    attempt: { type: 'integer' },
    started_at: instant,
    duration_ms: { type: 'number' },
    response_status: { type: ['integer', 'null'] },
    error: nullableString,
  },
  required: ['attempt', 'started_at', 'duration_ms', 'response_status', 'error'],
} as const;

/** A target's answer: a delivery's last one, or one attempt's. */
const responseOf = (description: string) => ({
  description,
  anyOf: [
    { type: 'null' },
    {
      type: 'object',
      properties: { status: { type: 'integer' }, headers: headerMap, body: string },
      required: ['status', 'headers', 'body'],
    },
  ],
});

/** An attempt as `GET /api/deliveries/{id}` answers it: with its own response (lists leave it out: a body each). */
const AttemptDetailSchema = {
  $id: 'AttemptDetail',
  type: 'object',
  properties: {
    ...AttemptSchema.properties,
    response: responseOf(
      "The target's answer to this attempt (sensitive header values masked, first 16 KiB of the body); " +
        'null when none came (a network error, a timeout) or the attempt predates migration 13, which began keeping them',
    ),
  },
  required: [...AttemptSchema.required, 'response'],
} as const;

const DeliverySchema = {
  $id: 'Delivery',
  type: 'object',
  properties: {
    id: string,
    webhook_id: string,
    trigger: {
      type: 'string',
      enum: ['test', 'schedule', 'event', 'destination'],
      description: "`destination`: a function's invocation record (its `async.on_success` / `on_failure`), sent as the payload",
    },
    event: nullableString,
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
    error: nullableString,
    scheduled_for: nullableInstant,
    next_attempt_at: nullableInstant,
    attempts: { type: 'array', items: { $ref: 'Attempt#' } },
    request: {
      description: 'The rendered request (sensitive header values masked); null until rendered',
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          properties: { method: string, url: string, headers: headerMap, body: nullableString },
          required: ['method', 'url', 'headers', 'body'],
        },
      ],
    },
    response: responseOf("The target's last answer (sensitive header values masked, first 16 KiB of the body)"),
    created_at: instant,
    completed_at: nullableInstant,
  },
  required: [
    'id',
    'webhook_id',
    'trigger',
    'event',
    'status',
    'error',
    'scheduled_for',
    'next_attempt_at',
    'attempts',
    'request',
    'response',
    'created_at',
    'completed_at',
  ],
} as const;

/** `GET /api/deliveries/{id}`: a delivery whose attempts each carry their response. */
const DeliveryDetailSchema = {
  ...DeliverySchema,
  $id: 'DeliveryDetail',
  properties: {
    ...DeliverySchema.properties,
    attempts: { type: 'array', items: { $ref: 'AttemptDetail#' } },
  },
} as const;

const DestinationSchema = {
  $id: 'Destination',
  description: "Where an asynchronous invocation's outcome record goes: a webhook, or another function (run asynchronously)",
  type: 'object',
  properties: {
    type: { type: 'string', enum: ['webhook', 'function'] },
    id: { type: 'string', description: 'The webhook id (type webhook)' },
    name: { type: 'string', description: 'The function name (type function)' },
  },
  required: ['type'],
} as const;

const InvocationAcceptedSchema = {
  $id: 'InvocationAccepted',
  type: 'object',
  description: 'An asynchronous invocation, stored: it runs in the background (`GET /api/functions/{name}/invocations/{id}`)',
  properties: { invocation_id: string, status: { type: 'string', const: 'pending' } },
  required: ['invocation_id', 'status'],
} as const;

const FunctionInvocationSchema = {
  $id: 'FunctionInvocation',
  type: 'object',
  description: 'A background invocation of a function: asynchronous, scheduled, event-triggered or a destination',
  properties: {
    id: { type: 'string', description: 'Also the request id the function sees (awsRequestId) on every attempt: deduplicate with it' },
    function: string,
    trigger: {
      type: 'object',
      additionalProperties: true,
      properties: { type: { type: 'string', enum: ['async', 'schedule', 'event', 'destination'] } },
      required: ['type'],
    },
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
    attempts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          attempt: { type: 'integer' },
          started_at: instant,
          duration_ms: { type: 'number' },
          outcome: { type: 'string', description: '`ok`, or the error code (function_error, function_timeout, ...)' },
          error: nullableString,
          request_id: nullableString,
        },
        required: ['attempt', 'started_at', 'duration_ms', 'outcome', 'error'],
      },
    },
    event: { description: 'The event as stored (an asynchronous invoke is completed in the function\'s format when run)' },
    result: { description: "The function's result once it succeeded; else null" },
    error: nullableString,
    next_attempt_at: nullableInstant,
    created_at: instant,
    completed_at: nullableInstant,
  },
  required: ['id', 'function', 'trigger', 'status', 'attempts', 'event', 'result', 'error', 'created_at', 'completed_at'],
} as const;

const PublishedEventSchema = {
  $id: 'PublishedEvent',
  type: 'object',
  properties: {
    event: string,
    deliveries: { type: 'array', items: string, description: 'Ids of the deliveries created, one per subscribed webhook' },
    functions: {
      type: 'array',
      description: 'The subscribed functions reached, each with the id of its invocation',
      items: {
        type: 'object',
        properties: { name: string, invocation_id: string },
        required: ['name', 'invocation_id'],
      },
    },
  },
  required: ['event', 'deliveries', 'functions'],
} as const;

const DryRunSchema = {
  $id: 'DryRun',
  description: 'The answer of a write sent with `?dry_run=true`: what it would do. Nothing is written.',
  ...dryRunSchema,
} as const;

const HealthSchema = {
  $id: 'Health',
  type: 'object',
  properties: {
    status: { type: 'string', const: 'ok' },
    pid: { type: 'integer', description: 'Id of the server process that answered (one of several with --processes above 1).' },
  },
  required: ['status', 'pid'],
} as const;

const ReadinessSchema = {
  $id: 'Readiness',
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ready', 'unavailable'] },
    error: string,
    code: string,
  },
  required: ['status'],
} as const;

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
