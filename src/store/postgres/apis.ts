/**
 * APIs and their routes on PostgreSQL. Route shapes are unique per API and
 * routes reference their function in the schema; the failures become typed
 * errors (shared/errors.ts). A read is one statement (one snapshot), the
 * routes aggregated as a JSON column.
 */
import type pg from 'pg';
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
import { constraintOf, type PgDb, type Queryable } from './db.js';

type ApiWithRoutesRow = ApiRow & { routes: RouteRow[] };

/** The `routes` column for API alias `x`: its routes in position order. */
const routesOfSql = (x: string) =>
  `COALESCE((SELECT json_agg(json_build_object('id', r.id, 'api_id', r.api_id, 'method', r.method, 'path', r.path,
      'shape', r.shape, 'function_name', r.function_name, 'position', r.position, 'policy_json', r.policy_json)
      ORDER BY r.position)
    FROM routes r WHERE r.api_id = ${x}.id), '[]'::json) AS routes`;

const withRoutes = (r: ApiWithRoutesRow): Api => toApi(r, r.routes);

export function pgApis(deps: { db: PgDb; webhooks: Pick<WebhooksPart, 'webhooksUsingApi'> }): ApisPart {
  const { db, webhooks } = deps;

  /**
   * Inserts one route, turning constraint failures into the errors callers expect.
   * Callers hold the API row (inserted or locked), so route writes to one API are serialized.
   */
  const insertRoute = async (c: pg.PoolClient, apiId: string, route: NewRoute, id: string, position: number, field: string): Promise<Route> => {
    const shape = routeShape(route.path);
    let inserted: number;
    try {
      // ON CONFLICT keeps the transaction usable, so the clashing route can be named.
      inserted = await db.changes(
        `INSERT INTO routes (id, api_id, method, path, shape, function_name, position, policy_json)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (api_id, method, shape) DO NOTHING`,
        [id, apiId, route.method, route.path, shape, route.function, position, routePolicyJson(route)],
        c,
      );
    } catch (err) {
      throw routeWriteError(err, constraintOf(err), route, field);
    }
    if (inserted === 0) {
      const [other] = await db.rows<RouteRow>('SELECT * FROM routes WHERE api_id = $1 AND method = $2 AND shape = $3', [apiId, route.method, shape], c);
      throw routeConflict(route, other);
    }
    return { ...routePolicyOf(route), id, method: route.method, path: route.path, function: route.function };
  };

  const loadApi = async (id: string, on: Queryable = db.pool): Promise<Api | null> => {
    const [row] = await db.rows<ApiWithRoutesRow>(`SELECT x.*, ${routesOfSql('x')} FROM apis x WHERE x.id = $1`, [id], on);
    return row ? withRoutes(row) : null;
  };

  return {
    async createApi(api) {
      return db.tx(async (c) => {
        if (db.limits) checkRoom(db.limits, 'routes', 0, api.routes.length);
        await db.checkRoomFor(c, 'apis');
        const id = newId('api');
        const policy = apiPolicyColumns(api);
        await c.query(
          `INSERT INTO apis (id, name, base_path, cors_json, minimum_compression_size, binary_media_types, policy_json,
              created_at, updated_at, project)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9)`,
          [id, api.name, api.basePath, corsJson(api.cors), policy.minimum_compression_size, policy.binary_media_types, policy.policy_json, db.stamp(), policy.project],
        );
        for (const [i, r] of api.routes.entries()) await insertRoute(c, id, r, newId('rt'), i + 1, `routes[${i}].function`);
        return (await loadApi(id, c))!;
      });
    },

    async getApi(id) {
      return loadApi(id);
    },

    async listApis(page: Page) {
      const rows = await db.rows<ApiWithRoutesRow>(
        `SELECT x.*, ${routesOfSql('x')} FROM apis x WHERE x.id > $1 ORDER BY x.id LIMIT $2`,
        [page.after ?? '', page.limit],
      );
      return rows.map(withRoutes);
    },

    async updateApi(id, patch) {
      return db.tx(async (c) => {
        const [cur] = await db.rows<ApiRow>('SELECT * FROM apis WHERE id = $1 FOR UPDATE', [id], c);
        if (!cur) return null;
        if (db.limits && patch.routes) checkRoom(db.limits, 'routes', 0, patch.routes.length);
        const policy = apiPolicyColumns(patch, cur);
        await c.query(
          `UPDATE apis SET name = $2, base_path = $3, cors_json = $4, minimum_compression_size = $5, binary_media_types = $6,
            policy_json = $7, updated_at = $8, project = $9 WHERE id = $1`,
          [
            id,
            patch.name ?? cur.name,
            patch.basePath ?? cur.base_path,
            patch.cors === undefined ? cur.cors_json : corsJson(patch.cors),
            policy.minimum_compression_size,
            policy.binary_media_types,
            policy.policy_json,
            db.stamp(),
            policy.project,
          ],
        );
        if (patch.routes) {
          const kept = new KeptRouteIds({ old: await db.rows<RouteRow>('SELECT * FROM routes WHERE api_id = $1 ORDER BY position', [id], c) });
          await c.query('DELETE FROM routes WHERE api_id = $1', [id]);
          for (const [i, r] of patch.routes.entries()) {
            await insertRoute(c, id, r, kept.take(r) ?? newId('rt'), i + 1, `routes[${i}].function`);
          }
        }
        return loadApi(id, c);
      });
    },

    async deleteApi(id) {
      // Routes go with it: ON DELETE CASCADE. Webhooks rendering from one of its
      // routes hold it (no cascade): the delete fails and we name them.
      try {
        return (await db.changes('DELETE FROM apis WHERE id = $1', [id])) > 0;
      } catch (err) {
        if (constraintOf(err) !== 'foreign_key') throw err;
        throw apiInUse(id, await webhooks.webhooksUsingApi(id));
      }
    },

    async addRoute(apiId, route) {
      return db.tx(async (c) => {
        // Locked first: the position is then read after any concurrent route write to this API committed.
        if ((await db.changes('SELECT 1 FROM apis WHERE id = $1 FOR UPDATE', [apiId], c)) === 0) return null;
        const [{ next, n }] = await db.rows<{ next: number; n: number }>(
          'SELECT COALESCE(MAX(position), 0) + 1 AS next, COUNT(*)::int AS n FROM routes WHERE api_id = $1',
          [apiId],
          c,
        );
        if (db.limits) checkRoom(db.limits, 'routes', n);
        const added = await insertRoute(c, apiId, route, newId('rt'), next, 'function');
        await c.query('UPDATE apis SET updated_at = $2 WHERE id = $1', [apiId, db.stamp()]);
        return added;
      });
    },

    async deleteRoute(apiId, routeId) {
      return db.tx(async (c) => {
        const gone = (await db.changes('DELETE FROM routes WHERE id = $1 AND api_id = $2', [routeId, apiId], c)) > 0;
        if (gone) await c.query('UPDATE apis SET updated_at = $2 WHERE id = $1', [apiId, db.stamp()]);
        return gone;
      });
    },
  };
}
