/**
 * Functions' console lines on SQLite: appended in one transaction per batch,
 * trimmed to the retention now and then (shared/log-trim.ts), read by cursor.
 */
import type { LogTrimCounter } from '../shared/log-trim.js';
import { toLogLine, type LogRow } from '../shared/rows.js';
import type { LogsPart } from '../store.js';
import type { SqliteDb } from './db.js';

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    functionExists: p('SELECT 1 FROM functions WHERE name = ?').pluck(),
    insert: p(`INSERT INTO function_logs (function_name, function_version, time, level, message, request_id)
      VALUES (?, ?, ?, ?, ?, ?)`),
    // Newest `limit` lines, handed back oldest first.
    list: p(`SELECT * FROM (
        SELECT * FROM function_logs WHERE function_name = ? ORDER BY id DESC LIMIT ?
      ) ORDER BY id`),
    listAfter: p('SELECT * FROM function_logs WHERE id > ? ORDER BY id LIMIT ?'),
    listAfterOf: p(`SELECT * FROM function_logs
      WHERE id > ? AND function_name IN (SELECT value FROM json_each(?)) ORDER BY id LIMIT ?`),
    lastId: p('SELECT COALESCE(MAX(id), 0) FROM function_logs').pluck(),
    // Walks the (function_name, id) index from the newest line; NULL (nothing to trim) deletes nothing.
    trim: p(`DELETE FROM function_logs WHERE function_name = @name AND id <= (
        SELECT id FROM function_logs WHERE function_name = @name ORDER BY id DESC LIMIT 1 OFFSET @keep)`),
    prune: p(`DELETE FROM function_logs WHERE id IN (
        SELECT id FROM (
          SELECT id, ROW_NUMBER() OVER (PARTITION BY function_name ORDER BY id DESC) AS rn FROM function_logs
        ) WHERE rn > ?)`),
  };
}

export function sqliteLogs(deps: { db: SqliteDb; logTrim: LogTrimCounter }): LogsPart {
  const { db, logTrim } = deps;
  const s = prepare(db);
  return {
    async appendFunctionLogs(name, lines) {
      if (!lines.length) return;
      db.write(() => {
        // Lines of a function deleted mid-invocation are dropped, so a later function
        // of the same name does not inherit them.
        if (!s.functionExists.get(name)) return;
        for (const l of lines) s.insert.run(name, l.version ?? null, l.time, l.level, l.message, l.requestId);
        if (logTrim.add(name, lines.length)) s.trim.run({ name, keep: logTrim.retention });
      });
    },

    async listFunctionLogs(name, limit) {
      return (s.list.all(name, limit) as LogRow[]).map(toLogLine);
    },

    async listFunctionLogsAfter(afterId, names, limit) {
      const rows = names === null ? s.listAfter.all(afterId, limit) : s.listAfterOf.all(afterId, JSON.stringify(names), limit);
      return (rows as LogRow[]).map(toLogLine);
    },

    async lastFunctionLogId() {
      return s.lastId.get() as number;
    },

    async pruneFunctionLogs(keep) {
      s.prune.run(keep);
    },
  };
}
