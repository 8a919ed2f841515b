/**
 * Endpoint health rows on SQLite (store.ts TargetHealthPart). Each report is
 * read, decided (../shared/target-health.ts) and written in one IMMEDIATE
 * transaction, which holds the database's write lock: no other process can
 * take the same transition meanwhile.
 */
import type { TargetHealth } from '../../webhooks/types.js';
import {
  planHealth,
  probeDue,
  probeEnded,
  probing,
  closedByHand,
  targetHealthColumns,
  TARGET_HEALTH_COLUMNS,
  toTargetHealth,
  webhookKey,
  originKey,
  type HealthFacts,
  type HealthRules,
  type TargetHealthRow,
} from '../shared/target-health.js';
import { toWebhook, type WebhookRow } from '../shared/webhook-rows.js';
import type { TargetHealthPart } from '../store.js';
import type { SqliteDb } from './db.js';

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  const cols = TARGET_HEALTH_COLUMNS.join(', ');
  return {
    row: p('SELECT * FROM target_health WHERE key = ?'),
    save: p(`INSERT INTO target_health (${cols}) VALUES (${TARGET_HEALTH_COLUMNS.map((c) => `@${c}`).join(', ')})
      ON CONFLICT (key) DO UPDATE SET ${TARGET_HEALTH_COLUMNS.filter((c) => c !== 'key' && c !== 'held_discarded').map((c) => `${c} = excluded.${c}`).join(', ')}`),
    webhook: p('SELECT * FROM webhooks WHERE id = ?'),
    onOrigin: p('SELECT * FROM webhooks WHERE target_origin = ? AND enabled = 1'),
    disable: p(`UPDATE webhooks SET enabled = 0, next_fire_at = NULL, disabled_reason = 'failing', updated_at = @now
      WHERE id = @id AND enabled = 1`),
    notClosed: p(`SELECT * FROM target_health INDEXED BY target_health_probes WHERE state <> 'closed' AND webhook_id IS NOT NULL
      ORDER BY key LIMIT ?`),
    due: p(`SELECT key FROM target_health INDEXED BY target_health_probes WHERE state <> 'closed'
      AND ((state = 'open' AND probe_at <= @now) OR (state = 'half_open' AND probe_until < @now)) LIMIT @limit`).pluck(),
    oldestHeld: p(`SELECT id FROM deliveries INDEXED BY deliveries_held WHERE target = ? AND status = 'held' ORDER BY rowid LIMIT 1`).pluck(),
    toProbe: p(`UPDATE deliveries SET status = 'pending', next_attempt_at = @now WHERE id = @id AND status = 'held'`),
    notBefore: p(`INSERT INTO target_health (key, webhook_id, since, window_start, not_before) VALUES (@key, @webhook, @now, @now, @until)
      ON CONFLICT (key) DO UPDATE SET not_before = MAX(COALESCE(not_before, 0), excluded.not_before)`),
  };
}

/** A webhook row's rules (its settings, or the defaults when it has none stored). */
function rulesOf(row: WebhookRow): { rules: HealthRules; enabled: boolean; origin: string | null } {
  const w = toWebhook(row);
  return { rules: { breaker: w.breaker, autoDisable: w.autoDisable }, enabled: w.enabled, origin: row.target_origin };
}

export function sqliteTargetHealth(deps: { db: SqliteDb }): TargetHealthPart {
  const { db } = deps;
  const s = prepare(db);
  const read = (key: string): TargetHealth | null => {
    const row = s.row.get(key) as TargetHealthRow | undefined;
    return row ? toTargetHealth(row) : null;
  };
  const save = (h: TargetHealth) => s.save.run(targetHealthColumns(h));

  return {
    async recordTargetHealth(samples, now) {
      if (samples.length === 0) return [];
      return db.write(() => {
        const rows = new Map<string, TargetHealth>();
        const webhooks = new Map<string, { rules: HealthRules; enabled: boolean; origin: string | null }>();
        const note = (key: string) => {
          if (rows.has(key)) return;
          const h = read(key);
          if (h) rows.set(key, h);
        };
        for (const sample of samples) {
          const row = s.webhook.get(sample.webhookId) as WebhookRow | undefined;
          if (!row) continue;
          webhooks.set(sample.webhookId, rulesOf(row));
          note(webhookKey(sample.webhookId));
          note(originKey(sample.origin));
          for (const other of s.onOrigin.all(sample.origin) as WebhookRow[]) {
            webhooks.set(other.id, rulesOf(other));
            note(webhookKey(other.id));
          }
        }
        const facts: HealthFacts = { rows, webhooks };
        const plan = planHealth(facts, samples, now);
        for (const h of plan.save) save(h);
        const stamp = new Date(now).toISOString();
        const disabled = new Set(plan.disable.filter((id) => s.disable.run({ id, now: stamp }).changes > 0));
        return plan.transitions.filter((t) => t.kind !== 'disable' || disabled.has(t.webhookId));
      });
    },

    async targetHealth(keys) {
      const out = new Map<string, TargetHealth>();
      for (const key of keys) {
        const h = read(key);
        if (h) out.set(key, h);
      }
      return out;
    },

    async breakersNotClosed(limit) {
      return (s.notClosed.all(limit) as TargetHealthRow[]).map(toTargetHealth);
    },

    async dueProbes(now, limit) {
      return s.due.all({ now, limit }) as string[];
    },

    async startProbe(key, now, until) {
      return db.write(() => {
        const h = read(key);
        if (!h || h.webhookId === null || !probeDue(h, now)) return null;
        const id = s.oldestHeld.get(h.webhookId) as string | undefined;
        if (id === undefined) return null;
        s.toProbe.run({ id, now: new Date(now).toISOString() });
        save(probing(h, id, until));
        return id;
      });
    },

    async finishProbe(key, deliveryId, succeeded, now) {
      return db.write(() => {
        const h = read(key);
        const ended = h ? probeEnded(h, deliveryId, succeeded, now) : null;
        if (!ended) return null;
        save(ended.row);
        return ended.transition;
      });
    },

    async resetTargetHealth(webhookId, now) {
      return db.write(() => {
        const h = read(webhookKey(webhookId));
        if (!h) return false;
        save(closedByHand(h, now));
        return h.state !== 'closed';
      });
    },

    async setNotBefore(webhookId, until, now) {
      s.notBefore.run({ key: webhookKey(webhookId), webhook: webhookId, now, until });
    },
  };
}

