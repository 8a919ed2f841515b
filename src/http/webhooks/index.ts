/**
 * Management routes for webhooks, their deliveries, and events:
 * /api/webhooks[/:id[/test|/rotate-secret|/pause|/resume|/held/discard|/recover|/deliveries]],
 * /api/deliveries/:id[/retry], /api/recoveries[/:id[/cancel]], /api/events[/filter-test], /api/transformation-test
 * (beside the publish, and not under /api/webhooks/, where they would shadow a webhook id);
 * one registration per operation (webhooks.ts, deliveries.ts, recoveries.ts, events.ts).
 */
import type { FastifyInstance } from 'fastify';
import { typed } from '../typed.js';
import type { WebhookRouteDeps } from './deps.js';
import { getDeliveryRoute, listDeliveriesRoute, retryDeliveryRoute } from './deliveries.js';
import { filterTestRoute, publishEventRoute } from './events.js';
import { bulkRetryRoute, cancelRecoveryRoute, getRecoveryRoute, listRecoveriesRoute, recoverWebhookRoute } from './recoveries.js';
import {
  createWebhookRoute,
  deleteWebhookRoute,
  discardHeldRoute,
  getWebhookRoute,
  listWebhooksRoute,
  pauseWebhookRoute,
  resumeWebhookRoute,
  rotateSecretRoute,
  testTransformationRoute,
  testWebhookRoute,
  updateWebhookRoute,
} from './webhooks.js';

/** In the order the document lists them. */
const OPERATIONS = [
  createWebhookRoute,
  listWebhooksRoute,
  getWebhookRoute,
  updateWebhookRoute,
  deleteWebhookRoute,
  testWebhookRoute,
  rotateSecretRoute,
  pauseWebhookRoute,
  resumeWebhookRoute,
  discardHeldRoute,
  recoverWebhookRoute,
  listDeliveriesRoute,
  getDeliveryRoute,
  retryDeliveryRoute,
  bulkRetryRoute,
  getRecoveryRoute,
  listRecoveriesRoute,
  cancelRecoveryRoute,
  publishEventRoute,
  filterTestRoute,
  // Its own path: under /api/webhooks/ it would be taken for a webhook id by GET, PUT and DELETE.
  testTransformationRoute,
];

export function registerWebhookRoutes(app: FastifyInstance, deps: WebhookRouteDeps): void {
  const api = typed(app);
  for (const register of OPERATIONS) register(api, deps);
}
