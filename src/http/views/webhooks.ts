/**
 * Webhooks and their deliveries as the API shows them: `secret` never,
 * sensitive header values and URL credentials masked (webhooks/masking.ts).
 * Typed by the component schemas (../schemas.ts): a field the schema gains
 * must be filled here, or this does not compile.
 */
import { maskHeaders, maskUrl } from '../../webhooks/masking.js';
import type { Attempt, Delivery, DeliveryRequest, DeliveryResponse } from '../../deliveries/types.js';
import { HEALTH_WINDOW, type HealthReport, type Recovery, type Webhook } from '../../webhooks/types.js';
import { autoDisableView, breakerView, rateLimitView } from '../../webhooks/health/settings.js';
import type {
  AttemptView,
  DeliveryDetailView,
  DeliveryView,
  RecoveryView,
  SigningSecretView,
  TransformationTestResultView,
  WebhookView,
} from '../../schema/webhooks.js';
import type { TransformResult } from '../../webhooks/transformation.js';
import { kindOf, publicKeyOf } from '../../webhooks/signing.js';

/** The secrets' metadata, current first; values never (write-only). */
function secretsView(w: Webhook): SigningSecretView[] {
  const out: SigningSecretView[] = [];
  if (w.secret !== null) out.push({ kind: kindOf(w.secret), created_at: w.secretCreatedAt, expires_at: null, public_key: publicKeyOf(w.secret) });
  for (const p of w.previousSecrets) out.push({ kind: kindOf(p.secret), created_at: p.createdAt, expires_at: p.expiresAt, public_key: publicKeyOf(p.secret) });
  return out;
}

export function webhookView(w: Webhook, extra: { secret?: string; nextFires?: string[]; health?: HealthReport } = {}): WebhookView {
  return {
    id: w.id,
    name: w.name,
    target_url: maskUrl(w.targetUrl),
    method: w.method,
    headers: maskHeaders(w.headers),
    payload_template: w.payloadTemplate,
    cron: w.cron,
    timezone: w.timezone,
    mock_endpoint: w.mockEndpoint ? { api_id: w.mockEndpoint.apiId, path: w.mockEndpoint.path } : null,
    transformation: w.transformation ?? null,
    events: w.events,
    enabled: w.enabled,
    has_secret: w.secret !== null,
    public_key: w.secret === null ? null : publicKeyOf(w.secret),
    secrets: secretsView(w),
    retry: w.retry.scheduleS
      ? { max_attempts: w.retry.maxAttempts, schedule_s: w.retry.scheduleS }
      : { max_attempts: w.retry.maxAttempts },
    timeout_ms: w.timeoutMs,
    next_fire_at: w.nextFireAt,
    paused: w.pausedAt !== null,
    paused_at: w.pausedAt,
    disabled_reason: w.disabledReason,
    breaker: breakerView(w.breaker),
    rate_limit: rateLimitView(w.rateLimit),
    auto_disable: autoDisableView(w.autoDisable),
    filter: w.filter,
    project: w.project ?? null,
    application_id: w.applicationId ?? null,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
    ...(extra.secret ? { secret: extra.secret } : {}),
    ...(extra.nextFires ? { next_fires: extra.nextFires } : {}),
    ...(extra.health
      ? {
          health: {
            last_outcome: extra.health.lastOutcome,
            failures_in_a_row: extra.health.failuresInARow,
            pending: extra.health.pending,
            retrying: extra.health.retrying,
            window: HEALTH_WINDOW,
            state: extra.health.state,
            since: extra.health.since,
            failure_ratio: extra.health.failureRatio,
            window_attempts: extra.health.windowAttempts,
            held: extra.health.held,
            held_discarded: extra.health.heldDiscarded,
            next_probe_at: extra.health.nextProbeAt,
            probe_delivery_id: extra.health.probeDeliveryId,
            not_before: extra.health.notBefore,
            failing_since: extra.health.failingSince,
            last_success_at: extra.health.lastSuccessAt,
            last_failure_at: extra.health.lastFailureAt,
          },
        }
      : {}),
  };
}

/** A webhook delivery: its request's and response's sensitive header values, and its URL's credentials, masked. */
export function deliveryView(d: Delivery): DeliveryView {
  return {
    id: d.id,
    // A webhook delivery (the only kind this is given) has its webhook id, and never the `async` trigger of functions.
    webhook_id: d.webhookId as string,
    trigger: d.trigger as DeliveryView['trigger'],
    event: d.event,
    status: d.status,
    error: d.error,
    scheduled_for: d.scheduledFor,
    next_attempt_at: d.nextAttemptAt,
    attempts: d.attempts.map(attemptView),
    request: maskedRequest(d.request),
    response: maskedResponse(d.response),
    created_at: d.createdAt,
    completed_at: d.completedAt,
  };
}

/** `GET /api/deliveries/{id}`: deliveryView whose attempts carry their own response (from getDeliveryDetail). */
export function deliveryDetailView(d: Delivery): DeliveryDetailView {
  return {
    ...deliveryView(d),
    attempts: d.attempts.map((a) => ({ ...attemptView(a), response: maskedResponse(a.response ?? null), sent: maskedRequest(a.sent ?? null) })),
  };
}

function attemptView(a: Attempt): AttemptView {
  return {
    attempt: a.attempt,
    started_at: a.startedAt,
    duration_ms: a.durationMs,
    response_status: a.responseStatus,
    error: a.error,
    outcome: a.outcome,
  };
}

function maskedRequest(r: DeliveryRequest | null) {
  return r && { ...r, url: maskUrl(r.url), headers: maskHeaders(r.headers) };
}

function maskedResponse(r: DeliveryResponse | null) {
  return r && { ...r, headers: maskHeaders(r.headers) };
}

/** A recovery job, with its progress (resent and passed-over deliveries are both done with). */
export function recoveryView(r: Recovery): RecoveryView {
  const handled = r.status === 'done' ? r.total : Math.min(r.total, r.resent);
  return {
    id: r.id,
    webhook_id: r.webhookId,
    status: r.status,
    total: r.total,
    resent: r.resent,
    progress: r.total === 0 ? 1 : Math.round((handled / r.total) * 1000) / 1000,
    filter: {
      since: r.filter.since,
      until: r.filter.until,
      statuses: r.filter.statuses,
      events: r.filter.events,
      webhook_ids: r.filter.webhookIds,
    },
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    finished_at: r.finishedAt,
  };
}

/** The try-it endpoint's answer: the request a transformation made (headers masked), its cancellation or its failure. */
export function transformationTestView(r: TransformResult, durationMs: number): TransformationTestResultView {
  if (r.kind === 'transformed') return { outcome: 'transformed', request: maskedRequest(r.request), error: null, duration_ms: durationMs };
  if (r.kind === 'cancelled') return { outcome: 'cancelled', request: null, error: null, duration_ms: durationMs };
  return { outcome: 'failed', request: null, error: { code: r.code, message: r.message }, duration_ms: durationMs };
}
