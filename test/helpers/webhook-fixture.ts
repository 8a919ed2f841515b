/** A webhook as the store takes it, for tests that build the pipeline by hand: POST to `targetUrl`, every event, no schedule. */
import { AUTO_DISABLE_DEFAULTS, BREAKER_DEFAULTS, type NewWebhook } from '../../src/webhooks/types.js';

/** The endpoint-health fields of a new webhook at their defaults (as the service fills them), and no payload filter. */
export const HEALTH_FIELDS = Object.freeze({
  filter: null,
  pausedAt: null,
  disabledReason: null,
  breaker: { ...BREAKER_DEFAULTS },
  rateLimit: null,
  autoDisable: { ...AUTO_DISABLE_DEFAULTS },
}) satisfies Partial<NewWebhook>;

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
    secretCreatedAt: null,
    previousSecrets: [],
    retry: { maxAttempts: 8, scheduleS: null },
    timeoutMs: 5000,
    nextFireAt: null,
    ...HEALTH_FIELDS,
    ...patch,
  };
}
