/**
 * The shared table of finished invocations on PostgreSQL (see src/streams/invocations.ts):
 * one INSERT per batch, read by id after a cursor, pruned by age (the database's clock).
 */
import type { InvocationEventsPart } from '../store.js';
import type { PgDb } from './db.js';

export function pgInvocationEvents(deps: { db: PgDb }): InvocationEventsPart {
  const { db } = deps;
  return {
    async appendInvocationEvents(origin, events) {
      if (events.length === 0) return;
      await db.pool.query(
        `INSERT INTO invocation_events (origin, function_name, data, created_at)
         SELECT $1, e.function_name, e.data, now()
         FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS e (function_name, data, n) ORDER BY e.n`,
        [origin, events.map((e) => e.function), events.map((e) => e.data)],
      );
    },

    async listInvocationEventsAfter(afterId, origin, limit) {
      const rows = await db.rows<{ id: string; function: string; data: string }>(
        `SELECT id::text AS id, function_name AS function, data FROM invocation_events
         WHERE id > $1 AND origin <> $2 ORDER BY id LIMIT $3`,
        [afterId, origin, limit],
      );
      return rows.map((r) => ({ id: Number(r.id), function: r.function, data: r.data }));
    },

    async lastInvocationEventId() {
      const [row] = await db.rows<{ id: string }>('SELECT COALESCE(MAX(id), 0)::text AS id FROM invocation_events');
      return Number(row.id);
    },

    async pruneInvocationEvents(keepMs) {
      await db.pool.query("DELETE FROM invocation_events WHERE created_at < now() - $1 * interval '1 millisecond'", [keepMs]);
    },
  };
}
