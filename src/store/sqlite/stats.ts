/**
 * The per-minute statistics and the delivery attempt feed on SQLite. Each
 * flush is one transaction of additive upserts (a process's rows are its own,
 * see src/stats/types.ts); reads sum over owners. The attempt feed's cursor is
 * the attempts table's rowid: it grows with each insert, and is only ever
 * reused after the newest attempt itself was deleted (every delivery pruned).
 */
import type { StatsBatch, StatsRows } from '../../stats/types.js';
import {
  ATTEMPT_FEED_COLUMNS,
  BUCKET_COLUMNS as B,
  addBuckets,
  toAttemptEvent,
  toFailure,
  toLatenessStats,
  toRequestStats,
  type AttemptEventRow,
} from '../shared/stats-rows.js';
import type { StatsPart } from '../store.js';
import type { SqliteDb } from './db.js';

const sumB = B.map((b) => `SUM(${b}) AS ${b}`).join(', ');
const bucketParams = B.map(() => '?').join(', ');

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    addRequest: p(`INSERT INTO stats_requests (minute, owner, api_id, method, path, count, errors, max_ms, ${B.join(', ')})
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ${bucketParams})
      ON CONFLICT (minute, owner, api_id, method, path) DO UPDATE SET count = stats_requests.count + excluded.count,
        errors = stats_requests.errors + excluded.errors, max_ms = max(stats_requests.max_ms, excluded.max_ms), ${addBuckets('stats_requests')}`),
    addOutcome: p(`INSERT INTO stats_outcomes (minute, owner, source, subject, outcome, count) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (minute, owner, source, subject, outcome) DO UPDATE SET count = stats_outcomes.count + excluded.count`),
    addLateness: p(`INSERT INTO stats_lateness (minute, owner, count, max_ms, ${B.join(', ')})
      VALUES (?, ?, ?, ?, ${bucketParams})
      ON CONFLICT (minute, owner) DO UPDATE SET count = stats_lateness.count + excluded.count,
        max_ms = max(stats_lateness.max_ms, excluded.max_ms), ${addBuckets('stats_lateness')}`),
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
    attemptsAfter: p(`SELECT a.rowid AS seq, ${ATTEMPT_FEED_COLUMNS}
      FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
      WHERE a.rowid > @after AND (@webhook IS NULL OR d.webhook_id = @webhook) AND (@fn IS NULL OR d.function_name = @fn)
      ORDER BY a.rowid LIMIT @limit`),
    lastAttempt: p('SELECT COALESCE(MAX(rowid), 0) FROM delivery_attempts').pluck(),
  };
}

export function sqliteStats(deps: { db: SqliteDb }): StatsPart {
  const { db } = deps;
  const s = prepare(db);
  return {
    async addStats(batch: StatsBatch) {
      db.write(() => {
        for (const r of batch.requests) {
          s.addRequest.run(r.minute, batch.owner, r.apiId, r.method, r.path, r.count, r.errors, r.maxMs, ...r.buckets);
        }
        for (const o of batch.outcomes) s.addOutcome.run(o.minute, batch.owner, o.source, o.subject, o.outcome, o.count);
        for (const l of batch.lateness) s.addLateness.run(l.minute, batch.owner, l.count, l.maxMs, ...l.buckets);
        for (const f of batch.failures) s.addFailure.run(f.at, f.source, f.id, f.subject, f.code, f.message);
      });
    },

    async readStats(from, to, failures): Promise<StatsRows> {
      return db.read(() => ({
        requests: (s.requests.all(from, to) as Array<Record<string, unknown>>).map(toRequestStats),
        outcomes: s.outcomes.all(from, to) as StatsRows['outcomes'],
        lateness: (s.lateness.all(from, to) as Array<Record<string, unknown>>).map(toLatenessStats),
        failures: (s.failures.all(failures) as Array<Record<string, string>>).map(toFailure),
      }));
    },

    async pruneStats(beforeMinute, keepFailures) {
      db.write(() => {
        s.pruneRequests.run(beforeMinute);
        s.pruneOutcomes.run(beforeMinute);
        s.pruneLateness.run(beforeMinute);
        s.pruneFailures.run(keepFailures);
      });
    },

    async listAttemptsAfter(after, filter, limit) {
      const rows = s.attemptsAfter.all({ after, webhook: filter.webhookId ?? null, fn: filter.functionName ?? null, limit });
      return (rows as AttemptEventRow[]).map(toAttemptEvent);
    },

    async lastAttemptSeq() {
      return s.lastAttempt.get() as number;
    },
  };
}
