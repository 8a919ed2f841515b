/**
 * Functions on SQLite: the row, its version history and its trigger tables
 * (function_events, function_schedules), kept in step in one IMMEDIATE
 * transaction per write.
 */
import { wildcardFor } from '../../events/names.js';
import { newId } from '../../ids.js';
import type { FunctionRecord, FunctionVersion, Page } from '../../types.js';
import { functionInUse, functionWriteError } from '../shared/errors.js';
import { checkRoom } from '../shared/limits.js';
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
import { constraintOf, type SqliteDb } from './db.js';

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    insert: p(`INSERT INTO functions (${NEW_FUNCTION_COLUMNS.join(', ')}, version, created_at, updated_at)
      VALUES (${NEW_FUNCTION_COLUMNS.map((c) => `@${c}`).join(', ')}, 1, @now, @now) RETURNING *`),
    forEvent: p(`SELECT * FROM functions WHERE name IN (
        SELECT function_name FROM function_events WHERE event IN (@event, @star)
      ) ORDER BY seq`),
    deleteEvents: p('DELETE FROM function_events WHERE function_name = ?'),
    insertEvent: p('INSERT OR IGNORE INTO function_events (event, function_name) VALUES (?, ?)'),
    deleteSchedules: p('DELETE FROM function_schedules WHERE function_name = ?'),
    insertSchedule: p(`INSERT INTO function_schedules (id, function_name, position, cron, timezone, payload_json, next_fire_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    get: p('SELECT * FROM functions WHERE name = ?'),
    listFirst: p('SELECT * FROM functions ORDER BY seq LIMIT ?'),
    // An unknown `after` makes the subquery NULL, and `seq > NULL` matches nothing.
    listAfter: p('SELECT * FROM functions WHERE seq > (SELECT seq FROM functions WHERE name = ?) ORDER BY seq LIMIT ?'),
    count: p('SELECT COUNT(*) FROM functions').pluck(),
    update: p(`UPDATE functions SET runtime = @runtime, code = @code, compiled = @compiled, env_json = @env_json,
      timeout_ms = @timeout_ms, memory_mb = @memory_mb, handler = @handler, event_format = @event_format, code_sha256 = @code_sha256,
      schedules_json = @schedules_json, events_json = @events_json, async_json = @async_json, project = @project,
      version = version + 1, updated_at = @now
      WHERE name = @name RETURNING *`),
    delete: p('DELETE FROM functions WHERE name = ?'),
    // The version a function write just made, copied from its row by SQL, and the history
    // trimmed to the newest FUNCTION_VERSIONS_KEPT (versions count up by one, so by number).
    // A deleted function's versions go with it (the foreign key cascades).
    insertVersion: p(`INSERT INTO function_versions (function_name, version, runtime, handler, event_format, timeout_ms,
        memory_mb, code_sha256, code_bytes, created_at, code)
      SELECT name, version, runtime, handler, event_format, timeout_ms, memory_mb, code_sha256, length(CAST(code AS BLOB)),
        updated_at, code
      FROM functions WHERE name = ?`),
    trimVersions: p(`DELETE FROM function_versions WHERE function_name = @name AND version <= @version - ${FUNCTION_VERSIONS_KEPT}`),
    listVersions: p(listVersionsSql('?')),
    getVersion: p(`SELECT ${VERSION_SUMMARY_COLUMNS}, code FROM function_versions WHERE function_name = ? AND version = ?`),
    routesUsing: p('SELECT * FROM routes WHERE function_name = ? ORDER BY api_id, position'),
    deleteLogs: p('DELETE FROM function_logs WHERE function_name = ?'),
  };
}

export function sqliteFunctions(deps: { db: SqliteDb; logTrim: LogTrimCounter }): FunctionsPart {
  const { db, logTrim } = deps;
  const s = prepare(db);

  /** Keeps function_events and function_schedules in step with the function's fields. */
  const setTriggers = (name: string, fields: Pick<FunctionPatch, 'events' | 'schedules' | 'scheduleFires'>) => {
    if (fields.events !== undefined) {
      s.deleteEvents.run(name);
      for (const e of fields.events) s.insertEvent.run(e, name);
    }
    if (fields.schedules !== undefined) {
      s.deleteSchedules.run(name);
      fields.schedules.forEach((sch, i) =>
        s.insertSchedule.run(newId('fsch'), name, i, sch.cron, sch.timezone, jsonOrNull(sch.payload), fields.scheduleFires?.[i] ?? null),
      );
    }
  };

  return {
    async createFunction(fn) {
      try {
        return db.write(() => {
          if (db.limits) checkRoom(db.limits, 'functions', s.count.get() as number);
          const row = s.insert.get({ ...newFunctionColumns(fn), now: db.stamp() }) as FunctionRow;
          setTriggers(fn.name, { events: fn.events ?? [], schedules: fn.schedules ?? [], scheduleFires: fn.scheduleFires });
          s.insertVersion.run(fn.name);
          return toFunction(row);
        });
      } catch (err) {
        throw functionWriteError(err, constraintOf(err), fn.name);
      }
    },

    async getFunction(name) {
      const row = s.get.get(name) as FunctionRow | undefined;
      return row ? toFunction(row) : null;
    },

    async listFunctions(page: Page) {
      const rows = (page.after === undefined ? s.listFirst.all(page.limit) : s.listAfter.all(page.after, page.limit)) as FunctionRow[];
      return rows.map(toFunction);
    },

    async updateFunction(name, patch) {
      return db.write(() => {
        const cur = s.get.get(name) as FunctionRow | undefined;
        if (!cur) return null;
        const row = s.update.get({
          name,
          runtime: patch.runtime ?? cur.runtime,
          code: patch.code ?? cur.code,
          compiled: patch.compiled ?? cur.compiled,
          env_json: patch.env !== undefined ? JSON.stringify(patch.env) : cur.env_json,
          timeout_ms: patch.timeoutMs ?? cur.timeout_ms,
          memory_mb: patch.memoryMb ?? cur.memory_mb,
          handler: patch.handler === undefined ? cur.handler : (patch.handler ?? ''),
          event_format: patch.eventFormat ?? cur.event_format,
          schedules_json: patch.schedules !== undefined ? JSON.stringify(patch.schedules) : cur.schedules_json,
          events_json: patch.events !== undefined ? JSON.stringify(patch.events) : cur.events_json,
          async_json: patch.async !== undefined ? jsonOrNull(patch.async) : cur.async_json,
          code_sha256: patch.codeSha256 ?? cur.code_sha256,
          project: patch.project !== undefined ? patch.project : cur.project,
          now: db.stamp(),
        }) as FunctionRow;
        setTriggers(name, patch);
        s.insertVersion.run(name);
        s.trimVersions.run({ name, version: row.version });
        return toFunction(row);
      });
    },

    async deleteFunction(name) {
      const deleted = db.write(() => {
        const routes = s.routesUsing.all(name) as RouteRow[];
        if (routes.length) throw functionInUse(name, routes);
        s.deleteLogs.run(name);
        return s.delete.run(name).changes > 0;
      });
      logTrim.forget(name);
      return deleted;
    },

    async listFunctionVersions(name) {
      return toVersionList(s.listVersions.all(name) as FunctionVersionRow[]);
    },

    async getFunctionVersion(name, version): Promise<FunctionVersion | null> {
      const row = s.getVersion.get(name, version) as (FunctionVersionRow & { code: string }) | undefined;
      return row ? toFunctionVersion(row) : null;
    },

    async functionsForEvent(event): Promise<FunctionRecord[]> {
      return (s.forEvent.all({ event, star: wildcardFor(event) }) as FunctionRow[]).map(toFunction);
    },

    async routesUsingFunction(name) {
      return (s.routesUsing.all(name) as RouteRow[]).map(toBoundRoute);
    },
  };
}
