/**
 * Functions on PostgreSQL: the row, its version history and its trigger
 * tables (function_events, function_schedules). A write is one statement for
 * the row and its version (row lock: concurrent patches apply one after the
 * other), then the triggers, in one transaction.
 */
import { wildcardFor } from '../../events/names.js';
import { newId } from '../../ids.js';
import type { FunctionRecord, FunctionVersion, Page } from '../../types.js';
import { functionInUse, functionWriteError } from '../shared/errors.js';
import type { LogTrimCounter } from '../shared/log-trim.js';
import {
  NEW_FUNCTION_COLUMNS,
  VERSION_SUMMARY_COLUMNS,
  jsonOrNull,
  listVersionsSql,
  newFunctionColumns,
  toBoundRoute,
  toFunction,
  toFunctionVersion,
  toVersionList,
  type FunctionRow,
  type FunctionVersionRow,
  type RouteRow,
} from '../shared/rows.js';
import { FUNCTION_VERSIONS_KEPT, type FunctionPatch, type FunctionsPart } from '../store.js';
import { constraintOf, type PgDb, type Queryable } from './db.js';

/**
 * The tail of a function write (`f`: the CTE of its INSERT or UPDATE ... RETURNING *):
 * the version it made, copied into the history, and the history trimmed to the
 * newest FUNCTION_VERSIONS_KEPT, in the same statement. The trim sees the
 * statement's snapshot (without the new row), which only matters for rows it keeps.
 */
const ADD_VERSION_SQL = `
  added AS (
    INSERT INTO function_versions (function_name, version, runtime, handler, event_format, timeout_ms, memory_mb,
      code_sha256, code_bytes, created_at, code)
    SELECT name, version, runtime, handler, event_format, timeout_ms, memory_mb, code_sha256, octet_length(code), updated_at, code
    FROM f
  ),
  trimmed AS (
    DELETE FROM function_versions v USING f
    WHERE v.function_name = f.name AND v.version <= f.version - ${FUNCTION_VERSIONS_KEPT}
  )
  SELECT * FROM f`;

const INSERT_SQL = `WITH f AS (INSERT INTO functions (${NEW_FUNCTION_COLUMNS.join(', ')}, version, created_at, updated_at)
  VALUES (${NEW_FUNCTION_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}, 1, $${NEW_FUNCTION_COLUMNS.length + 1},
    $${NEW_FUNCTION_COLUMNS.length + 1}) RETURNING *),${ADD_VERSION_SQL}`;

// Every column but async_json is NOT NULL: a NULL parameter means "not in the patch".
const UPDATE_SQL = `WITH f AS (UPDATE functions SET runtime = COALESCE($2, runtime), code = COALESCE($3, code), compiled = COALESCE($4, compiled),
    env_json = COALESCE($5, env_json), timeout_ms = COALESCE($6, timeout_ms), memory_mb = COALESCE($7, memory_mb),
    code_sha256 = COALESCE($8, code_sha256), handler = COALESCE($10, handler),
    event_format = COALESCE($11, event_format), schedules_json = COALESCE($12, schedules_json),
    events_json = COALESCE($13, events_json), async_json = CASE WHEN $15 THEN $14 ELSE async_json END,
    project = CASE WHEN $17 THEN $16 ELSE project END,
    version = version + 1, updated_at = $9
  WHERE name = $1 RETURNING *),${ADD_VERSION_SQL}`;

export function pgFunctions(deps: { db: PgDb; logTrim: LogTrimCounter }): FunctionsPart {
  const { db, logTrim } = deps;

  /** Keeps function_events and function_schedules in step with the function's fields (inside `c`'s transaction). */
  const setTriggers = async (c: Queryable, name: string, fields: Pick<FunctionPatch, 'events' | 'schedules' | 'scheduleFires'>) => {
    if (fields.events !== undefined) {
      await c.query('DELETE FROM function_events WHERE function_name = $1', [name]);
      if (fields.events.length > 0) {
        await c.query(
          `INSERT INTO function_events (event, function_name) SELECT DISTINCT e, $2::text FROM unnest($1::text[]) AS e
           ON CONFLICT DO NOTHING`,
          [fields.events, name],
        );
      }
    }
    if (fields.schedules !== undefined) {
      await c.query('DELETE FROM function_schedules WHERE function_name = $1', [name]);
      const list = fields.schedules;
      if (list.length > 0) {
        await c.query(
          `INSERT INTO function_schedules (id, function_name, position, cron, timezone, payload_json, next_fire_at)
           SELECT u.id, $1, u.position, u.cron, u.timezone, u.payload_json, u.next_fire_at
           FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
             AS u(id, position, cron, timezone, payload_json, next_fire_at)`,
          [
            name,
            list.map(() => newId('fsch')),
            list.map((_, i) => i),
            list.map((x) => x.cron),
            list.map((x) => x.timezone),
            list.map((x) => jsonOrNull(x.payload)),
            list.map((_, i) => fields.scheduleFires?.[i] ?? null),
          ],
        );
      }
    }
  };

  return {
    async createFunction(fn) {
      try {
        const now = db.stamp();
        return await db.tx(async (c) => {
          await db.checkRoomFor(c, 'functions');
          const columns = newFunctionColumns(fn);
          const [row] = await db.rows<FunctionRow>(INSERT_SQL, [...NEW_FUNCTION_COLUMNS.map((k) => columns[k]), now], c);
          await setTriggers(c, fn.name, { events: fn.events ?? [], schedules: fn.schedules ?? [], scheduleFires: fn.scheduleFires });
          return toFunction(row);
        });
      } catch (err) {
        throw functionWriteError(err, constraintOf(err), fn.name);
      }
    },

    async getFunction(name) {
      const [row] = await db.rows<FunctionRow>('SELECT * FROM functions WHERE name = $1', [name]);
      return row ? toFunction(row) : null;
    },

    async listFunctions(page: Page) {
      const rows =
        page.after === undefined
          ? await db.rows<FunctionRow>('SELECT * FROM functions ORDER BY seq LIMIT $1', [page.limit])
          : // An unknown `after` makes the subquery NULL, and `seq > NULL` matches nothing.
            await db.rows<FunctionRow>(
              'SELECT * FROM functions WHERE seq > (SELECT seq FROM functions WHERE name = $1) ORDER BY seq LIMIT $2',
              [page.after, page.limit],
            );
      return rows.map(toFunction);
    },

    async updateFunction(name, patch) {
      return db.tx(async (c) => {
        const [row] = await db.rows<FunctionRow>(
          UPDATE_SQL,
          [
            name,
            patch.runtime ?? null,
            patch.code ?? null,
            patch.compiled ?? null,
            patch.env !== undefined ? JSON.stringify(patch.env) : null,
            patch.timeoutMs ?? null,
            patch.memoryMb ?? null,
            patch.codeSha256 ?? null,
            db.stamp(),
            patch.handler === undefined ? null : (patch.handler ?? ''),
            patch.eventFormat ?? null,
            patch.schedules !== undefined ? JSON.stringify(patch.schedules) : null,
            patch.events !== undefined ? JSON.stringify(patch.events) : null,
            jsonOrNull(patch.async),
            patch.async !== undefined,
            patch.project ?? null,
            patch.project !== undefined,
          ],
          c,
        );
        if (!row) return null;
        await setTriggers(c, name, patch);
        return toFunction(row);
      });
    },

    async deleteFunction(name) {
      const deleted = await db.tx(async (c) => {
        // The lock makes a concurrent route insert naming this function wait, then fail its foreign key.
        await c.query('SELECT 1 FROM functions WHERE name = $1 FOR UPDATE', [name]);
        const routes = await db.rows<RouteRow>('SELECT * FROM routes WHERE function_name = $1 ORDER BY api_id, position', [name], c);
        if (routes.length) throw functionInUse(name, routes);
        await c.query('DELETE FROM function_logs WHERE function_name = $1', [name]);
        return (await db.changes('DELETE FROM functions WHERE name = $1', [name], c)) > 0;
      });
      logTrim.forget(name);
      return deleted;
    },

    async listFunctionVersions(name) {
      return toVersionList(await db.rows<FunctionVersionRow>(listVersionsSql('$1'), [name]));
    },

    async getFunctionVersion(name, version): Promise<FunctionVersion | null> {
      const [row] = await db.rows<FunctionVersionRow & { code: string }>(
        `SELECT ${VERSION_SUMMARY_COLUMNS}, code FROM function_versions WHERE function_name = $1 AND version = $2`,
        [name, version],
      );
      return row ? toFunctionVersion(row) : null;
    },

    async functionsForEvent(event): Promise<FunctionRecord[]> {
      const rows = await db.rows<FunctionRow>(
        `SELECT * FROM functions WHERE name IN (SELECT function_name FROM function_events WHERE event IN ($1, $2)) ORDER BY seq`,
        [event, wildcardFor(event)],
      );
      return rows.map(toFunction);
    },

    async routesUsingFunction(name) {
      const rows = await db.rows<RouteRow>('SELECT * FROM routes WHERE function_name = $1 ORDER BY api_id, position', [name]);
      return rows.map(toBoundRoute);
    },
  };
}
