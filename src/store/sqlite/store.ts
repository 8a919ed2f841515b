/**
 * The Store on SQLite (better-sqlite3). Statements are prepared once; methods
 * are async only to match the interface: the driver is synchronous, so a method
 * runs to completion without interleaving with others in this process.
 * Integrity lives in the schema (UNIQUE, FOREIGN KEY); constraint failures are
 * caught here and turned into the typed errors the Store interface promises. * Webhooks and deliveries live in ./webhooks.ts, the base class, which also owns
 * the shared transaction helpers.
 */
import { SqliteChangeFeed } from './changes.js';
import type Database from 'better-sqlite3';
import type { BackgroundCheckpointer } from './checkpointer.js';
import { ConflictError, UnknownFunctionError, type ResourceLimits } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Api, FunctionLogLine, FunctionRecord, FunctionVersion, FunctionVersionSummary, Page, Route, StoredLogLine } from '../../types.js';
import {
  FUNCTION_VERSIONS_KEPT,
  routeShape,
  type ApiPatch,
  type FunctionPatch,
  type InvocationEventRow,
  type NewApi,
  type NewFunction,
  type NewRoute,
  type Store,
  type StoredInvocationEvent,
} from '../store.js';
import { VERSION_SUMMARY_COLUMNS, toApi, toFunction, toFunctionVersion, toLogLine, toRoute } from './rows.js';
import type { ApiRow, FunctionRow, FunctionVersionRow, LogRow, RouteRow } from './rows.js';
import { checkRoom } from '../limits.js';
import { SqliteWebhookStore, sqliteCode } from './webhooks.js';
import { jsonOrNull } from './webhook-rows.js';
import { prepareInvocationEvents } from './invocation-events.js';
import { prepareStats, type AttemptFilter } from './stats.js';
import type { AttemptEvent, StatsBatch, StatsRows } from '../../stats/types.js';

export interface SqliteStoreOptions {
  /** Lines kept per function; older ones are trimmed as new ones arrive. Unbounded when absent. */
  logRetention?: number;
  /** Clock for created_at/updated_at; tests pass a fake one. */
  now?: () => Date;
  /** Bounds on functions, APIs, webhooks and routes per API; unbounded when absent. */
  limits?: ResourceLimits;
}

function prepareAll(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    ping: p('SELECT 1').pluck(),

    insertFunction: p(`INSERT INTO functions
      (name, runtime, code, compiled, env_json, timeout_ms, memory_mb, handler, event_format, schedules_json, events_json,
        async_json, version, code_sha256, created_at, updated_at)
      VALUES (@name, @runtime, @code, @compiled, @env_json, @timeout_ms, @memory_mb, @handler, @event_format, @schedules_json,
        @events_json, @async_json, 1, @code_sha256, @now, @now)
      RETURNING *`),
    functionsForEvent: p(`SELECT * FROM functions WHERE name IN (
        SELECT function_name FROM function_events WHERE event IN (@event, @star)
      ) ORDER BY seq`),
    deleteFunctionEvents: p('DELETE FROM function_events WHERE function_name = ?'),
    insertFunctionEvent: p('INSERT OR IGNORE INTO function_events (event, function_name) VALUES (?, ?)'),
    deleteFunctionSchedules: p('DELETE FROM function_schedules WHERE function_name = ?'),
    insertFunctionSchedule: p(`INSERT INTO function_schedules (id, function_name, position, cron, timezone, payload_json, next_fire_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    getFunction: p('SELECT * FROM functions WHERE name = ?'),
    functionExists: p('SELECT 1 FROM functions WHERE name = ?').pluck(),
    listFunctionsFirst: p('SELECT * FROM functions ORDER BY seq LIMIT ?'),
    // An unknown `after` makes the subquery NULL, and `seq > NULL` matches nothing.
    listFunctionsAfter: p('SELECT * FROM functions WHERE seq > (SELECT seq FROM functions WHERE name = ?) ORDER BY seq LIMIT ?'),
    updateFunction: p(`UPDATE functions SET runtime = @runtime, code = @code, compiled = @compiled, env_json = @env_json,
      timeout_ms = @timeout_ms, memory_mb = @memory_mb, handler = @handler, event_format = @event_format, code_sha256 = @code_sha256,
      schedules_json = @schedules_json, events_json = @events_json, async_json = @async_json,
      version = version + 1, updated_at = @now
      WHERE name = @name RETURNING *`),
    deleteFunction: p('DELETE FROM functions WHERE name = ?'),
    // The version a function write just made, copied from its row by SQL, and the history
    // trimmed to the newest FUNCTION_VERSIONS_KEPT (versions count up by one, so by number).
    // A deleted function's versions go with it (the foreign key cascades).
    insertVersion: p(`INSERT INTO function_versions (function_name, version, runtime, handler, event_format, timeout_ms,
        memory_mb, code_sha256, code_bytes, created_at, code)
      SELECT name, version, runtime, handler, event_format, timeout_ms, memory_mb, code_sha256, length(CAST(code AS BLOB)),
        updated_at, code
      FROM functions WHERE name = ?`),
    trimVersions: p(`DELETE FROM function_versions WHERE function_name = @name AND version <= @version - ${FUNCTION_VERSIONS_KEPT}`),
    // LEFT JOIN: a function with no kept version (none yet) answers one row of NULLs, an unknown one no row.
    listVersions: p(`SELECT ${VERSION_SUMMARY_COLUMNS.split(', ').map((c) => `v.${c}`).join(', ')}
      FROM functions f LEFT JOIN function_versions v ON v.function_name = f.name
      WHERE f.name = ? ORDER BY v.version DESC`),
    getVersion: p(`SELECT ${VERSION_SUMMARY_COLUMNS}, code FROM function_versions WHERE function_name = ? AND version = ?`),
    routesUsingFunction: p('SELECT * FROM routes WHERE function_name = ? ORDER BY api_id, position'),

    insertLog: p(`INSERT INTO function_logs (function_name, function_version, time, level, message, request_id)
      VALUES (?, ?, ?, ?, ?, ?)`),
    // Newest `limit` lines, handed back oldest first.
    listLogs: p(`SELECT * FROM (
        SELECT * FROM function_logs WHERE function_name = ? ORDER BY id DESC LIMIT ?
      ) ORDER BY id`),
    listLogsAfter: p('SELECT * FROM function_logs WHERE id > ? ORDER BY id LIMIT ?'),
    listLogsAfterOf: p(`SELECT * FROM function_logs
      WHERE id > ? AND function_name IN (SELECT value FROM json_each(?)) ORDER BY id LIMIT ?`),
    lastLogId: p('SELECT COALESCE(MAX(id), 0) FROM function_logs').pluck(),
    deleteLogs: p('DELETE FROM function_logs WHERE function_name = ?'),
    // Walks the (function_name, id) index from the newest line; NULL (nothing to trim) deletes nothing.
    trimLogs: p(`DELETE FROM function_logs WHERE function_name = @name AND id <= (
        SELECT id FROM function_logs WHERE function_name = @name ORDER BY id DESC LIMIT 1 OFFSET @keep)`),
    pruneLogs: p(`DELETE FROM function_logs WHERE id IN (
        SELECT id FROM (
          SELECT id, ROW_NUMBER() OVER (PARTITION BY function_name ORDER BY id DESC) AS rn FROM function_logs
        ) WHERE rn > ?)`),

    insertApi: p(`INSERT INTO apis (id, name, base_path, created_at, updated_at) VALUES (@id, @name, @base_path, @now, @now)`),
    getApi: p('SELECT * FROM apis WHERE id = ?'),
    listApis: p('SELECT * FROM apis WHERE id > ? ORDER BY id LIMIT ?'),
    countApis: p('SELECT COUNT(*) FROM apis').pluck(),
    countFunctions: p('SELECT COUNT(*) FROM functions').pluck(),
    countRoutesOfApi: p('SELECT COUNT(*) FROM routes WHERE api_id = ?').pluck(),
    // Same page as listApis, so one query fetches the routes of every API on it.
    listApisRoutes: p(`SELECT * FROM routes WHERE api_id IN (SELECT id FROM apis WHERE id > ? ORDER BY id LIMIT ?)
      ORDER BY api_id, position`),
    updateApi: p('UPDATE apis SET name = @name, base_path = @base_path, updated_at = @now WHERE id = @id'),
    touchApi: p('UPDATE apis SET updated_at = ? WHERE id = ?'),
    deleteApi: p('DELETE FROM apis WHERE id = ?'),

    routesOfApi: p('SELECT * FROM routes WHERE api_id = ? ORDER BY position'),
    nextRoutePosition: p('SELECT COALESCE(MAX(position), 0) + 1 FROM routes WHERE api_id = ?').pluck(),
    routeByShape: p('SELECT * FROM routes WHERE api_id = ? AND method = ? AND shape = ?'),
    insertRoute: p(`INSERT INTO routes (id, api_id, method, path, shape, function_name, position)
      VALUES (@id, @api_id, @method, @path, @shape, @function_name, @position)`),
    deleteRoutesOfApi: p('DELETE FROM routes WHERE api_id = ?'),
    deleteRoute: p('DELETE FROM routes WHERE id = ? AND api_id = ?'),
  };
}

export class SqliteStore extends SqliteWebhookStore implements Store {
  readonly kind = 'sqlite' as const;
  private readonly s: ReturnType<typeof prepareAll>;
  private readonly stats: ReturnType<typeof prepareStats>;
  private readonly invocationEvents: ReturnType<typeof prepareInvocationEvents>;
  private readonly logRetention: number | undefined;
  /** Trimming after every append would walk `logRetention` index entries each time; do it every few lines. */
  private readonly trimEvery: number;
  private readonly appendedSinceTrim = new Map<string, number>();

  readonly changeFeed: SqliteChangeFeed;

  constructor(
    db: Database.Database,
    opts: SqliteStoreOptions = {},
    /** Checkpoints the WAL off the event loop (a file database); stopped before the database closes. */
    private readonly checkpointer?: BackgroundCheckpointer,
  ) {
    super(db, opts.now, opts.limits ?? null);
    this.changeFeed = new SqliteChangeFeed(db);
    this.s = prepareAll(db);
    this.stats = prepareStats(db);
    this.invocationEvents = prepareInvocationEvents(db);
    this.logRetention = opts.logRetention;
    this.trimEvery = Math.max(1, Math.floor((opts.logRetention ?? 0) / 10));
  }

  async ping(): Promise<void> {
    this.s.ping.get();
  }

  // ---- statistics

  async addStats(batch: StatsBatch): Promise<void> {
    this.stats.add(batch);
  }

  async readStats(from: number, to: number, failures: number): Promise<StatsRows> {
    return this.stats.read(from, to, failures);
  }

  async pruneStats(beforeMinute: number, keepFailures: number): Promise<void> {
    this.stats.prune(beforeMinute, keepFailures);
  }

  async listAttemptsAfter(afterSeq: number, filter: AttemptFilter, limit: number): Promise<AttemptEvent[]> {
    return this.stats.attemptsAfter(afterSeq, filter, limit);
  }

  async lastAttemptSeq(): Promise<number> {
    return this.stats.lastAttemptSeq();
  }

  // ---- invocation events shared between processes

  async appendInvocationEvents(origin: string, events: readonly InvocationEventRow[]): Promise<void> {
    if (events.length > 0) this.invocationEvents.append(origin, events);
  }

  async listInvocationEventsAfter(afterId: number, origin: string, limit: number): Promise<StoredInvocationEvent[]> {
    return this.invocationEvents.after(afterId, origin, limit);
  }

  async lastInvocationEventId(): Promise<number> {
    return this.invocationEvents.last();
  }

  async pruneInvocationEvents(keepMs: number): Promise<void> {
    this.invocationEvents.prune(keepMs);
  }

  async databaseTime(): Promise<number> {
    // SQLite has no server: every process on the file shares this machine's clock.
    return Date.now();
  }

  async close(): Promise<void> {
    await this.checkpointer?.stop();
    if (this.db.open) this.db.close();
  }

  // ---- functions

  /** Keeps function_events and function_schedules in step with the function's fields. */
  private setTriggers(name: string, fields: Pick<FunctionPatch, 'events' | 'schedules' | 'scheduleFires'>): void {
    if (fields.events !== undefined) {
      this.s.deleteFunctionEvents.run(name);
      for (const e of fields.events) this.s.insertFunctionEvent.run(e, name);
    }
    if (fields.schedules !== undefined) {
      this.s.deleteFunctionSchedules.run(name);
      fields.schedules.forEach((sch, i) =>
        this.s.insertFunctionSchedule.run(
          newId('fsch'),
          name,
          i,
          sch.cron,
          sch.timezone,
          jsonOrNull(sch.payload),
          fields.scheduleFires?.[i] ?? null,
        ),
      );
    }
  }

  async createFunction(fn: NewFunction): Promise<FunctionRecord> {
    try {
      return this.write(() => {
      if (this.limits) checkRoom(this.limits, 'functions', this.s.countFunctions.get() as number);
      const row = this.s.insertFunction.get({
        name: fn.name,
        runtime: fn.runtime,
        code: fn.code,
        compiled: fn.compiled,
        env_json: JSON.stringify(fn.env),
        timeout_ms: fn.timeoutMs,
        memory_mb: fn.memoryMb,
        handler: fn.handler ?? '',
        event_format: fn.eventFormat,
        schedules_json: JSON.stringify(fn.schedules ?? []),
        events_json: JSON.stringify(fn.events ?? []),
        async_json: jsonOrNull(fn.async),
        code_sha256: fn.codeSha256,
        now: this.stamp(),
      }) as FunctionRow;
      this.setTriggers(fn.name, { events: fn.events ?? [], schedules: fn.schedules ?? [], scheduleFires: fn.scheduleFires });
      this.s.insertVersion.run(fn.name);
      return toFunction(row);
      });
    } catch (err) {
      if (sqliteCode(err) === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw new ConflictError('function_exists', `Function '${fn.name}' already exists`);
      }
      throw err;
    }
  }

  async getFunction(name: string): Promise<FunctionRecord | null> {
    const row = this.s.getFunction.get(name) as FunctionRow | undefined;
    return row ? toFunction(row) : null;
  }

  async listFunctions(page: Page): Promise<FunctionRecord[]> {
    const rows = (
      page.after === undefined
        ? this.s.listFunctionsFirst.all(page.limit)
        : this.s.listFunctionsAfter.all(page.after, page.limit)
    ) as FunctionRow[];
    return rows.map(toFunction);
  }

  async updateFunction(name: string, patch: FunctionPatch): Promise<FunctionRecord | null> {
    return this.write(() => {
      const cur = this.s.getFunction.get(name) as FunctionRow | undefined;
      if (!cur) return null;
      const row = this.s.updateFunction.get({
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
        now: this.stamp(),
      }) as FunctionRow;
      this.setTriggers(name, patch);
      this.s.insertVersion.run(name);
      this.s.trimVersions.run({ name, version: row.version });
      return toFunction(row);
    });
  }

  async deleteFunction(name: string): Promise<boolean> {
    const deleted = this.write(() => {
      const routes = this.s.routesUsingFunction.all(name) as RouteRow[];
      if (routes.length) {
        throw new ConflictError('function_in_use', `Function '${name}' is bound by ${routes.length} route${routes.length === 1 ? '' : 's'}`, {
          routes: routes.map((r) => ({ apiId: r.api_id, id: r.id, method: r.method, path: r.path })),
        });
      }
      this.s.deleteLogs.run(name);
      return this.s.deleteFunction.run(name).changes > 0;
    });
    this.appendedSinceTrim.delete(name);
    return deleted;
  }

  async listFunctionVersions(name: string): Promise<FunctionVersionSummary[] | null> {
    const rows = this.s.listVersions.all(name) as Array<FunctionVersionRow | Record<keyof FunctionVersionRow, null>>;
    if (rows.length === 0) return null;
    return rows.filter((r): r is FunctionVersionRow => r.version !== null).map((r) => toFunctionVersion(r));
  }

  async getFunctionVersion(name: string, version: number): Promise<FunctionVersion | null> {
    const row = this.s.getVersion.get(name, version) as (FunctionVersionRow & { code: string }) | undefined;
    return row ? toFunctionVersion(row) : null;
  }

  async functionsForEvent(event: string): Promise<FunctionRecord[]> {
    const star = event.startsWith('switchyard.') ? event : '*';
    return (this.s.functionsForEvent.all({ event, star }) as FunctionRow[]).map(toFunction);
  }

  async routesUsingFunction(name: string): Promise<Array<Route & { apiId: string }>> {
    const rows = this.s.routesUsingFunction.all(name) as RouteRow[];
    return rows.map((r) => ({ ...toRoute(r), apiId: r.api_id }));
  }

  // ---- function logs

  async appendFunctionLogs(name: string, lines: FunctionLogLine[]): Promise<void> {
    if (!lines.length) return;
    this.write(() => {
      // Lines of a function deleted mid-invocation are dropped, so a later function
      // of the same name does not inherit them.
      if (!this.s.functionExists.get(name)) return;
      for (const l of lines) this.s.insertLog.run(name, l.version ?? null, l.time, l.level, l.message, l.requestId);
      if (this.logRetention === undefined) return;
      const pending = (this.appendedSinceTrim.get(name) ?? 0) + lines.length;
      if (pending >= this.trimEvery) {
        this.s.trimLogs.run({ name, keep: this.logRetention });
        this.appendedSinceTrim.set(name, 0);
      } else {
        this.appendedSinceTrim.set(name, pending);
      }
    });
  }

  async listFunctionLogs(name: string, limit: number): Promise<StoredLogLine[]> {
    return (this.s.listLogs.all(name, limit) as LogRow[]).map(toLogLine);
  }

  async listFunctionLogsAfter(afterId: number, names: readonly string[] | null, limit: number): Promise<StoredLogLine[]> {
    const rows = names === null
      ? this.s.listLogsAfter.all(afterId, limit)
      : this.s.listLogsAfterOf.all(afterId, JSON.stringify(names), limit);
    return (rows as LogRow[]).map(toLogLine);
  }

  async lastFunctionLogId(): Promise<number> {
    return this.s.lastLogId.get() as number;
  }

  async pruneFunctionLogs(keep: number): Promise<void> {
    this.s.pruneLogs.run(keep);
  }

  // ---- APIs and routes

  /** Inserts one route, turning constraint failures into the errors callers expect. */
  private insertRoute(apiId: string, route: NewRoute, id: string, position: number, field: string): Route {
    const shape = routeShape(route.path);
    try {
      this.s.insertRoute.run({
        id,
        api_id: apiId,
        method: route.method,
        path: route.path,
        shape,
        function_name: route.function,
        position,
      });
    } catch (err) {
      const code = sqliteCode(err);
      // The API row exists in every caller's transaction, so the only reference that can fail is the function.
      if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw new UnknownFunctionError(route.function, field);
      if (code === 'SQLITE_CONSTRAINT_UNIQUE') {
        const other = this.s.routeByShape.get(apiId, route.method, shape) as RouteRow | undefined;
        if (other) {
          throw new ConflictError(
            'route_conflict',
            `${route.method} ${route.path} conflicts with existing route ${other.method} ${other.path}`,
            { route: other.id },
          );
        }
      }
      throw err;
    }
    return { id, method: route.method, path: route.path, function: route.function };
  }

  private loadApi(id: string): Api | null {
    const row = this.s.getApi.get(id) as ApiRow | undefined;
    return row ? toApi(row, this.s.routesOfApi.all(id) as RouteRow[]) : null;
  }

  async createApi(api: NewApi): Promise<Api> {
    return this.write(() => {
      if (this.limits) {
        checkRoom(this.limits, 'apis', this.s.countApis.get() as number);
        checkRoom(this.limits, 'routes', 0, api.routes.length);
      }
      const id = newId('api');
      this.s.insertApi.run({ id, name: api.name, base_path: api.basePath, now: this.stamp() });
      api.routes.forEach((r, i) => this.insertRoute(id, r, newId('rt'), i + 1, `routes[${i}].function`));
      return this.loadApi(id)!;
    });
  }

  async getApi(id: string): Promise<Api | null> {
    return this.read(() => this.loadApi(id));
  }

  async listApis(page: Page): Promise<Api[]> {
    return this.read(() => {
      const after = page.after ?? '';
      const apis = this.s.listApis.all(after, page.limit) as ApiRow[];
      const byApi = new Map<string, RouteRow[]>(apis.map((a) => [a.id, []]));
      for (const r of this.s.listApisRoutes.all(after, page.limit) as RouteRow[]) byApi.get(r.api_id)?.push(r);
      return apis.map((a) => toApi(a, byApi.get(a.id)!));
    });
  }

  async updateApi(id: string, patch: ApiPatch): Promise<Api | null> {
    return this.write(() => {
      const cur = this.s.getApi.get(id) as ApiRow | undefined;
      if (!cur) return null;
      if (this.limits && patch.routes) checkRoom(this.limits, 'routes', 0, patch.routes.length);
      this.s.updateApi.run({
        id,
        name: patch.name ?? cur.name,
        base_path: patch.basePath ?? cur.base_path,
        now: this.stamp(),
      });
      if (patch.routes) {
        // Routes whose method and path survive keep their ids, so links to them stay valid.
        const keep = new Map<string, string>();
        for (const r of this.s.routesOfApi.all(id) as RouteRow[]) keep.set(`${r.method} ${r.path}`, r.id);
        this.s.deleteRoutesOfApi.run(id);
        patch.routes.forEach((r, i) => {
          const key = `${r.method} ${r.path}`;
          const routeId = keep.get(key) ?? newId('rt');
          keep.delete(key);
          this.insertRoute(id, r, routeId, i + 1, `routes[${i}].function`);
        });
      }
      return this.loadApi(id);
    });
  }

  async deleteApi(id: string): Promise<boolean> {
    // Routes go with it: ON DELETE CASCADE. Webhooks rendering from one of its
    // routes hold it (no cascade): the delete fails and we name them.
    try {
      return this.s.deleteApi.run(id).changes > 0;
    } catch (err) {
      if (sqliteCode(err) !== 'SQLITE_CONSTRAINT_FOREIGNKEY') throw err;
      const webhooks = await this.webhooksUsingApi(id);
      throw new ConflictError(
        'api_in_use',
        `API '${id}' is used by ${webhooks.length} webhook(s) as mock_endpoint`,
        { webhooks: webhooks.map((w) => w.id) },
      );
    }
  }

  async addRoute(apiId: string, route: NewRoute): Promise<Route | null> {
    return this.write(() => {
      if (!this.s.getApi.get(apiId)) return null;
      if (this.limits) checkRoom(this.limits, 'routes', this.s.countRoutesOfApi.get(apiId) as number);
      const position = this.s.nextRoutePosition.get(apiId) as number;
      const added = this.insertRoute(apiId, route, newId('rt'), position, 'function');
      this.s.touchApi.run(this.stamp(), apiId);
      return added;
    });
  }

  async deleteRoute(apiId: string, routeId: string): Promise<boolean> {
    return this.write(() => {
      const gone = this.s.deleteRoute.run(routeId, apiId).changes > 0;
      if (gone) this.s.touchApi.run(this.stamp(), apiId);
      return gone;
    });
  }
}
