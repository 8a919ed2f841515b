/** A webhook as the store takes it, for tests that build the pipeline by hand: POST to `targetUrl`, every event, no schedule. */
import type { NewWebhook } from '../../src/webhooks/types.js';

export function newWebhook(targetUrl: string, patch: Partial<NewWebhook> = {}): NewWebhook {
  return {
    name: 'orders',
    targetUrl,
    method: 'POST',
    headers: {},
    payloadTemplate: { event: '{{event}}', id: '{{data.id}}', note: 'delivery {{delivery.id}}' },
    cron: null,
    timezone: 'UTC',
    mockEndpoint: null,
    events: ['*'],
    enabled: true,
    secret: null,
    retry: { maxAttempts: 8, scheduleS: null },
    timeoutMs: 5000,
    nextFireAt: null,
    ...patch,
  };
}
