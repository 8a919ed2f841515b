/**
 * Endpoint health's background work, in every server process (the store's
 * locks make each step happen once in the cluster):
 * - once a second, this process's attempt counts go to the store, which
 *   opens breakers and disables webhooks failing for days (target-health.ts);
 * - probes: an open breaker whose wait is over sends its oldest held delivery
 *   as the probe; its outcome closes the breaker or doubles the wait;
 * - a sweep releases the held deliveries of every webhook that may be sent to
 *   again (a release that raced a publish, another process's transition);
 * - the held bound: past SWITCHYARD_MAX_HELD, a webhook's oldest held go.
 * Each transition is told: the webhook's held deliveries held or released,
 * a `webhook` change so every process drops what it cached of it, an
 * operational event (`switchyard.webhook.paused`, `.resumed`, `.disabled`),
 * a metric and a log line.
 */
import type { ChangeBus } from '../../changes.js';
import type { Clock } from '../../clock.js';
import type { DueSignal } from '../../deliveries/due-signal.js';
import type { HealthTransition } from '../../store/shared/target-health.js';
import type { Store } from '../../store/store.js';
import type { Logger } from '../../types.js';
import type { EventBus } from '../events.js';
import type { Webhook } from '../types.js';
import type { HealthReports } from './gate.js';
import type { HealthSamples } from './samples.js';

const REPORT_MS = 1000;
const PROBE_SCAN_MS = 1000;
const SWEEP_MS = 2000;
const TRIM_MS = 30_000;
/** How long a probe is waited for before another may start (a process that died mid-probe). */
export const PROBE_WAIT_MS = 120_000;
/** Held deliveries released (or held) per statement; the rest follow after the engine had a turn. */
const RELEASE_STEP = 1000;

/** Why a webhook stopped or started sending, as its operational event says. */
export type PauseReason = 'failing' | 'origin_failing' | 'operator';
export type ResumeReason = 'probe_succeeded' | 'operator' | 'enabled';
export type DisableReason = 'gone' | 'failing' | 'operator';

/** Counted by the monitor (src/metrics.ts registers them). */
export interface HealthMetrics {
  /** An operational event told, or a probe that failed (no event: the webhook stays paused). */
  transition(kind: 'paused' | 'resumed' | 'disabled' | 'probe_failed'): void;
  heldDiscarded(reason: 'bound' | 'operator', n: number): void;
  deferred(reason: 'rate_limit' | 'retry_after'): void;
}

export interface HealthMonitorDeps {
  store: Store;
  clock: Clock;
  changes: ChangeBus;
  samples: HealthSamples;
  due: DueSignal;
  events: EventBus;
  /** A webhook as the target caches it (for the events' names). */
  webhook(id: string): Promise<Webhook | null>;
  metrics: HealthMetrics;
  log: Logger;
  /** Held deliveries a webhook keeps at most (SWITCHYARD_MAX_HELD). */
  maxHeld: number;
}

export class HealthMonitor implements HealthReports {
  private readonly timers: NodeJS.Timeout[] = [];
  private offJump: (() => void) | null = null;
  private running = false;
  /** One pass of each chore at a time in this process. */
  private readonly busy = new Set<string>();
  /** Webhooks whose held deliveries this process is releasing now. */
  private readonly releasing = new Set<string>();

  constructor(private readonly deps: HealthMonitorDeps) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    const every = (ms: number, name: string, chore: () => Promise<unknown>) => {
      const timer = setInterval(() => void this.once(name, chore), ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(REPORT_MS, 'report', () => this.report());
    every(PROBE_SCAN_MS, 'probes', () => this.probes());
    every(SWEEP_MS, 'sweep', () => this.sweep());
    every(TRIM_MS, 'trim', () => this.trim());
    // Tests move the clock by hand: the chores follow at once instead of at their next tick.
    this.offJump = this.deps.clock.onJump(() => void this.tick());
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    this.offJump?.();
    await this.once('report', () => this.report());
  }

  /** Every chore once, in order (what a clock jump runs). */
  async tick(): Promise<void> {
    await this.once('report', () => this.report());
    await this.once('probes', () => this.probes());
    await this.once('sweep', () => this.sweep());
    await this.once('trim', () => this.trim());
  }

  // ---- what the gate tells (HealthReports)

  probeEnded(key: string, deliveryId: string, succeeded: boolean): void {
    this.deps.store.finishProbe(key, deliveryId, succeeded, this.deps.clock.now()).then(
      (t) => (t ? this.apply(t) : undefined),
      (err: unknown) => this.deps.log.warn({ err, key }, 'could not record a probe; the next one is tried after its wait'),
    );
  }

  notBefore(webhookId: string, until: number): void {
    this.deps.store
      .setNotBefore(webhookId, until, this.deps.clock.now())
      .then(() => this.announce(webhookId))
      .catch((err: unknown) => this.deps.log.warn({ err, webhook: webhookId }, "could not keep a target's Retry-After"));
  }

  deferred(reason: 'rate_limit' | 'retry_after'): void {
    this.deps.metrics.deferred(reason);
  }

  // ---- what the webhook service asks for

  /** The webhook's pending deliveries no one sends now are held (it was paused or disabled), in steps as release goes. */
  async hold(webhookId: string): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.deps.store.holdDeliveries(webhookId, this.iso(), RELEASE_STEP);
      total += n;
      if (n < RELEASE_STEP) return total;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Releases the webhook's held deliveries, oldest first, in steps, waking the
   * engine after the first; the rest follow once the engine had a turn.
   */
  async release(webhookId: string): Promise<number> {
    if (this.releasing.has(webhookId)) return 0;
    this.releasing.add(webhookId);
    let total = 0;
    try {
      for (;;) {
        const n = await this.deps.store.releaseHeld(webhookId, this.iso(), RELEASE_STEP);
        total += n;
        if (n > 0) this.deps.due.wake();
        if (n < RELEASE_STEP) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.releasing.delete(webhookId);
    }
    if (total > 0) this.deps.log.info({ webhook: webhookId, released: total }, 'released held deliveries');
    return total;
  }

  /**
   * The webhook may send again (its breaker closed, resumed, enabled): what
   * it still has to send goes out now, in publish order. Deliveries waiting
   * for a retry of an attempt made while it was failing (in flight when it
   * stopped, or a failed probe) are held first, so they go in their place in
   * line instead of on their own schedule, hours later for some.
   */
  async resend(webhookId: string): Promise<number> {
    await this.hold(webhookId);
    return this.release(webhookId);
  }

  /** Tells every process to drop what it cached of the webhook (resolves once this node's processes did). */
  async announce(webhookId: string): Promise<void> {
    await this.deps.changes.publish({ kind: 'webhook', id: webhookId });
  }

  /** `switchyard.webhook.paused`, `.resumed` or `.disabled`, with the webhook's id and name. */
  async tell(event: 'paused' | 'resumed' | 'disabled', webhookId: string, data: Record<string, unknown>): Promise<void> {
    const webhook = await this.deps.webhook(webhookId).catch(() => null);
    this.deps.metrics.transition(event);
    this.deps.events.emitOperational(`switchyard.webhook.${event}`, { webhook_id: webhookId, name: webhook?.name ?? null, ...data });
  }

  // ---- the chores

  private async once(name: string, chore: () => Promise<unknown>): Promise<void> {
    if (this.busy.has(name)) return;
    this.busy.add(name);
    try {
      await chore();
    } catch (err) {
      this.deps.log.warn({ err }, `endpoint health: ${name} failed`);
    } finally {
      this.busy.delete(name);
    }
  }

  private async report(): Promise<void> {
    if (this.deps.samples.size === 0) return;
    const samples = this.deps.samples.take();
    let transitions: HealthTransition[];
    try {
      transitions = await this.deps.store.recordTargetHealth(samples, this.deps.clock.now());
    } catch (err) {
      this.deps.samples.putBack(samples);
      throw err;
    }
    for (const t of transitions) await this.apply(t);
  }

  private async probes(): Promise<void> {
    const now = this.deps.clock.now();
    for (const key of await this.deps.store.dueProbes(now, 100)) {
      const id = await this.deps.store.startProbe(key, now, now + PROBE_WAIT_MS);
      if (id !== null) {
        this.deps.log.info({ key, delivery: id }, 'probing an open breaker with its oldest held delivery');
        this.deps.due.wake();
      }
    }
  }

  private async sweep(): Promise<void> {
    for (const id of await this.deps.store.releasableWebhooks(100)) await this.release(id);
  }

  private async trim(): Promise<void> {
    for (const { webhookId, discarded } of await this.deps.store.trimHeld(this.deps.maxHeld, this.iso())) {
      if (discarded === 0) continue;
      this.deps.metrics.heldDiscarded('bound', discarded);
      this.deps.log.warn({ webhook: webhookId, discarded, max: this.deps.maxHeld }, 'discarded the oldest held deliveries past the held bound');
    }
  }

  private async apply(t: HealthTransition): Promise<void> {
    const { log } = this.deps;
    if (t.webhookId === null) return;
    const id = t.webhookId;
    switch (t.kind) {
      case 'opened': {
        const held = await this.hold(id);
        await this.announce(id);
        log.warn({ webhook: id, failureRatio: t.failureRatio, attempts: Math.round(t.attempts), held, byOrigin: t.byOrigin }, 'circuit breaker opened: holding deliveries');
        await this.tell('paused', id, {
          reason: t.byOrigin ? 'origin_failing' : 'failing',
          failure_ratio: Math.round(t.failureRatio * 1000) / 1000,
          attempts: Math.round(t.attempts),
          next_probe_at: new Date(t.probeAt).toISOString(),
        });
        return;
      }
      case 'probe_failed':
        await this.announce(id);
        this.deps.metrics.transition('probe_failed');
        log.info({ webhook: id, nextProbeAt: new Date(t.probeAt).toISOString() }, 'probe failed: the breaker stays open');
        return;
      case 'closed': {
        await this.announce(id);
        log.info({ webhook: id }, 'probe succeeded: circuit breaker closed, releasing held deliveries');
        await this.tell('resumed', id, { reason: 'probe_succeeded' });
        await this.resend(id);
        return;
      }
      case 'disable': {
        await this.hold(id);
        await this.announce(id);
        log.warn({ webhook: id, failingSince: new Date(t.failingSince).toISOString() }, 'webhook disabled: every attempt failed for the auto-disable span');
        await this.tell('disabled', id, { reason: 'failing', failing_since: new Date(t.failingSince).toISOString() });
        return;
      }
    }
  }

  private iso(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }
}
