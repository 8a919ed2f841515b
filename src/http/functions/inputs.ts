/**
 * What the function routes accept: the request schemas (bodies, parameters),
 * written with TypeBox so the input types handed to the service are derived
 * from what Fastify validates (`Static`), never written beside them. Limits
 * the schemas enforce (MAX_SCHEDULES, MAX_EVENTS) live here, beside the
 * `maxItems` that uses them.
 */
import { EVENT_FORMATS } from '../../types.js';
import { RUN_STATUSES, FUNCTION_RUNTIMES } from '../schemas.js';
import { Type, nullableObject, stringEnum, type Static } from '../schema/kit.js';

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

const codeSchema = Type.String({ minLength: 1, maxLength: 5 * 1024 * 1024 });
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
  },
  { additionalProperties: false },
);

/** Present: replaces; null: back to the default. */
const orNull = <T extends Parameters<typeof Type.Optional>[0]>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

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
