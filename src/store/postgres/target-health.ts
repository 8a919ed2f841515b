/**
 * Endpoint health rows on PostgreSQL (store.ts TargetHealthPart). A report
 * makes sure its rows exist, locks them in key order (`FOR UPDATE`, so two
 * nodes reporting on the same webhooks wait rather than deadlock), decides
 * (../shared/target-health.ts) and writes them back, in one transaction.
 */
import type pg from 'pg';
import type { TargetHealth } from '../../webhooks/types.js';
import {
  closedByHand,
  originKey,
  planHealth,
  probeDue,
  probeEnded,
  probing,
  targetHealthColumns,
  TARGET_HEALTH_COLUMNS,
  toTargetHealth,
  webhookKey,
  type HealthRules,
  type TargetHealthRow,
} from '../shared/target-health.js';
import { toWebhook, type WebhookRow } from '../shared/webhook-rows.js';
import type { TargetHealthPart } from '../store.js';
import type { PgDb } from './db.js';

const SAVE_SQL = `INSERT INTO target_health (${TARGET_HEALTH_COLUMNS.join(', ')})
  VALUES (${TARGET_HEALTH_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
  ON CONFLICT (key) DO UPDATE SET ${TARGET_HEALTH_COLUMNS.filter((c) => c !== 'key' && c !== 'held_discarded')
    .map((c) => `${c} = excluded.${c}`)
    .join(', ')}`;

function rulesOf(row: WebhookRow): { rules: HealthRules; enabled: boolean; origin: string | null } {
  const w = toWebhook(row);
  return { rules: { breaker: w.breaker, autoDisable: w.autoDisable }, enabled: w.enabled, origin: row.target_origin };
}

export function pgTargetHealth(deps: { db: PgDb }): TargetHealthPart {
  const { db } = deps;

  const save = async (c: pg.PoolClient, h: TargetHealth) => {
    const columns = targetHealthColumns(h);
    await c.query(SAVE_SQL, TARGET_HEALTH_COLUMNS.map((k) => columns[k]));
  };
  const locked = async (c: pg.PoolClient, key: string): Promise<TargetHealth | null> => {
    const [row] = await db.rows<TargetHealthRow>('SELECT * FROM target_health WHERE key = $1 FOR UPDATE', [key], c);
    return row ? toTargetHealth(row) : null;
  };

  return {
    async recordTargetHealth(samples, now) {
      if (samples.length === 0) return [];
      return db.tx(async (c) => {
        const own = await db.rows<WebhookRow>('SELECT * FROM webhooks WHERE id = ANY($1::text[])', [samples.map((s) => s.webhookId)], c);
        const origins = [...new Set(samples.map((s) => s.origin))];
        const shared = await db.rows<WebhookRow>('SELECT * FROM webhooks WHERE target_origin = ANY($1::text[]) AND enabled', [origins], c);
        const webhooks = new Map<string, { rules: HealthRules; enabled: boolean; origin: string | null }>();
        for (const row of [...own, ...shared]) webhooks.set(row.id, rulesOf(row));
        const keys = [...webhooks.keys()].map(webhookKey).concat(origins.map(originKey)).sort();
        // Rows first, so that every one of them can be locked (a fresh row is closed with nothing counted).
        await c.query(
          `INSERT INTO target_health (key, webhook_id, origin, since, window_start)
           SELECT k.key, k.webhook_id, k.origin, $4, $4 FROM unnest($1::text[], $2::text[], $3::text[]) AS k (key, webhook_id, origin)
           ON CONFLICT (key) DO NOTHING`,
          [
            keys,
            keys.map((k) => (k.startsWith('webhook:') ? k.slice('webhook:'.length) : null)),
            keys.map((k) => (k.startsWith('origin:') ? k.slice('origin:'.length) : null)),
            now,
          ],
        );
        const rows = await db.rows<TargetHealthRow>('SELECT * FROM target_health WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE', [keys], c);
        const plan = planHealth({ rows: new Map(rows.map((r) => [r.key, toTargetHealth(r)])), webhooks }, samples, now);
        for (const h of plan.save) await save(c, h);
        const disabled = new Set<string>();
        for (const id of plan.disable) {
          const n = await db.changes(
            `UPDATE webhooks SET enabled = false, next_fire_at = NULL, disabled_reason = 'failing', updated_at = $2 WHERE id = $1 AND enabled`,
            [id, new Date(now).toISOString()],
            c,
          );
          if (n > 0) disabled.add(id);
        }
        return plan.transitions.filter((t) => t.kind !== 'disable' || disabled.has(t.webhookId));
      });
    },

    async targetHealth(keys) {
      if (keys.length === 0) return new Map();
      const rows = await db.rows<TargetHealthRow>('SELECT * FROM target_health WHERE key = ANY($1::text[])', [[...keys]]);
      return new Map(rows.map((r) => [r.key, toTargetHealth(r)]));
    },

    async breakersNotClosed(limit) {
      const rows = await db.rows<TargetHealthRow>(
        `SELECT * FROM target_health WHERE state <> 'closed' AND webhook_id IS NOT NULL ORDER BY key LIMIT $1`,
        [limit],
      );
      return rows.map(toTargetHealth);
    },

    async dueProbes(now, limit) {
      const rows = await db.rows<{ key: string }>(
        `SELECT key FROM target_health WHERE state <> 'closed'
           AND ((state = 'open' AND probe_at <= $1) OR (state = 'half_open' AND probe_until < $1)) LIMIT $2`,
        [now, limit],
      );
      return rows.map((r) => r.key);
    },

    async startProbe(key, now, until) {
      return db.tx(async (c) => {
        const h = await locked(c, key);
        if (!h || h.webhookId === null || !probeDue(h, now)) return null;
        const [held] = await db.rows<{ id: string }>(
          `SELECT id FROM deliveries WHERE target = $1 AND status = 'held' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`,
          [h.webhookId],
          c,
        );
        if (!held) return null;
        await c.query(`UPDATE deliveries SET status = 'pending', next_attempt_at = $2 WHERE id = $1`, [held.id, new Date(now).toISOString()]);
        await save(c, probing(h, held.id, until));
        return held.id;
      });
    },

    async finishProbe(key, deliveryId, succeeded, now) {
      return db.tx(async (c) => {
        const h = await locked(c, key);
        const ended = h ? probeEnded(h, deliveryId, succeeded, now) : null;
        if (!ended) return null;
        await save(c, ended.row);
        return ended.transition;
      });
    },

    async resetTargetHealth(webhookId, now) {
      return db.tx(async (c) => {
        const h = await locked(c, webhookKey(webhookId));
        if (!h) return false;
        await save(c, closedByHand(h, now));
        return h.state !== 'closed';
      });
    },

    async setNotBefore(webhookId, until, now) {
      await db.pool.query(
        `INSERT INTO target_health (key, webhook_id, since, window_start, not_before) VALUES ($1, $2, $3, $3, $4)
         ON CONFLICT (key) DO UPDATE SET not_before = GREATEST(COALESCE(target_health.not_before, 0), excluded.not_before)`,
        [webhookKey(webhookId), webhookId, now, until],
      );
    },
  };
}
