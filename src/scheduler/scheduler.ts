/**
 * Fires cron webhooks and functions' cron schedules. Each tick claims the webhooks whose `nextFireAt` has
 * passed, a batch per store transaction (rows other nodes are claiming are
 * skipped, not waited for), and inserts each slot's delivery under a unique
 * (webhook, slot) key, so a slot fires at most once however many processes
 * tick the same database. Slots missed while nothing ran collapse into the
 * latest one. `now` is the clock's: on PostgreSQL the database's (clock.ts).
 * A burst (many slots due at once) is claimed batch after batch, with a turn of
 * the event loop every CLAIM_SLICE_MS so the engine, woken per delivery, sends
 * the first batches while later ones are claimed.
 * Between ticks the loop sleeps until the earliest `nextFireAt`, but never
 * more than 1 s, so schedules changed by another process are picked up within
 * a second.
 * Functions due within the prewarm lead (5 s) are handed to `prewarm` once
 * each round, so their isolates are built before the slot: the first slot after
 * a start is then as punctual as later ones (cold isolates made it seconds late).
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../types.js';
import type { ClaimedSlots, DueFunctionSchedule, FunctionSlotPlan, SlotPlan, WebhookStore } from '../store/store.js';
import type { Webhook } from '../webhooks/types.js';
import type { Delivery } from '../deliveries/types.js';
import { type CronSchedule, latestSlotAtOrBefore, nextFire, parseCron } from './cron.js';

const MAX_SLEEP_MS = 1000;
const MIN_SLEEP_MS = 10;
const DEFAULT_BATCH = 500;
/**
 * Claim batches run back to back for this long (real time), then the event loop
 * gets a turn: the engine sends what was claimed, requests are answered.
 */
const CLAIM_SLICE_MS = 100;
/** A tick stops after this many full batches and lets the next tick continue. */
const MAX_BATCHES_PER_TICK = 200;
/**
 * How far ahead of a slot its functions' isolates are built when not told (SWITCHYARD_PREWARM_SECONDS).
 * Enough to boot a large slot's isolates: two cores build about 130 a second, so the 1,666 cold
 * functions of a 100,000-schedule slot took 13 s, and a 5 s lead left the slot 7 to 9.5 s late at p99
 * (bench/README.md, "Prewarmed first slots"). Prewarms fill only free room, so a longer lead evicts nothing.
 */
export const PREWARM_AHEAD_MS = 15_000;


export interface SchedulerOptions {
  store: WebhookStore;
  clock: Clock;
  /** Called for each delivery this process created (e.g. to wake the delivery engine). */
  onClaimed(delivery: Delivery): void;
  /**
   * Each due webhook as the claim read it, before its delivery is sent: the
   * engine keeps it, so a burst of webhooks new to it is not read back one by
   * one to send their first attempts.
   */
  onDue?(webhook: Webhook): void;
  log: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Seconds from a slot to its claim. */
  lateness?: { observe(seconds: number): void };
  /** Webhooks read per store query. */
  batch?: number;
  /** Claim batches back to back for at most this many ms before a turn of the event loop (default 100). */
  claimSliceMs?: number;
  /**
   * The event and trigger details of a function schedule's slot (src/functions/schedule-event.ts).
   * Without it, function schedules are not fired by this scheduler.
   */
  functionSlot?(schedule: DueFunctionSchedule, slot: string): { event: unknown; detail: Record<string, unknown> };
  /**
   * Builds the warm isolates of the named functions (their schedules fire
   * within `aheadMs`, default PREWARM_AHEAD_MS); at most `limit` names per
   * round, the runtime's own warm bound. Fire-and-forget. Only with functionSlot.
   */
  prewarm?: { warm(functionNames: string[]): void; limit: number; aheadMs?: number };
}

const iso = (ms: number) => new Date(ms).toISOString();
const nextTurn = () => new Promise<void>((resume) => setImmediate(resume));

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

type SlotsAt = (cron: string, timezone: string, nextFireAt: string) => SlotPlan;

/**
 * The slot and next fire time of every schedule due at `now`, computed once per
 * distinct (cron, time zone, nextFireAt): the webhooks of a burst share them, and
 * the cron search plus two ISO strings per webhook were a tenth of a burst's claim.
 */
function slotsAt(now: number): SlotsAt {
  const known = new Map<string, SlotPlan>();
  return (cron, timezone, nextFireAt) => {
    const key = `${cron}\n${timezone}\n${nextFireAt}`;
    let plan = known.get(key);
    if (!plan) {
      const schedule = cachedSchedule(cron);
      const slot = latestSlotAtOrBefore(schedule, timezone, Date.parse(nextFireAt), now);
      const next = nextFire(schedule, timezone, now);
      plan = { slot: iso(slot), next: next === null ? null : iso(next) };
      if (known.size >= 10_000) known.clear();
      known.set(key, plan);
    }
    return plan;
  };
}

export class Scheduler {
  private readonly batch: number;
  private readonly sliceMs: number;
  private started = false;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private again = false;
  private looping: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;
  /** Slots up to this time (ms) were prewarmed; each round asks only for the ones after it. */
  private warmedThrough = 0;

  constructor(private readonly opts: SchedulerOptions) {
    this.batch = opts.batch ?? DEFAULT_BATCH;
    this.sliceMs = opts.claimSliceMs ?? CLAIM_SLICE_MS;
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
      await this.prewarmAhead();
      const nexts = [await this.opts.store.nextFireAt()];
      if (this.opts.functionSlot) nexts.push(await this.opts.store.nextFunctionFireAt());
      const next = nexts.filter((n): n is string => n !== null).sort()[0] ?? null;
      if (next !== null) {
        delay = Math.min(MAX_SLEEP_MS, Math.max(MIN_SLEEP_MS, Date.parse(next) - this.opts.clock.now()));
      }
    } catch (err) {
      this.opts.log.error({ err }, 'scheduler tick failed');
    }
    if (this.started) this.arm(this.again ? 0 : delay);
  }

  private async fireDue(): Promise<number> {
    const now = this.opts.clock.now();
    const slots = slotsAt(now);
    let fired = await this.fireClaims(now, (limit) =>
      this.opts.store.claimDueSlots(iso(now), limit, (webhook) => this.plan(webhook, slots)),
    );
    const functionSlot = this.opts.functionSlot;
    if (functionSlot) {
      fired += await this.fireClaims(now, (limit) =>
        this.opts.store.claimDueFunctionSlots(iso(now), limit, (schedule) => this.planFunction(schedule, slots, functionSlot)),
      );
    }
    return fired;
  }

  /** Hands the functions of the schedules due within the lead, not handed before, to `prewarm`. */
  private async prewarmAhead(): Promise<void> {
    const prewarm = this.opts.prewarm;
    if (!prewarm || !this.opts.functionSlot) return;
    const now = this.opts.clock.now();
    const until = now + (prewarm.aheadMs ?? PREWARM_AHEAD_MS);
    // Past the lead: the clock was set back, and the slots ahead were not handed yet.
    if (this.warmedThrough > until) this.warmedThrough = 0;
    const after = Math.max(this.warmedThrough, now);
    if (until <= after) return;
    const names = await this.opts.store.functionsDueBetween(iso(after), iso(until), prewarm.limit);
    this.warmedThrough = until;
    if (names.length === 0) return;
    try {
      prewarm.warm(names);
    } catch (err) {
      this.opts.log.warn({ err }, 'prewarming isolates failed');
    }
  }

  /** Claims batch after batch while full ones come back; webhooks and function schedules alike. */
  private async fireClaims(now: number, claimBatch: (limit: number) => Promise<ClaimedSlots>): Promise<number> {
    const { log } = this.opts;
    let fired = 0;
    let slice = performance.now();
    for (let batches = 0; batches < MAX_BATCHES_PER_TICK; batches++) {
      const claim = await claimBatch(this.batch);
      for (const delivery of claim.deliveries) {
        this.opts.lateness?.observe(Math.max(0, now - Date.parse(delivery.scheduledFor!)) / 1000);
        try {
          this.opts.onClaimed(delivery);
        } catch (err) {
          log.error({ err, delivery: delivery.id }, 'onClaimed failed');
        }
      }
      if (claim.alreadyFired.length > 0) {
        // Only after nextFireAt was moved back onto a fired slot (by hand, or a clock set back).
        log.warn({ schedules: claim.alreadyFired }, 'slot already fired; moved on to the next one');
      }
      fired += claim.deliveries.length;
      // Fewer than a batch: nothing else is due, or other nodes hold the rest (SKIP LOCKED).
      if (claim.claimed < this.batch) break;
      // SQLite's claims are synchronous: without a turn of the event loop no attempt of a
      // burst would leave (nor any HTTP request be answered) before its last batch. A turn
      // after every batch starved the claim instead: the engine's work of each turn came
      // between batches, and 100,000 slots took 48 s to claim and 51 s to deliver, against
      // 4 and 42 s claimed in one go; a turn every CLAIM_SLICE_MS took 5 and 21 s.
      if (performance.now() - slice >= this.sliceMs) {
        await nextTurn();
        slice = performance.now();
      }
    }
    return fired;
  }

  /** As `plan`, for one of a function's schedules: its slot, its next one, and the slot's event. */
  private planFunction(s: DueFunctionSchedule, slots: SlotsAt, build: NonNullable<SchedulerOptions['functionSlot']>): FunctionSlotPlan {
    try {
      const { slot, next } = slots(s.cron, s.timezone, s.nextFireAt);
      return { slot, next, ...build(s, slot!) };
    } catch (err) {
      const context = { err, function: s.functionName, cron: s.cron, timezone: s.timezone };
      this.opts.log.error(context, 'unschedulable function schedule: clearing its next fire time');
      return { slot: null, next: null, event: null, detail: {} };
    }
  }

  /**
   * The slot a due webhook fires now (its latest one at or before `now`: missed
   * slots collapse into it) and its next one after `now`.
   */
  private plan(webhook: Webhook, slots: SlotsAt): SlotPlan {
    this.opts.onDue?.(webhook);
    try {
      return slots(webhook.cron!, webhook.timezone, webhook.nextFireAt!);
    } catch (err) {
      // Only reachable with data the service would refuse; unscheduling keeps it from being due forever.
      const context = { err, webhook: webhook.id, cron: webhook.cron, timezone: webhook.timezone };
      this.opts.log.error(context, 'unschedulable webhook: clearing its next fire time');
      return { slot: null, next: null };
    }
  }
}
