/**
 * How many attempts one target (a webhook; a function keeps the initial
 * limit) may have in flight on this node, following the target's latency: a
 * slow target that keeps its latency gets more attempts in flight
 * (throughput = in flight / latency), one whose latency grows or that
 * times out, refuses connections or answers 429/502/503/504 gets fewer. The
 * delivery claim enforces each target's current limit (the store gets the
 * limits with the claim), between a floor and a hard ceiling.
 *
 * Hand-written rather than a dependency: the known libraries (Netflix
 * concurrency-limits, Envoy's adaptive concurrency) are Java and C++; the npm
 * ports wrap a call (`limiter.acquire()`), while here the limit must be a
 * number handed to the claim SQL, for many targets at once, and the whole
 * rule is forty lines. It borrows from both:
 * - samples are judged in windows of about one limit's worth of attempts
 *   (about one round trip), against a baseline: the lowest window average
 *   seen, drifting slowly up towards what is measured so that a target whose
 *   latency rose for good is not held down forever (Gradient2's long-term
 *   average does the same job);
 * - a window within `tolerance` x baseline + `slackMs` grows the limit: doubled
 *   while nothing went wrong yet (TCP's slow start: 50 to 400 in three round
 *   trips), then by sqrt(limit) per window (Gradient2's queue allowance);
 * - a slower window shrinks it in proportion (baseline-allowed / measured,
 *   at most halved): Envoy's gradient;
 * - each overload sign (timeout, connection failure, 429, 502-504) multiplies
 *   it by `backoff` at once, not per window (AIMD): a target that hangs with
 *   50 in flight is down to the floor when those 50 time out;
 * - a window where the target used less than half its limit does not grow it:
 *   a trickle proves nothing about a burst.
 * The latency measured is also this node's own: once its event loop is
 * saturated (the engine says so with each sample), responses wait for it, and
 * more in flight only adds latency. A window that ends saturated never
 * shrinks the limit for latency nor moves the baseline: the limit holds where
 * the CPU stops it (Little's law: past that point latency grows with the limit
 * whatever the target does), and grows only while latency is still kept.
 */

export interface LimitBounds {
  /** The limit of a target not measured yet. */
  initial: number;
  /** The limit never goes below (a hung target keeps this many probes). */
  min: number;
  /** The limit never goes above, whatever the latency (the fairness bound). */
  max: number;
}

export interface LimitTuning {
  /** A window up to tolerance x baseline + slackMs counts as "latency kept". */
  tolerance: number;
  /** Absolute allowance: a millisecond or two of jitter on a sub-millisecond target is no sign of load. */
  slackMs: number;
  /** Factor applied on each overload sign. */
  backoff: number;
  /** Fraction of the gap by which the baseline moves up towards a slower window. */
  drift: number;
  /** Fewest samples in a window. */
  minWindow: number;
}

export const DEFAULT_TUNING: LimitTuning = { tolerance: 2, slackMs: 5, backoff: 0.9, drift: 0.02, minWindow: 10 };

/** One target's adaptive limit. Deterministic: it sees only the samples it is given. */
export class AdaptiveLimit {
  private value: number;
  private baseline: number | null = null;
  private slowStart = true;
  private count = 0;
  private sum = 0;
  private busiest = 0;

  constructor(
    private readonly bounds: LimitBounds,
    private readonly tuning: LimitTuning = DEFAULT_TUNING,
  ) {
    this.value = bounds.initial;
  }

  /** Attempts the target may have in flight now. */
  get limit(): number {
    return Math.floor(this.value);
  }

  /**
   * One finished attempt: how long it took, whether it was a sign of overload,
   * how many attempts of this target were in flight (itself included), and
   * whether this node's event loop is saturated now.
   */
  sample(latencyMs: number, overloaded: boolean, inflight: number, saturated = false): void {
    if (overloaded) {
      // Not part of the latency window: a timeout's latency is the timeout.
      this.value = Math.max(this.bounds.min, this.value * this.tuning.backoff);
      this.slowStart = false;
      return;
    }
    this.count++;
    this.sum += latencyMs;
    if (inflight > this.busiest) this.busiest = inflight;
    if (this.count >= Math.max(this.tuning.minWindow, this.limit)) this.closeWindow(saturated);
  }

  private closeWindow(saturated: boolean): void {
    const average = this.sum / this.count;
    const used = this.busiest * 2 >= this.limit;
    this.count = 0;
    this.sum = 0;
    this.busiest = 0;
    const t = this.tuning;
    if (this.baseline === null || average < this.baseline) this.baseline = average;
    const allowed = this.baseline * t.tolerance + t.slackMs;
    // After the verdict: a window is judged against the baseline before it.
    if (!saturated) this.baseline += (average - this.baseline) * t.drift;
    let next = this.value;
    if (average > allowed) {
      this.slowStart = false;
      if (!saturated) next = this.value * Math.max(0.5, allowed / average);
    } else if (used) {
      next = this.slowStart ? this.value * 2 : this.value + Math.sqrt(this.value);
    }
    this.value = Math.min(this.bounds.max, Math.max(this.bounds.min, next));
  }
}

/**
 * The limits of every target this node sends to. Only targets measured away
 * from the initial limit are listed for the claim; the rest get `initial`.
 */
export class TargetLimits {
  private readonly byTarget = new Map<string, AdaptiveLimit>();

  constructor(
    readonly bounds: LimitBounds,
    private readonly tuning: LimitTuning = DEFAULT_TUNING,
    /** Targets tracked at most; past it, those back at the initial limit are forgotten. */
    private readonly capacity = 10_000,
  ) {}

  /** The current limit of `target`. */
  of(target: string): number {
    return this.byTarget.get(target)?.limit ?? this.bounds.initial;
  }

  sample(target: string, latencyMs: number, overloaded: boolean, inflight: number, saturated = false): void {
    let limit = this.byTarget.get(target);
    if (!limit) {
      if (this.byTarget.size >= this.capacity) this.forgetSettled();
      limit = new AdaptiveLimit(this.bounds, this.tuning);
      this.byTarget.set(target, limit);
    }
    limit.sample(latencyMs, overloaded, inflight, saturated);
  }

  /** Targets whose limit is not the initial one, for the claim (a small map: the busy or failing targets). */
  measured(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [target, limit] of this.byTarget) if (limit.limit !== this.bounds.initial) out.set(target, limit.limit);
    return out;
  }

  /** Every tracked target and its limit: a live view, for metrics. */
  *entries(): Iterable<readonly [string, number]> {
    for (const [target, limit] of this.byTarget) yield [target, limit.limit];
  }

  /** Drops a target's limit (its webhook was deleted): its series leaves switchyard_webhook_concurrency_limit. */
  forget(target: string): void {
    this.byTarget.delete(target);
  }

  private forgetSettled(): void {
    for (const [target, limit] of this.byTarget) if (limit.limit === this.bounds.initial) this.byTarget.delete(target);
    // Every one of them measured away from the initial limit: start over rather than grow without bound.
    if (this.byTarget.size >= this.capacity) this.byTarget.clear();
  }
}

/** Above this share of busy time, the event loop is what delays responses. */
const SATURATED = 0.9;
const LOAD_PERIOD_MS = 100;

/** Whether this process's event loop is saturated, measured over the last ~100 ms (cheap to ask per sample). */
export class EventLoopLoad {
  private last = performance.eventLoopUtilization();
  private at = performance.now();
  private busy = false;

  saturated(): boolean {
    const now = performance.now();
    if (now - this.at >= LOAD_PERIOD_MS) {
      const current = performance.eventLoopUtilization();
      this.busy = performance.eventLoopUtilization(current, this.last).utilization > SATURATED;
      this.last = current;
      this.at = now;
    }
    return this.busy;
  }
}
