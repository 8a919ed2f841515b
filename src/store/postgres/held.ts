/**
 * Held deliveries on PostgreSQL (store.ts HeldPart): the deliveries_held index
 * holds each target's held rows by id (publish order); releases lock what
 * they move with SKIP LOCKED, so two nodes releasing at once split the work.
 */
import type { HeldPart } from '../store.js';
import { HELD_BOUND_REASON, RELEASE_CHUNK, SENDABLE } from '../shared/held.js';
import type { PgDb } from './db.js';

/** The held deliveries of $1 a discard takes: $2 events (null: any), created before $3 (null: any). */
const MATCHING = `target = $1 AND status = 'held' AND ($2::text[] IS NULL OR event = ANY($2::text[]))
  AND ($3::timestamptz IS NULL OR created_at < $3)`;

export function pgHeld(deps: { db: PgDb }): HeldPart {
  const { db } = deps;
  return {
    async holdDeliveries(target, now, limit) {
      return db.changes(
        `UPDATE deliveries SET status = 'held'
         WHERE id IN (SELECT id FROM deliveries WHERE target = $1 AND status = 'pending' AND (lease_until IS NULL OR lease_until < $2)
                      LIMIT $3 FOR UPDATE SKIP LOCKED)`,
        [target, now, Math.min(limit, RELEASE_CHUNK)],
      );
    },

    async holdDelivery(id, owner) {
      const n = await db.changes(
        `UPDATE deliveries SET status = 'held', lease_owner = NULL, lease_until = NULL
         WHERE id = $1 AND lease_owner = $2 AND status = 'pending'`,
        [id, owner],
      );
      return n > 0;
    },

    async deferDelivery(id, owner, until) {
      const n = await db.changes(
        `UPDATE deliveries SET lease_owner = NULL, lease_until = NULL, next_attempt_at = GREATEST(next_attempt_at, $3::timestamptz)
         WHERE id = $1 AND lease_owner = $2`,
        [id, owner, until],
      );
      return n > 0;
    },

    async releaseHeld(target, now, limit) {
      return db.changes(
        `UPDATE deliveries SET status = 'pending', next_attempt_at = $2
         WHERE id IN (SELECT id FROM deliveries WHERE target = $1 AND status = 'held' ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)`,
        [target, now, Math.min(limit, RELEASE_CHUNK)],
      );
    },

    async releasableWebhooks(limit) {
      const rows = await db.rows<{ id: string }>(
        `SELECT w.id FROM webhooks w WHERE ${SENDABLE('w')}
           AND EXISTS (SELECT 1 FROM deliveries d WHERE d.target = w.id AND d.status = 'held')
         ORDER BY w.id LIMIT $1`,
        [limit],
      );
      return rows.map((r) => r.id);
    },

    async discardHeld(webhookId, filter, now, reason) {
      return db.changes(`UPDATE deliveries SET status = 'discarded', error = $5, completed_at = $4, next_attempt_at = NULL WHERE ${MATCHING}`, [
        webhookId,
        filter.events ?? null,
        filter.before ?? null,
        now,
        reason,
      ]);
    },

    async countHeldMatching(webhookId, filter) {
      const [row] = await db.rows<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE ${MATCHING}`, [
        webhookId,
        filter.events ?? null,
        filter.before ?? null,
      ]);
      return row.n;
    },

    async trimHeld(max, now) {
      const over = await db.rows<{ target: string; n: number }>(
        `SELECT target, count(*)::int AS n FROM deliveries WHERE status = 'held' GROUP BY target HAVING count(*) > $1`,
        [max],
      );
      const out: Array<{ webhookId: string; discarded: number }> = [];
      for (const { target, n } of over) {
        const discarded = await db.tx(async (c) => {
          const changed = await db.changes(
            `UPDATE deliveries SET status = 'discarded', error = $4, completed_at = $3, next_attempt_at = NULL
             WHERE id IN (SELECT id FROM deliveries WHERE target = $1 AND status = 'held' ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)`,
            [target, n - max, now, HELD_BOUND_REASON],
            c,
          );
          if (changed > 0) {
            const ms = Date.parse(now);
            await c.query(
              `INSERT INTO target_health (key, webhook_id, since, window_start, held_discarded) VALUES ('webhook:' || $1, $1, $2, $2, $3)
               ON CONFLICT (key) DO UPDATE SET held_discarded = target_health.held_discarded + excluded.held_discarded`,
              [target, ms, changed],
            );
          }
          return changed;
        });
        out.push({ webhookId: target, discarded });
      }
      return out;
    },

    async countHeld(webhookIds) {
      if (webhookIds.length === 0) return new Map();
      const rows = await db.rows<{ target: string; n: number }>(
        `SELECT target, count(*)::int AS n FROM deliveries WHERE status = 'held' AND target = ANY($1::text[]) GROUP BY target`,
        [webhookIds],
      );
      return new Map(rows.map((r) => [r.target, r.n]));
    },

    async countHeldDeliveries() {
      const [row] = await db.rows<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE status = 'held'`);
      return row.n;
    },

    async heldByWebhook(limit) {
      const rows = await db.rows<{ target: string; n: number }>(
        `SELECT target, count(*)::int AS n FROM deliveries WHERE status = 'held' GROUP BY target ORDER BY n DESC, target LIMIT $1`,
        [limit],
      );
      return rows.map((r) => [r.target, r.n] as [string, number]);
    },
  };
}
