/**
 * Recovery jobs: resend a webhook's finished deliveries since a time
 * (`POST /api/webhooks/{id}/recover`), or those of every webhook (a bulk retry,
 * `POST /api/recoveries`); follow one (`GET /api/recoveries/{id}`), list
 * them, cancel one. A job answers at once and runs in the background.
 */
import { LINK_HEADER, pageOf, pageQuerySchema, readPage } from '../common.js';
import { dryRunQuerySchema } from '../../schema/dry-run.js';
import { ERRORS_BY_ID, ERRORS_BY_ID_WITH_BODY, errors, listOf, ref } from '../schemas.js';
import type { TypedApp } from '../typed.js';
import { recoveryView } from '../views/webhooks.js';
import type { WebhookRouteDeps } from './deps.js';
import { bulkRetryBody, idParams, recoverBody } from '../../schema/webhooks.js';
import { Type } from '../../schema/kit.js';
import { applicationsOf } from './webhooks.js';
import type { Recovery } from '../../webhooks/types.js';

/** The two answers of a recovery: the job (202), or with `?dry_run=true` the count it would resend (200). */
const RECOVERY_ANSWERS = {
  202: { description: 'The job, created and running (its `total` is the count it will resend)', ...ref('Recovery') },
  200: {
    description: 'With `?dry_run=true`: how many deliveries the filter selects now; nothing is created',
    type: 'object',
    required: ['count', 'dry_run'],
    properties: { count: { type: 'integer' }, dry_run: { type: 'boolean', enum: [true] } },
  },
} as const;

function answer(result: Recovery | number, reply: { code(n: number): unknown }) {
  if (typeof result === 'number') return { count: result, dry_run: true as const };
  reply.code(202);
  return recoveryView(result);
}

export function recoverWebhookRoute(app: TypedApp, { webhooks }: WebhookRouteDeps): void {
  app.post(
    '/api/webhooks/:id/recover',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'recoverWebhook',
        summary: "Resend the webhook's failed (or other finished) deliveries created since a time, in the background",
        params: idParams,
        querystring: dryRunQuerySchema,
        body: recoverBody,
        response: { ...RECOVERY_ANSWERS, ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function recoverWebhook(request, reply) {
      return answer(await webhooks.recover(request.params.id, request.body, request.query.dry_run === 'true'), reply);
    },
  );
}

export function bulkRetryRoute(app: TypedApp, { webhooks }: WebhookRouteDeps): void {
  app.post(
    '/api/recoveries',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'retryDeliveries',
        summary: "Resend failed (or other finished) deliveries of every webhook, of those named, or of one application's, created since a time",
        querystring: dryRunQuerySchema,
        body: bulkRetryBody,
        // 404: the `application` named does not exist.
        response: { ...RECOVERY_ANSWERS, ...errors(404, 409, 413, 415) },
      },
    },
    async function retryDeliveries(request, reply) {
      return answer(await webhooks.bulkRetry(request.body, request.query.dry_run === 'true'), reply);
    },
  );
}

export function getRecoveryRoute(app: TypedApp, { webhooks }: WebhookRouteDeps): void {
  app.get(
    '/api/recoveries/:id',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'getRecovery',
        summary: 'A recovery job and its progress',
        params: idParams,
        response: { 200: { description: 'The job', ...ref('Recovery') }, ...ERRORS_BY_ID },
      },
    },
    async function getRecovery(request) {
      return recoveryView(await webhooks.getRecovery(request.params.id));
    },
  );
}

const listRecoveriesQuery = Type.Object(
  {
    ...pageQuerySchema.properties,
    webhook_id: Type.Optional(Type.String({ maxLength: 100, description: "Only this webhook's jobs" })),
    application: Type.Optional(Type.String({ maxLength: 200, description: "Only the jobs of this application's webhooks (its id or uid)" })),
  },
  { additionalProperties: false },
);

export function listRecoveriesRoute(app: TypedApp, { webhooks, applications }: WebhookRouteDeps): void {
  app.get(
    '/api/recoveries',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'listRecoveries',
        summary: 'Recovery jobs, newest first (bulk retries included)',
        querystring: listRecoveriesQuery,
        response: { 200: { description: 'A page of jobs', headers: LINK_HEADER, ...listOf('Recovery') }, ...errors(404) },
      },
    },
    async function listRecoveries(request, reply) {
      const page = readPage(request.query);
      const { application } = request.query;
      const owner = application === undefined ? undefined : (await applicationsOf(applications).resolve(application, 'application')).id;
      const items = await webhooks.listRecoveries(request.query.webhook_id ?? null, page, owner);
      return pageOf(items, page, request, reply, (r) => r.id).map(recoveryView);
    },
  );
}

export function cancelRecoveryRoute(app: TypedApp, { webhooks }: WebhookRouteDeps): void {
  app.post(
    '/api/recoveries/:id/cancel',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'cancelRecovery',
        summary: 'Stop a running recovery job (what it resent stays resent)',
        params: idParams,
        response: { 200: { description: 'The job, cancelled', ...ref('Recovery') }, ...errors(404, 409, 414) },
      },
    },
    async function cancelRecovery(request) {
      return recoveryView(await webhooks.cancelRecovery(request.params.id));
    },
  );
}
