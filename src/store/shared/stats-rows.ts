/**
 * Rows of the per-minute statistics and of the deliveries stream's attempt
 * feed, as both databases return them, and their mapping to src/stats/types.ts.
 * PostgreSQL hands sums and BIGINTs back as text or floats; Number() brings
 * both dialects to the same answer.
 */
import { BUCKETS, type AttemptEvent, type RecentFailure, type StatsRows } from '../../stats/types.js';
import { ATTEMPT_COLUMNS } from './delivery-rows.js';

/** The histogram's bucket columns, b0 to b(BUCKETS-1). */
export const BUCKET_COLUMNS = Array.from({ length: BUCKETS }, (_, i) => `b${i}`);

/** `b0 = table.b0 + excluded.b0, ...`: an upsert adds its buckets to the row's. */
export const addBuckets = (table: string) => BUCKET_COLUMNS.map((b) => `${b} = ${table}.${b} + excluded.${b}`).join(', ');

type BucketRow = Record<string, unknown>;
const bucketsOf = (row: BucketRow) => BUCKET_COLUMNS.map((b) => Number(row[b]));

export function toRequestStats(r: BucketRow): StatsRows['requests'][number] {
  return {
    minute: Number(r.minute),
    apiId: r.api_id as string,
    method: r.method as string,
    path: r.path as string,
    count: Number(r.count),
    errors: Number(r.errors),
    maxMs: Number(r.max_ms),
    buckets: bucketsOf(r),
  };
}

export function toLatenessStats(r: BucketRow): StatsRows['lateness'][number] {
  return { minute: Number(r.minute), count: Number(r.count), maxMs: Number(r.max_ms), buckets: bucketsOf(r) };
}

export function toFailure(r: Record<string, string>): RecentFailure {
  return {
    source: r.source as RecentFailure['source'],
    id: r.ref,
    subject: r.subject,
    code: r.code,
    message: r.message,
    at: typeof r.at === 'string' ? r.at : new Date(r.at as unknown as Date).toISOString(),
  };
}

/**
 * The attempt feed's select list after the cursor column (attempt `a`, its
 * delivery `d`). The attempt's outcome follows from its delivery: the last
 * attempt of a finished delivery carries its status; every other attempt was
 * followed by another try. Named columns, not a.*: response_json holds up to
 * 16 KiB of body the stream never shows.
 */
export const ATTEMPT_FEED_COLUMNS = `${ATTEMPT_COLUMNS.split(', ').map((c) => `a.${c}`).join(', ')}, d.webhook_id, d.function_name,
  CASE WHEN d.status <> 'pending' AND a.attempt = d.attempt_count THEN d.status ELSE 'retrying' END AS result`;

export interface AttemptEventRow {
  seq: number | string;
  delivery_id: string;
  webhook_id: string | null;
  function_name: string | null;
  attempt: number;
  result: string;
  response_status: number | null;
  outcome: string | null;
  error: string | null;
  started_at: string | Date;
  duration_ms: number;
}

export function toAttemptEvent(r: AttemptEventRow): AttemptEvent {
  return {
    seq: Number(r.seq),
    deliveryId: r.delivery_id,
    webhookId: r.webhook_id,
    functionName: r.function_name,
    attempt: r.attempt,
    outcome: r.result as AttemptEvent['outcome'],
    responseStatus: r.response_status,
    invocationOutcome: r.outcome,
    error: r.error,
    startedAt: typeof r.started_at === 'string' ? r.started_at : r.started_at.toISOString(),
    durationMs: r.duration_ms,
  };
}
