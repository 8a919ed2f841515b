/**
 * Functions' console lines on PostgreSQL: appended in one statement per
 * batch, trimmed to the retention now and then (shared/log-trim.ts), read by
 * cursor.
 */
import type { LogTrimCounter } from '../shared/log-trim.js';
import { toLogLine, type LogRow } from '../shared/rows.js';
import type { LogsPart } from '../store.js';
import type { PgDb } from './db.js';

/**
 * PostgreSQL TEXT cannot hold U+0000, which SQLite stores happily. Console
 * output is the one place user code puts arbitrary characters into a TEXT
 * column, so it is replaced there rather than failing the invocation's logs.
 */
const noNul = (s: string) => (s.includes('\0') ? s.replaceAll('\0', '\uFFFD') : s);

export function pgLogs(deps: { db: PgDb; logTrim: LogTrimCounter }): LogsPart {
  const { db, logTrim } = deps;
  return {
    async appendFunctionLogs(name, lines) {
      if (!lines.length) return;
      // Lines of a function deleted mid-invocation are dropped, so a later function of the
      // same name does not inherit them: the insert takes nothing from a missing function,
      // and its key-share lock makes it wait for (and then see) a delete in progress.
      const inserted = await db.changes(
        `WITH f AS (SELECT name FROM functions WHERE name = $1 FOR KEY SHARE)
         INSERT INTO function_logs (function_name, function_version, time, level, message, request_id)
         SELECT f.name, l.version, l.time, l.level, l.message, l.request_id
         FROM f CROSS JOIN unnest($2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::int[])
           WITH ORDINALITY AS l (time, level, message, request_id, version, n)
         ORDER BY l.n`,
        [
          name,
          lines.map((l) => l.time),
          lines.map((l) => l.level),
          lines.map((l) => noNul(l.message)),
          lines.map((l) => (l.requestId === null ? null : noNul(l.requestId))),
          lines.map((l) => l.version ?? null),
        ],
      );
      if (inserted === 0 || !logTrim.add(name, lines.length)) return;
      // Walks the (function_name, id) index from the newest line; NULL (nothing to trim) deletes nothing.
      await db.pool.query(
        `DELETE FROM function_logs WHERE function_name = $1 AND id <= (
           SELECT id FROM function_logs WHERE function_name = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)`,
        [name, logTrim.retention],
      );
    },

    async listFunctionLogs(name, limit) {
      // Newest `limit` lines, handed back oldest first.
      const rows = await db.rows<LogRow>(
        `SELECT * FROM (
           SELECT * FROM function_logs WHERE function_name = $1 ORDER BY id DESC LIMIT $2
         ) newest ORDER BY id`,
        [name, limit],
      );
      return rows.map(toLogLine);
    },

    async listFunctionLogsAfter(afterId, names, limit) {
      const rows =
        names === null
          ? await db.rows<LogRow>('SELECT * FROM function_logs WHERE id > $1 ORDER BY id LIMIT $2', [afterId, limit])
          : await db.rows<LogRow>(
              'SELECT * FROM function_logs WHERE id > $1 AND function_name = ANY($3::text[]) ORDER BY id LIMIT $2',
              [afterId, limit, names],
            );
      return rows.map(toLogLine);
    },

    async lastFunctionLogId() {
      const rows = await db.rows<{ id: string }>('SELECT COALESCE(MAX(id), 0)::text AS id FROM function_logs');
      return Number(rows[0].id);
    },

    async pruneFunctionLogs(keep) {
      await db.pool.query(
        `DELETE FROM function_logs WHERE id IN (
           SELECT id FROM (
             SELECT id, ROW_NUMBER() OVER (PARTITION BY function_name ORDER BY id DESC) AS rn FROM function_logs
           ) ranked WHERE rn > $1)`,
        [keep],
      );
    },
  };
}
