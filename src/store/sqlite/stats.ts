/**
 * The per-minute statistics and the delivery attempt feed on SQLite. Each
 * flush is one transaction of additive upserts (a process's rows are its own,
 * see src/stats/types.ts); reads sum over owners. The attempt feed's cursor is
 * the attempts table's rowid: it grows with each insert, and is only ever
 * reused after the newest attempt itself was deleted (every delivery pruned).
 */
import type Database from 'better-sqlite3';
import { BUCKETS, type AttemptEvent, type RecentFailure, type StatsBatch, type StatsRows } from '../../stats/types.js';
import { ATTEMPT_COLUMNS } from './webhook-rows.js';

const B = Array.from({ length: BUCKETS }, (_, i) => `b${i}`);
const addB = (table: string) => B.map((b) => `${b} = ${table}.${b} + excluded.${b}`).join(', ');
const sumB = B.map((b) => `SUM(${b}) AS ${b}`).join(', ');

type BucketRow = Record<string, number>;
const bucketsOf = (row: BucketRow) => B.map((b) => row[b]);

export interface AttemptFilter {
  webhookId?: string;
  functionName?: string;
}

export function prepareStats(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  const s = {
    addRequest: p(`INSERT INTO stats_requests (minute, owner, api_id, method, path, count, errors, max_ms, ${B.join(', ')})
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ${B.map(() => '?').join(', ')})
      ON CONFLICT (minute, owner, api_id, method, path) DO UPDATE SET count = stats_requests.count + excluded.count,
        errors = stats_requests.errors + excluded.errors, max_ms = max(stats_requests.max_ms, excluded.max_ms), ${addB('stats_requests')}`),
    addOutcome: p(`INSERT INTO stats_outcomes (minute, owner, source, subject, outcome, count) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (minute, owner, source, subject, outcome) DO UPDATE SET count = stats_outcomes.count + excluded.count`),
    addLateness: p(`INSERT INTO stats_lateness (minute, owner, count, max_ms, ${B.join(', ')})
      VALUES (?, ?, ?, ?, ${B.map(() => '?').join(', ')})
      ON CONFLICT (minute, owner) DO UPDATE SET count = stats_lateness.count + excluded.count,
        max_ms = max(stats_lateness.max_ms, excluded.max_ms), ${addB('stats_lateness')}`),
    addFailure: p('INSERT INTO stats_failures (at, source, ref, subject, code, message) VALUES (?, ?, ?, ?, ?, ?)'),
    requests: p(`SELECT minute, api_id, method, path, SUM(count) AS count, SUM(errors) AS errors, MAX(max_ms) AS max_ms, ${sumB}
      FROM stats_requests WHERE minute BETWEEN ? AND ? GROUP BY minute, api_id, method, path ORDER BY minute`),
    outcomes: p(`SELECT minute, source, subject, outcome, SUM(count) AS count
      FROM stats_outcomes WHERE minute BETWEEN ? AND ? GROUP BY minute, source, subject, outcome ORDER BY minute`),
    lateness: p(`SELECT minute, SUM(count) AS count, MAX(max_ms) AS max_ms, ${sumB}
      FROM stats_lateness WHERE minute BETWEEN ? AND ? GROUP BY minute ORDER BY minute`),
    failures: p('SELECT * FROM stats_failures ORDER BY id DESC LIMIT ?'),
    pruneRequests: p('DELETE FROM stats_requests WHERE minute < ?'),
    pruneOutcomes: p('DELETE FROM stats_outcomes WHERE minute < ?'),
    pruneLateness: p('DELETE FROM stats_lateness WHERE minute < ?'),
    pruneFailures: p('DELETE FROM stats_failures WHERE id <= (SELECT id FROM stats_failures ORDER BY id DESC LIMIT 1 OFFSET ?)'),
    // The attempt's outcome follows from its delivery: the last attempt of a finished
    // delivery carries its status; every other attempt was followed by another try.
    // Named columns, not a.*: response_json (migration 13) holds up to 16 KiB of body the stream never shows.
    attemptsAfter: p(`SELECT a.rowid AS seq, ${STREAM_ATTEMPT_COLUMNS}, d.webhook_id, d.function_name,
        CASE WHEN d.status <> 'pending' AND a.attempt = d.attempt_count THEN d.status ELSE 'retrying' END AS result
      FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
      WHERE a.rowid > @after AND (@webhook IS NULL OR d.webhook_id = @webhook) AND (@fn IS NULL OR d.function_name = @fn)
      ORDER BY a.rowid LIMIT @limit`),
    lastAttempt: p('SELECT COALESCE(MAX(rowid), 0) FROM delivery_attempts').pluck(),
  };
  const addAll = db.transaction((batch: StatsBatch) => {
    for (const r of batch.requests) {
      s.addRequest.run(r.minute, batch.owner, r.apiId, r.method, r.path, r.count, r.errors, r.maxMs, ...r.buckets);
    }
    for (const o of batch.outcomes) s.addOutcome.run(o.minute, batch.owner, o.source, o.subject, o.outcome, o.count);
    for (const l of batch.lateness) s.addLateness.run(l.minute, batch.owner, l.count, l.maxMs, ...l.buckets);
    for (const f of batch.failures) s.addFailure.run(f.at, f.source, f.id, f.subject, f.code, f.message);
  });
  const pruneAll = db.transaction((beforeMinute: number, keepFailures: number) => {
    s.pruneRequests.run(beforeMinute);
    s.pruneOutcomes.run(beforeMinute);
    s.pruneLateness.run(beforeMinute);
    s.pruneFailures.run(keepFailures);
  });
  const readAll = db.transaction((from: number, to: number, failures: number): StatsRows => ({
    requests: (s.requests.all(from, to) as Array<BucketRow & { api_id: string; method: string; path: string }>).map((r) => ({
      minute: r.minute,
      apiId: r.api_id,
      method: r.method,
      path: r.path,
      count: r.count,
      errors: r.errors,
      maxMs: r.max_ms,
      buckets: bucketsOf(r),
    })),
    outcomes: s.outcomes.all(from, to) as StatsRows['outcomes'],
    lateness: (s.lateness.all(from, to) as BucketRow[]).map((r) => ({
      minute: r.minute,
      count: r.count,
      maxMs: r.max_ms,
      buckets: bucketsOf(r),
    })),
    failures: (s.failures.all(failures) as Array<Record<string, string>>).map(toFailure),
  }));
  return {
    add: (batch: StatsBatch) => void addAll(batch),
    prune: (beforeMinute: number, keepFailures: number) => void pruneAll(beforeMinute, keepFailures),
    read: (from: number, to: number, failures: number) => readAll(from, to, failures),
    attemptsAfter(after: number, filter: AttemptFilter, limit: number): AttemptEvent[] {
      const rows = s.attemptsAfter.all({
        after,
        webhook: filter.webhookId ?? null,
        fn: filter.functionName ?? null,
        limit,
      }) as AttemptEventRow[];
      return rows.map(toAttemptEvent);
    },
    lastAttemptSeq: () => s.lastAttempt.get() as number,
  };
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

/** The attempt columns the deliveries stream reads (alias `a`): those of lists, without the response body. */
export const STREAM_ATTEMPT_COLUMNS = ATTEMPT_COLUMNS.split(', ').map((c) => `a.${c}`).join(', ');

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
