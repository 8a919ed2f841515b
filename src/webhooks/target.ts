/**
 * The webhook target of the delivery pipeline: renders a delivery once
 * (through its mock endpoint when it has one), signs each attempt (with every
 * secret still valid: rotation with overlap), sends it
 * and classifies the answer (retry.ts), telling the engine how long the
 * target took and whether it looked overloaded. A 410 Gone disables the
 * webhook once the attempt is recorded (what it still had to send is held);
 * a 429 or 503 with Retry-After tells the engine's gate when the target as a
 * whole may be tried again. A webhook with a transformation runs it on each
 * attempt, before signing (transformation.ts): the attempt sends what it made,
 * fails with its error code, or ends the delivery `cancelled`; a webhook
 * without one goes straight from the request to the send.
 */
import type { Clock } from '../clock.js';
import type { AttemptContext, AttemptResult, DeliveryTarget } from '../deliveries/target.js';
import { TypedEvents } from '../deliveries/events.js';
import type { DeliveryRequest, WebhookDelivery } from '../deliveries/types.js';
import { depthOf } from '../hops.js';
import { createGuardedAgent } from '../net/ssrf.js';
import type { WebhookStore } from '../store/store.js';
import type { Logger } from '../types.js';
import type { Tracing } from '../telemetry/tracing.js';
import { traceparentOf, tracestateOf } from '../telemetry/types.js';
import { buildRequest, USER_AGENT } from './render.js';
import { classify, honoursRetryAfter, nextDelayMs, retryAfterMs } from './retry.js';
import { send, type SendFailure, type SendResponse, type SendResult } from './sender.js';
import { signAll } from './signing.js';
import { signingSecrets, type Webhook } from './types.js';
import type { Transformer } from './transformation.js';

const WEBHOOK_CACHE_MS = 1000;
/** Deliveries a disabled webhook's hold moves per statement. */
const HOLD_STEP = 1000;
/**
 * Answers that say "too much" (rate limited, or a proxy in front of the target
 * gave up on it): like a timeout or a refused connection, they lower the
 * target's share at once. Other statuses, 500 included, are the target's own
 * verdict on the delivery; only their latency counts.
 */
const OVERLOAD_STATUSES = new Set([429, 502, 503, 504]);

export interface WebhookTargetEventMap {
  /** The webhook's target answered 410 Gone: it was disabled. */
  'webhook:disabled': { webhook: Webhook };
}

export interface WebhookTargetDeps {
  store: WebhookStore;
  clock: Clock;
  allowPrivateTargets: boolean;
  /** Connections per origin of the pooled agent: the engine's attempts in flight at most. */
  connections: number;
  /** `depth`: the delivery's hop count, which the mock endpoint's run keeps (src/hops.ts). */
  fetchMock(apiId: string, path: string, depth: number): Promise<{ status: number; body: unknown; error?: string }>;
  log: Logger;
  random?: () => number;
  userAgent?: string;
  /** Runs webhooks' transformations; without it a webhook's transformation fails its attempts. */
  transformer?: Transformer;
  /**
   * OpenTelemetry tracing; null: off. On, each send is a CLIENT span in the
   * trace of the delivery's cause (a root span when it has none: a schedule's
   * slot) and carries a child of it in `traceparent`.
   */
  tracing?: Tracing | null;
}

type Rendered = { request: DeliveryRequest } | { error: string };

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

function describeStatus(status: number): string {
  if (status >= 300 && status < 400) return `redirect not followed (${status})`;
  if (status === 410) return 'target answered 410 Gone; webhook disabled';
  return `target answered ${status}`;
}

export class WebhookTarget implements DeliveryTarget<WebhookDelivery> {
  readonly noun = 'delivery';
  readonly reportsSuccess = false;
  readonly events: TypedEvents<WebhookTargetEventMap>;

  private readonly store: WebhookStore;
  private readonly clock: Clock;
  private readonly agent;
  private readonly random: () => number;
  private readonly userAgent: string;
  /** Webhooks read lately, each with its value once read (`peek`): WEBHOOK_CACHE_MS, or until a change for it. */
  private readonly webhooks = new Map<string, { at: number; webhook: Promise<Webhook | null>; value?: Webhook | null }>();
  private readonly disabling = new Set<string>();

  constructor(private readonly deps: WebhookTargetDeps) {
    this.store = deps.store;
    this.clock = deps.clock;
    this.random = deps.random ?? Math.random;
    this.userAgent = deps.userAgent ?? USER_AGENT;
    this.events = new TypedEvents<WebhookTargetEventMap>({ log: deps.log, source: 'webhook target' });
    // One pooled keep-alive agent for every target: connection reuse is most of the throughput.
    this.agent = createGuardedAgent({ allowPrivate: deps.allowPrivateTargets, connections: deps.connections });
  }

  /** A webhook as just read elsewhere (the scheduler's claim): its deliveries need not read it again for WEBHOOK_CACHE_MS. */
  remember(webhook: Webhook): void {
    if (this.webhooks.size > 10_000) this.webhooks.clear();
    this.webhooks.set(webhook.id, { at: Date.now(), webhook: Promise.resolve(webhook), value: webhook });
  }

  /** Drops what is cached of a webhook (a change for it), or of every webhook. */
  forget(id?: string): void {
    if (id === undefined) this.webhooks.clear();
    else this.webhooks.delete(id);
  }

  /** The webhook as read at most WEBHOOK_CACHE_MS ago, without waiting; undefined when that needs a read. */
  peek(id: string): Webhook | null | undefined {
    const hit = this.webhooks.get(id);
    return hit && Date.now() - hit.at < WEBHOOK_CACHE_MS ? hit.value : undefined;
  }

  /** The webhook, as read at most WEBHOOK_CACHE_MS ago. */
  webhook(id: string): Promise<Webhook | null> {
    const now = Date.now();
    const hit = this.webhooks.get(id);
    if (hit && now - hit.at < WEBHOOK_CACHE_MS) return hit.webhook;
    if (this.webhooks.size > 10_000) this.webhooks.clear();
    const webhook = this.store.getWebhook(id);
    const entry: { at: number; webhook: Promise<Webhook | null>; value?: Webhook | null } = { at: now, webhook };
    this.webhooks.set(id, entry);
    webhook.then(
      (value) => {
        entry.value = value;
      },
      () => {
        if (this.webhooks.get(id) === entry) this.webhooks.delete(id);
      },
    );
    return webhook;
  }

  async close(): Promise<void> {
    await this.agent.destroy();
  }

  async attempt(delivery: WebhookDelivery, ctx: AttemptContext): Promise<AttemptResult | null> {
    // A final attempt is sent on request, right after an edit as often as not: the webhook as stored now.
    if (ctx.final) this.webhooks.delete(delivery.webhookId);
    const webhook = await this.webhook(delivery.webhookId);
    // A deleted webhook took its deliveries with it.
    if (!webhook) return null;
    const startedMs = this.clock.now();

    let request = delivery.request;
    const fresh = request === null;
    let result: SendResult | null = null;
    // The engine's clock, so that tests set the latencies the share sees; -1: nothing was sent.
    let latencyMs = -1;
    if (request === null) {
      const renderStarted = performance.now();
      const rendered = await this.render(webhook, delivery);
      if ('error' in rendered) result = { error: rendered.error, durationMs: Math.round(performance.now() - renderStarted) };
      else request = rendered.request;
    }
    let toSend = request;
    let transformed: { outcome: string; sent?: DeliveryRequest } | null = null;
    if (result === null && request !== null && webhook.transformation) {
      const ran = performance.now();
      const t = await this.transform(webhook.transformation, request, delivery);
      const tookMs = Math.round((performance.now() - ran) * 100) / 100;
      if (t.kind === 'cancelled') return this.cancelled(startedMs, tookMs, fresh ? request : null);
      if (t.kind === 'failed') {
        toSend = null;
        transformed = { outcome: t.code };
        result = { error: `${t.code}: ${t.message}`, durationMs: tookMs };
      } else {
        toSend = t.request;
        transformed = { outcome: 'transformed', sent: t.request };
      }
    }
    if (result === null && toSend !== null) {
      // Rendering and a transformation were awaited: this process may have been taken for dead since.
      if (!ctx.mayStillSend()) return null;
      const sentAt = this.clock.now();
      result = this.deps.tracing ? await this.tracedSend(this.deps.tracing, toSend, delivery, webhook, ctx.number) : await this.send(toSend, delivery.id, webhook);
      latencyMs = this.clock.now() - sentAt;
    }
    if (result === null) throw new Error('unreachable: an attempt neither rendered nor sent');

    const answered = 'status' in result ? result : null;
    const status = answered?.status;
    const verdict = classify(answered ? { status: answered.status } : { error: (result as SendFailure).error });
    let retryInMs: number | null = null;
    const retryAfter = answered && honoursRetryAfter(status) ? headerValue(answered.headers, 'retry-after') : undefined;
    if (verdict === 'retry' && !ctx.final) {
      retryInMs = nextDelayMs(ctx.retryNumber, webhook.retry, retryAfter, this.random, this.clock.now());
    }
    const out: AttemptResult = {
      startedMs,
      durationMs: result.durationMs,
      succeeded: verdict === 'succeeded',
      retryInMs,
      error: answered ? (verdict === 'succeeded' ? null : describeStatus(answered.status)) : (result as SendFailure).error,
      responseStatus: status ?? null,
      response: answered ? { status: answered.status, headers: answered.headers, body: answered.body } : null,
      outcome: transformed?.outcome ?? null,
      requestId: null,
    };
    if (transformed?.sent) out.sent = transformed.sent;
    if (fresh && request !== null) out.request = request;
    if (latencyMs >= 0) out.load = { latencyMs, overloaded: status === undefined || OVERLOAD_STATUSES.has(status) };
    if (verdict === 'disable') out.afterRecorded = () => this.disable(webhook);
    // A 429 or 503 that says when to come back is about the target, not this one delivery.
    const waitMs = retryAfterMs(retryAfter, this.clock.now());
    if (waitMs !== null && waitMs > 0) out.targetNotBefore = this.clock.now() + waitMs;
    return out;
  }

  private transform(source: string, request: DeliveryRequest, delivery: WebhookDelivery) {
    if (!this.deps.transformer) {
      return Promise.resolve({ kind: 'failed', code: 'transformation_error', message: 'transformations are not available here' } as const);
    }
    return this.deps.transformer.apply(source, request, delivery.event);
  }

  /** The transformation cancelled the delivery: it ends without a send, never retried. */
  private cancelled(startedMs: number, durationMs: number, rendered: DeliveryRequest | null): AttemptResult {
    const out: AttemptResult = {
      startedMs,
      durationMs,
      succeeded: false,
      cancelled: true,
      retryInMs: null,
      error: "cancelled by the webhook's transformation",
      responseStatus: null,
      response: null,
      outcome: 'cancelled',
      requestId: null,
    };
    if (rendered) out.request = rendered;
    return out;
  }

  private async render(webhook: Webhook, delivery: WebhookDelivery): Promise<Rendered> {
    let mock: unknown;
    if (webhook.mockEndpoint) {
      const { apiId, path } = webhook.mockEndpoint;
      try {
        const res = await this.deps.fetchMock(apiId, path, depthOf(delivery.triggerDetail));
        if (res.error || res.status < 200 || res.status >= 300) {
          return { error: res.error ?? `mock endpoint answered ${res.status}` };
        }
        mock = res.body;
      } catch (err) {
        return { error: `mock endpoint: ${err instanceof Error ? err.message : String(err)}` };
      }
    }
    return { request: buildRequest(webhook, delivery, mock, this.userAgent) };
  }

  /**
   * The stored request plus this attempt's timestamp and signatures (the secrets themselves are never stored):
   * one per secret valid now by the clock, newest first, so a secret's overlap ends without anything removing it.
   */
  private attemptHeaders(request: DeliveryRequest, deliveryId: string, webhook: Webhook): Record<string, string> {
    const now = this.clock.now();
    const timestamp = Math.floor(now / 1000);
    const headers: Record<string, string> = { ...request.headers, 'webhook-timestamp': String(timestamp) };
    const secrets = webhook.previousSecrets.length === 0 ? (webhook.secret ? [webhook.secret] : []) : signingSecrets(webhook, now);
    if (secrets.length > 0) headers['webhook-signature'] = signAll(secrets, deliveryId, timestamp, request.body ?? '');
    return headers;
  }

  private send(request: DeliveryRequest, deliveryId: string, webhook: Webhook, trace?: string): Promise<SendResult> {
    const headers = this.attemptHeaders(request, deliveryId, webhook);
    if (trace !== undefined) {
      headers.traceparent = traceparentOf(trace);
      const state = tracestateOf(trace);
      if (state !== undefined) headers.tracestate = state;
    }
    return send({ ...request, headers }, { timeoutMs: webhook.timeoutMs, agent: this.agent });
  }

  private async tracedSend(tracing: Tracing, request: DeliveryRequest, delivery: WebhookDelivery, webhook: Webhook, attempt: number): Promise<SendResult> {
    const span = tracing.under(delivery.traceContext, `webhook ${request.method}`, 'client', {
      'http.request.method': request.method,
      'url.full': tracing.urlAttribute(request.url),
      'switchyard.webhook.id': webhook.id,
      'switchyard.delivery.id': delivery.id,
      'switchyard.delivery.attempt': attempt,
      'switchyard.webhook_id_header': headerValue(request.headers, 'webhook-id') ?? delivery.id,
    });
    try {
      const result = await this.send(request, delivery.id, webhook, tracing.carrierOf(span));
      if ('status' in result) {
        span.setAttribute('http.response.status_code', result.status);
        if (result.status >= 400) tracing.failed(span, String(result.status));
      } else tracing.failed(span, result.error);
      return result;
    } finally {
      span.end();
    }
  }

  private async disable(webhook: Webhook): Promise<void> {
    if (this.disabling.has(webhook.id)) return;
    this.disabling.add(webhook.id);
    try {
      const current = await this.store.getWebhook(webhook.id);
      if (!current?.enabled) return;
      const updated = await this.store.updateWebhook(webhook.id, { enabled: false, nextFireAt: null, disabledReason: 'gone' });
      if (updated) {
        this.remember(updated);
        // What was still to be sent waits for the webhook to be enabled again, held a step at a time.
        const now = new Date(this.clock.now()).toISOString();
        while ((await this.store.holdDeliveries(webhook.id, now, HOLD_STEP)) === HOLD_STEP) await new Promise((r) => setImmediate(r));
        this.events.emit('webhook:disabled', { webhook: updated });
      } else this.webhooks.delete(webhook.id);
    } catch (err) {
      this.deps.log.error({ err, webhook: webhook.id }, 'disabling a gone webhook failed');
    } finally {
      this.disabling.delete(webhook.id);
    }
  }
}
