/**
 * Per-minute statistics for the dashboard's overview (`GET /api/stats`).
 *
 * Glossary
 * - Minute: whole minutes since the Unix epoch (`Math.floor(ms / 60000)`), the
 *   key of every row, so both stores sum and compare plain integers.
 * - Owner: the process that counted a row (`host:pid`). Each process adds its
 *   own increments to its own rows, so processes and nodes never contend on a
 *   row; a read sums over owners.
 * - Latency buckets: counts per upper bound of LATENCY_BOUNDS_MS, plus one
 *   past the last bound; percentiles are estimated from them (percentiles.ts).
 */

/** Upper bounds (ms) of the latency buckets: those of src/metrics.ts's histograms, in ms. */
export const LATENCY_BOUNDS_MS = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000] as const;
/** Buckets per histogram: one per bound plus the overflow one. */
export const BUCKETS = LATENCY_BOUNDS_MS.length + 1;

/** A latency histogram of one minute: per-bucket counts and the largest value seen. */
export interface LatencyCounts {
  /** BUCKETS counts. */
  buckets: number[];
  maxMs: number;
}

/** Invocation requests of one (API, route) in one minute. */
export interface RequestMinute extends LatencyCounts {
  minute: number;
  apiId: string;
  method: string;
  path: string;
  count: number;
  /** Answers of 500 and above: function errors, timeouts, crashes, a function's own 5xx. */
  errors: number;
}

/**
 * How many things of one kind ended one way in one minute:
 * `invocation` (subject: the function, outcome: `ok` or an error code),
 * `webhook` and `function` delivery attempts (subject '', outcome `succeeded`, `retrying`, `failed` or `cancelled`).
 */
export interface OutcomeMinute {
  minute: number;
  source: 'invocation' | 'webhook' | 'function';
  subject: string;
  outcome: string;
  count: number;
}

/** Scheduled deliveries' first attempts in one minute: how late they started after their slot. */
export interface LatenessMinute extends LatencyCounts {
  minute: number;
  count: number;
}

/** One recent failure, as the overview lists them. */
export interface RecentFailure {
  /** `invocation` (a request through an API), or a delivery that failed for good to a `webhook` or `function`. */
  source: 'invocation' | 'webhook' | 'function';
  /** The request id of an invocation; the delivery id of a delivery. */
  id: string;
  /** The function name, or the webhook id. */
  subject: string;
  code: string;
  message: string;
  /** ISO time. */
  at: string;
}

/** What one process adds to the store in one flush. */
export interface StatsBatch {
  owner: string;
  requests: RequestMinute[];
  outcomes: OutcomeMinute[];
  lateness: LatenessMinute[];
  failures: RecentFailure[];
}

/** Everything of a window, summed over owners (the store's answer; report.ts shapes it). */
export interface StatsRows {
  requests: RequestMinute[];
  outcomes: OutcomeMinute[];
  lateness: LatenessMinute[];
  failures: RecentFailure[];
}

/** One finished delivery attempt, as the deliveries stream sends it. */
export interface AttemptEvent {
  /** The cursor: increases with every recorded attempt. */
  seq: number;
  deliveryId: string;
  webhookId: string | null;
  functionName: string | null;
  attempt: number;
  /** `succeeded`, `failed` (for good), `retrying` or `cancelled` (by a webhook's transformation). */
  outcome: 'succeeded' | 'failed' | 'retrying' | 'cancelled';
  responseStatus: number | null;
  /** Function targets: `ok` or the invocation's error code. */
  invocationOutcome: string | null;
  error: string | null;
  startedAt: string;
  durationMs: number;
}

/** One delivery attempt about to be recorded, as the engine reports it to the statistics. */
export interface AttemptFacts {
  target: 'webhook' | 'function';
  /** The webhook id, or the function name. */
  subject: string;
  deliveryId: string;
  /** The delivery's status after it: `pending` means it will be retried. */
  status: 'succeeded' | 'failed' | 'pending' | 'cancelled';
  attempt: number;
  startedMs: number;
  /** The slot of a scheduled delivery. */
  scheduledFor: string | null;
  error: string | null;
}
