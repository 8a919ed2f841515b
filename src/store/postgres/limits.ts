/**
 * Shared limits on PostgreSQL: throttles' token buckets and API keys' usage
 * counters (the LimitsPart of ../store.ts), each one statement. An upsert's
 * ON CONFLICT DO UPDATE locks the row and evaluates its WHERE on the newest
 * version, so concurrent takers on every node serialise on the row and never
 * admit past a bucket's tokens or a quota's limit.
 */
import type { LimitsPart } from '../store.js';
import { refillMs } from '../shared/buckets.js';
import { constraintOf, type PgDb } from './db.js';

// As on SQLite: refilled since the last take, capped at the burst (the placeholders of burst, rate and now).
const available = (burst: string, rate: string, now: string) =>
  `LEAST(${burst}::float8, b.tokens + GREATEST(0, ${now}::bigint - b.at_ms) * ${rate}::float8 / 1000.0)`;
// $1 bucket, $2 burst, $3 want, $4 rate, $5 now.
const AVAILABLE = available('$2', '$4', '$5');
const EPSILON = 1e-9;
const WHOLE = `LEAST($3::bigint, floor(${AVAILABLE} + ${EPSILON})::bigint)`;

const TAKE = `INSERT INTO rate_buckets AS b (bucket, tokens, taken, at_ms)
    VALUES ($1, $2::float8 - LEAST($3::bigint, $2::bigint), LEAST($3::bigint, $2::bigint), $5::bigint)
  ON CONFLICT (bucket) DO UPDATE SET tokens = ${AVAILABLE} - ${WHOLE}, taken = ${WHOLE}, at_ms = GREATEST(b.at_ms, $5::bigint)
  WHERE ${AVAILABLE} + ${EPSILON} >= 1
  RETURNING taken`;
const AVAILABLE_NOW = `SELECT ${available('$2', '$3', '$4')} AS available FROM rate_buckets AS b WHERE b.bucket = $1`;

// The day's count rides on the quota's: no day is counted for a request the quota refused.
const COUNT_WITH_QUOTA = `WITH q AS (
    INSERT INTO quota_usage AS u (key_id, period, used) VALUES ($1, $3, 1)
    ON CONFLICT (key_id, period) DO UPDATE SET used = u.used + 1 WHERE u.used < $4::bigint
    RETURNING used)
  INSERT INTO api_key_usage AS d (key_id, day, used) SELECT $1, $2, 1 WHERE EXISTS (SELECT 1 FROM q)
  ON CONFLICT (key_id, day) DO UPDATE SET used = d.used + 1
  RETURNING used`;
const COUNT = `INSERT INTO api_key_usage AS d (key_id, day, used) VALUES ($1, $2, 1)
  ON CONFLICT (key_id, day) DO UPDATE SET used = d.used + 1
  RETURNING used`;

export function pgLimits({ db }: { db: PgDb }): LimitsPart {
  return {
    async takeTokens(bucket, throttle, want, nowMs) {
      const args = [bucket, throttle.burstLimit, want, throttle.rateLimit, nowMs];
      const [row] = await db.rows<{ taken: string }>(TAKE, args);
      const taken = row ? Number(row.taken) : 0;
      if (taken > 0) return { taken, retryAfterMs: 0 };
      const [now] = await db.rows<{ available: number }>(AVAILABLE_NOW, [bucket, throttle.burstLimit, throttle.rateLimit, nowMs]);
      return { taken: 0, retryAfterMs: refillMs(now?.available ?? 0, throttle) };
    },

    async countKeyUse(keyId, day, quota) {
      try {
        const rows = quota === null ? await db.rows(COUNT, [keyId, day]) : await db.rows(COUNT_WITH_QUOTA, [keyId, day, quota.period, quota.limit]);
        return rows.length > 0;
      } catch (err) {
        // The key was deleted meanwhile: nothing to count, and no request of it is admitted.
        if (constraintOf(err) === 'foreign_key') return false;
        throw err;
      }
    },

    async addKeyUses(uses) {
      if (uses.length === 0) return;
      // One statement for the batch; a key deleted since its uses were counted is left out.
      await db.rows(
        `INSERT INTO api_key_usage AS d (key_id, day, used)
           SELECT u.key_id, u.day, u.used FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u (key_id, day, used)
           WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = u.key_id)
         ON CONFLICT (key_id, day) DO UPDATE SET used = d.used + excluded.used`,
        [uses.map((u) => u.keyId), uses.map((u) => u.day), uses.map((u) => u.count)],
      );
    },

    async keyUsage(keyId, from, to) {
      const rows = await db.rows<{ day: string; used: string }>(
        'SELECT day, used FROM api_key_usage WHERE key_id = $1 AND day >= $2 AND day <= $3 ORDER BY day',
        [keyId, from, to],
      );
      return rows.map((r) => ({ day: r.day, used: Number(r.used) }));
    },
  };
}
