/**
 * Fires cron webhooks. Each tick asks the store for webhooks whose
 * `nextFireAt` has passed and claims each slot with a compare-and-set that
 * also inserts the delivery, so a slot fires at most once however many
 * processes tick the same database. Slots missed while nothing ran collapse
 * into the latest one. Between ticks the loop sleeps until the earliest
 * `nextFireAt`, but never more than 1 s, so schedules changed by another
 * process are picked up within a second.
 */
import type { Clock } from '../clock.js';
import type { WebhookStore } from '../store/store.js';
import type { Delivery, Webhook } from '../webhooks/types.js';
import { type CronSchedule, latestSlotAtOrBefore, nextFire, parseCron } from './cron.js';

const MAX_SLEEP_MS = 1000;
const MIN_SLEEP_MS = 10;
const DEFAULT_BATCH = 500;
/** A tick stops after this many full batches and lets the next tick continue. */
const MAX_BATCHES_PER_TICK = 200;

type LogFn = (obj: object, msg?: string) => void;

export interface SchedulerOptions {
  store: WebhookStore;
  clock: Clock;
  /** Called for each delivery this process created (e.g. to wake the delivery engine). */
  onClaimed(delivery: Delivery): void;
  log: { info: LogFn; warn: LogFn; error: LogFn };
  /** Seconds from a slot to its claim. */
  lateness?: { observe(seconds: number): void };
  /** Webhooks read per store query. */
  batch?: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

const schedules = new Map<string, CronSchedule>();

/** Parses once per distinct expression; the map is bounded by clearing when large. */
export function cachedSchedule(cron: string): CronSchedule {
  let schedule = schedules.get(cron);
  if (!schedule) {
    schedule = parseCron(cron);
    if (schedules.size >= 10_000) schedules.clear();
    schedules.set(cron, schedule);
  }
  return schedule;
}

/**
 * The `nextFireAt` to store when a webhook is created, updated or enabled:
 * the first slot after `now` (ISO), or null without a cron or when disabled.
 */
export function firstFire(cron: string | null, timezone: string, enabled: boolean, now: number): string | null {
  if (!enabled || cron === null) return null;
  const next = nextFire(cachedSchedule(cron), timezone, now);
  return next === null ? null : iso(next);
}

export class Scheduler {
  private readonly batch: number;
  private started = false;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private again = false;
  private looping: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly opts: SchedulerOptions) {
    this.batch = opts.batch ?? DEFAULT_BATCH;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.unsubscribe = this.opts.clock.onJump(() => this.wake());
    this.arm(0);
  }

  async stop(): Promise<void> {
    this.started = false;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.looping;
    if (this.running) await this.running.catch(() => undefined);
  }

  /** Schedules changed (or time jumped): tick soon instead of at the next planned wake-up. */
  wake(): void {
    if (!this.started) return;
    if (this.looping) this.again = true;
    else this.arm(0);
  }

  /** Claims every due slot once; returns how many slots this process fired. */
  tick(): Promise<number> {
    // Concurrent callers share one tick: two overlapping ticks of one process gain nothing.
    if (this.running) return this.running;
    const run = this.fireDue().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  private arm(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      const run: Promise<void> = this.loop().finally(() => {
        if (this.looping === run) this.looping = null;
      });
      this.looping = run;
    }, delayMs);
    this.timer.unref();
  }

  /** One round: tick, then sleep until the earliest slot (at most 1 s). Never throws. */
  private async loop(): Promise<void> {
    if (!this.started) return;
    let delay = MAX_SLEEP_MS;
    this.again = false;
    try {
      await this.tick();
      const next = await this.opts.store.nextFireAt();
      if (next !== null) {
        delay = Math.min(MAX_SLEEP_MS, Math.max(MIN_SLEEP_MS, Date.parse(next) - this.opts.clock.now()));
      }
    } catch (err) {
      this.opts.log.error({ err }, 'scheduler tick failed');
    }
    if (this.started) this.arm(this.again ? 0 : delay);
  }

  private async fireDue(): Promise<number> {
    const { store } = this.opts;
    const now = this.opts.clock.now();
    let fired = 0;
    for (let batches = 0; batches < MAX_BATCHES_PER_TICK; batches++) {
      const due = await store.dueWebhooks(iso(now), this.batch);
      let progressed = false;
      for (const webhook of due) {
        try {
          fired += await this.fire(webhook, now);
          progressed = true;
        } catch (err) {
          this.opts.log.error({ err, webhook: webhook.id }, 'scheduling a webhook failed');
        }
      }
      if (due.length < this.batch || !progressed) break;
    }
    return fired;
  }

  /** Claims the webhook's latest due slot; 1 when this process won it. */
  private async fire(webhook: Webhook, now: number): Promise<number> {
    const { store } = this.opts;
    const expected = webhook.nextFireAt!;
    let slot: number;
    let next: number | null;
    try {
      const schedule = cachedSchedule(webhook.cron!);
      slot = latestSlotAtOrBefore(schedule, webhook.timezone, Date.parse(expected), now);
      next = nextFire(schedule, webhook.timezone, now);
    } catch (err) {
      // Only reachable with data the service would refuse; unscheduling keeps it from being due forever.
      const context = { err, webhook: webhook.id, cron: webhook.cron, timezone: webhook.timezone };
      this.opts.log.error(context, 'unschedulable webhook: clearing its next fire time');
      await store.updateWebhook(webhook.id, { nextFireAt: null });
      return 0;
    }
    const delivery = await store.claimSlot(webhook.id, expected, next === null ? null : iso(next), {
      webhookId: webhook.id,
      trigger: 'schedule',
      scheduledFor: iso(slot),
      event: null,
      eventData: null,
      nextAttemptAt: iso(now),
    });
    if (!delivery) {
      await this.unstick(webhook, expected, next);
      return 0;
    }
    this.opts.lateness?.observe(Math.max(0, now - slot) / 1000);
    try {
      this.opts.onClaimed(delivery);
    } catch (err) {
      this.opts.log.error({ err, delivery: delivery.id }, 'onClaimed failed');
    }
    return 1;
  }

  /**
   * A lost claim normally means another process moved `nextFireAt` on. If it
   * still reads the same slot, the store refused the slot as already fired
   * (e.g. a clock set back); move past it so the webhook is not due forever.
   */
  private async unstick(webhook: Webhook, expected: string, next: number | null): Promise<void> {
    const current = await this.opts.store.getWebhook(webhook.id);
    if (!current || current.nextFireAt !== expected || !current.enabled) return;
    this.opts.log.warn({ webhook: webhook.id, slot: expected }, 'slot already fired; skipping to the next one');
    await this.opts.store.updateWebhook(webhook.id, { nextFireAt: next === null ? null : iso(next) });
  }
}
