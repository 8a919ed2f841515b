/**
 * The delivery engine: claims due deliveries from the store in batches
 * (leases, so several processes share one queue and a crashed one's work
 * returns after its lease), hands each to the target of its kind, and records
 * every attempt with its outcome in one store write. Each target gets a
 * bounded share of the attempts in flight that follows its latency
 * (concurrency-limit.ts), so a target that hangs delays only its own
 * deliveries. The store owns durability; this class only keeps what is in
 * flight right now.
 */
import type { Clock } from '../clock.js';
import { deliveryBusy, deliveryNotFound } from '../errors.js';
import type { AttemptFacts } from '../stats/types.js';
import type { WebhookStore } from '../store/store.js';
import type { Logger } from '../types.js';
import { EventLoopLoad, TargetLimits } from './concurrency-limit.js';
import type { DueSignal } from './due-signal.js';
import { TypedEvents, type DeliveryEventMap } from './events.js';
import { openGate, type DeliveryGate, type GateAnswer } from './health.js';
import type { LeaseFence } from './heartbeat.js';
import { InflightAttempts } from './inflight.js';
import { AttemptRecorder } from './recorder.js';
import type { AttemptContext, AttemptResult, DeliveryTarget, DeliveryTargets } from './target.js';
import type { Attempt, AttemptOutcome, Delivery, DeliveryStatus } from './types.js';

/**
 * A lease must outlive the longest webhook attempt (a 60 s timeout plus
 * rendering through a mock endpoint), or another worker could send the same
 * delivery while this one is still waiting for the target. A function target
 * stretches its own lease to its timeout.
 */
const DEFAULT_LEASE_MS = 90_000;
/**
 * Attempts in flight per node, and each target's share of them: a target's
 * deliveries past its share stay unleased in the store, so a target that hangs
 * holds at most its share, each for its timeout, and the others keep the
 * rest. A hung attempt costs a socket and a few KB, not CPU, so the total is
 * generous. Share bounds: concurrency-limit.ts; measurements: bench/README.md.
 */
const DEFAULT_CONCURRENCY = 1000;
const DEFAULT_PER_TARGET = 50;
const DEFAULT_MIN_PER_TARGET = 1;
const DEFAULT_MAX_PER_TARGET = 500;

export type { BatchAttemptRecorder } from './recorder.js';

/** Counted for every attempt about to be recorded (deliveries/metrics.ts maps it to series per kind). */
export interface DeliveryMetrics {
  attempted(facts: AttemptFacts, durationMs: number, delivery: Delivery): void;
}

export interface DeliveryEngineDeps {
  store: WebhookStore;
  clock: Clock;
  /** Lease owner name, unique per process (lease-owner.ts). */
  owner: string;
  targets: DeliveryTargets;
  /** Producers of deliveries say through it that one is due now. */
  due?: DueSignal;
  /** Consulted before each claimed attempt; none by default. */
  gate?: DeliveryGate;
  log: Logger;
  metrics?: DeliveryMetrics;
  /** In-flight attempts at most (default 1000). */
  concurrency?: number;
  /**
   * In-flight attempts per target to start with (default 50), counted as the
   * store counts leases; it then follows the target's latency (samples from
   * its attempts), between `minPerTarget` (default 1) and `maxPerTarget`
   * (default 500). A target that sends no samples (functions) keeps it.
   */
  perTarget?: number;
  minPerTarget?: number;
  maxPerTarget?: number;
  /**
   * Lease owners whose process is certainly gone (lease-owner.ts): their leases
   * are released when the engine starts, before its first claim.
   */
  isDeadOwner?(owner: string): boolean;
  /**
   * This owner's heartbeat (heartbeat.ts): while it is not fresh the engine
   * claims nothing and sends nothing (another process may be taking its
   * leases over), and attempts claimed before it learnt it was taken for dead
   * are dropped unsent. None: leases are only ever lost by expiry.
   */
  fence?: LeaseFence;
  /** Default 90 s: longer than the longest webhook attempt. */
  leaseMs?: number;
  /** How often to look for due deliveries when nobody wakes the engine. */
  pollMs?: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The webhook id or function name: what the logs and statistics name a delivery's target by. */
const subjectOf = (d: Delivery): string => (d.kind === 'webhook' ? d.webhookId : d.functionName);

export class DeliveryEngine {
  /** Lifecycle events: the webhook and function sides subscribe. */
  readonly events: TypedEvents<DeliveryEventMap>;
  /** In-flight attempts at most: a webhook target's connection pool is sized from it. */
  readonly concurrency: number;

  private readonly store: WebhookStore;
  private readonly clock: Clock;
  private readonly owner: string;
  private readonly targets: DeliveryTargets;
  private readonly gate: DeliveryGate | null;
  private readonly log: Logger;
  private readonly metrics: DeliveryMetrics | null;
  private readonly fence: LeaseFence | null;
  private readonly leaseMs: number;
  private readonly pollMs: number;

  private running = false;
  private stopped: Promise<void> | null = null;
  private loopDone: Promise<void> = Promise.resolve();
  private readonly inflight: InflightAttempts;
  private wakePending = false;
  private wakeLoop: (() => void) | null = null;
  private unsubscribe: Array<() => void> = [];
  private readonly recorder: AttemptRecorder;
  private readonly limits: TargetLimits;
  private readonly eventLoop = new EventLoopLoad();
  /** Targets the gate asked this engine not to claim before a time (ms): a rate limit's next token, a Retry-After. */
  private readonly blocked = new Map<string, number>();
  private unblockTimer: NodeJS.Timeout | null = null;
  private unblockAt = 0;

  constructor(private readonly deps: DeliveryEngineDeps) {
    this.store = deps.store;
    this.clock = deps.clock;
    this.owner = deps.owner;
    this.targets = deps.targets;
    this.gate = deps.gate && deps.gate !== openGate ? deps.gate : null;
    this.log = deps.log;
    this.metrics = deps.metrics ?? null;
    this.fence = deps.fence ?? null;
    this.events = new TypedEvents<DeliveryEventMap>({ log: deps.log, source: 'delivery engine' });
    const initial = deps.perTarget ?? DEFAULT_PER_TARGET;
    this.limits = new TargetLimits({
      initial,
      min: Math.min(initial, deps.minPerTarget ?? DEFAULT_MIN_PER_TARGET),
      max: Math.max(initial, deps.maxPerTarget ?? DEFAULT_MAX_PER_TARGET),
    });
    this.concurrency = deps.concurrency ?? DEFAULT_CONCURRENCY;
    this.inflight = new InflightAttempts({ total: this.concurrency, shareOf: (target) => this.limits.of(target) });
    this.leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
    this.pollMs = deps.pollMs ?? 1000;
    this.recorder = new AttemptRecorder({ store: deps.store, owner: deps.owner, log: deps.log });
  }

  start(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    this.unsubscribe.push(this.clock.onJump(() => this.wake()));
    if (this.deps.due) this.unsubscribe.push(this.deps.due.listen(() => this.wake()));
    this.loopDone = this.loop();
  }

  /** Attempts in flight on this node per target (only targets with some): a live view, for metrics. */
  inflightByTarget(): ReadonlyMap<string, number> {
    return this.inflight.byTarget();
  }

  /** Each measured target's current limit of attempts in flight (those not listed have the initial one): for metrics. */
  concurrencyLimits(): Iterable<readonly [string, number]> {
    return this.limits.entries();
  }

  /** Forgets what was measured of a target that is gone (a deleted webhook). */
  forgetTarget(target: string): void {
    this.limits.forget(target);
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
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    this.wake();
    await this.loopDone;
    if (this.inflight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((done) => (timer = setTimeout(done, graceMs)));
      await Promise.race([Promise.allSettled(this.inflight.running()), grace]);
      clearTimeout(timer);
    }
    try {
      await this.store.releaseLeases(this.owner);
    } catch (err) {
      this.log.error({ err }, 'releasing delivery leases failed');
    }
    // Attempts still running lost their lease: their targets cut them off (their outcome would not be recorded).
    for (const target of Object.values(this.targets)) await target?.close?.().catch(() => undefined);
  }

  /**
   * One final attempt of one delivery, now (test-fire, manual retry): it ends
   * succeeded or failed, never pending. The delivery must be pending (created,
   * or reopened by the caller).
   */
  async attemptNow(deliveryId: string): Promise<Delivery> {
    if (this.inflight.has(deliveryId)) throw deliveryBusy(deliveryId);
    const epoch = this.fence?.epoch ?? 0;
    const leased = await this.store.leaseDelivery(deliveryId, this.owner, iso(this.clock.now()), this.leaseMs);
    if (!leased) {
      const exists = await this.store.getDelivery(deliveryId);
      if (!exists) throw deliveryNotFound(deliveryId);
      throw deliveryBusy(deliveryId);
    }
    const attempt = this.attempt(leased, true, epoch);
    this.inflight.add(deliveryId, leased.target, attempt);
    try {
      const recorded = await attempt;
      if (recorded) return recorded;
    } finally {
      if (this.inflight.remove(deliveryId, leased.target, attempt) && this.running) this.wake();
    }
    const current = await this.store.getDelivery(deliveryId);
    if (!current) throw deliveryNotFound(deliveryId, true);
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
      // Not fresh: this process may be being taken for dead; its next beat wakes the loop.
      if (room > 0 && (this.fence === null || this.fence.fresh())) {
        try {
          const epoch = this.fence?.epoch ?? 0;
          const now = iso(this.clock.now());
          const held = this.inflight.beforeClaim();
          const shares = { default: this.limits.bounds.initial, byTarget: this.claimShares() };
          const batch = await this.store.claimDueDeliveries(this.owner, now, this.leaseMs, room, shares);
          // A claim that straddled this owner's takeover (it may commit after its leases were given
          // away, and take some again): give it all back unsent, before any gate is asked.
          const fenced = !this.mayStillSend(epoch);
          for (const delivery of batch) {
            if (fenced) {
              this.giveBack(delivery.id, 250, false);
              continue;
            }
            // The share may have shrunk while the claim ran (attempts timing out meanwhile freed
            // their leases in the store): what no longer fits goes back unsent, as if unclaimed.
            if (this.inflight.of(delivery.target) >= this.limits.of(delivery.target)) this.giveBack(delivery.id, 250, false);
            else if (this.dispatch(delivery, epoch)) claimed++;
          }
          const claimedShare = (target: string) => shares.byTarget.get(target) ?? shares.default;
          again = this.inflight.claimed(held, batch.map((d) => d.target), claimedShare);
        } catch (err) {
          this.log.error({ err }, 'claiming due deliveries failed');
        }
      }
      // A full batch, or a target given all its room that has room again: more may be due.
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
    const isDead = this.deps.isDeadOwner;
    if (!isDead) return;
    try {
      for (const owner of await this.store.leaseOwners()) {
        if (!isDead(owner)) continue;
        const released = await this.store.releaseLeases(owner);
        if (released > 0) {
          this.log.warn({ owner, released }, 'released the delivery leases of a gone process of this host; sending them again');
        }
      }
    } catch (err) {
      this.log.error({ err }, 'releasing the leases of gone processes failed; they are taken over when they expire');
    }
  }

  /**
   * False when the delivery is already in flight here, or the gate turned it
   * away. In flight here, it was claimed again: its lease ran out under a long
   * attempt, or (more often) its turn away had given the lease back and this
   * claim took it before that turn was over. The new lease goes back once
   * that turn ends (the delivery would otherwise sit out a whole lease,
   * 90 s, unsent); a recorded outcome already cleared it.
   */
  private dispatch(delivery: Delivery, epoch: number): boolean {
    const running = this.inflight.runOf(delivery.id);
    if (running !== undefined) {
      void running.finally(() => this.giveBack(delivery.id));
      return false;
    }
    let attempted: Promise<Delivery | null>;
    if (this.gate === null) attempted = this.attempt(delivery, false, epoch);
    else {
      const answer = this.gate.check(delivery);
      if (answer instanceof Promise) attempted = answer.then((a) => (a === 'go' ? this.attempt(delivery, false, epoch) : this.turnAway(delivery, a)));
      else if (answer === 'go') attempted = this.attempt(delivery, false, epoch);
      else {
        void this.turnAway(delivery, answer);
        return false;
      }
    }
    const run = attempted
      .catch((err) => {
        this.log.error({ err, delivery: delivery.id }, 'delivery attempt failed unexpectedly');
        this.giveBack(delivery.id);
      })
      .finally(() => {
        if (this.inflight.remove(delivery.id, delivery.target, run) && this.running) this.wake();
      });
    this.inflight.add(delivery.id, delivery.target, run);
    return true;
  }

  /** A delivery the gate did not let go: held, or deferred (with its whole target, when the gate says so). */
  private async turnAway(delivery: Delivery, answer: Exclude<GateAnswer, 'go'>): Promise<null> {
    try {
      if (answer === 'hold') {
        if (!(await this.store.holdDelivery(delivery.id, this.owner))) this.giveBack(delivery.id, 250, false);
        return null;
      }
      if (answer.wholeTarget) {
        // Its due time stays: it keeps its place in line, and this engine claims nothing of the target before then.
        this.blocked.set(delivery.target, Math.max(answer.deferUntil, this.blocked.get(delivery.target) ?? 0));
        this.wakeAt(answer.deferUntil);
        await this.store.releaseLease(delivery.id, this.owner);
      } else await this.store.deferDelivery(delivery.id, this.owner, iso(answer.deferUntil));
    } catch (err) {
      this.log.warn({ err, delivery: delivery.id }, 'could not hold or defer a delivery; its lease runs out instead');
    }
    return null;
  }

  /**
   * Wakes the loop when a blocked target may be claimed again (its next token):
   * an idle loop would otherwise look only at its next poll, a second away,
   * and a rate limit of 10 a second would send one a second per process.
   */
  private wakeAt(untilMs: number): void {
    if (this.unblockTimer !== null && this.unblockAt <= untilMs) return;
    if (this.unblockTimer !== null) clearTimeout(this.unblockTimer);
    this.unblockAt = untilMs;
    this.unblockTimer = setTimeout(() => {
      this.unblockTimer = null;
      if (this.running) this.wake();
    }, Math.max(0, untilMs - this.clock.now()));
    this.unblockTimer.unref();
  }

  /**
   * The claim's shares: the adaptive ones, the gate's where it limits a target
   * (the smaller wins), and none for a target blocked here until a time.
   */
  private claimShares(): ReadonlyMap<string, number> {
    const measured = this.limits.measured();
    const gated = this.gate?.shares?.();
    if (this.blocked.size === 0 && (gated === undefined || gated.size === 0)) return measured;
    const shares = new Map(measured);
    if (gated) for (const [target, n] of gated) shares.set(target, Math.min(n, shares.get(target) ?? this.limits.bounds.initial));
    const now = this.clock.now();
    for (const [target, until] of this.blocked) {
      if (until <= now) this.blocked.delete(target);
      else shares.set(target, 0);
    }
    return shares;
  }

  /**
   * An attempt that threw (the database went away mid-attempt) was never
   * recorded: give its lease back so the delivery is retried once the store
   * answers again, not only after the whole lease runs out. The store may
   * still be away, so keep trying, within the lease, with backoff.
   */
  private giveBack(id: string, delayMs = 250, wake = true): void {
    if (delayMs > this.leaseMs) return;
    this.store.releaseLease(id, this.owner).then(
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

  private context(delivery: Delivery, final: boolean, epoch: number): AttemptContext {
    const number = delivery.attempts.length + 1;
    return {
      number,
      retryNumber: Math.max(1, number - delivery.retryBase),
      final,
      leaseMs: this.leaseMs,
      extendLease: (untilMs) => this.store.extendLease(delivery.id, this.owner, iso(untilMs)),
      mayStillSend: () => this.mayStillSend(epoch),
    };
  }

  /** Whether an attempt claimed in `epoch` may still go out: nobody can have taken this owner's leases yet. */
  private mayStillSend(epoch: number): boolean {
    const fence = this.fence;
    return fence === null || (fence.epoch === epoch && fence.fresh());
  }

  /**
   * Lets the delivery's target attempt it, then records the outcome. The
   * delivery as recorded when it was read back (a final attempt, a failure, a
   * success its target reports); null otherwise, and when there was nothing
   * to do or the lease was lost.
   */
  private async attempt(delivery: Delivery, final: boolean, epoch: number): Promise<Delivery | null> {
    const target = this.targets[delivery.kind] as DeliveryTarget | undefined;
    const ctx = this.context(delivery, final, epoch);
    // Claimed before a pause (or a gate's wait) that may have let another process take this owner over.
    const fenced = !this.mayStillSend(epoch);
    if (fenced) {
      this.log.warn({ delivery: delivery.id }, 'not sending a delivery: this process may have lost its lease (its heartbeat went stale)');
    }
    const result = target && !fenced ? await target.attempt(delivery, ctx) : null;
    if (!target || !result) {
      // No target of this kind here (a store-only engine), or the target is gone (its deliveries went with it).
      await this.store.releaseLease(delivery.id, this.owner).catch(() => false);
      return null;
    }
    if (result.load) {
      const { latencyMs, overloaded } = result.load;
      this.limits.sample(delivery.target, latencyMs, overloaded, this.inflight.of(delivery.target), this.eventLoop.saturated());
    }
    const number = ctx.number;
    const status: DeliveryStatus = result.succeeded
      ? 'succeeded'
      : result.cancelled
        ? 'cancelled'
        : result.retryInMs !== null && !final
          ? 'pending'
          : 'failed';
    const nextAttemptAt = status === 'pending' ? iso(this.clock.now() + result.retryInMs!) : null;
    const error = result.succeeded ? null : result.error;
    const attempt: Attempt = {
      attempt: number,
      startedAt: iso(result.startedMs),
      durationMs: result.durationMs,
      responseStatus: result.responseStatus,
      error,
      outcome: result.outcome,
      requestId: result.requestId,
    };
    if (result.sent) attempt.sent = result.sent;
    const outcome: AttemptOutcome = { attempt, status, nextAttemptAt, error, response: result.response };
    if (result.request) outcome.request = result.request;
    if (result.succeeded && 'result' in result) outcome.result = result.result ?? null;

    this.metrics?.attempted(
      {
        target: delivery.kind,
        subject: subjectOf(delivery),
        deliveryId: delivery.id,
        status,
        attempt: number,
        startedMs: result.startedMs,
        scheduledFor: delivery.scheduledFor,
        error,
      },
      result.durationMs,
      delivery,
    );

    // Only a final attempt's caller and the events need the delivery read back.
    const readBack = final || status === 'failed' || (status === 'succeeded' && target.reportsSuccess);
    const recorded = readBack ? await this.recorder.record(delivery.id, outcome) : await this.recorder.recordLean(delivery.id, outcome);
    if (!recorded) {
      this.log.warn(
        { delivery: delivery.id, [delivery.kind]: subjectOf(delivery), attempt: number },
        `${target.noun} lease lost before its attempt was recorded; another worker will retry it`,
      );
      return null;
    }
    if (status === 'failed') {
      this.log.info({ delivery: delivery.id, [delivery.kind]: subjectOf(delivery), attempt: number, error }, `${target.noun} failed`);
    }
    // The gate counts what it let through (a person's attempts are not the target's health), once the
    // outcome is recorded: what it does next (hold a failed probe's delivery) must find it recorded.
    if (!final) this.gate?.observe?.(delivery, result);
    if (result.afterRecorded) await result.afterRecorded();
    if (recorded === true) return null;
    if (status === 'failed') this.events.emit('delivery:failed', { delivery: recorded });
    else if (status === 'succeeded' && target.reportsSuccess) this.events.emit('delivery:succeeded', { delivery: recorded });
    return recorded;
  }
}
