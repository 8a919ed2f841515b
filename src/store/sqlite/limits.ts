/**
 * Shared limits on SQLite: throttles' token buckets and API keys' usage
 * counters (the LimitsPart of ../store.ts). Every process on the file writes
 * through the same rows, and each take or count is one upsert (a bucket) or
 * one IMMEDIATE transaction (a key's counters), so two processes never both
 * admit the last token or the last request of a quota.
 */
import type { LimitsPart, QuotaWindow } from '../store.js';
import { refillMs } from '../shared/buckets.js';
import { constraintOf, type SqliteDb } from './db.js';

// The tokens a bucket holds at @now: refilled since its last take, capped at the burst.
// A clock that went back (another process's) refills nothing rather than draining.
const AVAILABLE = 'MIN(@burst, tokens + MAX(0, @now - at_ms) * @rate / 1000.0)';
// Whole tokens of a float count: the epsilon keeps 0.9999999 of rounding from refusing a refilled token.
const EPSILON = 1e-9;

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    take: p(`INSERT INTO rate_buckets (bucket, tokens, taken, at_ms)
        VALUES (@bucket, @burst - MIN(@want, @burst), MIN(@want, @burst), @now)
      ON CONFLICT (bucket) DO UPDATE SET
        tokens = ${AVAILABLE} - MIN(@want, CAST(${AVAILABLE} + ${EPSILON} AS INTEGER)),
        taken = MIN(@want, CAST(${AVAILABLE} + ${EPSILON} AS INTEGER)),
        at_ms = MAX(at_ms, @now)
      WHERE ${AVAILABLE} + ${EPSILON} >= 1
      RETURNING taken`),
    available: p(`SELECT ${AVAILABLE} FROM rate_buckets WHERE bucket = @bucket`).pluck(),
    countQuota: p(`INSERT INTO quota_usage (key_id, period, used) VALUES (@key, @period, 1)
      ON CONFLICT (key_id, period) DO UPDATE SET used = used + 1 WHERE used < @limit
      RETURNING used`),
    countDay: p(`INSERT INTO api_key_usage (key_id, day, used) VALUES (?, ?, 1)
      ON CONFLICT (key_id, day) DO UPDATE SET used = used + 1`),
    usage: p('SELECT day, used FROM api_key_usage WHERE key_id = ? AND day >= ? AND day <= ? ORDER BY day'),
    // A key deleted since its uses were counted has nothing left to add to.
    addDay: p(`INSERT INTO api_key_usage (key_id, day, used)
        SELECT @keyId, @day, @count WHERE EXISTS (SELECT 1 FROM api_keys WHERE id = @keyId)
      ON CONFLICT (key_id, day) DO UPDATE SET used = used + excluded.used`),
  };
}

export function sqliteLimits({ db }: { db: SqliteDb }): LimitsPart {
  const s = prepare(db);
  return {
    async takeTokens(bucket, throttle, want, nowMs) {
      const args = { bucket, burst: throttle.burstLimit, rate: throttle.rateLimit, want, now: nowMs };
      const row = s.take.get(args) as { taken: number } | undefined;
      if (row && row.taken > 0) return { taken: row.taken, retryAfterMs: 0 };
      const available = (s.available.get(args) as number | undefined) ?? 0;
      return { taken: 0, retryAfterMs: refillMs(available, throttle) };
    },

    async countKeyUse(keyId: string, day: string, quota: QuotaWindow | null) {
      try {
        return db.write(() => {
          if (quota !== null && s.countQuota.get({ key: keyId, period: quota.period, limit: quota.limit }) === undefined) return false;
          s.countDay.run(keyId, day);
          return true;
        });
      } catch (err) {
        // The key was deleted meanwhile: nothing to count, and no request of it is admitted.
        if (constraintOf(err) === 'foreign_key') return false;
        throw err;
      }
    },

    async addKeyUses(uses) {
      if (uses.length === 0) return;
      db.write(() => {
        for (const use of uses) s.addDay.run(use);
      });
    },

    async keyUsage(keyId, from, to) {
      return s.usage.all(keyId, from, to) as Array<{ day: string; used: number }>;
    },
  };
}
