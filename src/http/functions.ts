/**
 * Management routes for functions: /api/functions[/:name[/invoke|/logs|/versions[/:version]|/invocations[/:id[/retry]]]].
 */
import type { FastifyInstance } from 'fastify';
import {
  functionVersionView,
  functionView,
  logView,
  type FunctionInput,
  type FunctionService,
  type FunctionUpdate,
} from '../functions/service.js';
import { invocationView, type FunctionInvocations } from '../functions/invocations.js';
import { MAX_EVENTS, MAX_SCHEDULES } from '../functions/triggers.js';
import { InvalidRequestError, LoopStoppedError } from '../errors.js';
import { DEPTH_HEADER, DEPTH_HEADER_SCHEMA, MAX_HOPS, requestDepth } from '../hops.js';
import { EVENT_FORMATS } from '../types.js';
import { dryRunQuerySchema, sendDryRun, type DryRunQuery } from './dry-run.js';
import { LINK_HEADER, PAGE_LIMIT, pageOf, pageQuerySchema, readPage, type PageQuery } from './common.js';
import { DRY_RUN_ANSWER, ERRORS_BY_ID, ERRORS_BY_ID_WITH_BODY, ERRORS_WITH_BODY, errors, listOf, orDryRun, ref } from './schemas.js';

/** A function name, as every route that takes one checks it. */
export const NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_-]{0,63}$';

const envSchema = {
  type: 'object',
  description: 'Environment variables (write-only: never returned)',
  propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' },
  additionalProperties: { type: 'string', maxLength: 32768 },
  maxProperties: 200,
} as const;

const codeSchema = { type: 'string', minLength: 1, maxLength: 5 * 1024 * 1024 } as const;
const runtimeSchema = { type: 'string', enum: ['javascript', 'typescript'] } as const;
const timeoutSchema = { type: 'integer', minimum: 1, maximum: 900000 } as const;
const memorySchema = { type: 'integer', minimum: 8, maximum: 1024 } as const;
const handlerSchema = {
  type: 'string',
  maxLength: 256,
  pattern: '^(?:[A-Za-z0-9_./-]+\\.)?[A-Za-z_$][A-Za-z0-9_$]*$',
  description:
    "The export to call: a name (`lambdaHandler`) or Lambda's `file.export` form (`app.lambdaHandler`). " +
    'When absent: `handler`, else the default export, else the only exported function.',
} as const;
const eventFormatSchema = {
  type: 'string',
  enum: [...EVENT_FORMATS],
  description:
    'The event the gateway sends and how the result is read: `switchyard` (default; a JSON body arrives parsed), ' +
    '`aws-v1` (API Gateway REST proxy integration, exactly: body a string, header case kept, REST result rules) or ' +
    '`aws-v2` (HTTP API / function URL, payload format 2.0, exactly: cookies, a result without statusCode is a 200 JSON body). ' +
    'See docs/functions.md, "Event formats".',
} as const;

const destinationSchema = {
  anyOf: [
    {
      type: 'object',
      required: ['type', 'id'],
      additionalProperties: false,
      properties: { type: { type: 'string', const: 'webhook' }, id: { type: 'string', minLength: 1, maxLength: 200 } },
    },
    {
      type: 'object',
      required: ['type', 'name'],
      additionalProperties: false,
      properties: { type: { type: 'string', const: 'function' }, name: { type: 'string', pattern: NAME_PATTERN } },
    },
    { type: 'null' },
  ],
} as const;
const schedulesSchema = {
  type: 'array',
  maxItems: MAX_SCHEDULES,
  description: 'Cron schedules that invoke the function (see docs/functions.md, "Schedules")',
  items: {
    type: 'object',
    required: ['cron'],
    additionalProperties: false,
    properties: {
      cron: { type: 'string', minLength: 1, maxLength: 1000 },
      timezone: { type: 'string', minLength: 1, maxLength: 100, description: 'IANA time zone (default UTC)' },
      payload: { type: ['object', 'null'], additionalProperties: true, description: "The event's `detail`" },
    },
  },
} as const;
const eventsSchema = {
  type: 'array',
  maxItems: MAX_EVENTS,
  items: { type: 'string', minLength: 1, maxLength: 200 },
  description: 'Event names (or `*`) whose events invoke the function, matched as a webhook\'s `events`',
} as const;
const asyncSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'Asynchronous invocations: retries after a failed attempt, and where the outcome record goes',
  properties: {
    retries: { type: 'integer', minimum: 0, maximum: 5, description: 'Default 2' },
    on_success: destinationSchema,
    on_failure: destinationSchema,
  },
} as const;
const invocationStatusSchema = { type: 'string', enum: ['pending', 'succeeded', 'failed'] } as const;

/** `x-invocation-type` (or Lambda's `X-Amz-Invocation-Type`): `Event` runs in the background; `RequestResponse` (default) waits. */
function invocationType(headers: Record<string, string | string[] | undefined>): 'Event' | 'RequestResponse' {
  const given = headers['x-invocation-type'] ?? headers['x-amz-invocation-type'];
  const value = Array.isArray(given) ? given[0] : given;
  if (value === undefined || value === 'RequestResponse') return 'RequestResponse';
  if (value === 'Event') return 'Event';
  throw new InvalidRequestError(`x-invocation-type must be Event or RequestResponse, not '${value}'`, { field: 'x-invocation-type' });
}

const nameParams = {
  type: 'object',
  properties: { name: { type: 'string', pattern: NAME_PATTERN } },
  required: ['name'],
} as const;


export function registerFunctionRoutes(app: FastifyInstance, functions: FunctionService, background: FunctionInvocations): void {
  app.post<{ Body: FunctionInput; Querystring: DryRunQuery }>(
    '/api/functions',
    {
      schema: {
        tags: ['functions'],
        operationId: 'createFunction',
        summary: 'Deploy a function',
        querystring: dryRunQuerySchema,
        body: {
          type: 'object',
          required: ['name', 'code'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', pattern: NAME_PATTERN },
            code: codeSchema,
            runtime: runtimeSchema,
            env: envSchema,
            timeout_ms: timeoutSchema,
            memory_mb: memorySchema,
            handler: handlerSchema,
            event_format: eventFormatSchema,
            schedules: schedulesSchema,
            events: eventsSchema,
            async: asyncSchema,
          },
        },
        response: { 200: DRY_RUN_ANSWER, 201: { description: 'The deployed function (version 1)', ...ref('Function') }, ...ERRORS_WITH_BODY },
      },
    },
    async function createFunction(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await functions.checkCreate(request.body));
      const fn = await functions.create(request.body);
      return reply.code(201).send(functionView(fn));
    },
  );

  app.get<{ Querystring: PageQuery }>(
    '/api/functions',
    {
      schema: {
        tags: ['functions'],
        operationId: 'listFunctions',
        summary: 'List functions (oldest first, without code)',
        querystring: pageQuerySchema,
        response: { 200: { description: 'A page of functions', headers: LINK_HEADER, ...listOf('Function') }, ...errors() },
      },
    },
    async function listFunctions(request, reply) {
      const page = readPage(request.query);
      const items = await functions.list(page);
      return pageOf(items, page, request, reply, (f) => f.name).map((f) => functionView(f));
    },
  );

  app.get<{ Params: { name: string } }>(
    '/api/functions/:name',
    {
      schema: {
        tags: ['functions'],
        operationId: 'getFunction',
        summary: 'Get a function with its code',
        params: nameParams,
        response: { 200: { description: 'The function with its code', ...ref('Function') }, ...ERRORS_BY_ID },
      },
    },
    async function getFunction(request) {
      return functionView(await functions.get(request.params.name), true);
    },
  );

  app.put<{ Params: { name: string }; Body: FunctionUpdate; Querystring: DryRunQuery }>(
    '/api/functions/:name',
    {
      schema: {
        tags: ['functions'],
        operationId: 'updateFunction',
        summary: 'Update a function (partial; null resets a field); bumps its version',
        params: nameParams,
        querystring: dryRunQuerySchema,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            code: codeSchema,
            runtime: { anyOf: [runtimeSchema, { type: 'null' }] },
            env: { anyOf: [envSchema, { type: 'null' }] },
            timeout_ms: { anyOf: [timeoutSchema, { type: 'null' }] },
            memory_mb: { anyOf: [memorySchema, { type: 'null' }] },
            handler: { anyOf: [handlerSchema, { type: 'null' }] },
            event_format: { anyOf: [eventFormatSchema, { type: 'null' }] },
            schedules: { anyOf: [schedulesSchema, { type: 'null' }] },
            events: { anyOf: [eventsSchema, { type: 'null' }] },
            async: { anyOf: [asyncSchema, { type: 'null' }] },
          },
        },
        response: { 200: orDryRun('Function', 'The function as updated'), ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function updateFunction(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await functions.checkUpdate(request.params.name, request.body ?? {}));
      return functionView(await functions.update(request.params.name, request.body ?? {}));
    },
  );

  app.delete<{ Params: { name: string }; Querystring: DryRunQuery }>(
    '/api/functions/:name',
    {
      schema: {
        tags: ['functions'],
        operationId: 'deleteFunction',
        summary: 'Delete a function (409 while a route binds it)',
        params: nameParams,
        querystring: dryRunQuerySchema,
        response: { 200: orDryRun('Deleted', 'Deleted'), ...errors(404, 409, 414) },
      },
    },
    async function deleteFunction(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await functions.checkDelete(request.params.name));
      await functions.delete(request.params.name);
      return { deleted: true, name: request.params.name };
    },
  );

  app.post<{ Params: { name: string }; Body: unknown }>(
    '/api/functions/:name/invoke',
    {
      schema: {
        tags: ['functions'],
        operationId: 'invokeFunction',
        summary: 'Invoke a function with an event (missing fields defaulted); in the background with `x-invocation-type: Event`',
        params: nameParams,
        headers: {
          type: 'object',
          properties: {
            'x-invocation-type': {
              type: 'string',
              enum: ['Event', 'RequestResponse'],
              description: "`Event`: store it, answer 202 at once and run it in the background with retries (Lambda's asynchronous invocation; `X-Amz-Invocation-Type` is read too). Default `RequestResponse`: wait for the result.",
            },
            [DEPTH_HEADER]: DEPTH_HEADER_SCHEMA,
          },
        },
        body: {
          type: ['object', 'null'],
          additionalProperties: true,
          description:
            "An invocation event in the function's event_format; missing fields are defaulted in that format " +
            '(see docs/functions.md, "Event formats")',
        },
        response: {
          200: { description: 'What the gateway would answer, with the logs', ...ref('Invocation') },
          202: { description: 'Stored; it runs in the background (`x-invocation-type: Event`)', ...ref('InvocationAccepted') },
          // As any operation by id with a body, and 508 for a chain of runs past its bound.
          ...errors(404, 409, 413, 414, 415, 508),
        },
      },
    },
    async function invokeFunction(request, reply) {
      const depth = requestDepth(request.headers);
      if (depth > MAX_HOPS) throw new LoopStoppedError(depth, MAX_HOPS);
      if (invocationType(request.headers) === 'Event') {
        const queued = await background.invokeAsync(request.params.name, request.body ?? {}, depth);
        return reply.code(202).send({ invocation_id: queued.id, status: queued.status });
      }
      return functions.invoke(request.params.name, request.body ?? {}, depth);
    },
  );

  app.get<{ Params: { name: string }; Querystring: PageQuery & { status?: 'pending' | 'succeeded' | 'failed' } }>(
    '/api/functions/:name/invocations',
    {
      schema: {
        tags: ['functions'],
        operationId: 'listFunctionInvocations',
        summary: 'Background invocations of a function (asynchronous, scheduled, event, destination), newest first',
        params: nameParams,
        querystring: {
          ...pageQuerySchema,
          properties: { ...pageQuerySchema.properties, status: invocationStatusSchema },
        },
        response: { 200: { description: 'A page of invocations', headers: LINK_HEADER, ...listOf('FunctionInvocation') }, ...ERRORS_BY_ID },
      },
    },
    async function listFunctionInvocations(request, reply) {
      const page = readPage(request.query);
      const items = await background.list(request.params.name, request.query.status ?? null, page);
      return pageOf(items, page, request, reply, (d) => d.id).map(invocationView);
    },
  );

  const invocationParams = {
    type: 'object',
    properties: { name: { type: 'string', pattern: NAME_PATTERN }, id: { type: 'string', minLength: 1, maxLength: 200 } },
    required: ['name', 'id'],
  } as const;

  app.get<{ Params: { name: string; id: string } }>(
    '/api/functions/:name/invocations/:id',
    {
      schema: {
        tags: ['functions'],
        operationId: 'getFunctionInvocation',
        summary: 'One background invocation with its attempts',
        params: invocationParams,
        response: { 200: { description: 'The invocation', ...ref('FunctionInvocation') }, ...ERRORS_BY_ID },
      },
    },
    async function getFunctionInvocation(request) {
      return invocationView(await background.get(request.params.name, request.params.id));
    },
  );

  app.post<{ Params: { name: string; id: string } }>(
    '/api/functions/:name/invocations/:id/retry',
    {
      schema: {
        tags: ['functions'],
        operationId: 'retryFunctionInvocation',
        summary: 'Run a failed invocation once more, in the background',
        params: invocationParams,
        response: { 202: { description: 'Pending again', ...ref('FunctionInvocation') }, ...errors(404, 409, 414) },
      },
    },
    async function retryFunctionInvocation(request, reply) {
      const reopened = await background.retry(request.params.name, request.params.id);
      return reply.code(202).send(invocationView(reopened));
    },
  );

  app.get<{ Params: { name: string } }>(
    '/api/functions/:name/versions',
    {
      schema: {
        tags: ['functions'],
        operationId: 'listFunctionVersions',
        summary: "A function's version history, newest first (the newest 50, without code or env)",
        params: nameParams,
        response: { 200: { description: 'The kept versions, newest first', ...listOf('FunctionVersion') }, ...ERRORS_BY_ID },
      },
    },
    async function listFunctionVersions(request) {
      return (await functions.versions(request.params.name)).map(functionVersionView);
    },
  );

  app.get<{ Params: { name: string; version: number } }>(
    '/api/functions/:name/versions/:version',
    {
      schema: {
        tags: ['functions'],
        operationId: 'getFunctionVersion',
        summary: 'One kept version of a function, with its code (restore it by sending its fields with PUT)',
        params: {
          type: 'object',
          properties: {
            name: { type: 'string', pattern: NAME_PATTERN },
            version: { type: 'integer', minimum: 1, maximum: 999999999, description: 'A version number (1 or more)' },
          },
          required: ['name', 'version'],
        },
        response: { 200: { description: 'The version with its code', ...ref('FunctionVersion') }, ...ERRORS_BY_ID },
      },
    },
    async function getFunctionVersion(request) {
      return functionVersionView(await functions.version(request.params.name, request.params.version));
    },
  );

  app.get<{ Params: { name: string }; Querystring: { limit?: number } }>(
    '/api/functions/:name/logs',
    {
      schema: {
        tags: ['functions'],
        operationId: 'listFunctionLogs',
        summary: "Recent console lines of a function's invocations, oldest first",
        params: nameParams,
        querystring: {
          type: 'object',
          properties: { limit: { ...PAGE_LIMIT, description: 'How many of the newest lines, 1 to 1000 (default 100)' } },
          additionalProperties: false,
        },
        response: { 200: { description: 'The newest lines, oldest first', ...listOf('LogEntry') }, ...ERRORS_BY_ID },
      },
    },
    async function functionLogs(request) {
      return (await functions.logs(request.params.name, request.query.limit ?? 100)).map(logView);
    },
  );
}
