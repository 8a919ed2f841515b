/**
 * The functions resource of the API, request and answer side by side: the
 * component schemas of its answers (Function, FunctionVersion, the log and
 * invocation shapes) and the schemas of what its routes accept, written with
 * TypeBox so that the answers' types (views: ../views/functions.ts) and the
 * inputs' types (what the function service is handed) are derived from them
 * (`Static`), never written beside them. Limits the schemas enforce
 * (MAX_SCHEDULES, MAX_EVENTS) live here, beside the `maxItems` that uses them.
 */
import { EVENT_FORMATS, type LogLevel } from '../types.js';
import {
  Type,
  anyObject,
  instant,
  named,
  nullableInstant,
  nullableInteger,
  nullableObject,
  nullableString,
  refTo,
  stringEnum,
  type InputDefaults,
  type Static,
  type TSchema,
} from './kit.js';
import { projectField } from './common.js';

const string = () => Type.String();

export const FUNCTION_RUNTIMES = ['javascript', 'typescript'] as const;
export const LOG_LEVELS = ['debug', 'info', 'log', 'warn', 'error'] as const satisfies readonly LogLevel[];
export const INVOCATION_TRIGGERS = ['async', 'schedule', 'event', 'destination'] as const;
export const RUN_STATUSES = ['pending', 'succeeded', 'failed'] as const;

// Answers.

export const DestinationSchema = named(
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

export const FunctionSchema = named(
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
    project: projectField(),
    version: Type.Integer({ description: 'Starts at 1; every update adds one' }),
    code_sha256: string(),
    unavailable_modules: Type.Optional(
      Type.Array(string(), {
        description:
          'Modules the code names that will throw if used: ones the sandbox lacks throw when loaded; inert ones (fs, net, child_process...) load, and throw when a host-only function is called. Bundled code counts; a name built at run time cannot be seen',
      }),
    ),
    created_at: instant(),
    updated_at: instant(),
    code: Type.Optional(Type.String({ description: 'The source as deployed; only in `GET /api/functions/{name}`' })),
  }),
);

export const FunctionVersionSchema = named(
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

export const LogEntrySchema = named(
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

export const LogStreamEntrySchema = named(
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

export const InvocationEventSchema = named(
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

export const InvocationSchema = named(
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

export const InvocationAcceptedSchema = named(
  'InvocationAccepted',
  Type.Object(
    { invocation_id: string(), status: Type.Literal('pending') },
    { description: 'An asynchronous invocation, stored: it runs in the background (`GET /api/functions/{name}/invocations/{id}`)' },
  ),
);

export const FunctionInvocationSchema = named(
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

export type FunctionView = Static<typeof FunctionSchema>;
export type FunctionVersionView = Static<typeof FunctionVersionSchema>;
export type LogEntryView = Static<typeof LogEntrySchema>;
export type InvocationView = Static<typeof InvocationSchema>;
export type DestinationView = Static<typeof DestinationSchema>;
export type FunctionInvocationView = Static<typeof FunctionInvocationSchema>;
export type InvocationAcceptedView = Static<typeof InvocationAcceptedSchema>;

// Requests.

export const MAX_SCHEDULES = 20;
export const MAX_EVENTS = 50;

/** A function name, as every route that takes one checks it. */
export const NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_-]{0,63}$';

const envSchema = Type.Unsafe<Record<string, string>>({
  type: 'object',
  description: 'Environment variables (write-only: never returned)',
  propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' },
  additionalProperties: { type: 'string', maxLength: 32768 },
  maxProperties: 200,
});

/** The longest code a function may have, in characters. */
export const MAX_CODE_CHARS = 5 * 1024 * 1024;
/**
 * The largest body of a function's deploy or update, in bytes, whatever
 * SWITCHYARD_BODY_LIMIT says: code at its limit, JSON-escaped (a bundle with
 * an inline source map of 1.4 MB is an ordinary zod handler). Only these two
 * routes, both behind the admin key, take it.
 */
export const FUNCTION_BODY_BYTES = 4 * MAX_CODE_CHARS;
const codeSchema = Type.String({ minLength: 1, maxLength: MAX_CODE_CHARS });
const runtimeSchema = stringEnum(FUNCTION_RUNTIMES);
const timeoutSchema = Type.Integer({ minimum: 1, maximum: 900000 });
const memorySchema = Type.Integer({ minimum: 8, maximum: 1024 });
const handlerSchema = Type.String({
  maxLength: 256,
  pattern: '^(?:[A-Za-z0-9_./-]+\\.)?[A-Za-z_$][A-Za-z0-9_$]*$',
  description:
    "The export to call: a name (`lambdaHandler`) or Lambda's `file.export` form (`app.lambdaHandler`). " +
    'When absent: `handler`, else the default export, else the only exported function.',
});
const eventFormatSchema = stringEnum(EVENT_FORMATS, {
  description:
    'The event the gateway sends and how the result is read: `switchyard` (default; a JSON body arrives parsed), ' +
    '`aws-v1` (API Gateway REST proxy integration, exactly: body a string, header case kept, REST result rules) or ' +
    '`aws-v2` (HTTP API / function URL, payload format 2.0, exactly: cookies, a result without statusCode is a 200 JSON body). ' +
    'See docs/functions.md, "Event formats".',
});

const destinationSchema = Type.Union([
  Type.Object({ type: Type.Literal('webhook'), id: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('function'), name: Type.String({ pattern: NAME_PATTERN }) }, { additionalProperties: false }),
  Type.Null(),
]);
const schedulesSchema = Type.Array(
  Type.Object(
    {
      cron: Type.String({ minLength: 1, maxLength: 1000 }),
      timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'IANA time zone (default UTC)' })),
      payload: Type.Optional(nullableObject({ description: "The event's `detail`" })),
    },
    { additionalProperties: false },
  ),
  { maxItems: MAX_SCHEDULES, description: 'Cron schedules that invoke the function (see docs/functions.md, "Schedules")' },
);
const eventsSchema = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  maxItems: MAX_EVENTS,
  description: "Event names (or `*`) whose events invoke the function, matched as a webhook's `events`",
});
const asyncSchema = Type.Object(
  {
    retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 5, description: 'Default 2' })),
    on_success: Type.Optional(destinationSchema),
    on_failure: Type.Optional(destinationSchema),
  },
  { additionalProperties: false, description: 'Asynchronous invocations: retries after a failed attempt, and where the outcome record goes' },
);
export const invocationStatusSchema = stringEnum(RUN_STATUSES);

const nameSchema = Type.String({ pattern: NAME_PATTERN });
export const nameParams = Type.Object({ name: nameSchema });
export const invocationParams = Type.Object({ name: nameSchema, id: Type.String({ minLength: 1, maxLength: 200 }) });
export const versionParams = Type.Object({
  name: nameSchema,
  version: Type.Integer({ minimum: 1, maximum: 999999999, description: 'A version number (1 or more)' }),
});

export const createFunctionBody = Type.Object(
  {
    name: nameSchema,
    code: codeSchema,
    runtime: Type.Optional(runtimeSchema),
    env: Type.Optional(envSchema),
    timeout_ms: Type.Optional(timeoutSchema),
    memory_mb: Type.Optional(memorySchema),
    handler: Type.Optional(handlerSchema),
    event_format: Type.Optional(eventFormatSchema),
    schedules: Type.Optional(schedulesSchema),
    events: Type.Optional(eventsSchema),
    async: Type.Optional(asyncSchema),
    project: Type.Optional(projectField()),
  },
  { additionalProperties: false },
);

/** Present: replaces; null: back to the default. */
const orNull = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

export const updateFunctionBody = Type.Object(
  {
    code: Type.Optional(codeSchema),
    runtime: orNull(runtimeSchema),
    env: orNull(envSchema),
    timeout_ms: orNull(timeoutSchema),
    memory_mb: orNull(memorySchema),
    handler: orNull(handlerSchema),
    event_format: orNull(eventFormatSchema),
    schedules: orNull(schedulesSchema),
    events: orNull(eventsSchema),
    async: orNull(asyncSchema),
    project: Type.Optional(projectField()),
  },
  { additionalProperties: false },
);

/** `POST /api/functions`: the body, before defaults. */
export type FunctionInput = Static<typeof createFunctionBody>;
/** `PUT /api/functions/{name}`: fields present replace; null resets to the default. */
export type FunctionUpdate = Static<typeof updateFunctionBody>;
export type ScheduleInput = Static<typeof schedulesSchema>[number];
export type AsyncInput = Static<typeof asyncSchema>;
/** `{"type":"webhook","id":...}` or `{"type":"function","name":...}`, as the API spells them. */
export type DestinationInput = NonNullable<Static<typeof destinationSchema>>;

/**
 * What each optional field of `POST /api/functions` means when left out (and
 * what null resets it to): the function service fills these in, and project
 * files (src/project) compare and export against them.
 */
export const FUNCTION_INPUT_DEFAULTS = {
  runtime: 'javascript',
  env: {},
  timeout_ms: 10_000,
  memory_mb: 128,
  handler: null,
  event_format: 'switchyard',
  schedules: [],
  events: [],
  async: { retries: 2, on_success: null, on_failure: null },
  project: null,
} satisfies InputDefaults<FunctionInput>;

/** A schedule's zone when its `timezone` is left out; no payload. */
export const SCHEDULE_INPUT_DEFAULTS = { timezone: 'UTC', payload: null } satisfies InputDefaults<ScheduleInput>;
