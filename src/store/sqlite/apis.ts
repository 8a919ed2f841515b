/**
 * APIs and their routes on SQLite. Route shapes are unique per API and routes
 * reference their function in the schema; the failures become typed errors
 * (shared/errors.ts).
 */
import { newId } from '../../ids.js';
import type { Api, Page, Route } from '../../types.js';
import { apiInUse, routeConflict, routeWriteError } from '../shared/errors.js';
import { checkRoom } from '../shared/limits.js';
import {
  KeptRouteIds,
  apiPolicyColumns,
  corsJson,
  routePolicyJson,
  routePolicyOf,
  toApi,
  type ApiRow,
  type RouteRow,
} from '../shared/rows.js';
import { routeShape, type ApisPart, type NewRoute, type WebhooksPart } from '../store.js';
import { constraintOf, type SqliteDb } from './db.js';

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    insert: p(`INSERT INTO apis (id, name, base_path, cors_json, minimum_compression_size, binary_media_types, policy_json,
        project, created_at, updated_at)
      VALUES (@id, @name, @base_path, @cors_json, @minimum_compression_size, @binary_media_types, @policy_json, @project, @now, @now)`),
    get: p('SELECT * FROM apis WHERE id = ?'),
    list: p('SELECT * FROM apis WHERE id > ? ORDER BY id LIMIT ?'),
    count: p('SELECT COUNT(*) FROM apis').pluck(),
    countRoutesOf: p('SELECT COUNT(*) FROM routes WHERE api_id = ?').pluck(),
    // Same page as list, so one query fetches the routes of every API on it.
    listRoutes: p(`SELECT * FROM routes WHERE api_id IN (SELECT id FROM apis WHERE id > ? ORDER BY id LIMIT ?)
      ORDER BY api_id, position`),
    update: p(`UPDATE apis SET name = @name, base_path = @base_path, cors_json = @cors_json,
      minimum_compression_size = @minimum_compression_size, binary_media_types = @binary_media_types,
      policy_json = @policy_json, project = @project, updated_at = @now WHERE id = @id`),
    touch: p('UPDATE apis SET updated_at = ? WHERE id = ?'),
    delete: p('DELETE FROM apis WHERE id = ?'),
    routesOf: p('SELECT * FROM routes WHERE api_id = ? ORDER BY position'),
    nextRoutePosition: p('SELECT COALESCE(MAX(position), 0) + 1 FROM routes WHERE api_id = ?').pluck(),
    routeByShape: p('SELECT * FROM routes WHERE api_id = ? AND method = ? AND shape = ?'),
    insertRoute: p(`INSERT INTO routes (id, api_id, method, path, shape, function_name, position, policy_json)
      VALUES (@id, @api_id, @method, @path, @shape, @function_name, @position, @policy_json)`),
    deleteRoutesOf: p('DELETE FROM routes WHERE api_id = ?'),
    deleteRoute: p('DELETE FROM routes WHERE id = ? AND api_id = ?'),
  };
}

export function sqliteApis(deps: { db: SqliteDb; webhooks: Pick<WebhooksPart, 'webhooksUsingApi'> }): ApisPart {
  const { db, webhooks } = deps;
  const s = prepare(db);

  /** Inserts one route, turning constraint failures into the errors callers expect. */
  const insertRoute = (apiId: string, route: NewRoute, id: string, position: number, field: string): Route => {
    const shape = routeShape(route.path);
    try {
      s.insertRoute.run({
        id,
        api_id: apiId,
        method: route.method,
        path: route.path,
        shape,
        function_name: route.function,
        position,
        policy_json: routePolicyJson(route),
      });
    } catch (err) {
      const failed = constraintOf(err);
      const other = failed === 'unique' ? (s.routeByShape.get(apiId, route.method, shape) as RouteRow | undefined) : undefined;
      throw other ? routeConflict(route, other) : routeWriteError(err, failed, route, field);
    }
    return { ...routePolicyOf(route), id, method: route.method, path: route.path, function: route.function };
  };

  const loadApi = (id: string): Api | null => {
    const row = s.get.get(id) as ApiRow | undefined;
    return row ? toApi(row, s.routesOf.all(id) as RouteRow[]) : null;
  };

  return {
    async createApi(api) {
      return db.write(() => {
        if (db.limits) {
          checkRoom(db.limits, 'apis', s.count.get() as number);
          checkRoom(db.limits, 'routes', 0, api.routes.length);
        }
        const id = newId('api');
        s.insert.run({ id, name: api.name, base_path: api.basePath, cors_json: corsJson(api.cors), ...apiPolicyColumns(api), now: db.stamp() });
        api.routes.forEach((r, i) => insertRoute(id, r, newId('rt'), i + 1, `routes[${i}].function`));
        return loadApi(id)!;
      });
    },

    async getApi(id) {
      return db.read(() => loadApi(id));
    },

    async listApis(page: Page) {
      return db.read(() => {
        const after = page.after ?? '';
        const apis = s.list.all(after, page.limit) as ApiRow[];
        const byApi = new Map<string, RouteRow[]>(apis.map((a) => [a.id, []]));
        for (const r of s.listRoutes.all(after, page.limit) as RouteRow[]) byApi.get(r.api_id)?.push(r);
        return apis.map((a) => toApi(a, byApi.get(a.id)!));
      });
    },

    async updateApi(id, patch) {
      return db.write(() => {
        const cur = s.get.get(id) as ApiRow | undefined;
        if (!cur) return null;
        if (db.limits && patch.routes) checkRoom(db.limits, 'routes', 0, patch.routes.length);
        s.update.run({
          id,
          name: patch.name ?? cur.name,
          base_path: patch.basePath ?? cur.base_path,
          cors_json: patch.cors === undefined ? cur.cors_json : corsJson(patch.cors),
          ...apiPolicyColumns(patch, cur),
          now: db.stamp(),
        });
        if (patch.routes) {
          const kept = new KeptRouteIds({ old: s.routesOf.all(id) as RouteRow[] });
          s.deleteRoutesOf.run(id);
          patch.routes.forEach((r, i) => insertRoute(id, r, kept.take(r) ?? newId('rt'), i + 1, `routes[${i}].function`));
        }
        return loadApi(id);
      });
    },

    async deleteApi(id) {
      // Routes go with it: ON DELETE CASCADE. Webhooks rendering from one of its
      // routes hold it (no cascade): the delete fails and we name them.
      try {
        return s.delete.run(id).changes > 0;
      } catch (err) {
        if (constraintOf(err) !== 'foreign_key') throw err;
        throw apiInUse(id, await webhooks.webhooksUsingApi(id));
      }
    },

    async addRoute(apiId, route) {
      return db.write(() => {
        if (!s.get.get(apiId)) return null;
        if (db.limits) checkRoom(db.limits, 'routes', s.countRoutesOf.get(apiId) as number);
        const position = s.nextRoutePosition.get(apiId) as number;
        const added = insertRoute(apiId, route, newId('rt'), position, 'function');
        s.touch.run(db.stamp(), apiId);
        return added;
      });
    },

    async deleteRoute(apiId, routeId) {
      return db.write(() => {
        const gone = s.deleteRoute.run(routeId, apiId).changes > 0;
        if (gone) s.touch.run(db.stamp(), apiId);
        return gone;
      });
    },
  };
}
