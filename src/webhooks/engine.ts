/**
 * The delivery engine: claims due deliveries from the store in batches
 * (leases, so several processes share one queue and a crashed one's work
 * returns after its lease), renders each once, sends it, and records every
 * attempt with its outcome in one store write. Each webhook gets a bounded
 * share of the attempts in flight, which follows its latency (more in flight
 * for a slow target that keeps its latency, fewer for one that slows down or
 * hangs: concurrency-limit.ts), so a target that hangs delays only its own
 * deliveries. The store owns durability; this class only keeps what is in
 * flight right now.
 */
import { ConflictError, NotFoundError } from '../errors.js';
import { EventLoopLoad, TargetLimits } from './concurrency-limit.js';
import type { Clock } from '../clock.js';
import { createGuardedAgent } from '../net/ssrf.js';
import type { WebhookStore } from '../store/store.js';
import type { AttemptFacts } from '../stats/types.js';
import { AttemptRecorder } from './attempt-recorder.js';
import { depthOf } from '../hops.js';
import { buildRequest, USER_AGENT } from './render.js';
import { classify, honoursRetryAfter, nextDelayMs } from './retry.js';
import { send, type SendFailure, type SendResponse, type SendResult } from './sender.js';
import { InflightSlots } from './slots.js';
import { sign } from './signing.js';
import type { Attempt, AttemptOutcome, Delivery, DeliveryRequest, DeliveryResponse, Webhook } from './types.js';

const WEBHOOK_CACHE_MS = 1000;
/**
 * A lease must outlive the longest attempt (a 60 s timeout plus rendering
 * through a mock endpoint), or another worker could send the same delivery
 * while this one is still waiting for the target.
 */
const DEFAULT_LEASE_MS = 90_000;
/**
 * Attempts in flight per node, and each webhook's share of them: a webhook's
 * deliveries past its share stay unleased in the store, so a target that
 * hangs holds at most its share, each for its timeout (up to 60 s), and the
 * other webhooks keep the rest. A share starts at 50 (what the whole engine
 * once had) and follows the target's latency (concurrency-limit.ts) between 1
 * (a target that times out keeps one probe) and 500: at 50 a 50 ms target got
 * at most ~1000 deliveries/s from a node; 500 lets a 200 ms target have
 * 2500/s, while two webhooks at their ceiling still leave half a node. 1000 in
 * all: a hung attempt costs a socket and a few KB (the delivery and its
 * rendered request), not CPU, while every slot fewer is fewer hung targets
 * before healthy ones wait; past what the CPU sends, latency grows and the
 * shares stop growing.
 */
const DEFAULT_CONCURRENCY = 1000;
const DEFAULT_PER_WEBHOOK = 50;
const DEFAULT_MIN_PER_WEBHOOK = 1;
const DEFAULT_MAX_PER_WEBHOOK = 500;
/**
 * Seconds before each retry of a function target (an asynchronous invocation):
 * Lambda's spacing for its asynchronous retries (about 1 minute, then 2),
 * doubling on for the up to 5 retries a function may ask for.
 */
export const FUNCTION_RETRY_SCHEDULE_S: readonly number[] = [60, 120, 240, 480, 960];
/** Added to a function's timeout when its run outlasts the lease: loading, and recording the attempt. */
const FUNCTION_LEASE_MARGIN_MS = 30_000;
const OPERATIONAL_PREFIX = 'switchyard.';
/**
 * Answers that say "too much" (rate limited, or a proxy in front of the target
 * gave up on it): like a timeout or a refused connection, they lower the
 * target's limit at once. Other statuses, 500 included, are the target's own
 * verdict on the delivery; only their latency counts.
 */
const OVERLOAD_STATUSES = new Set([429, 502, 503, 504]);

export type { BatchAttemptRecorder } from './attempt-recorder.js';

/** One run of a function target, as the function runner reports it. */
export interface FunctionRun {
  /** `ok`, or the invocation's error code (function_error, function_timeout, ...). */
  outcome: string;
  error: string | null;
  result: unknown;
  durationMs: number;
  /** The request id of the run's log lines. */
  requestId: string;
  /** False: a failure retrying cannot mend (a refused emit loop); it fails at once. */
  retryable?: boolean;
}

/** A function target ready to run: what the engine needs to know before it runs it. */
export interface PreparedFunctionRun {
  /** Retries the function allows after a first failed attempt. */
  retries: number;
  /** The function's own timeout: the lease is stretched to outlast it. */
  timeoutMs: number;
  run(): Promise<FunctionRun>;
}

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
  /** `depth`: the delivery's hop count, which the mock endpoint's run keeps (src/hops.ts). */
  fetchMock(apiId: string, path: string, depth: number): Promise<{ status: number; body: unknown; error?: string }>;
  onFinalFailure?(webhook: Webhook, delivery: Delivery): void;
  onDisabled?(webhook: Webhook): void;
  /**
   * Function targets: the function to run for a delivery, null when it is gone
   * (its deliveries go with it). Without it, function targets are left alone.
   */
  prepareFunction?(delivery: Delivery): Promise<PreparedFunctionRun | null>;
  /** A function target finished (succeeded, or failed for good): destinations, events. */
  onFunctionFinished?(delivery: Delivery): void;
  log: EngineLogger;
  metrics?: {
    outcome(outcome: string): void;
    attemptSeconds(s: number): void;
    /** A function run's attempt (background, scheduled, event, destination): its own series, not the webhooks'. */
    functionRun?(fn: string, trigger: string, outcome: string): void;
    /** Every attempt about to be recorded, for the per-minute statistics (src/stats/collector.ts). */
    attempted?(a: AttemptFacts): void;
  };
  /** In-flight attempts at most (default 1000); also the agent's connections per origin. */
  concurrency?: number;
  /**
   * In-flight attempts per webhook to start with (default 50), counted as the
   * store counts leases; it then follows the target's latency, between
   * `minPerWebhook` (default 1) and `maxPerWebhook` (default 500). A function
   * target keeps this share.
   */
  perWebhook?: number;
  minPerWebhook?: number;
  maxPerWebhook?: number;
  /**
   * Lease owners whose process is certainly gone (lease-owner.ts): their leases
   * are released when the engine starts, before its first claim.
   */
  isDeadOwner?(owner: string): boolean;
  /** Default 90 s: longer than the longest attempt (60 s timeout plus rendering). */
  leaseMs?: number;
  /** How often to look for due deliveries when nobody wakes the engine. */
  pollMs?: number;
  random?: () => number;
  userAgent?: string;
}

type Rendered = { request: DeliveryRequest } | { error: string };

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
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly random: () => number;
  private readonly userAgent: string;

  private running = false;
  private stopped: Promise<void> | null = null;
  private loopDone: Promise<void> = Promise.resolve();
  private readonly inflight: InflightSlots;
  private wakePending = false;
  private wakeLoop: (() => void) | null = null;
  private unsubscribeJump: (() => void) | null = null;
  private readonly webhooks = new Map<string, { at: number; webhook: Promise<Webhook | null> }>();
  private readonly disabling = new Set<string>();
  private readonly recorder: AttemptRecorder;
  private readonly limits: TargetLimits;
  private readonly eventLoop = new EventLoopLoad();

  constructor(private readonly opts: DeliveryEngineOptions) {
    this.store = opts.store;
    this.clock = opts.clock;
    const initial = opts.perWebhook ?? DEFAULT_PER_WEBHOOK;
    this.limits = new TargetLimits({
      initial,
      min: Math.min(initial, opts.minPerWebhook ?? DEFAULT_MIN_PER_WEBHOOK),
      max: Math.max(initial, opts.maxPerWebhook ?? DEFAULT_MAX_PER_WEBHOOK),
    });
    this.inflight = new InflightSlots(opts.concurrency ?? DEFAULT_CONCURRENCY, (target) => this.limits.of(target));
    this.leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
    this.pollMs = opts.pollMs ?? 1000;
    this.random = opts.random ?? Math.random;
    this.userAgent = opts.userAgent ?? USER_AGENT;
    this.recorder = new AttemptRecorder(opts.store, opts.owner, opts.log);
    // One pooled keep-alive agent for every target: connection reuse is most of the throughput.
    this.agent = createGuardedAgent({ allowPrivate: opts.allowPrivateTargets, connections: this.inflight.total });
  }

  start(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    this.unsubscribeJump = this.clock.onJump(() => this.wake());
    this.loopDone = this.loop();
  }

  /** Attempts in flight on this node per webhook id (only webhooks with some): a live view, for metrics. */
  inflightByWebhook(): ReadonlyMap<string, number> {
    return this.inflight.byWebhook();
  }

  /** Each measured webhook's current limit of attempts in flight (those not listed have the initial one): for metrics. */
  concurrencyLimits(): Iterable<readonly [string, number]> {
    return this.limits.entries();
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
      await Promise.race([Promise.allSettled(this.inflight.running()), grace]);
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
    // Sent on request, right after an edit as often as not: the webhook as stored now, not as cached.
    if (leased.webhookId) this.webhooks.delete(leased.webhookId);
    const attempt = this.attempt(leased, true);
    this.inflight.add(deliveryId, leased.target, attempt);
    try {
      const recorded = await attempt;
      if (recorded) return recorded;
    } finally {
      if (this.inflight.remove(deliveryId, leased.target, attempt) && this.running) this.wake();
    }
    const current = await this.store.getDelivery(deliveryId);
    if (!current) throw new NotFoundError('delivery_not_found', `Delivery '${deliveryId}' no longer exists`);
    return current;
  }

  // ---- the loop

  private async loop(): Promise<void> {
    await this.releaseDeadOwners();
    while (this.running) {
      const room = this.inflight.room;
      let claimed = 0;
      let again = false;
      this.wakePending = false;
      if (room > 0) {
        try {
          const now = iso(this.clock.now());
          const held = this.inflight.beforeClaim();
          const shares = { default: this.limits.bounds.initial, byTarget: this.limits.measured() };
          const batch = await this.store.claimDueDeliveries(this.opts.owner, now, this.leaseMs, room, shares);
          for (const delivery of batch) {
            // The share may have shrunk while the claim ran (attempts timing out meanwhile freed
            // their leases in the store): what no longer fits goes back unsent, as if unclaimed.
            if (this.inflight.of(delivery.target) >= this.limits.of(delivery.target)) this.giveBack(delivery.id, 250, false);
            else if (this.dispatch(delivery)) claimed++;
          }
          const claimedShare = (target: string) => shares.byTarget.get(target) ?? shares.default;
          again = this.inflight.claimed(held, batch.map((d) => d.target), claimedShare);
        } catch (err) {
          this.opts.log.error({ err }, 'claiming due deliveries failed');
        }
      }
      // A full batch, or a webhook given all its room that has room again: more may be due.
      if ((claimed > 0 && claimed === room && this.inflight.room > 0) || again) continue;
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

  /**
   * Gives back the leases of this host's processes that are gone (a restart
   * after kill -9), so what they had in flight is sent again now instead of
   * when their leases expire. Other hosts' leases are never touched.
   */
  private async releaseDeadOwners(): Promise<void> {
    const isDead = this.opts.isDeadOwner;
    if (!isDead) return;
    try {
      for (const owner of await this.store.leaseOwners()) {
        if (!isDead(owner)) continue;
        const released = await this.store.releaseLeases(owner);
        if (released > 0) {
          this.opts.log.warn({ owner, released }, 'released the delivery leases of a gone process of this host; sending them again');
        }
      }
    } catch (err) {
      this.opts.log.error({ err }, 'releasing the leases of gone processes failed; they are taken over when they expire');
    }
  }

  /** False when the delivery is already being attempted here (its lease ran out under a long attempt). */
  private dispatch(delivery: Delivery): boolean {
    if (this.inflight.has(delivery.id)) return false;
    const run = this.attempt(delivery, false)
      .catch((err) => {
        this.opts.log.error({ err, delivery: delivery.id }, 'delivery attempt failed unexpectedly');
        this.giveBack(delivery.id);
      })
      .finally(() => {
        if (this.inflight.remove(delivery.id, delivery.target, run) && this.running) this.wake();
      });
    this.inflight.add(delivery.id, delivery.target, run);
    return true;
  }

  /**
   * An attempt that threw (the database went away mid-attempt) was never
   * recorded: give its lease back so the delivery is retried once the store
   * answers again, not only after the whole lease (90 s) runs out. The store
   * may still be away, so keep trying, within the lease, with backoff.
   */
  private giveBack(id: string, delayMs = 250, wake = true): void {
    if (delayMs > this.leaseMs) return;
    this.store.releaseLease(id, this.opts.owner).then(
      (released) => {
        // Not after a claim's surplus: the next attempt to finish wakes the engine anyway.
        if (released && wake && this.running) this.wake();
      },
      () => {
        const timer = setTimeout(() => this.giveBack(id, delayMs * 2, wake), delayMs);
        timer.unref();
      },
    );
  }

  // ---- one attempt

  /** A webhook as just read elsewhere (the scheduler's claim): its deliveries need not read it again for WEBHOOK_CACHE_MS. */
  remember(webhook: Webhook): void {
    if (this.webhooks.size > 10_000) this.webhooks.clear();
    this.webhooks.set(webhook.id, { at: Date.now(), webhook: Promise.resolve(webhook) });
  }

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
        const res = await this.opts.fetchMock(apiId, path, depthOf(delivery.triggerDetail));
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

  /** Sends one attempt, and tells the webhook's limit how long it took and whether the target looked overloaded. */
  private async send(request: DeliveryRequest, deliveryId: string, webhook: Webhook): Promise<SendResult> {
    const headers = this.attemptHeaders(request, deliveryId, webhook.secret);
    // The engine's clock, so that tests set the latencies the limit sees.
    const sentAt = this.clock.now();
    const result = await send({ ...request, headers }, { timeoutMs: webhook.timeoutMs, agent: this.agent });
    const status = (result as Partial<SendResponse>).status;
    const overloaded = status === undefined || OVERLOAD_STATUSES.has(status);
    this.limits.sample(webhook.id, this.clock.now() - sentAt, overloaded, this.inflight.of(webhook.id), this.eventLoop.saturated());
    return result;
  }

  /**
   * Renders when needed, sends, records. The delivery as recorded when it was
   * read back (a final attempt, a failure); null otherwise, and when there was
   * nothing to do or the lease was lost.
   */
  private async attempt(delivery: Delivery, final: boolean): Promise<Delivery | null> {
    if (delivery.functionName !== null) return this.attemptFunction(delivery, final);
    const webhook = await this.webhook(delivery.webhookId!);
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
      outcome: null,
      requestId: null,
    };
    const outcome: AttemptOutcome = { attempt, status: outcomeStatus, nextAttemptAt, error: attemptError, response };
    if (fresh && request !== null) outcome.request = request;

    this.opts.metrics?.attemptSeconds(result.durationMs / 1000);
    this.opts.metrics?.outcome(outcomeStatus === 'pending' ? 'retry' : outcomeStatus);
    this.opts.metrics?.attempted?.({
      target: 'webhook',
      subject: webhook.id,
      deliveryId: delivery.id,
      status: outcomeStatus,
      attempt: number,
      startedMs,
      scheduledFor: delivery.scheduledFor,
      error: attemptError,
    });

    // Only a final attempt's caller and a failure's callback need the delivery read back.
    const recorded = await this.recordOutcome(delivery.id, outcome, final || outcomeStatus === 'failed');
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
    if (outcomeStatus === 'failed' && recorded !== true && !(delivery.event ?? '').startsWith(OPERATIONAL_PREFIX)) {
      this.notify(() => this.opts.onFinalFailure?.(webhook, recorded));
    }
    return recorded === true ? null : recorded;
  }

  /** The delivery as recorded when `readBack`, else `true`; null when the lease was lost. */
  private async recordOutcome(id: string, outcome: AttemptOutcome, readBack: boolean): Promise<Delivery | true | null> {
    if (readBack) return this.recorder.record(id, outcome);
    return (await this.recorder.recordLean(id, outcome)) ? true : null;
  }

  /**
   * Runs a function target once through the runtime and records the attempt:
   * `ok` succeeds; any error (the function threw, timed out, crashed) is
   * retried on FUNCTION_RETRY_SCHEDULE_S while the function allows retries,
   * then fails. The delivery as recorded when it was read back (a final
   * attempt, a finished run); null otherwise, and when there was nothing to do
   * or the lease was lost.
   */
  private async attemptFunction(delivery: Delivery, final: boolean): Promise<Delivery | null> {
    const prepared = this.opts.prepareFunction ? await this.opts.prepareFunction(delivery) : null;
    if (!prepared) {
      // No runner (a store-only engine), or the function is gone (its deliveries went with it).
      await this.store.releaseLease(delivery.id, this.opts.owner).catch(() => false);
      return null;
    }
    if (prepared.timeoutMs + FUNCTION_LEASE_MARGIN_MS > this.leaseMs) {
      const until = iso(this.clock.now() + prepared.timeoutMs + FUNCTION_LEASE_MARGIN_MS);
      if (!(await this.store.extendLease(delivery.id, this.opts.owner, until))) return null;
    }
    const number = delivery.attempts.length + 1;
    const startedMs = this.clock.now();
    const ran = await prepared.run();
    const ok = ran.outcome === 'ok';
    let nextAttemptAt: string | null = null;
    if (!ok && !final && ran.retryable !== false && number <= prepared.retries) {
      const delayS = FUNCTION_RETRY_SCHEDULE_S[Math.min(number - 1, FUNCTION_RETRY_SCHEDULE_S.length - 1)];
      nextAttemptAt = iso(this.clock.now() + delayS * 1000);
    }
    const outcomeStatus = ok ? 'succeeded' : nextAttemptAt ? 'pending' : 'failed';
    const attempt: Attempt = {
      attempt: number,
      startedAt: iso(startedMs),
      durationMs: ran.durationMs,
      responseStatus: null,
      error: ok ? null : ran.error,
      outcome: ran.outcome,
      requestId: ran.requestId,
    };
    const outcome: AttemptOutcome = {
      attempt,
      status: outcomeStatus,
      nextAttemptAt,
      error: ok ? null : ran.error,
      response: null,
      ...(ok ? { result: ran.result ?? null } : {}),
    };
    const trigger = typeof delivery.triggerDetail?.type === 'string' ? delivery.triggerDetail.type : 'async';
    this.opts.metrics?.functionRun?.(delivery.functionName!, trigger, outcomeStatus === 'pending' ? 'retry' : outcomeStatus);
    this.opts.metrics?.attempted?.({
      target: 'function',
      subject: delivery.functionName!,
      deliveryId: delivery.id,
      status: outcomeStatus,
      attempt: number,
      startedMs,
      scheduledFor: delivery.scheduledFor,
      error: ok ? null : ran.error,
    });
    const recorded = await this.recordOutcome(delivery.id, outcome, final || outcomeStatus !== 'pending');
    if (!recorded) {
      this.opts.log.warn(
        { delivery: delivery.id, function: delivery.functionName, attempt: number },
        'invocation lease lost before its attempt was recorded; another worker will retry it',
      );
      return null;
    }
    if (outcomeStatus === 'failed') {
      this.opts.log.info({ delivery: delivery.id, function: delivery.functionName, attempt: number, error: ran.error }, 'invocation failed');
    }
    if (outcomeStatus !== 'pending' && recorded !== true) this.notify(() => this.opts.onFunctionFinished?.(recorded));
    return recorded === true ? null : recorded;
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
