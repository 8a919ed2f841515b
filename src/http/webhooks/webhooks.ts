/**
 * Create, list, read, update, delete and test-fire webhooks: one
 * registration per operation, each typed from its own schemas (../typed.ts).
 */
import { LINK_HEADER, pageOf, pageQuerySchema, readPage } from '../common.js';
import { sendDryRun } from '../dry-run.js';
import { dryRunQuerySchema } from '../../schema/dry-run.js';
import { DRY_RUN_ANSWER, ERRORS_BY_ID, ERRORS_BY_ID_WITH_BODY, ERRORS_WITH_BODY, errors, listOf, orDryRun, ref } from '../schemas.js';
import type { TypedApp } from '../typed.js';
import { deliveryView, transformationTestView, webhookView } from '../views/webhooks.js';
import type { WebhookRouteDeps } from './deps.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_HEADER_SCHEMA, REPLAYED_RESPONSE_HEADERS, idempotencyKeyOf, requestHash } from '../../events/idempotency.js';
import { sendOnce } from '../idempotent.js';
import type { ApplicationScope } from '../../applications/types.js';
import { InvalidRequestError } from '../../errors.js';
import { Type } from '../../schema/kit.js';
import { createWebhookBody, discardHeldBody, idParams, rotateSecretBody, transformationTestBody, updateWebhookBody } from '../../schema/webhooks.js';


export function createWebhookRoute(app: TypedApp, { webhooks }: WebhookRouteDeps): void {
  app.post(
    '/api/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'createWebhook',
        summary: 'Create a webhook',
        querystring: dryRunQuerySchema,
        body: createWebhookBody,
        response: {
          200: DRY_RUN_ANSWER,
          201: { description: 'The webhook (with `secret` when one was generated)', ...ref('Webhook') },
          ...errors(404, 409, 413, 415, 422),
        },
      },
    },
    async function createWebhook(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await webhooks.checkCreate(request.body));
      const { webhook, secret } = await webhooks.create(request.body);
      return reply.code(201).send(webhookView(webhook, { secret }));
    },
  );
}

const webhookListQuery = Type.Object(
  {
    ...pageQuerySchema.properties,
    application: Type.Optional(Type.String({ maxLength: 200, description: "Only this application's webhooks (its id or uid)" })),
  },
  { additionalProperties: false },
);

/** The scope the routes resolve `application` with; a server without one refuses the parameter. */
export function applicationsOf(applications: ApplicationScope | undefined): ApplicationScope {
  if (!applications) throw new InvalidRequestError('application: applications are not available here', { field: 'application' });
  return applications;
}

export function listWebhooksRoute(app: TypedApp, { webhooks, applications }: WebhookRouteDeps): void {
  app.get(
    '/api/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'listWebhooks',
        summary: 'List webhooks (oldest first), each with its health: its 20 newest deliveries, its breaker, what it holds',
        querystring: webhookListQuery,
        response: { 200: { description: 'A page of webhooks', headers: LINK_HEADER, ...listOf('Webhook') }, ...errors(404) },
      },
    },
    async function listWebhooks(request, reply) {
      const page = readPage(request.query);
      const { application } = request.query;
      const owner = application === undefined ? undefined : (await applicationsOf(applications).resolve(application, 'application')).id;
      const items = pageOf(await webhooks.list(page, owner), page, request, reply, (w) => w.id);
      // One query for the whole page: a list of N webhooks never costs N reads of deliveries.
      const health = await webhooks.health(items);
      return items.map((w) => webhookView(w, { health: health.get(w.id) }));
    },
  );
}

export function getWebhookRoute(app: TypedApp, { webhooks }: WebhookRouteDeps): void {
  app.get(
    '/api/webhooks/:id',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'getWebhook',
        summary: 'Get a webhook with its next 5 fire times and its health',
        params: idParams,
        response: { 200: { description: 'The webhook with `next_fires`', ...ref('Webhook') }, ...ERRORS_BY_ID },
      },
    },
    async function getWebhook(request) {
      const webhook = await webhooks.get(request.params.id);
      const health = await webhooks.health([webhook]);
      return webhookView(webhook, { nextFires: webhooks.upcoming(webhook), health: health.get(webhook.id) });
    },
  );
}

export function updateWebhookRoute(app: TypedApp, { webhooks }: WebhookRouteDeps): void {
  app.put(
    '/api/webhooks/:id',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'updateWebhook',
        summary: 'Update a webhook (partial; null clears or resets a field); reschedules at once',
        params: idParams,
        querystring: dryRunQuerySchema,
        body: updateWebhookBody,
        response: { 200: orDryRun('Webhook', 'The webhook as updated'), ...errors(404, 409, 413, 414, 415, 422) },
      },
    },
    async function updateWebhook(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await webhooks.checkUpdate(request.params.id, request.body ?? {}));
      const { webhook, secret } = await webhooks.update(request.params.id, request.body ?? {});
      return webhookView(webhook, { secret });
    },
  );
}

export function deleteWebhookRoute(app: TypedApp, { webhooks }: WebhookRouteDeps): void {
  app.delete(
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
}

export function testWebhookRoute(app: TypedApp, { webhooks, idempotency, catalogue, spans }: WebhookRouteDeps): void {
  app.post(
    '/api/webhooks/:id/test',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'testWebhook',
        summary:
          "Send once now (no retries, also when disabled); answers the finished delivery. A webhook subscribed to a catalogued event type with an example sends that example as the event's data",
        params: idParams,
        headers: { type: 'object', properties: { [IDEMPOTENCY_HEADER]: IDEMPOTENCY_HEADER_SCHEMA } },
        response: { 200: { description: 'The finished delivery', headers: REPLAYED_RESPONSE_HEADERS, ...ref('Delivery') }, ...errors(404, 409, 414) },
      },
    },
    async function testWebhook(request, reply) {
      const key = idempotencyKeyOf(request.headers);
      const test = async () => {
        // A webhook subscribed to a catalogued type with an example is sent that example (docs/event-types.md).
        const sample = catalogue ? await catalogue.exampleFor((await webhooks.get(request.params.id)).events) : null;
        return { status: 200, body: deliveryView(await webhooks.test(request.params.id, sample, spans?.carrierOf(request))) };
      };
      if (key === null) return (await test()).body;
      const scope = { scope: `webhook-test:${request.params.id}`, key, field: 'Idempotency-Key' };
      return sendOnce(reply, idempotency, [scope], requestHash(request.body ?? null), test);
    },
  );
}

export function rotateSecretRoute(app: TypedApp, { webhooks }: WebhookRouteDeps): void {
  app.post(
    '/api/webhooks/:id/rotate-secret',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'rotateWebhookSecret',
        summary:
          'Rotate its signing secret: the new one (given, or generated and shown once as `secret`) signs from now on, the replaced one beside it for `overlap_s` (default 24 h)',
        params: idParams,
        body: rotateSecretBody,
        response: { 200: { description: 'The webhook with its secrets (and `secret` when one was generated)', ...ref('Webhook') }, ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function rotateWebhookSecret(request) {
      const { webhook, secret } = await webhooks.rotateSecret(request.params.id, request.body ?? {});
      return webhookView(webhook, { secret });
    },
  );
}

export function pauseWebhookRoute(app: TypedApp, { webhooks }: WebhookRouteDeps): void {
  app.post(
    '/api/webhooks/:id/pause',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'pauseWebhook',
        summary: 'Pause sending: new and pending deliveries are held (those in flight finish) until resumed',
        params: idParams,
        response: { 200: { description: 'The webhook, paused', ...ref('Webhook') }, ...ERRORS_BY_ID },
      },
    },
    async function pauseWebhook(request) {
      return webhookView(await webhooks.pause(request.params.id));
    },
  );
}

export function resumeWebhookRoute(app: TypedApp, { webhooks }: WebhookRouteDeps): void {
  app.post(
    '/api/webhooks/:id/resume',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'resumeWebhook',
        summary: 'Resume sending (also closes an open circuit breaker): held deliveries are released in publish order',
        params: idParams,
        response: { 200: { description: 'The webhook, sending again', ...ref('Webhook') }, ...ERRORS_BY_ID },
      },
    },
    async function resumeWebhook(request) {
      return webhookView(await webhooks.resume(request.params.id));
    },
  );
}

export function discardHeldRoute(app: TypedApp, { webhooks }: WebhookRouteDeps): void {
  app.post(
    '/api/webhooks/:id/held/discard',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'discardHeldDeliveries',
        summary: 'Discard held deliveries (all, or those of some events or created before a time) instead of sending them',
        params: idParams,
        querystring: dryRunQuerySchema,
        body: discardHeldBody,
        response: {
          200: {
            description: 'How many were discarded (with `?dry_run=true`: would be)',
            type: 'object',
            required: ['discarded', 'dry_run'],
            properties: { discarded: { type: 'integer' }, dry_run: { type: 'boolean' } },
          },
          ...ERRORS_BY_ID_WITH_BODY,
        },
      },
    },
    async function discardHeldDeliveries(request) {
      const dryRun = request.query.dry_run === 'true';
      const discarded = await webhooks.discardHeld(request.params.id, request.body ?? {}, dryRun);
      return { discarded, dry_run: dryRun };
    },
  );
}

export function testTransformationRoute(app: TypedApp, { webhooks }: WebhookRouteDeps): void {
  app.post(
    '/api/transformation-test',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'testTransformation',
        summary: "Run a transformation on a sample request, as a delivery's attempt would (nothing is sent)",
        body: transformationTestBody,
        response: {
          200: { description: "What the transformation made of the request, or why it failed (the code's own failures are answers, not errors)", ...ref('TransformationTestResult') },
          ...ERRORS_WITH_BODY,
        },
      },
    },
    async function testTransformation(request) {
      const { result, durationMs } = await webhooks.testTransformation(request.body);
      return transformationTestView(result, durationMs);
    },
  );
}
