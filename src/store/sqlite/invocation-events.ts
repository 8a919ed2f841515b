/**
 * The shared table of finished invocations on SQLite (see src/streams/invocations.ts):
 * one transaction per batch, read by id after a cursor, pruned by age.
 */
import type Database from 'better-sqlite3';
import type { InvocationEventRow, StoredInvocationEvent } from '../store.js';

export function prepareInvocationEvents(db: Database.Database) {
  const insert = db.prepare('INSERT INTO invocation_events (origin, function_name, data, created_at) VALUES (?, ?, ?, ?)');
  const after = db.prepare(
    'SELECT id, function_name AS function, data FROM invocation_events WHERE id > ? AND origin <> ? ORDER BY id LIMIT ?',
  );
  const last = db.prepare('SELECT COALESCE(MAX(id), 0) FROM invocation_events').pluck();
  const prune = db.prepare('DELETE FROM invocation_events WHERE created_at < ?');
  const appendAll = db.transaction((origin: string, events: readonly InvocationEventRow[], at: string) => {
    for (const e of events) insert.run(origin, e.function, e.data, at);
  });
  return {
    append: (origin: string, events: readonly InvocationEventRow[]) => appendAll.immediate(origin, events, new Date().toISOString()),
    after: (afterId: number, origin: string, limit: number) => after.all(afterId, origin, limit) as StoredInvocationEvent[],
    last: () => last.get() as number,
    prune: (keepMs: number) => void prune.run(new Date(Date.now() - keepMs).toISOString()),
  };
}
