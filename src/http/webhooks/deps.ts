/** What the webhook routes are given (one deps object); apart from index.ts so each operation's file can import it. */
import type { EventBus } from '../../webhooks/events.js';
import type { WebhookService } from '../../webhooks/service.js';

export interface WebhookRouteDeps {
  webhooks: WebhookService;
  events: EventBus;
}
