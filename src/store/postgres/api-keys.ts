/**
 * Usage plans and API keys on PostgreSQL: as on SQLite (sqlite/api-keys.ts),
 * the key's reference to its plan guards both the key's plan and the plan's
 * deletion; each write is one statement.
 */
import { newId } from '../../ids.js';
import type { Page } from '../../types.js';
import { toApiKey, toUsagePlan, unknownUsagePlan, usagePlanColumns, usagePlanInUse, type ApiKeyRow, type UsagePlanRow } from '../shared/key-rows.js';
import type { ApiKeysPart } from '../store.js';
import { constraintOf, type PgDb } from './db.js';

export function pgApiKeys({ db }: { db: PgDb }): ApiKeysPart {
  const plan = async (id: string) => {
    const [row] = await db.rows<UsagePlanRow>('SELECT * FROM usage_plans WHERE id = $1', [id]);
    return row ? toUsagePlan(row) : null;
  };
  const keyWrite = async (usagePlanId: string | null | undefined, sql: string, values: unknown[]) => {
    try {
      const [row] = await db.rows<ApiKeyRow>(sql, values);
      return row ? toApiKey(row) : null;
    } catch (err) {
      if (constraintOf(err) === 'foreign_key') throw unknownUsagePlan(usagePlanId ?? null);
      throw err;
    }
  };
  return {
    async createUsagePlan(input) {
      const c = usagePlanColumns(input);
      const [row] = await db.rows<UsagePlanRow>(
        `INSERT INTO usage_plans (id, name, api_ids_json, throttle_json, quota_json, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING *`,
        [newId('up'), c.name, c.api_ids_json, c.throttle_json, c.quota_json, db.stamp()],
      );
      return toUsagePlan(row!);
    },
    getUsagePlan: plan,
    async listUsagePlans(page: Page) {
      const rows = await db.rows<UsagePlanRow>('SELECT * FROM usage_plans WHERE id > $1 ORDER BY id LIMIT $2', [page.after ?? '', page.limit]);
      return rows.map(toUsagePlan);
    },
    async updateUsagePlan(id, patch) {
      return db.tx(async (c) => {
        const [cur] = await db.rows<UsagePlanRow>('SELECT * FROM usage_plans WHERE id = $1 FOR UPDATE', [id], c);
        if (!cur) return null;
        const cols = usagePlanColumns(patch, toUsagePlan(cur));
        const [row] = await db.rows<UsagePlanRow>(
          `UPDATE usage_plans SET name = $2, api_ids_json = $3, throttle_json = $4, quota_json = $5, updated_at = $6
           WHERE id = $1 RETURNING *`,
          [id, cols.name, cols.api_ids_json, cols.throttle_json, cols.quota_json, db.stamp()],
          c,
        );
        return toUsagePlan(row!);
      });
    },
    async deleteUsagePlan(id) {
      try {
        return (await db.changes('DELETE FROM usage_plans WHERE id = $1', [id])) > 0;
      } catch (err) {
        if (constraintOf(err) !== 'foreign_key') throw err;
        const keys = await db.rows<{ id: string }>('SELECT id FROM api_keys WHERE usage_plan_id = $1 ORDER BY id LIMIT 100', [id]);
        throw usagePlanInUse(
          id,
          keys.map((k) => k.id),
        );
      }
    },
    async createApiKey(input) {
      const key = await keyWrite(
        input.usagePlanId,
        `INSERT INTO api_keys (id, name, prefix, key_hash, enabled, usage_plan_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING *`,
        [newId('key'), input.name, input.prefix, input.hash, input.enabled, input.usagePlanId, db.stamp()],
      );
      return key!;
    },
    async getApiKey(id) {
      const [row] = await db.rows<ApiKeyRow>('SELECT * FROM api_keys WHERE id = $1', [id]);
      return row ? toApiKey(row) : null;
    },
    async listApiKeys(page: Page) {
      const rows = await db.rows<ApiKeyRow>('SELECT * FROM api_keys WHERE id > $1 ORDER BY id LIMIT $2', [page.after ?? '', page.limit]);
      return rows.map(toApiKey);
    },
    async updateApiKey(id, patch) {
      // One statement: each field absent from the patch keeps its value (the flags say which are given).
      return keyWrite(
        patch.usagePlanId,
        `UPDATE api_keys SET name = COALESCE($2, name), enabled = COALESCE($3, enabled),
           usage_plan_id = CASE WHEN $4 THEN $5 ELSE usage_plan_id END, updated_at = $6
         WHERE id = $1 RETURNING *`,
        [id, patch.name ?? null, patch.enabled ?? null, patch.usagePlanId !== undefined, patch.usagePlanId ?? null, db.stamp()],
      );
    },
    async deleteApiKey(id) {
      return (await db.changes('DELETE FROM api_keys WHERE id = $1', [id])) > 0;
    },
    async apiKeyByHash(hash) {
      const [row] = await db.rows<ApiKeyRow & { plan_json: UsagePlanRow | null }>(
        `SELECT k.*, CASE WHEN p.id IS NULL THEN NULL ELSE row_to_json(p) END AS plan_json
         FROM api_keys k LEFT JOIN usage_plans p ON p.id = k.usage_plan_id WHERE k.key_hash = $1`,
        [hash],
      );
      if (!row) return null;
      return { key: toApiKey(row), plan: row.plan_json === null ? null : toUsagePlan(row.plan_json) };
    },
  };
}
