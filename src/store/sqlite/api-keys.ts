/**
 * Usage plans and API keys on SQLite. A key references its plan, so a plan
 * with keys cannot go and a key cannot name a missing plan; both failures
 * become typed errors (shared/key-rows.ts).
 */
import { newId } from '../../ids.js';
import type { Page } from '../../types.js';
import { toApiKey, toUsagePlan, unknownUsagePlan, usagePlanColumns, usagePlanInUse, type ApiKeyRow, type UsagePlanRow } from '../shared/key-rows.js';
import type { ApiKeysPart } from '../store.js';
import { constraintOf, type SqliteDb } from './db.js';

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    insertPlan: p(`INSERT INTO usage_plans (id, name, api_ids_json, throttle_json, quota_json, created_at, updated_at)
      VALUES (@id, @name, @api_ids_json, @throttle_json, @quota_json, @now, @now)`),
    getPlan: p('SELECT * FROM usage_plans WHERE id = ?'),
    listPlans: p('SELECT * FROM usage_plans WHERE id > ? ORDER BY id LIMIT ?'),
    updatePlan: p(`UPDATE usage_plans SET name = @name, api_ids_json = @api_ids_json, throttle_json = @throttle_json,
      quota_json = @quota_json, updated_at = @now WHERE id = @id`),
    deletePlan: p('DELETE FROM usage_plans WHERE id = ?'),
    keysOnPlan: p('SELECT id FROM api_keys WHERE usage_plan_id = ? ORDER BY id LIMIT 100').pluck(),
    insertKey: p(`INSERT INTO api_keys (id, name, prefix, key_hash, enabled, usage_plan_id, created_at, updated_at)
      VALUES (@id, @name, @prefix, @hash, @enabled, @usage_plan_id, @now, @now)`),
    getKey: p('SELECT * FROM api_keys WHERE id = ?'),
    listKeys: p('SELECT * FROM api_keys WHERE id > ? ORDER BY id LIMIT ?'),
    updateKey: p(`UPDATE api_keys SET name = @name, enabled = @enabled, usage_plan_id = @usage_plan_id, updated_at = @now
      WHERE id = @id`),
    deleteKey: p('DELETE FROM api_keys WHERE id = ?'),
    keyByHash: p('SELECT * FROM api_keys WHERE key_hash = ?'),
  };
}

export function sqliteApiKeys({ db }: { db: SqliteDb }): ApiKeysPart {
  const s = prepare(db);
  const plan = (id: string) => {
    const row = s.getPlan.get(id) as UsagePlanRow | undefined;
    return row ? toUsagePlan(row) : null;
  };
  const key = (id: string) => {
    const row = s.getKey.get(id) as ApiKeyRow | undefined;
    return row ? toApiKey(row) : null;
  };
  const keyWrite = <T>(usagePlanId: string | null | undefined, write: () => T): T => {
    try {
      return db.write(write);
    } catch (err) {
      if (constraintOf(err) === 'foreign_key') throw unknownUsagePlan(usagePlanId ?? null);
      throw err;
    }
  };
  return {
    async createUsagePlan(input) {
      const id = newId('up');
      db.write(() => s.insertPlan.run({ id, ...usagePlanColumns(input), now: db.stamp() }));
      return plan(id)!;
    },
    async getUsagePlan(id) {
      return plan(id);
    },
    async listUsagePlans(page: Page) {
      return (s.listPlans.all(page.after ?? '', page.limit) as UsagePlanRow[]).map(toUsagePlan);
    },
    async updateUsagePlan(id, patch) {
      return db.write(() => {
        const cur = plan(id);
        if (!cur) return null;
        s.updatePlan.run({ id, ...usagePlanColumns(patch, cur), now: db.stamp() });
        return plan(id);
      });
    },
    async deleteUsagePlan(id) {
      try {
        return s.deletePlan.run(id).changes > 0;
      } catch (err) {
        if (constraintOf(err) !== 'foreign_key') throw err;
        throw usagePlanInUse(id, s.keysOnPlan.all(id) as string[]);
      }
    },
    async createApiKey(input) {
      const id = newId('key');
      keyWrite(input.usagePlanId, () =>
        s.insertKey.run({
          id,
          name: input.name,
          prefix: input.prefix,
          hash: input.hash,
          enabled: input.enabled ? 1 : 0,
          usage_plan_id: input.usagePlanId,
          now: db.stamp(),
        }),
      );
      return key(id)!;
    },
    async getApiKey(id) {
      return key(id);
    },
    async listApiKeys(page: Page) {
      return (s.listKeys.all(page.after ?? '', page.limit) as ApiKeyRow[]).map(toApiKey);
    },
    async updateApiKey(id, patch) {
      return keyWrite(patch.usagePlanId, () => {
        const cur = key(id);
        if (!cur) return null;
        s.updateKey.run({
          id,
          name: patch.name ?? cur.name,
          enabled: (patch.enabled ?? cur.enabled) ? 1 : 0,
          usage_plan_id: patch.usagePlanId === undefined ? cur.usagePlanId : patch.usagePlanId,
          now: db.stamp(),
        });
        return key(id);
      });
    },
    async deleteApiKey(id) {
      return db.write(() => s.deleteKey.run(id).changes > 0);
    },
    async apiKeyByHash(hash) {
      return db.read(() => {
        const row = s.keyByHash.get(hash) as ApiKeyRow | undefined;
        if (!row) return null;
        return { key: toApiKey(row), plan: row.usage_plan_id === null ? null : plan(row.usage_plan_id) };
      });
    },
  };
}
