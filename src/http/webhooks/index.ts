/**
 * Management routes for webhooks, their deliveries, and events:
 * /api/webhooks[/:id[/test|/deliveries]], /api/deliveries/:id[/retry], /api/events;
 * one registration per operation (webhooks.ts, deliveries.ts, events.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { EventBus } from '../../webhooks/events.js';
import type { WebhookService } from '../../webhooks/service.js';
import { typed } from '../typed.js';
import { getDeliveryRoute, listDeliveriesRoute, retryDeliveryRoute } from './deliveries.js';
import { publishEventRoute } from './events.js';
import {
  createWebhookRoute,
  deleteWebhookRoute,
  getWebhookRoute,
  listWebhooksRoute,
  testWebhookRoute,
  updateWebhookRoute,
} from './webhooks.js';

export interface WebhookRouteDeps {
  webhooks: WebhookService;
  events: EventBus;
}

/** In the order the document lists them. */
const OPERATIONS = [
  createWebhookRoute,
  listWebhooksRoute,
  getWebhookRoute,
  updateWebhookRoute,
  deleteWebhookRoute,
  testWebhookRoute,
  listDeliveriesRoute,
  getDeliveryRoute,
  retryDeliveryRoute,
  publishEventRoute,
];

export function registerWebhookRoutes(app: FastifyInstance, deps: WebhookRouteDeps): void {
  const api = typed(app);
  for (const register of OPERATIONS) register(api, deps);
}
