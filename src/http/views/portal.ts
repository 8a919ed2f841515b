/**
 * Endpoints and deliveries as the consumer API shows them (schemas:
 * ../../schema/portal.ts): the operator's views (./webhooks.ts, which mask
 * headers and URL credentials) narrowed to the consumer's fields.
 */
import type { Delivery } from '../../deliveries/types.js';
import type { HealthReport, Webhook } from '../../webhooks/types.js';
import type { PortalDeliveryDetailView, PortalDeliveryView, PortalEndpointView } from '../../schema/portal.js';
import { deliveryDetailView, deliveryView, webhookView } from './webhooks.js';

export function portalEndpointView(hook: Webhook, extra: { secret?: string; health?: HealthReport } = {}): PortalEndpointView {
  const w = webhookView(hook, extra);
  const h = w.health;
  return {
    id: w.id,
    name: w.name,
    target_url: w.target_url,
    method: w.method,
    headers: w.headers,
    events: w.events,
    enabled: w.enabled,
    disabled_reason: w.disabled_reason,
    filter: w.filter,
    rate_limit: w.rate_limit,
    has_secret: w.has_secret,
    public_key: w.public_key,
    secrets: w.secrets,
    created_at: w.created_at,
    updated_at: w.updated_at,
    ...(w.secret ? { secret: w.secret } : {}),
    ...(h
      ? {
          health: {
            last_outcome: h.last_outcome,
            failures_in_a_row: h.failures_in_a_row,
            pending: h.pending,
            retrying: h.retrying,
            window: h.window,
            state: h.state,
            held: h.held,
            failing_since: h.failing_since,
            last_success_at: h.last_success_at,
            last_failure_at: h.last_failure_at,
          },
        }
      : {}),
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
