/**
 * The shared table of finished invocations on PostgreSQL (see src/streams/invocations.ts):
 * one INSERT per batch, read by id after a cursor, pruned by age.
 */
import type pg from 'pg';
import type { InvocationEventRow, StoredInvocationEvent } from '../store.js';

type Queryable = Pick<pg.Pool, 'query'>;

export async function appendInvocationEvents(db: Queryable, origin: string, events: readonly InvocationEventRow[]): Promise<void> {
  if (events.length === 0) return;
  await db.query(
    `INSERT INTO invocation_events (origin, function_name, data, created_at)
     SELECT $1, e.function_name, e.data, now()
     FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS e (function_name, data, n) ORDER BY e.n`,
    [origin, events.map((e) => e.function), events.map((e) => e.data)],
  );
}

export async function invocationEventsAfter(db: Queryable, afterId: number, origin: string, limit: number): Promise<StoredInvocationEvent[]> {
  const { rows } = await db.query<{ id: string; function: string; data: string }>(
    `SELECT id::text AS id, function_name AS function, data FROM invocation_events
     WHERE id > $1 AND origin <> $2 ORDER BY id LIMIT $3`,
    [afterId, origin, limit],
  );
  return rows.map((r) => ({ id: Number(r.id), function: r.function, data: r.data }));
}

export async function lastInvocationEventId(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ id: string }>('SELECT COALESCE(MAX(id), 0)::text AS id FROM invocation_events');
  return Number(rows[0].id);
}

export async function pruneInvocationEvents(db: Queryable, keepMs: number): Promise<void> {
  await db.query("DELETE FROM invocation_events WHERE created_at < now() - $1 * interval '1 millisecond'", [keepMs]);
}
