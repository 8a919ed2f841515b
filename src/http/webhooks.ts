/**
 * Management routes for webhooks, their deliveries, and events:
 * /api/webhooks[/:id[/test|/deliveries]], /api/deliveries/:id[/retry], /api/events.
 */
import type { FastifyInstance } from 'fastify';
import { LoopStoppedError } from '../errors.js';
import { DEPTH_HEADER, DEPTH_HEADER_SCHEMA, MAX_HOPS, requestDepth } from '../hops.js';
import { EventBus } from '../webhooks/events.js';
import {
  deliveryDetailView,
  deliveryView,
  webhookView,
  type WebhookInput,
  type WebhookService,
  type WebhookUpdate,
} from '../webhooks/service.js';
import { NO_DELIVERIES, WEBHOOK_METHODS } from '../webhooks/types.js';
import { dryRunQuerySchema, sendDryRun, type DryRunQuery } from './dry-run.js';
import { LINK_HEADER, pageOf, pageQuerySchema, readPage, type PageQuery } from './common.js';
import { DRY_RUN_ANSWER, ERRORS_BY_ID, ERRORS_BY_ID_WITH_BODY, ERRORS_WITH_BODY, errors, listOf, orDryRun, ref } from './schemas.js';

const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });

const fields = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  target_url: { type: 'string', minLength: 1, maxLength: 2048, description: 'Absolute http(s) URL' },
  method: { type: 'string', enum: [...WEBHOOK_METHODS] },
  headers: {
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 8192 },
    maxProperties: 100,
    description:
      'Headers sent to the target (may override user-agent and content-type). Sensitive values (authorization, ' +
      'cookie, names with key/token/secret/auth...) are write-only: answers show them masked ("***"), and a masked ' +
      'value sent back as shown keeps the stored one',
  },
  payload_template: {
    type: 'object',
    additionalProperties: true,
    description: 'A JSON object (any values, not an array) with optional {{placeholders}}',
  },
  cron: { type: 'string', maxLength: 200, description: 'Five-field cron expression (see docs/webhooks.md)' },
  timezone: { type: 'string', maxLength: 100, description: 'IANA time zone, default UTC' },
  mock_endpoint: {
    type: 'object',
    required: ['api_id', 'path'],
    additionalProperties: false,
    properties: { api_id: { type: 'string', maxLength: 100 }, path: { type: 'string', maxLength: 2048 } },
  },
  events: { type: 'array', items: { type: 'string', maxLength: 200 }, maxItems: 100, uniqueItems: true },
  enabled: { type: 'boolean' },
  secret: { type: 'string', maxLength: 200, description: '"generate" or whsec_<base64>; write-only' },
  retry: {
    type: 'object',
    additionalProperties: false,
    properties: {
      max_attempts: { type: 'integer', minimum: 1, maximum: 30 },
      schedule_s: { type: 'array', items: { type: 'integer', minimum: 1, maximum: 86400 }, minItems: 1, maxItems: 30 },
    },
  },
  timeout_ms: { type: 'integer', minimum: 1000, maximum: 60000 },
} as const;

const createBody = {
  type: 'object',
  required: ['name', 'target_url', 'method', 'payload_template'],
  additionalProperties: false,
  properties: {
    ...fields,
    headers: nullable(fields.headers),
    cron: nullable(fields.cron),
    timezone: nullable(fields.timezone),
    mock_endpoint: nullable(fields.mock_endpoint),
    events: nullable(fields.events),
    enabled: nullable(fields.enabled),
    secret: nullable(fields.secret),
    retry: nullable(fields.retry),
    timeout_ms: nullable(fields.timeout_ms),
  },
} as const;

const updateBody = {
  ...createBody,
  required: [],
  properties: {
    ...createBody.properties,
    name: nullable(fields.name),
    target_url: nullable(fields.target_url),
    method: nullable(fields.method),
    payload_template: nullable(fields.payload_template),
  },
};

const idParams = { type: 'object', properties: { id: { type: 'string', maxLength: 100 } }, required: ['id'] } as const;

export function registerWebhookRoutes(app: FastifyInstance, webhooks: WebhookService, events: EventBus): void {
  app.post<{ Body: WebhookInput; Querystring: DryRunQuery }>(
    '/api/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'createWebhook',
        summary: 'Create a webhook',
        querystring: dryRunQuerySchema,
        body: createBody,
        response: { 200: DRY_RUN_ANSWER, 201: { description: 'The webhook (with `secret` when one was generated)', ...ref('Webhook') }, ...ERRORS_WITH_BODY },
      },
    },
    async function createWebhook(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await webhooks.checkCreate(request.body));
      const { webhook, secret } = await webhooks.create(request.body);
      return reply.code(201).send(webhookView(webhook, { secret }));
    },
  );

  app.get<{ Querystring: PageQuery }>(
    '/api/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'listWebhooks',
        summary: 'List webhooks (oldest first), each with its health over its 20 newest deliveries',
        querystring: pageQuerySchema,
        response: { 200: { description: 'A page of webhooks', headers: LINK_HEADER, ...listOf('Webhook') }, ...errors() },
      },
    },
    async function listWebhooks(request, reply) {
      const page = readPage(request.query);
      const items = pageOf(await webhooks.list(page), page, request, reply, (w) => w.id);
      // One query for the whole page: a list of N webhooks never costs N reads of deliveries.
      const health = await webhooks.health(items);
      return items.map((w) => webhookView(w, { health: health.get(w.id) ?? NO_DELIVERIES }));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/webhooks/:id',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'getWebhook',
        summary: 'Get a webhook with its next 5 fire times',
        params: idParams,
        response: { 200: { description: 'The webhook with `next_fires`', ...ref('Webhook') }, ...ERRORS_BY_ID },
      },
    },
    async function getWebhook(request) {
      const webhook = await webhooks.get(request.params.id);
      return webhookView(webhook, { nextFires: webhooks.upcoming(webhook) });
    },
  );

  app.put<{ Params: { id: string }; Body: WebhookUpdate; Querystring: DryRunQuery }>(
    '/api/webhooks/:id',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'updateWebhook',
        summary: 'Update a webhook (partial; null clears or resets a field); reschedules at once',
        params: idParams,
        querystring: dryRunQuerySchema,
        body: updateBody,
        response: { 200: orDryRun('Webhook', 'The webhook as updated'), ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function updateWebhook(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await webhooks.checkUpdate(request.params.id, request.body ?? {}));
      const { webhook, secret } = await webhooks.update(request.params.id, request.body ?? {});
      return webhookView(webhook, { secret });
    },
  );

  app.delete<{ Params: { id: string }; Querystring: DryRunQuery }>(
    '/api/webhooks/:id',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook, its schedule and pending retries',
        params: idParams,
        querystring: dryRunQuerySchema,
        response: { 200: orDryRun('Deleted', 'Deleted'), ...ERRORS_BY_ID },
      },
    },
    async function deleteWebhook(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await webhooks.checkDelete(request.params.id));
      await webhooks.delete(request.params.id);
      return { deleted: true, id: request.params.id };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/api/webhooks/:id/test',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'testWebhook',
        summary: 'Send once now (no retries, also when disabled); answers the finished delivery',
        params: idParams,
        response: { 200: { description: 'The finished delivery', ...ref('Delivery') }, ...ERRORS_BY_ID },
      },
    },
    async function testWebhook(request) {
      return deliveryView(await webhooks.test(request.params.id));
    },
  );

  app.get<{ Params: { id: string }; Querystring: PageQuery }>(
    '/api/webhooks/:id/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'listDeliveries',
        summary: 'Deliveries of a webhook, newest first',
        params: idParams,
        querystring: pageQuerySchema,
        response: { 200: { description: 'A page of deliveries', headers: LINK_HEADER, ...listOf('Delivery') }, ...ERRORS_BY_ID },
      },
    },
    async function listDeliveries(request, reply) {
      const page = readPage(request.query);
      const items = await webhooks.listDeliveries(request.params.id, page);
      return pageOf(items, page, request, reply, (d) => d.id).map(deliveryView);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/deliveries/:id',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'getDelivery',
        summary: "Get a delivery with its attempts, each with the target's answer to it",
        params: idParams,
        response: { 200: { description: 'The delivery', ...ref('DeliveryDetail') }, ...ERRORS_BY_ID },
      },
    },
    async function getDelivery(request) {
      return deliveryDetailView(await webhooks.getDeliveryDetail(request.params.id));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/api/deliveries/:id/retry',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'retryDelivery',
        summary: 'One more attempt of a finished delivery (same webhook-id, same bytes)',
        params: idParams,
        response: { 200: { description: 'The delivery after the attempt', ...ref('Delivery') }, ...errors(404, 409, 414) },
      },
    },
    async function retryDelivery(request) {
      return deliveryView(await webhooks.retry(request.params.id));
    },
  );

  app.post<{ Body: { event: string; data?: unknown } }>(
    '/api/events',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'publishEvent',
        summary: 'Publish an event to every enabled webhook and every function subscribed to it',
        body: {
          type: 'object',
          required: ['event'],
          additionalProperties: false,
          properties: { event: { type: 'string', maxLength: 200 }, data: { description: 'Any JSON value' } },
        },
        headers: { type: 'object', properties: { [DEPTH_HEADER]: DEPTH_HEADER_SCHEMA } },
        response: {
          202: { description: 'Accepted: one delivery per subscribed webhook, one invocation per subscribed function', ...ref('PublishedEvent') },
          ...errors(413, 415, 508),
        },
      },
    },
    async function publishEvent(request, reply) {
      EventBus.checkUserEvent(request.body.event);
      // An event published by a request of a chain of runs is one hop deeper than the request.
      const depth = requestDepth(request.headers) + (request.headers[DEPTH_HEADER] === undefined ? 0 : 1);
      if (depth > MAX_HOPS) throw new LoopStoppedError(depth, MAX_HOPS);
      const published = await events.publish(request.body.event, request.body.data ?? null, depth);
      return reply.code(202).send({
        event: request.body.event,
        deliveries: published.deliveries,
        functions: published.functions.map((f) => ({ name: f.name, invocation_id: f.invocationId })),
      });
    },
  );
}
