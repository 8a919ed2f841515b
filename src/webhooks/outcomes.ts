/**
 * The webhook side of the pipeline's events: a delivery that failed for good,
 * told with its webhook (as its attempt read it), and a webhook disabled by a
 * 410. Deliveries of the service's own `switchyard.*` events never report a
 * failure, so a failing subscriber of `switchyard.delivery.failed` cannot loop.
 */
import type { DeliveryEvents } from '../deliveries/events.js';
import type { WebhookDelivery } from '../deliveries/types.js';
import { isOperationalEvent } from '../events/names.js';
import type { Logger } from '../types.js';
import type { WebhookTarget } from './target.js';
import type { Webhook } from './types.js';

export interface WebhookOutcomes {
  failed(webhook: Webhook, delivery: WebhookDelivery): void;
  disabled(webhook: Webhook): void;
}

/** Subscribes `on` to the engine's and the target's events; the answer unsubscribes. */
export function followWebhookOutcomes(deps: { events: DeliveryEvents; target: WebhookTarget; log: Logger }, on: WebhookOutcomes): () => void {
  const { target, log } = deps;
  const offFailed = deps.events.on('delivery:failed', ({ delivery }) => {
    if (delivery.kind !== 'webhook' || isOperationalEvent(delivery.event ?? '')) return;
    // Cached by its attempt; a deleted webhook took the delivery with it.
    target.webhook(delivery.webhookId).then(
      (webhook) => {
        if (webhook) on.failed(webhook, delivery);
      },
      (err) => log.warn({ err, delivery: delivery.id }, 'could not report a failed delivery'),
    );
  });
  const offDisabled = target.events.on('webhook:disabled', ({ webhook }) => on.disabled(webhook));
  return () => {
    offFailed();
    offDisabled();
  };
}
