/**
 * This process's statistics between two flushes (see types.ts). The gateway
 * resolves one RequestCell per route, once, beside its metric series; a
 * request then costs a clock read, a compare and a few increments into that
 * cell's preallocated counters, no allocation. A cell holds one minute: the
 * first request of a new minute moves the old minute's numbers to a pending
 * list (once a minute per route). `flush` writes everything pending with one
 * store call; several processes' flushes add up in the store.
 */
import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import { BUCKETS, LATENCY_BOUNDS_MS, type AttemptFacts, type LatenessMinute, type OutcomeMinute, type RecentFailure, type RequestMinute, type StatsBatch } from './types.js';

const MINUTE_MS = 60_000;
/** Failures kept between two flushes at most: the overview lists the newest few. */
const FAILURES_PER_FLUSH = 20;
/** Rows kept for a later flush while the store is away at most; older ones are dropped. */
const MAX_PENDING = 50_000;

function bucketOf(ms: number): number {
  let i = 0;
  while (i < LATENCY_BOUNDS_MS.length && ms > LATENCY_BOUNDS_MS[i]) i++;
  return i;
}

/** A latency histogram for one minute, reset in place. */
class Histogram {
  minute = -1;
  count = 0;
  maxMs = 0;
  readonly buckets = new Float64Array(BUCKETS);

  observe(ms: number): void {
    this.count++;
    if (ms > this.maxMs) this.maxMs = ms;
    this.buckets[bucketOf(ms)]++;
  }

  protected resetCounts(minute: number): void {
    this.minute = minute;
    this.count = 0;
    this.maxMs = 0;
    this.buckets.fill(0);
  }
}

/** Invocation requests of one (API, route): the gateway's hot path counts here. */
export class RequestCell extends Histogram {
  errors = 0;

  constructor(
    private readonly owner: StatsCollector,
    readonly apiId: string,
    readonly method: string,
    readonly path: string,
  ) {
    super();
  }

  /** One answered request: `error` for 5xx answers (function errors included). */
  add(error: boolean, ms: number): void {
    const minute = Math.floor(this.owner.clock.now() / MINUTE_MS);
    if (minute !== this.minute) this.roll(minute);
    if (error) this.errors++;
    this.observe(ms);
  }

  /** Moves what this cell holds to the collector's pending rows and starts `minute`. */
  roll(minute: number): void {
    if (this.count > 0) {
      this.owner.pendingRequest({
        minute: this.minute,
        apiId: this.apiId,
        method: this.method,
        path: this.path,
        count: this.count,
        errors: this.errors,
        maxMs: this.maxMs,
        buckets: Array.from(this.buckets),
      });
    }
    this.errors = 0;
    this.resetCounts(minute);
  }
}

/** Function invocations through the gateway that succeeded, per function: the usual outcome, counted without a map. */
export class OkCell {
  minute = -1;
  count = 0;

  constructor(
    private readonly owner: StatsCollector,
    readonly fn: string,
  ) {}

  add(): void {
    const minute = Math.floor(this.owner.clock.now() / MINUTE_MS);
    if (minute !== this.minute) this.roll(minute);
    this.count++;
  }

  roll(minute: number): void {
    if (this.count > 0) this.owner.addOutcome(this.minute, 'invocation', this.fn, 'ok', this.count);
    this.count = 0;
    this.minute = minute;
  }
}

export interface StatsCollectorDeps {
  clock: Clock;
  /** Names this process in the store's rows; hostname:pid by default. */
  owner?: string;
}

export class StatsCollector {
  readonly owner: string;
  private readonly requestCells = new Map<string, RequestCell>();
  private readonly okCells = new Map<string, OkCell>();
  private requests: RequestMinute[] = [];
  /** Rare outcomes (errors, deliveries), keyed by minute, source, subject and outcome. */
  private outcomes = new Map<string, OutcomeMinute>();
  private lateness = new Map<number, LatenessMinute>();
  private failures: RecentFailure[] = [];

  readonly clock: Clock;

  constructor(deps: StatsCollectorDeps) {
    this.clock = deps.clock;
    this.owner = deps.owner ?? `${hostname()}:${process.pid}`;
  }

  /** The cell of one route: resolve once and keep it (the gateway does, per route). */
  requestCell(apiId: string, method: string, path: string): RequestCell {
    const key = `${apiId}\u0000${method}\u0000${path}`;
    let cell = this.requestCells.get(key);
    if (!cell) {
      cell = new RequestCell(this, apiId, method, path);
      this.requestCells.set(key, cell);
    }
    return cell;
  }

  okCell(fn: string): OkCell {
    let cell = this.okCells.get(fn);
    if (!cell) {
      cell = new OkCell(this, fn);
      this.okCells.set(fn, cell);
    }
    return cell;
  }

  /** @internal RequestCell.roll */
  pendingRequest(row: RequestMinute): void {
    if (this.requests.length < MAX_PENDING) this.requests.push(row);
  }

  addOutcome(minute: number, source: OutcomeMinute['source'], subject: string, outcome: string, count = 1): void {
    const key = `${minute}\u0000${source}\u0000${subject}\u0000${outcome}`;
    const row = this.outcomes.get(key);
    if (row) row.count += count;
    else if (this.outcomes.size < MAX_PENDING) this.outcomes.set(key, { minute, source, subject, outcome, count });
  }

  /** A gateway invocation that did not succeed: counted under its code, and kept as a recent failure. */
  invocationFailed(fn: string, code: string, message: string, requestId: string): void {
    const now = this.clock.now();
    this.addOutcome(Math.floor(now / MINUTE_MS), 'invocation', fn, code);
    this.failed({ source: 'invocation', id: requestId, subject: fn, code, message, at: new Date(now).toISOString() });
  }

  /**
   * One recorded delivery attempt. `status` is the delivery's after it:
   * `pending` means it will be retried. A scheduled delivery's first attempt
   * also measures the scheduler's lateness (start minus slot).
   */
  attempted(a: AttemptFacts): void {
    const minute = Math.floor(a.startedMs / MINUTE_MS);
    this.addOutcome(minute, a.target, '', a.status === 'pending' ? 'retrying' : a.status);
    if (a.attempt === 1 && a.scheduledFor !== null) {
      let row = this.lateness.get(minute);
      if (!row) {
        row = { minute, count: 0, maxMs: 0, buckets: new Array<number>(BUCKETS).fill(0) };
        this.lateness.set(minute, row);
      }
      const late = Math.max(0, a.startedMs - Date.parse(a.scheduledFor));
      row.count++;
      row.maxMs = Math.max(row.maxMs, late);
      row.buckets[bucketOf(late)]++;
    }
    if (a.status === 'failed') {
      this.failed({
        source: a.target,
        id: a.deliveryId,
        subject: a.subject,
        code: 'delivery_failed',
        message: a.error ?? 'failed',
        at: new Date(a.startedMs).toISOString(),
      });
    }
  }

  private failed(failure: RecentFailure): void {
    this.failures.push(failure);
    // Only the newest few can be shown: a storm of failures costs a bounded list.
    if (this.failures.length > FAILURES_PER_FLUSH * 2) this.failures = this.failures.slice(-FAILURES_PER_FLUSH);
  }

  /** Takes everything counted so far (the open minutes too) as one batch, and starts afresh. */
  take(): StatsBatch {
    const minute = Math.floor(this.clock.now() / MINUTE_MS);
    for (const cell of this.requestCells.values()) if (cell.count > 0) cell.roll(minute);
    for (const cell of this.okCells.values()) if (cell.count > 0) cell.roll(minute);
    const batch: StatsBatch = {
      owner: this.owner,
      requests: this.requests,
      outcomes: [...this.outcomes.values()],
      lateness: [...this.lateness.values()],
      failures: this.failures.slice(-FAILURES_PER_FLUSH),
    };
    this.requests = [];
    this.outcomes = new Map();
    this.lateness = new Map();
    this.failures = [];
    return batch;
  }

  /** Puts a batch that could not be written back, to be written with the next one (bounded). */
  giveBack(batch: StatsBatch): void {
    for (const r of batch.requests) this.pendingRequest(r);
    for (const o of batch.outcomes) this.addOutcome(o.minute, o.source, o.subject, o.outcome, o.count);
    for (const l of batch.lateness) {
      const row = this.lateness.get(l.minute);
      if (!row) this.lateness.set(l.minute, l);
      else {
        row.count += l.count;
        row.maxMs = Math.max(row.maxMs, l.maxMs);
        l.buckets.forEach((n, i) => (row.buckets[i] += n));
      }
    }
    this.failures = [...batch.failures, ...this.failures].slice(-FAILURES_PER_FLUSH);
  }
}
