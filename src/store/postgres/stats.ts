/**
 * The per-minute statistics and the delivery attempt feed on PostgreSQL. A
 * flush is one transaction of additive upserts, one statement per table
 * (`unnest` of parallel arrays); a process's rows are its own (owner), so
 * flushes of several nodes never wait on each other's rows. Reads sum over
 * owners. The attempt feed's cursor is `delivery_attempts.seq` (migration 10):
 * a sequence value is drawn at insert, so an attempt committed after a later
 * one can be passed over by a stream already beyond it (as function_logs ids).
 */
import type pg from 'pg';
import type { StatsBatch, StatsRows } from '../../stats/types.js';
import {
  ATTEMPT_FEED_COLUMNS,
  BUCKET_COLUMNS as B,
  addBuckets as addB,
  toAttemptEvent,
  toFailure,
  toLatenessStats,
  toRequestStats,
  type AttemptEventRow,
} from '../shared/stats-rows.js';
import type { StatsPart } from '../store.js';
import type { PgDb } from './db.js';

const sumB = B.map((b) => `SUM(${b})::float8 AS ${b}`).join(', ');
/** `$first::bigint[], ...` for the bucket columns. */
const bucketParams = (first: number) => B.map((_, i) => `$${first + i}::bigint[]`).join(', ');
const bucketColumns = (rows: Array<{ buckets: number[] }>) => B.map((_, i) => rows.map((r) => r.buckets[i]));

const ADD_REQUESTS = `INSERT INTO stats_requests (minute, owner, api_id, method, path, count, errors, max_ms, ${B.join(', ')})
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[],
    $8::float8[], ${bucketParams(9)})
  ON CONFLICT (minute, owner, api_id, method, path) DO UPDATE SET count = stats_requests.count + excluded.count,
    errors = stats_requests.errors + excluded.errors, max_ms = GREATEST(stats_requests.max_ms, excluded.max_ms),
    ${addB('stats_requests')}`;
const ADD_OUTCOMES = `INSERT INTO stats_outcomes (minute, owner, source, subject, outcome, count)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[])
  ON CONFLICT (minute, owner, source, subject, outcome) DO UPDATE SET count = stats_outcomes.count + excluded.count`;
const ADD_LATENESS = `INSERT INTO stats_lateness (minute, owner, count, max_ms, ${B.join(', ')})
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::float8[], ${bucketParams(5)})
  ON CONFLICT (minute, owner) DO UPDATE SET count = stats_lateness.count + excluded.count,
    max_ms = GREATEST(stats_lateness.max_ms, excluded.max_ms), ${addB('stats_lateness')}`;
const ADD_FAILURES = `INSERT INTO stats_failures (at, source, ref, subject, code, message)
  SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])`;

async function addStats(c: pg.PoolClient, batch: StatsBatch): Promise<void> {
  const owner = (rows: unknown[]) => rows.map(() => batch.owner);
  const { requests: r, outcomes: o, lateness: l, failures: f } = batch;
  if (r.length > 0) {
    await c.query(ADD_REQUESTS, [
      r.map((x) => x.minute), owner(r), r.map((x) => x.apiId), r.map((x) => x.method), r.map((x) => x.path),
      r.map((x) => x.count), r.map((x) => x.errors), r.map((x) => x.maxMs), ...bucketColumns(r),
    ]);
  }
  if (o.length > 0) {
    await c.query(ADD_OUTCOMES, [
      o.map((x) => x.minute), owner(o), o.map((x) => x.source), o.map((x) => x.subject), o.map((x) => x.outcome),
      o.map((x) => x.count),
    ]);
  }
  if (l.length > 0) {
    await c.query(ADD_LATENESS, [l.map((x) => x.minute), owner(l), l.map((x) => x.count), l.map((x) => x.maxMs), ...bucketColumns(l)]);
  }
  if (f.length > 0) {
    await c.query(ADD_FAILURES, [
      f.map((x) => x.at), f.map((x) => x.source), f.map((x) => x.id), f.map((x) => x.subject), f.map((x) => x.code),
      f.map((x) => x.message),
    ]);
  }
}

export function pgStats(deps: { db: PgDb }): StatsPart {
  const { db } = deps;
  return {
    async addStats(batch) {
      await db.tx((c) => addStats(c, batch));
    },

    async readStats(from, to, failures) {
      // One snapshot for the whole answer.
      return db.tx(async (c) => {
        await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const q = async (sql: string, values: unknown[]) => (await c.query(sql, values)).rows as Array<Record<string, unknown>>;
        const requests = await q(
          `SELECT minute::float8 AS minute, api_id, method, path, SUM(count)::float8 AS count, SUM(errors)::float8 AS errors,
             MAX(max_ms) AS max_ms, ${sumB}
           FROM stats_requests WHERE minute BETWEEN $1 AND $2 GROUP BY minute, api_id, method, path ORDER BY minute`,
          [from, to],
        );
        const outcomes = await q(
          `SELECT minute::float8 AS minute, source, subject, outcome, SUM(count)::float8 AS count
           FROM stats_outcomes WHERE minute BETWEEN $1 AND $2 GROUP BY minute, source, subject, outcome ORDER BY minute`,
          [from, to],
        );
        const lateness = await q(
          `SELECT minute::float8 AS minute, SUM(count)::float8 AS count, MAX(max_ms) AS max_ms, ${sumB}
           FROM stats_lateness WHERE minute BETWEEN $1 AND $2 GROUP BY minute ORDER BY minute`,
          [from, to],
        );
        const recent = await q('SELECT * FROM stats_failures ORDER BY id DESC LIMIT $1', [failures]);
        return {
          requests: requests.map(toRequestStats),
          outcomes: outcomes as unknown as StatsRows['outcomes'],
          lateness: lateness.map(toLatenessStats),
          failures: recent.map((r) => toFailure(r as Record<string, string>)),
        };
      });
    },

    async pruneStats(beforeMinute, keepFailures) {
      await db.tx(async (c) => {
        for (const table of ['stats_requests', 'stats_outcomes', 'stats_lateness']) {
          await c.query(`DELETE FROM ${table} WHERE minute < $1`, [beforeMinute]);
        }
        await c.query('DELETE FROM stats_failures WHERE id <= (SELECT id FROM stats_failures ORDER BY id DESC LIMIT 1 OFFSET $1)', [
          keepFailures,
        ]);
      });
    },

    async listAttemptsAfter(after, filter, limit) {
      const rows = await db.rows<AttemptEventRow>(
        `SELECT a.seq, ${ATTEMPT_FEED_COLUMNS}
         FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
         WHERE a.seq > $1 AND ($2::text IS NULL OR d.webhook_id = $2) AND ($3::text IS NULL OR d.function_name = $3)
         ORDER BY a.seq LIMIT $4`,
        [after, filter.webhookId ?? null, filter.functionName ?? null, limit],
      );
      return rows.map(toAttemptEvent);
    },

    async lastAttemptSeq() {
      const [row] = await db.rows<{ seq: string }>('SELECT COALESCE(MAX(seq), 0)::text AS seq FROM delivery_attempts WHERE seq IS NOT NULL');
      return Number(row.seq);
    },
  };
}
