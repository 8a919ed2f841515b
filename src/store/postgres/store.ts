/**
 * The Store on PostgreSQL (node-postgres pool). Same schema, semantics and
 * typed errors as the SQLite store: constraint failures (23505 unique, 23503
 * foreign key) become ConflictError / UnknownFunctionError here. Where SQLite
 * relies on its single writer, this file locks the row it read before writing
 * (`FOR UPDATE`), or writes in one statement. Webhooks and deliveries, and the
 * shared transaction helpers, live in ./webhooks.ts, the base class.
 */
import type pg from 'pg';
import { ConflictError, UnknownFunctionError, type ResourceLimits } from '../../errors.js';
import { checkRoom } from '../limits.js';
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
import { jsonOrNull, routesOfSql, toApi, toFunction, toLogLine, toRoute } from './rows.js';
import type { FunctionRow, LogRow, PgApiRow, RouteRow } from './rows.js';
import { VERSION_SUMMARY_COLUMNS, toFunctionVersion, type FunctionVersionRow } from '../sqlite/rows.js';
import { FOREIGN_KEY_VIOLATION, UNIQUE_VIOLATION, pgCode, type Queryable } from './db.js';
import { PgWebhookStore } from './webhooks.js';
import { PgChangeFeed } from './changes.js';
import { appendInvocationEvents, invocationEventsAfter, lastInvocationEventId, pruneInvocationEvents } from './invocation-events.js';
import { addStats, attemptsAfter, lastAttemptSeq, pruneStats, readStats } from './stats.js';
import type { AttemptFilter } from '../sqlite/stats.js';
import type { AttemptEvent, StatsBatch, StatsRows } from '../../stats/types.js';

export interface PgStoreOptions {
  /** Lines kept per function; older ones are trimmed as new ones arrive. Unbounded when absent. */
  logRetention?: number;
  /** Clock for created_at/updated_at; tests pass a fake one. */
  now?: () => Date;
  /** Bounds on functions, APIs, webhooks and routes per API; unbounded when absent. */
  limits?: ResourceLimits;
}

/**
 * PostgreSQL TEXT cannot hold U+0000, which SQLite stores happily. Console
 * output is the one place user code puts arbitrary characters into a TEXT
 * column, so it is replaced there rather than failing the invocation's logs.
 */
const noNul = (s: string) => (s.includes('\0') ? s.replaceAll('\0', '\uFFFD') : s);

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

export class PgStore extends PgWebhookStore implements Store {
  readonly kind = 'postgres' as const;
  private readonly logRetention: number | undefined;
  /** Trimming after every append would walk `logRetention` index entries each time; do it every few lines. */
  private readonly trimEvery: number;
  private readonly appendedSinceTrim = new Map<string, number>();
  private closed = false;

  readonly changeFeed: PgChangeFeed;

  constructor(pool: pg.Pool, opts: PgStoreOptions = {}, changes?: PgChangeFeed) {
    super(pool, opts.now, opts.limits ?? null);
    this.changeFeed = changes ?? new PgChangeFeed(pool, {}, null);
    this.logRetention = opts.logRetention;
    this.trimEvery = Math.max(1, Math.floor((opts.logRetention ?? 0) / 10));
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  // ---- statistics

  async addStats(batch: StatsBatch): Promise<void> {
    await this.tx((c) => addStats(c, batch));
  }

  async readStats(from: number, to: number, failures: number): Promise<StatsRows> {
    // One snapshot for the whole answer.
    return this.tx(async (c) => {
      await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      return readStats(c, from, to, failures);
    });
  }

  async pruneStats(beforeMinute: number, keepFailures: number): Promise<void> {
    await this.tx((c) => pruneStats(c, beforeMinute, keepFailures));
  }

  async listAttemptsAfter(afterSeq: number, filter: AttemptFilter, limit: number): Promise<AttemptEvent[]> {
    return attemptsAfter(this.pool, afterSeq, filter, limit);
  }

  async lastAttemptSeq(): Promise<number> {
    return lastAttemptSeq(this.pool);
  }

  // ---- invocation events shared between processes

  async appendInvocationEvents(origin: string, events: readonly InvocationEventRow[]): Promise<void> {
    await appendInvocationEvents(this.pool, origin, events);
  }

  async listInvocationEventsAfter(afterId: number, origin: string, limit: number): Promise<StoredInvocationEvent[]> {
    return invocationEventsAfter(this.pool, afterId, origin, limit);
  }

  async lastInvocationEventId(): Promise<number> {
    return lastInvocationEventId(this.pool);
  }

  async pruneInvocationEvents(keepMs: number): Promise<void> {
    await pruneInvocationEvents(this.pool, keepMs);
  }

  async databaseTime(): Promise<number> {
    // clock_timestamp(), not now(): now() is the start of the transaction.
    const [row] = await this.rows<{ ms: number }>(
      'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms',
    );
    return row!.ms;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  // ---- functions

  /** Keeps function_events and function_schedules in step with the function's fields (inside `c`'s transaction). */
  private async setTriggers(
    c: Queryable,
    name: string,
    fields: Pick<FunctionPatch, 'events' | 'schedules' | 'scheduleFires'>,
  ): Promise<void> {
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
  }

  async createFunction(fn: NewFunction): Promise<FunctionRecord> {
    try {
      const now = this.stamp();
      return await this.tx(async (c) => {
        await this.checkRoomFor(c, 'functions');
        const [row] = await this.rows<FunctionRow>(
          `WITH f AS (INSERT INTO functions
             (name, runtime, code, compiled, env_json, timeout_ms, memory_mb, handler, event_format, version, code_sha256,
              created_at, updated_at, schedules_json, events_json, async_json)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $10, $11, 1, $8, $9, $9, $12, $13, $14) RETURNING *),${ADD_VERSION_SQL}`,
          [
            fn.name,
            fn.runtime,
            fn.code,
            fn.compiled,
            JSON.stringify(fn.env),
            fn.timeoutMs,
            fn.memoryMb,
            fn.codeSha256,
            now,
            fn.handler ?? '',
            fn.eventFormat,
            JSON.stringify(fn.schedules ?? []),
            JSON.stringify(fn.events ?? []),
            jsonOrNull(fn.async),
          ],
          c,
        );
        await this.setTriggers(c, fn.name, { events: fn.events ?? [], schedules: fn.schedules ?? [], scheduleFires: fn.scheduleFires });
        return toFunction(row);
      });
    } catch (err) {
      if (pgCode(err) === UNIQUE_VIOLATION) {
        throw new ConflictError('function_exists', `Function '${fn.name}' already exists`);
      }
      throw err;
    }
  }

  async getFunction(name: string): Promise<FunctionRecord | null> {
    const [row] = await this.rows<FunctionRow>('SELECT * FROM functions WHERE name = $1', [name]);
    return row ? toFunction(row) : null;
  }

  async listFunctions(page: Page): Promise<FunctionRecord[]> {
    const rows =
      page.after === undefined
        ? await this.rows<FunctionRow>('SELECT * FROM functions ORDER BY seq LIMIT $1', [page.limit])
        : // An unknown `after` makes the subquery NULL, and `seq > NULL` matches nothing.
          await this.rows<FunctionRow>(
            'SELECT * FROM functions WHERE seq > (SELECT seq FROM functions WHERE name = $1) ORDER BY seq LIMIT $2',
            [page.after, page.limit],
          );
    return rows.map(toFunction);
  }

  async updateFunction(name: string, patch: FunctionPatch): Promise<FunctionRecord | null> {
    // One statement for the row, so concurrent patches apply one after the other (row lock) and none is lost.
    // Every column but async_json is NOT NULL: a NULL parameter means "not in the patch".
    return this.tx(async (c) => {
      const [row] = await this.rows<FunctionRow>(
        `WITH f AS (UPDATE functions SET runtime = COALESCE($2, runtime), code = COALESCE($3, code), compiled = COALESCE($4, compiled),
           env_json = COALESCE($5, env_json), timeout_ms = COALESCE($6, timeout_ms), memory_mb = COALESCE($7, memory_mb),
           code_sha256 = COALESCE($8, code_sha256), handler = COALESCE($10, handler),
           event_format = COALESCE($11, event_format), schedules_json = COALESCE($12, schedules_json),
           events_json = COALESCE($13, events_json), async_json = CASE WHEN $15 THEN $14 ELSE async_json END,
           version = version + 1, updated_at = $9
         WHERE name = $1 RETURNING *),${ADD_VERSION_SQL}`,
        [
          name,
          patch.runtime ?? null,
          patch.code ?? null,
          patch.compiled ?? null,
          patch.env !== undefined ? JSON.stringify(patch.env) : null,
          patch.timeoutMs ?? null,
          patch.memoryMb ?? null,
          patch.codeSha256 ?? null,
          this.stamp(),
          patch.handler === undefined ? null : (patch.handler ?? ''),
          patch.eventFormat ?? null,
          patch.schedules !== undefined ? JSON.stringify(patch.schedules) : null,
          patch.events !== undefined ? JSON.stringify(patch.events) : null,
          jsonOrNull(patch.async),
          patch.async !== undefined,
        ],
        c,
      );
      if (!row) return null;
      await this.setTriggers(c, name, patch);
      return toFunction(row);
    });
  }

  async deleteFunction(name: string): Promise<boolean> {
    const deleted = await this.tx(async (c) => {
      // The lock makes a concurrent route insert naming this function wait, then fail its foreign key.
      await c.query('SELECT 1 FROM functions WHERE name = $1 FOR UPDATE', [name]);
      const routes = await this.rows<RouteRow>(
        'SELECT * FROM routes WHERE function_name = $1 ORDER BY api_id, position',
        [name],
        c,
      );
      if (routes.length) {
        throw new ConflictError('function_in_use', `Function '${name}' is bound by ${routes.length} route${routes.length === 1 ? '' : 's'}`, {
          routes: routes.map((r) => ({ apiId: r.api_id, id: r.id, method: r.method, path: r.path })),
        });
      }
      await c.query('DELETE FROM function_logs WHERE function_name = $1', [name]);
      return (await this.changes('DELETE FROM functions WHERE name = $1', [name], c)) > 0;
    });
    this.appendedSinceTrim.delete(name);
    return deleted;
  }

  async listFunctionVersions(name: string): Promise<FunctionVersionSummary[] | null> {
    // LEFT JOIN: one statement (one snapshot) tells an unknown function (no row) from its versions.
    const rows = await this.rows<FunctionVersionRow | Record<keyof FunctionVersionRow, null>>(
      `SELECT ${VERSION_SUMMARY_COLUMNS.split(', ').map((c) => `v.${c}`).join(', ')}
       FROM functions f LEFT JOIN function_versions v ON v.function_name = f.name
       WHERE f.name = $1 ORDER BY v.version DESC`,
      [name],
    );
    if (rows.length === 0) return null;
    return rows.filter((r): r is FunctionVersionRow => r.version !== null).map((r) => toFunctionVersion(r));
  }

  async getFunctionVersion(name: string, version: number): Promise<FunctionVersion | null> {
    const [row] = await this.rows<FunctionVersionRow & { code: string }>(
      `SELECT ${VERSION_SUMMARY_COLUMNS}, code FROM function_versions WHERE function_name = $1 AND version = $2`,
      [name, version],
    );
    return row ? toFunctionVersion(row) : null;
  }

  async functionsForEvent(event: string): Promise<FunctionRecord[]> {
    const star = event.startsWith('switchyard.') ? event : '*';
    const rows = await this.rows<FunctionRow>(
      `SELECT * FROM functions WHERE name IN (SELECT function_name FROM function_events WHERE event IN ($1, $2)) ORDER BY seq`,
      [event, star],
    );
    return rows.map(toFunction);
  }

  async routesUsingFunction(name: string): Promise<Array<Route & { apiId: string }>> {
    const rows = await this.rows<RouteRow>('SELECT * FROM routes WHERE function_name = $1 ORDER BY api_id, position', [
      name,
    ]);
    return rows.map((r) => ({ ...toRoute(r), apiId: r.api_id }));
  }

  // ---- function logs

  async appendFunctionLogs(name: string, lines: FunctionLogLine[]): Promise<void> {
    if (!lines.length) return;
    // Lines of a function deleted mid-invocation are dropped, so a later function of the
    // same name does not inherit them: the insert takes nothing from a missing function,
    // and its key-share lock makes it wait for (and then see) a delete in progress.
    const inserted = await this.changes(
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
    if (inserted === 0 || this.logRetention === undefined) return;
    const pending = (this.appendedSinceTrim.get(name) ?? 0) + lines.length;
    if (pending >= this.trimEvery) {
      this.appendedSinceTrim.set(name, 0);
      // Walks the (function_name, id) index from the newest line; NULL (nothing to trim) deletes nothing.
      await this.pool.query(
        `DELETE FROM function_logs WHERE function_name = $1 AND id <= (
           SELECT id FROM function_logs WHERE function_name = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)`,
        [name, this.logRetention],
      );
    } else {
      this.appendedSinceTrim.set(name, pending);
    }
  }

  async listFunctionLogs(name: string, limit: number): Promise<StoredLogLine[]> {
    // Newest `limit` lines, handed back oldest first.
    const rows = await this.rows<LogRow>(
      `SELECT * FROM (
         SELECT * FROM function_logs WHERE function_name = $1 ORDER BY id DESC LIMIT $2
       ) newest ORDER BY id`,
      [name, limit],
    );
    return rows.map(toLogLine);
  }

  async listFunctionLogsAfter(afterId: number, names: readonly string[] | null, limit: number): Promise<StoredLogLine[]> {
    const rows = names === null
      ? await this.rows<LogRow>('SELECT * FROM function_logs WHERE id > $1 ORDER BY id LIMIT $2', [afterId, limit])
      : await this.rows<LogRow>(
          'SELECT * FROM function_logs WHERE id > $1 AND function_name = ANY($3::text[]) ORDER BY id LIMIT $2',
          [afterId, limit, names],
        );
    return rows.map(toLogLine);
  }

  async lastFunctionLogId(): Promise<number> {
    const rows = await this.rows<{ id: string }>('SELECT COALESCE(MAX(id), 0)::text AS id FROM function_logs');
    return Number(rows[0].id);
  }

  async pruneFunctionLogs(keep: number): Promise<void> {
    await this.pool.query(
      `DELETE FROM function_logs WHERE id IN (
         SELECT id FROM (
           SELECT id, ROW_NUMBER() OVER (PARTITION BY function_name ORDER BY id DESC) AS rn FROM function_logs
         ) ranked WHERE rn > $1)`,
      [keep],
    );
  }

  // ---- APIs and routes

  /**
   * Inserts one route, turning constraint failures into the errors callers expect.
   * Callers hold the API row (inserted or locked), so route writes to one API are serialized.
   */
  private async insertRoute(
    c: pg.PoolClient,
    apiId: string,
    route: NewRoute,
    id: string,
    position: number,
    field: string,
  ): Promise<Route> {
    const shape = routeShape(route.path);
    let inserted: number;
    try {
      // ON CONFLICT keeps the transaction usable, so the clashing route can be named.
      inserted = await this.changes(
        `INSERT INTO routes (id, api_id, method, path, shape, function_name, position)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (api_id, method, shape) DO NOTHING`,
        [id, apiId, route.method, route.path, shape, route.function, position],
        c,
      );
    } catch (err) {
      // The API row exists in every caller's transaction, so the only reference that can fail is the function.
      if (pgCode(err) === FOREIGN_KEY_VIOLATION) throw new UnknownFunctionError(route.function, field);
      throw err;
    }
    if (inserted === 0) {
      const [other] = await this.rows<RouteRow>(
        'SELECT * FROM routes WHERE api_id = $1 AND method = $2 AND shape = $3',
        [apiId, route.method, shape],
        c,
      );
      throw new ConflictError(
        'route_conflict',
        other
          ? `${route.method} ${route.path} conflicts with existing route ${other.method} ${other.path}`
          : `${route.method} ${route.path} conflicts with an existing route`,
        other ? { route: other.id } : undefined,
      );
    }
    return { id, method: route.method, path: route.path, function: route.function };
  }

  private async loadApi(id: string, on: Queryable = this.pool): Promise<Api | null> {
    const [row] = await this.rows<PgApiRow>(`SELECT x.*, ${routesOfSql('x')} FROM apis x WHERE x.id = $1`, [id], on);
    return row ? toApi(row) : null;
  }

  async createApi(api: NewApi): Promise<Api> {
    return this.tx(async (c) => {
      if (this.limits) checkRoom(this.limits, 'routes', 0, api.routes.length);
      await this.checkRoomFor(c, 'apis');
      const id = newId('api');
      await c.query('INSERT INTO apis (id, name, base_path, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)', [
        id,
        api.name,
        api.basePath,
        this.stamp(),
      ]);
      for (const [i, r] of api.routes.entries()) {
        await this.insertRoute(c, id, r, newId('rt'), i + 1, `routes[${i}].function`);
      }
      return (await this.loadApi(id, c))!;
    });
  }

  async getApi(id: string): Promise<Api | null> {
    return this.loadApi(id);
  }

  async listApis(page: Page): Promise<Api[]> {
    const rows = await this.rows<PgApiRow>(
      `SELECT x.*, ${routesOfSql('x')} FROM apis x WHERE x.id > $1 ORDER BY x.id LIMIT $2`,
      [page.after ?? '', page.limit],
    );
    return rows.map(toApi);
  }

  async updateApi(id: string, patch: ApiPatch): Promise<Api | null> {
    return this.tx(async (c) => {
      const [cur] = await this.rows<PgApiRow>('SELECT * FROM apis WHERE id = $1 FOR UPDATE', [id], c);
      if (!cur) return null;
      if (this.limits && patch.routes) checkRoom(this.limits, 'routes', 0, patch.routes.length);
      await c.query('UPDATE apis SET name = $2, base_path = $3, updated_at = $4 WHERE id = $1', [
        id,
        patch.name ?? cur.name,
        patch.basePath ?? cur.base_path,
        this.stamp(),
      ]);
      if (patch.routes) {
        // Routes whose method and path survive keep their ids, so links to them stay valid.
        const keep = new Map<string, string>();
        const old = await this.rows<RouteRow>('SELECT * FROM routes WHERE api_id = $1 ORDER BY position', [id], c);
        for (const r of old) keep.set(`${r.method} ${r.path}`, r.id);
        await c.query('DELETE FROM routes WHERE api_id = $1', [id]);
        for (const [i, r] of patch.routes.entries()) {
          const key = `${r.method} ${r.path}`;
          const routeId = keep.get(key) ?? newId('rt');
          keep.delete(key);
          await this.insertRoute(c, id, r, routeId, i + 1, `routes[${i}].function`);
        }
      }
      return this.loadApi(id, c);
    });
  }

  async deleteApi(id: string): Promise<boolean> {
    // Routes go with it: ON DELETE CASCADE. Webhooks rendering from one of its
    // routes hold it (no cascade): the delete fails and we name them.
    try {
      return (await this.changes('DELETE FROM apis WHERE id = $1', [id])) > 0;
    } catch (err) {
      if (pgCode(err) !== FOREIGN_KEY_VIOLATION) throw err;
      const webhooks = await this.webhooksUsingApi(id);
      throw new ConflictError('api_in_use', `API '${id}' is used by ${webhooks.length} webhook(s) as mock_endpoint`, {
        webhooks: webhooks.map((w) => w.id),
      });
    }
  }

  async addRoute(apiId: string, route: NewRoute): Promise<Route | null> {
    return this.tx(async (c) => {
      // Locked first: the position is then read after any concurrent route write to this API committed.
      if ((await this.changes('SELECT 1 FROM apis WHERE id = $1 FOR UPDATE', [apiId], c)) === 0) return null;
      const [{ next, n }] = await this.rows<{ next: number; n: number }>(
        'SELECT COALESCE(MAX(position), 0) + 1 AS next, COUNT(*)::int AS n FROM routes WHERE api_id = $1',
        [apiId],
        c,
      );
      if (this.limits) checkRoom(this.limits, 'routes', n);
      const added = await this.insertRoute(c, apiId, route, newId('rt'), next, 'function');
      await c.query('UPDATE apis SET updated_at = $2 WHERE id = $1', [apiId, this.stamp()]);
      return added;
    });
  }

  async deleteRoute(apiId: string, routeId: string): Promise<boolean> {
    return this.tx(async (c) => {
      const gone = (await this.changes('DELETE FROM routes WHERE id = $1 AND api_id = $2', [routeId, apiId], c)) > 0;
      if (gone) await c.query('UPDATE apis SET updated_at = $2 WHERE id = $1', [apiId, this.stamp()]);
      return gone;
    });
  }
}
