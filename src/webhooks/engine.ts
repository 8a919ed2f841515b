/**
 * The delivery engine: claims due deliveries from the store in batches
 * (leases, so several processes share one queue and a crashed one's work
 * returns after its lease), renders each once, sends it, and records every
 * attempt with its outcome in one store write. The store owns durability;
 * this class only keeps what is in flight right now.
 */
import { ConflictError, NotFoundError } from '../errors.js';
import type { Clock } from '../clock.js';
import { createGuardedAgent } from '../net/ssrf.js';
import type { WebhookStore } from '../store/store.js';
import { buildRequest, USER_AGENT } from './render.js';
import { classify, honoursRetryAfter, nextDelayMs } from './retry.js';
import { send, type SendFailure, type SendResult } from './sender.js';
import { sign } from './signing.js';
import type { Attempt, AttemptOutcome, Delivery, DeliveryRequest, DeliveryResponse, Webhook } from './types.js';

const WEBHOOK_CACHE_MS = 1000;
/**
 * A lease must outlive the longest attempt (a 60 s timeout plus rendering
 * through a mock endpoint), or another worker could send the same delivery
 * while this one is still waiting for the target.
 */
const DEFAULT_LEASE_MS = 90_000;
const OPERATIONAL_PREFIX = 'switchyard.';

export interface EngineLogger {
  info(o: object, m?: string): void;
  warn(o: object, m?: string): void;
  error(o: object, m?: string): void;
}

export interface DeliveryEngineOptions {
  store: WebhookStore;
  clock: Clock;
  /** Lease owner name, unique per process. */
  owner: string;
  allowPrivateTargets: boolean;
  fetchMock(apiId: string, path: string): Promise<{ status: number; body: unknown; error?: string }>;
  onFinalFailure?(webhook: Webhook, delivery: Delivery): void;
  onDisabled?(webhook: Webhook): void;
  log: EngineLogger;
  metrics?: { outcome(outcome: string): void; attemptSeconds(s: number): void };
  /** In-flight attempts at most; also the agent's connections per origin. */
  concurrency?: number;
  /** Default 90 s: longer than the longest attempt (60 s timeout plus rendering). */
  leaseMs?: number;
  /** How often to look for due deliveries when nobody wakes the engine. */
  pollMs?: number;
  random?: () => number;
  userAgent?: string;
}

type Rendered = { request: DeliveryRequest } | { error: string };

/**
 * Optional batch form of `WebhookStore.recordAttempt`: the same effect for
 * each item, in one transaction (one commit instead of one per attempt).
 * Used when the store has it.
 */
export interface BatchAttemptRecorder {
  recordAttempts(owner: string, items: Array<{ id: string; outcome: AttemptOutcome }>): Promise<Array<Delivery | null>>;
}

interface QueuedRecord {
  id: string;
  outcome: AttemptOutcome;
  resolve(d: Delivery | null): void;
  reject(err: unknown): void;
}

const iso = (ms: number) => new Date(ms).toISOString();

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

function describeStatus(status: number): string {
  if (status >= 300 && status < 400) return `redirect not followed (${status})`;
  if (status === 410) return 'target answered 410 Gone; webhook disabled';
  return `target answered ${status}`;
}

export class DeliveryEngine {
  private readonly store: WebhookStore;
  private readonly clock: Clock;
  private readonly agent;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly random: () => number;
  private readonly userAgent: string;

  private running = false;
  private stopped: Promise<void> | null = null;
  private loopDone: Promise<void> = Promise.resolve();
  /** Deliveries being attempted, by id: a lease that expired under us must not start a second attempt here. */
  private readonly inflight = new Map<string, Promise<unknown>>();
  private wakePending = false;
  private wakeLoop: (() => void) | null = null;
  private unsubscribeJump: (() => void) | null = null;
  private readonly webhooks = new Map<string, { at: number; webhook: Promise<Webhook | null> }>();
  private readonly disabling = new Set<string>();
  private recordQueue: QueuedRecord[] = [];
  private flushScheduled = false;

  constructor(private readonly opts: DeliveryEngineOptions) {
    this.store = opts.store;
    this.clock = opts.clock;
    this.concurrency = opts.concurrency ?? 50;
    this.leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
    this.pollMs = opts.pollMs ?? 1000;
    this.random = opts.random ?? Math.random;
    this.userAgent = opts.userAgent ?? USER_AGENT;
    // One pooled keep-alive agent for every target: connection reuse is most of the throughput.
    this.agent = createGuardedAgent({ allowPrivate: opts.allowPrivateTargets, connections: this.concurrency });
  }

  start(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    this.unsubscribeJump = this.clock.onJump(() => this.wake());
    this.loopDone = this.loop();
  }

  /** Look for due deliveries now (a delivery was just created, or the clock moved). */
  wake(): void {
    this.wakePending = true;
    const resume = this.wakeLoop;
    this.wakeLoop = null;
    resume?.();
  }

  /**
   * Stops claiming, lets in-flight attempts finish for up to `graceMs`, then
   * gives every lease back so another process can take the rest at once.
   */
  stop(graceMs: number): Promise<void> {
    this.stopped ??= this.shutdown(graceMs);
    return this.stopped;
  }

  private async shutdown(graceMs: number): Promise<void> {
    this.running = false;
    this.unsubscribeJump?.();
    this.unsubscribeJump = null;
    this.wake();
    await this.loopDone;
    if (this.inflight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((done) => (timer = setTimeout(done, graceMs)));
      await Promise.race([Promise.allSettled([...this.inflight.values()]), grace]);
      clearTimeout(timer);
    }
    try {
      await this.store.releaseLeases(this.opts.owner);
    } catch (err) {
      this.opts.log.error({ err }, 'releasing delivery leases failed');
    }
    // Attempts still running lost their lease: cut them off (their outcome would not be recorded).
    await this.agent.destroy().catch(() => undefined);
  }

  /**
   * One final attempt of one delivery, now (test-fire, manual retry): it ends
   * succeeded or failed, never pending. The delivery must be pending (created,
   * or reopened by the caller).
   */
  async attemptNow(deliveryId: string): Promise<Delivery> {
    const busy = () => new ConflictError('delivery_busy', `Delivery '${deliveryId}' is being attempted right now`);
    if (this.inflight.has(deliveryId)) throw busy();
    const leased = await this.store.leaseDelivery(deliveryId, this.opts.owner, iso(this.clock.now()), this.leaseMs);
    if (!leased) {
      const exists = await this.store.getDelivery(deliveryId);
      if (!exists) throw new NotFoundError('delivery_not_found', `Delivery '${deliveryId}' does not exist`);
      throw busy();
    }
    const attempt = this.attempt(leased, true);
    this.inflight.set(deliveryId, attempt);
    try {
      const recorded = await attempt;
      if (recorded) return recorded;
    } finally {
      if (this.inflight.get(deliveryId) === attempt) this.inflight.delete(deliveryId);
    }
    const current = await this.store.getDelivery(deliveryId);
    if (!current) throw new NotFoundError('delivery_not_found', `Delivery '${deliveryId}' no longer exists`);
    return current;
  }

  // ---- the loop

  private async loop(): Promise<void> {
    while (this.running) {
      const room = this.concurrency - this.inflight.size;
      let claimed = 0;
      this.wakePending = false;
      if (room > 0) {
        try {
          const batch = await this.store.claimDueDeliveries(this.opts.owner, iso(this.clock.now()), this.leaseMs, room);
          for (const delivery of batch) if (this.dispatch(delivery)) claimed++;
        } catch (err) {
          this.opts.log.error({ err }, 'claiming due deliveries failed');
        }
      }
      // A full batch means more may be due: go again as soon as there is room.
      if (claimed > 0 && claimed === room && this.inflight.size < this.concurrency) continue;
      if (this.wakePending || !this.running) continue;
      await this.idle();
    }
  }

  /** Sleeps until `wake()`, the poll interval, or enough room frees up for a worthwhile batch. */
  private idle(): Promise<void> {
    return new Promise<void>((resume) => {
      const timer = setTimeout(() => this.wake(), this.pollMs);
      this.wakeLoop = () => {
        clearTimeout(timer);
        resume();
      };
    });
  }

  /** False when the delivery is already being attempted here (its lease ran out under a long attempt). */
  private dispatch(delivery: Delivery): boolean {
    if (this.inflight.has(delivery.id)) return false;
    const run = this.attempt(delivery, false)
      .catch((err) => this.opts.log.error({ err, delivery: delivery.id }, 'delivery attempt failed unexpectedly'))
      .finally(() => {
        this.inflight.delete(delivery.id);
        // Claim again once a quarter of the slots are free: batches, not one claim per finished
        // attempt, yet slow targets keep most slots busy (at half, a 50 ms target averaged ~600/s
        // of a possible 1000/s; at a quarter ~715/s: bench/nodes.js --target-latency-ms 50).
        if (this.running && this.inflight.size <= (this.concurrency * 3) / 4) this.wake();
      });
    this.inflight.set(delivery.id, run);
    return true;
  }

  // ---- one attempt

  private webhook(id: string): Promise<Webhook | null> {
    const now = Date.now();
    const hit = this.webhooks.get(id);
    if (hit && now - hit.at < WEBHOOK_CACHE_MS) return hit.webhook;
    if (this.webhooks.size > 10_000) this.webhooks.clear();
    const webhook = this.store.getWebhook(id);
    this.webhooks.set(id, { at: now, webhook });
    webhook.catch(() => this.webhooks.delete(id));
    return webhook;
  }

  private async render(webhook: Webhook, delivery: Delivery): Promise<Rendered> {
    let mock: unknown;
    if (webhook.mockEndpoint) {
      const { apiId, path } = webhook.mockEndpoint;
      try {
        const res = await this.opts.fetchMock(apiId, path);
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

  /** The stored request plus this attempt's timestamp and signature (the secret itself is never stored). */
  private attemptHeaders(request: DeliveryRequest, deliveryId: string, secret: string | null): Record<string, string> {
    const timestamp = Math.floor(this.clock.now() / 1000);
    const headers: Record<string, string> = { ...request.headers, 'webhook-timestamp': String(timestamp) };
    if (secret) headers['webhook-signature'] = sign(secret, deliveryId, timestamp, request.body ?? '');
    return headers;
  }

  private send(request: DeliveryRequest, deliveryId: string, webhook: Webhook): Promise<SendResult> {
    const headers = this.attemptHeaders(request, deliveryId, webhook.secret);
    return send({ ...request, headers }, { timeoutMs: webhook.timeoutMs, agent: this.agent });
  }

  /** Renders when needed, sends, records. Null when there was nothing to do or the lease was lost. */
  private async attempt(delivery: Delivery, final: boolean): Promise<Delivery | null> {
    const webhook = await this.webhook(delivery.webhookId);
    // A deleted webhook took its deliveries with it.
    if (!webhook) return null;
    const number = delivery.attempts.length + 1;
    const startedMs = this.clock.now();

    let request = delivery.request;
    const fresh = request === null;
    let result: SendResult;
    if (request === null) {
      const renderStarted = performance.now();
      const rendered = await this.render(webhook, delivery);
      if ('error' in rendered) {
        result = { error: rendered.error, durationMs: Math.round(performance.now() - renderStarted) };
      } else {
        request = rendered.request;
        result = await this.send(request, delivery.id, webhook);
      }
    } else {
      result = await this.send(request, delivery.id, webhook);
    }

    const answered = 'status' in result ? result : null;
    const status = answered?.status;
    const verdict = classify(answered ? { status: answered.status } : { error: (result as SendFailure).error });
    const attemptError = answered
      ? verdict === 'succeeded'
        ? null
        : describeStatus(answered.status)
      : (result as SendFailure).error;
    const response: DeliveryResponse | null = answered
      ? { status: answered.status, headers: answered.headers, body: answered.body }
      : null;

    let nextAttemptAt: string | null = null;
    if (verdict === 'retry' && !final) {
      const retryAfter = answered && honoursRetryAfter(status) ? headerValue(answered.headers, 'retry-after') : undefined;
      const delay = nextDelayMs(number, webhook.retry, retryAfter, this.random, this.clock.now());
      if (delay !== null) nextAttemptAt = iso(this.clock.now() + delay);
    }
    const outcomeStatus = verdict === 'succeeded' ? 'succeeded' : nextAttemptAt ? 'pending' : 'failed';
    const attempt: Attempt = {
      attempt: number,
      startedAt: iso(startedMs),
      durationMs: result.durationMs,
      responseStatus: status ?? null,
      error: attemptError,
    };
    const outcome: AttemptOutcome = { attempt, status: outcomeStatus, nextAttemptAt, error: attemptError, response };
    if (fresh && request !== null) outcome.request = request;

    this.opts.metrics?.attemptSeconds(result.durationMs / 1000);
    this.opts.metrics?.outcome(outcomeStatus === 'pending' ? 'retry' : outcomeStatus);

    const recorded = await this.record(delivery.id, outcome);
    if (!recorded) {
      this.opts.log.warn(
        { delivery: delivery.id, webhook: webhook.id, attempt: number },
        'delivery lease lost before its attempt was recorded; another worker will retry it',
      );
      return null;
    }
    if (outcomeStatus === 'failed') {
      this.opts.log.info({ delivery: delivery.id, webhook: webhook.id, attempt: number, error: attemptError }, 'delivery failed');
    }
    if (verdict === 'disable') await this.disable(webhook);
    if (outcomeStatus === 'failed' && !(delivery.event ?? '').startsWith(OPERATIONAL_PREFIX)) {
      this.notify(() => this.opts.onFinalFailure?.(webhook, recorded));
    }
    return recorded;
  }

  /**
   * Outcomes that finish in the same turn of the event loop are written
   * together: the commit, not the statements, is what a write costs.
   */
  private record(id: string, outcome: AttemptOutcome): Promise<Delivery | null> {
    return new Promise((resolve, reject) => {
      this.recordQueue.push({ id, outcome, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => void this.flushRecords());
      }
    });
  }

  private async flushRecords(): Promise<void> {
    this.flushScheduled = false;
    const batch = this.recordQueue;
    this.recordQueue = [];
    const batcher = this.store as Partial<BatchAttemptRecorder>;
    if (typeof batcher.recordAttempts === 'function') {
      try {
        const results = await batcher.recordAttempts(this.opts.owner, batch.map(({ id, outcome }) => ({ id, outcome })));
        batch.forEach((item, i) => item.resolve(results[i] ?? null));
        return;
      } catch (err) {
        // The batch was rolled back as a whole: record one by one so one bad item fails alone.
        this.opts.log.warn({ err, size: batch.length }, 'recording a batch of attempts failed; recording them one by one');
      }
    }
    for (const item of batch) {
      this.store.recordAttempt(item.id, this.opts.owner, item.outcome).then(item.resolve, item.reject);
    }
  }

  private async disable(webhook: Webhook): Promise<void> {
    if (this.disabling.has(webhook.id)) return;
    this.disabling.add(webhook.id);
    try {
      const current = await this.store.getWebhook(webhook.id);
      if (!current?.enabled) return;
      const updated = await this.store.updateWebhook(webhook.id, { enabled: false, nextFireAt: null });
      this.webhooks.delete(webhook.id);
      if (updated) this.notify(() => this.opts.onDisabled?.(updated));
    } catch (err) {
      this.opts.log.error({ err, webhook: webhook.id }, 'disabling a gone webhook failed');
    } finally {
      this.disabling.delete(webhook.id);
    }
  }

  private notify(callback: () => void): void {
    try {
      callback();
    } catch (err) {
      this.opts.log.error({ err }, 'delivery engine callback failed');
    }
  }
}
