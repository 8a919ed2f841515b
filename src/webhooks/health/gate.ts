/**
 * The webhooks' delivery gate (src/deliveries/health.ts): before each attempt
 * the engine claimed, whether the webhook may be sent to now.
 * - disabled or paused: held (status `held`, no attempt);
 * - its breaker not closed: held, unless this delivery is the breaker's probe
 *   (read fresh from the store: another process may have just started it);
 * - its target asked for time (Retry-After): the whole webhook waits;
 * - its rate limit has no token: the whole webhook waits for the next one
 *   (the bucket is shared by the cluster: src/limits/leased-buckets.ts).
 * Everything else goes, decided from what this process cached of the webhook
 * and its health row (at most a second old, dropped on a change for it), so
 * the usual attempt waits on nothing. After an attempt it counts the outcome
 * (health/samples.ts) and reports a probe's end and a Retry-After at once.
 */
import type { Clock } from '../../clock.js';
import type { GateAnswer, DeliveryGate } from '../../deliveries/health.js';
import type { AttemptResult } from '../../deliveries/target.js';
import type { Delivery } from '../../deliveries/types.js';
import type { LeasedBuckets } from '../../limits/leased-buckets.js';
import { webhookKey } from '../../store/shared/target-health.js';
import type { TargetHealthPart } from '../../store/store.js';
import { originOf, type TargetHealth, type Webhook } from '../types.js';
import type { HealthSamples } from './samples.js';

/** How long a health row read here is trusted, at most. */
const HEALTH_CACHE_MS = 1000;
/** A rate-limited webhook claims at most this many seconds of its rate at once. */
const RATE_LIMITED_CLAIM_S = 0.25;

/** The webhooks as the webhook target caches them (src/webhooks/target.ts). */
export interface WebhookLookup {
  peek(id: string): Webhook | null | undefined;
  webhook(id: string): Promise<Webhook | null>;
}

/** What the gate tells as soon as it learns it (health/monitor.ts). */
export interface HealthReports {
  probeEnded(key: string, deliveryId: string, succeeded: boolean): void;
  notBefore(webhookId: string, until: number): void;
  deferred(reason: 'rate_limit' | 'retry_after'): void;
}

export interface WebhookGateDeps {
  store: Pick<TargetHealthPart, 'targetHealth'>;
  clock: Clock;
  webhooks: WebhookLookup;
  buckets: LeasedBuckets;
  samples: HealthSamples;
  reports: HealthReports;
}

export class WebhookGate implements DeliveryGate {
  private readonly health = new Map<string, { at: number; row: TargetHealth | null }>();
  /** Health reads in flight, by webhook: shared by the deliveries that wait on them. */
  private readonly reading = new Map<string, Promise<TargetHealth | null>>();
  /** Deliveries let go as a breaker's probe, by id: their outcome ends the probe. */
  private readonly probes = new Map<string, string>();
  /** The claim shares of rate-limited webhooks seen lately. */
  private readonly limited = new Map<string, number>();

  constructor(private readonly deps: WebhookGateDeps) {}

  /** Drops what is cached of a webhook's health (a change for it), or of every webhook's. */
  forget(webhookId?: string): void {
    if (webhookId === undefined) this.health.clear();
    else this.health.delete(webhookId);
  }

  check(delivery: Delivery): GateAnswer | Promise<GateAnswer> {
    if (delivery.kind !== 'webhook') return 'go';
    const webhook = this.deps.webhooks.peek(delivery.webhookId);
    const row = this.peekHealth(delivery.webhookId);
    if (webhook === undefined || row === undefined) return this.checkAfterReads(delivery);
    return this.decide(delivery, webhook, row);
  }

  observe(delivery: Delivery, result: AttemptResult): void {
    if (delivery.kind !== 'webhook') return;
    const webhook = this.deps.webhooks.peek(delivery.webhookId);
    const url = webhook?.targetUrl ?? delivery.request?.url;
    // A transformation that failed or cancelled sent nothing: the endpoint's health is not in it.
    const unsent = result.cancelled === true || (result.outcome?.startsWith('transformation_') ?? false);
    if (url !== undefined && !unsent) this.deps.samples.add(delivery.webhookId, originOf(url), result.succeeded, result.startedMs + result.durationMs);
    const probe = this.probes.get(delivery.id);
    if (probe !== undefined) {
      this.probes.delete(delivery.id);
      this.deps.reports.probeEnded(probe, delivery.id, result.succeeded);
    }
    if (result.targetNotBefore !== undefined) this.deps.reports.notBefore(delivery.webhookId, result.targetNotBefore);
  }

  shares(): ReadonlyMap<string, number> {
    return this.limited;
  }

  private peekHealth(webhookId: string): TargetHealth | null | undefined {
    const hit = this.health.get(webhookId);
    return hit && Date.now() - hit.at < HEALTH_CACHE_MS ? hit.row : undefined;
  }

  /**
   * The webhook's health row as the store has it now. Deliveries of one claim
   * that all need it share one read: separate reads (on PostgreSQL, separate
   * connections) could answer out of order, and the later delivery would then
   * take the rate limit's token before the earlier one, out of publish order.
   */
  private readHealth(webhookId: string): Promise<TargetHealth | null> {
    const pending = this.reading.get(webhookId);
    if (pending !== undefined) return pending;
    const key = webhookKey(webhookId);
    const read = this.deps.store.targetHealth([key]).then(
      (rows) => {
        this.reading.delete(webhookId);
        const row = rows.get(key) ?? null;
        if (this.health.size > 10_000) this.health.clear();
        this.health.set(webhookId, { at: Date.now(), row });
        return row;
      },
      (err: unknown) => {
        this.reading.delete(webhookId);
        throw err;
      },
    );
    this.reading.set(webhookId, read);
    return read;
  }

  private async checkAfterReads(delivery: Delivery & { kind: 'webhook' }): Promise<GateAnswer> {
    const [webhook, row] = await Promise.all([this.deps.webhooks.webhook(delivery.webhookId), this.readHealth(delivery.webhookId)]);
    return this.decide(delivery, webhook, row);
  }

  private decide(delivery: Delivery & { kind: 'webhook' }, webhook: Webhook | null, row: TargetHealth | null): GateAnswer | Promise<GateAnswer> {
    // A deleted webhook: the target finds it gone and the engine gives the lease back.
    if (webhook === null) return 'go';
    if (!webhook.enabled || webhook.pausedAt !== null) return 'hold';
    if (row !== null && row.state !== 'closed') return this.probeOrHold(delivery, webhook);
    const now = this.deps.clock.now();
    if (row !== null && row.notBefore !== null && row.notBefore > now) {
      this.deps.reports.deferred('retry_after');
      return { deferUntil: row.notBefore, wholeTarget: true };
    }
    return this.rateLimited(webhook);
  }

  /** The breaker is not closed as cached here: as the store has it now, this delivery goes only as its probe. */
  private async probeOrHold(delivery: Delivery & { kind: 'webhook' }, webhook: Webhook): Promise<GateAnswer> {
    const row = await this.readHealth(delivery.webhookId);
    if (row !== null && row.state === 'half_open' && row.probeDeliveryId === delivery.id) {
      this.probes.set(delivery.id, row.key);
      return 'go';
    }
    if (row === null || row.state === 'closed') return this.rateLimited(webhook);
    return 'hold';
  }

  private rateLimited(webhook: Webhook): GateAnswer | Promise<GateAnswer> {
    const limit = webhook.rateLimit;
    if (limit === null) {
      if (this.limited.size > 0) this.limited.delete(webhook.id);
      return 'go';
    }
    this.limited.set(webhook.id, Math.max(1, Math.ceil(limit.perSecond * RATE_LIMITED_CLAIM_S)));
    const spent = this.deps.buckets.spend(`webhook:${webhook.id}`, { rateLimit: limit.perSecond, burstLimit: limit.burst });
    if (typeof spent === 'number') return this.afterSpend(spent);
    return spent.then((waitMs) => this.afterSpend(waitMs));
  }

  private afterSpend(waitMs: number): GateAnswer {
    if (waitMs === 0) return 'go';
    this.deps.reports.deferred('rate_limit');
    return { deferUntil: this.deps.clock.now() + waitMs, wholeTarget: true };
  }
}
