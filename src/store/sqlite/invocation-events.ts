/**
 * The shared table of finished invocations on SQLite (see src/streams/invocations.ts):
 * one transaction per batch, read by id after a cursor, pruned by age.
 */
import type { InvocationEventsPart, StoredInvocationEvent } from '../store.js';
import type { SqliteDb } from './db.js';

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    insert: p('INSERT INTO invocation_events (origin, function_name, data, created_at) VALUES (?, ?, ?, ?)'),
    after: p('SELECT id, function_name AS function, data FROM invocation_events WHERE id > ? AND origin <> ? ORDER BY id LIMIT ?'),
    last: p('SELECT COALESCE(MAX(id), 0) FROM invocation_events').pluck(),
    prune: p('DELETE FROM invocation_events WHERE created_at < ?'),
  };
}

export function sqliteInvocationEvents(deps: { db: SqliteDb }): InvocationEventsPart {
  const { db } = deps;
  const s = prepare(db);
  return {
    async appendInvocationEvents(origin, events) {
      if (events.length === 0) return;
      const at = new Date().toISOString();
      db.write(() => {
        for (const e of events) s.insert.run(origin, e.function, e.data, at);
      });
    },

    async listInvocationEventsAfter(afterId, origin, limit) {
      return s.after.all(afterId, origin, limit) as StoredInvocationEvent[];
    },

    async lastInvocationEventId() {
      return s.last.get() as number;
    },

    async pruneInvocationEvents(keepMs) {
      s.prune.run(new Date(Date.now() - keepMs).toISOString());
    },
  };
}
