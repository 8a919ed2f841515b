/**
 * Endpoints and deliveries as the consumer API shows them (schemas:
 * ../../schema/portal.ts): the operator's views (./webhooks.ts, which mask
 * headers and URL credentials) narrowed to the consumer's fields.
 */
import type { Delivery } from '../../deliveries/types.js';
import type { HealthReport, Webhook } from '../../webhooks/types.js';
import { PortalEndpointSchema, type PortalDeliveryDetailView, type PortalDeliveryView, type PortalEndpointView } from '../../schema/portal.js';
import { deliveryDetailView, deliveryView, webhookView } from './webhooks.js';

// The schema's own lists of fields, so the view cannot show more (or less) than the document says.
const { secret: _secret, health: healthSchema, ...endpointFields } = PortalEndpointSchema.properties;
const ENDPOINT_KEYS = Object.keys(endpointFields) as Array<keyof typeof endpointFields>;
const HEALTH_KEYS = Object.keys(healthSchema.properties) as Array<keyof typeof healthSchema.properties>;

function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) out[k] = from[k];
  return out;
}

export function portalEndpointView(hook: Webhook, extra: { secret?: string; health?: HealthReport } = {}): PortalEndpointView {
  const w = webhookView(hook, extra);
  return {
    ...pick(w, ENDPOINT_KEYS),
    ...(w.secret ? { secret: w.secret } : {}),
    ...(w.health ? { health: pick(w.health, HEALTH_KEYS) } : {}),
  };
}

/**
 * `reshaped`: the endpoint has the operator's transformation, so the rendered
 * request is not what was sent (and shows the operator's template's output
 * before their code ran): the latest attempt's `sent` stands in, where read.
 */
function narrowed<A extends { outcome: unknown }>(
  v: { attempts: A[]; request: PortalDeliveryView['request'] } & Omit<ReturnType<typeof deliveryView>, 'attempts' | 'request'>,
  sent: PortalDeliveryView['request'],
) {
  return {
    id: v.id,
    webhook_id: v.webhook_id,
    trigger: v.trigger,
    event: v.event,
    status: v.status,
    error: v.error,
    next_attempt_at: v.next_attempt_at,
    attempts: v.attempts.map(({ outcome: _outcome, ...a }) => a),
    request: sent,
    response: v.response,
    created_at: v.created_at,
    completed_at: v.completed_at,
  };
}

export function portalDeliveryView(d: Delivery, reshaped: boolean): PortalDeliveryView {
  const v = deliveryView(d);
  return narrowed(v, reshaped ? null : v.request);
}

export function portalDeliveryDetailView(d: Delivery, reshaped: boolean): PortalDeliveryDetailView {
  const v = deliveryDetailView(d);
  const latest = v.attempts.findLast((a) => a.sent !== null);
  return narrowed(v, reshaped ? (latest?.sent ?? null) : v.request);
}
