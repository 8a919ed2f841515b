/**
 * Due schedule slots of webhooks and functions on PostgreSQL, claimed in
 * batches: the due rows are locked with `FOR UPDATE SKIP LOCKED`, so nodes
 * ticking together split them instead of queueing on each other's rows (a row
 * is re-checked after its lock, so a slot moved on by a node that committed
 * meanwhile is no longer due here), and the slot's delivery key (webhook or
 * schedule, slot) is unique, so a slot fires at most once whatever the clocks say.
 */
import { newId } from '../../ids.js';
import { functionTarget } from '../../deliveries/types.js';
import { claimedSlots, type DeliveryRow } from '../shared/delivery-rows.js';
import { toDueFunctionSchedule, type FunctionScheduleRow } from '../shared/rows.js';
import { toWebhook, type WebhookRow } from '../shared/webhook-rows.js';
import type { ClaimedSlots, SchedulesPart } from '../store.js';
import type { PgDb } from './db.js';

const NOTHING_DUE: ClaimedSlots = { claimed: 0, deliveries: [], alreadyFired: [] };

export function pgSchedules(deps: { db: PgDb }): SchedulesPart {
  const { db } = deps;
  return {
    async nextFireAt() {
      const [row] = await db.rows<{ at: string | null }>('SELECT MIN(next_fire_at) AS at FROM webhooks WHERE enabled AND cron IS NOT NULL');
      return row?.at ?? null;
    },

    async claimDueSlots(now, limit, plan) {
      return db.tx(async (c) => {
        const rows = await db.rows<WebhookRow>(
          `SELECT * FROM webhooks WHERE enabled AND cron IS NOT NULL AND next_fire_at <= $1
           ORDER BY next_fire_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
          [now, limit],
          c,
        );
        if (rows.length === 0) return { ...NOTHING_DUE };
        const stamp = db.stamp();
        const ids: string[] = [];
        const nexts: Array<string | null> = [];
        const fires: Array<{ id: string; webhookId: string; slot: string }> = [];
        for (const row of rows) {
          const { slot, next } = plan(toWebhook(row));
          ids.push(row.id);
          nexts.push(next);
          if (slot !== null) fires.push({ id: newId('dlv'), webhookId: row.id, slot });
        }
        await c.query(
          `UPDATE webhooks w SET next_fire_at = u.next, updated_at = $3
           FROM unnest($1::text[], $2::timestamptz[]) AS u(id, next) WHERE w.id = u.id`,
          [ids, nexts, stamp],
        );
        const inserted = fires.length
          ? await db.rows<DeliveryRow>(
              `INSERT INTO deliveries
                 (id, target, webhook_id, trigger, status, scheduled_for, event, event_data_json, next_attempt_at, created_at)
               SELECT u.id, u.webhook_id, u.webhook_id, 'schedule', 'pending', u.slot, NULL, NULL, $4, $5
               FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS u(id, webhook_id, slot)
               ON CONFLICT (webhook_id, scheduled_for) DO NOTHING RETURNING *`,
              [fires.map((f) => f.id), fires.map((f) => f.webhookId), fires.map((f) => f.slot), now, stamp],
              c,
            )
          : [];
        return claimedSlots(rows.length, inserted, fires.map((f) => f.webhookId), (r) => r.webhook_id);
      });
    },

    async nextFunctionFireAt() {
      const [row] = await db.rows<{ next: string | null }>('SELECT MIN(next_fire_at) AS next FROM function_schedules');
      return row?.next ?? null;
    },

    async functionsDueBetween(after, until, limit) {
      const rows = await db.rows<{ function_name: string }>(
        `SELECT function_name FROM function_schedules WHERE next_fire_at > $1 AND next_fire_at <= $2
         GROUP BY function_name ORDER BY MIN(next_fire_at) LIMIT $3`,
        [after, until, limit],
      );
      return rows.map((r) => r.function_name);
    },

    async claimDueFunctionSlots(now, limit, plan) {
      return db.tx(async (c) => {
        const rows = await db.rows<FunctionScheduleRow>(
          `SELECT s.*, f.event_format FROM function_schedules s JOIN functions f ON f.name = s.function_name
           WHERE s.next_fire_at <= $1 ORDER BY s.next_fire_at, s.id LIMIT $2 FOR UPDATE OF s SKIP LOCKED`,
          [now, limit],
          c,
        );
        if (rows.length === 0) return { ...NOTHING_DUE };
        const stamp = db.stamp();
        const ids: string[] = [];
        const nexts: Array<string | null> = [];
        const fires: Array<{ id: string; row: FunctionScheduleRow; slot: string; event: string; detail: string }> = [];
        for (const row of rows) {
          const { slot, next, event, detail } = plan(toDueFunctionSchedule(row));
          ids.push(row.id);
          nexts.push(next);
          if (slot !== null) {
            fires.push({
              id: newId('dlv'),
              row,
              slot,
              event: JSON.stringify(event ?? null),
              detail: JSON.stringify({ type: 'schedule', ...detail }),
            });
          }
        }
        await c.query(
          `UPDATE function_schedules s SET next_fire_at = u.next
           FROM unnest($1::text[], $2::timestamptz[]) AS u(id, next) WHERE s.id = u.id`,
          [ids, nexts],
        );
        const inserted = fires.length
          ? await db.rows<DeliveryRow>(
              `INSERT INTO deliveries
                 (id, target, function_name, schedule_id, trigger, trigger_json, status, scheduled_for, event_data_json,
                  next_attempt_at, created_at)
               SELECT u.id, u.target, u.fn, u.schedule_id, 'schedule', u.detail, 'pending', u.slot, u.event, $8, $9
               FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[])
                 AS u(id, target, fn, schedule_id, slot, event, detail)
               ON CONFLICT (schedule_id, scheduled_for) DO NOTHING RETURNING *`,
              [
                fires.map((f) => f.id),
                fires.map((f) => functionTarget(f.row.function_name)),
                fires.map((f) => f.row.function_name),
                fires.map((f) => f.row.id),
                fires.map((f) => f.slot),
                fires.map((f) => f.event),
                fires.map((f) => f.detail),
                now,
                stamp,
              ],
              c,
            )
          : [];
        return claimedSlots(rows.length, inserted, fires.map((f) => f.row.id), (r) => r.schedule_id);
      });
    },
  };
}
