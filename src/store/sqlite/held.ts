/**
 * Held deliveries on SQLite (store.ts HeldPart): the deliveries_held index
 * holds each target's held rows in insertion (publish) order, so a release,
 * a trim or a count reads only those.
 */
import type { HeldFilter, HeldPart } from '../store.js';
import { HELD_BOUND_REASON, RELEASE_CHUNK, SENDABLE } from '../shared/held.js';
import type { SqliteDb } from './db.js';

/** The held deliveries of @webhook a discard takes (store.ts HeldFilter). */
const MATCHING = `target = @webhook AND status = 'held'
  AND (@events IS NULL OR event IN (SELECT value FROM json_each(@events)))
  AND (@before IS NULL OR created_at < @before)`;

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    holdOf: p(`UPDATE deliveries SET status = 'held'
      WHERE rowid IN (SELECT rowid FROM deliveries INDEXED BY deliveries_pending_by_webhook
        WHERE target = @target AND status = 'pending' AND (lease_until IS NULL OR lease_until < @now) LIMIT @limit)`),
    holdOne: p(`UPDATE deliveries SET status = 'held', lease_owner = NULL, lease_until = NULL
      WHERE id = @id AND lease_owner = @owner AND status = 'pending'`),
    defer: p(`UPDATE deliveries SET lease_owner = NULL, lease_until = NULL,
        next_attempt_at = CASE WHEN next_attempt_at < @until THEN @until ELSE next_attempt_at END
      WHERE id = @id AND lease_owner = @owner`),
    release: p(`UPDATE deliveries SET status = 'pending', next_attempt_at = @now
      WHERE rowid IN (SELECT rowid FROM deliveries INDEXED BY deliveries_held
        WHERE target = @target AND status = 'held' ORDER BY rowid LIMIT @limit)`),
    releasable: p(`SELECT w.id FROM webhooks w WHERE ${SENDABLE('w')}
      AND EXISTS (SELECT 1 FROM deliveries d INDEXED BY deliveries_held WHERE d.target = w.id AND d.status = 'held')
      ORDER BY w.id LIMIT ?`).pluck(),
    discard: p(`UPDATE deliveries SET status = 'discarded', error = @reason, completed_at = @now, next_attempt_at = NULL
      WHERE ${MATCHING}`),
    countMatching: p(`SELECT COUNT(*) FROM deliveries WHERE ${MATCHING}`).pluck(),
    overBound: p(`SELECT target, COUNT(*) AS n FROM deliveries INDEXED BY deliveries_held
      WHERE status = 'held' GROUP BY target HAVING COUNT(*) > ?`).raw(),
    discardOldest: p(`UPDATE deliveries SET status = 'discarded', error = @reason, completed_at = @now, next_attempt_at = NULL
      WHERE rowid IN (SELECT rowid FROM deliveries INDEXED BY deliveries_held
        WHERE target = @target AND status = 'held' ORDER BY rowid LIMIT @limit)`),
    countDiscarded: p(`INSERT INTO target_health (key, webhook_id, since, window_start, held_discarded)
      VALUES ('webhook:' || @webhook, @webhook, @ms, @ms, @n)
      ON CONFLICT (key) DO UPDATE SET held_discarded = held_discarded + excluded.held_discarded`),
    countOf: p(`SELECT COUNT(*) FROM deliveries INDEXED BY deliveries_held WHERE target = ? AND status = 'held'`).pluck(),
    countAll: p(`SELECT COUNT(*) FROM deliveries INDEXED BY deliveries_held WHERE status = 'held'`).pluck(),
    byWebhook: p(`SELECT target, COUNT(*) AS n FROM deliveries INDEXED BY deliveries_held WHERE status = 'held'
      GROUP BY target ORDER BY n DESC, target LIMIT ?`).raw(),
  };
}

const matching = (webhook: string, filter: HeldFilter) => ({
  webhook,
  events: filter.events ? JSON.stringify(filter.events) : null,
  before: filter.before ?? null,
});

export function sqliteHeld(deps: { db: SqliteDb }): HeldPart {
  const { db } = deps;
  const s = prepare(db);
  return {
    async holdDeliveries(target, now, limit) {
      return s.holdOf.run({ target, now, limit: Math.min(limit, RELEASE_CHUNK) }).changes;
    },

    async holdDelivery(id, owner) {
      return s.holdOne.run({ id, owner }).changes > 0;
    },

    async deferDelivery(id, owner, until) {
      return s.defer.run({ id, owner, until }).changes > 0;
    },

    async releaseHeld(target, now, limit) {
      return s.release.run({ target, now, limit: Math.min(limit, RELEASE_CHUNK) }).changes;
    },

    async releasableWebhooks(limit) {
      return s.releasable.all(limit) as string[];
    },

    async discardHeld(webhookId, filter, now, reason) {
      return s.discard.run({ ...matching(webhookId, filter), now, reason }).changes;
    },

    async countHeldMatching(webhookId, filter) {
      return s.countMatching.get(matching(webhookId, filter)) as number;
    },

    async trimHeld(max, now) {
      const over = s.overBound.all(max) as Array<[string, number]>;
      const ms = Date.parse(now);
      return over.map(([webhookId, n]) =>
        db.write(() => {
          const discarded = s.discardOldest.run({ target: webhookId, limit: n - max, now, reason: HELD_BOUND_REASON }).changes;
          if (discarded > 0) s.countDiscarded.run({ webhook: webhookId, ms, n: discarded });
          return { webhookId, discarded };
        }),
      );
    },

    async countHeld(webhookIds) {
      const counts = new Map<string, number>();
      for (const id of webhookIds) {
        const n = s.countOf.get(id) as number;
        if (n > 0) counts.set(id, n);
      }
      return counts;
    },

    async countHeldDeliveries() {
      return s.countAll.get() as number;
    },

    async heldByWebhook(limit) {
      return s.byWebhook.all(limit) as Array<[string, number]>;
    },
  };
}
