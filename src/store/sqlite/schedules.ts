/**
 * Due schedule slots of webhooks and functions on SQLite. A claim runs in one
 * IMMEDIATE transaction: SQLite lets one writer in at a time across every
 * process on the file, so a batch is read, planned and moved once, without
 * SKIP LOCKED; the unique (webhook or schedule, slot) key still refuses a
 * slot fired before. A batch is moved and inserted in one statement each, its
 * rows passed as one JSON array (a statement per row cost five times as much).
 */
import { newId } from '../../ids.js';
import { functionTarget } from '../../deliveries/types.js';
import { claimedSlots, type DeliveryRow } from '../shared/delivery-rows.js';
import { toDueFunctionSchedule, type FunctionScheduleRow } from '../shared/rows.js';
import { toWebhook, type WebhookRow } from '../shared/webhook-rows.js';
import type { ClaimedSlots, SchedulesPart } from '../store.js';
import type { SqliteDb } from './db.js';

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    dueWebhooks: p(`SELECT * FROM webhooks
      WHERE enabled = 1 AND next_fire_at <= ? AND cron IS NOT NULL ORDER BY next_fire_at, id LIMIT ?`),
    nextFireAt: p('SELECT MIN(next_fire_at) FROM webhooks WHERE enabled = 1 AND cron IS NOT NULL').pluck(),
    moveWebhooks: p(`UPDATE webhooks SET next_fire_at = m.value ->> 1, updated_at = @now
      FROM json_each(@moves) m WHERE webhooks.id = m.value ->> 0`),
    // (`WHERE true` tells SQLite's parser that ON CONFLICT belongs to the INSERT, not a join.)
    insertWebhookSlots: p(`INSERT INTO deliveries
      (id, target, webhook_id, trigger, status, scheduled_for, event, event_data_json, next_attempt_at, created_at)
      SELECT f.value ->> 0, f.value ->> 1, f.value ->> 1, 'schedule', 'pending', f.value ->> 2, NULL, NULL, @due, @now
      FROM json_each(@fires) f WHERE true
      ON CONFLICT (webhook_id, scheduled_for) DO NOTHING RETURNING *`),
    dueFunctionSchedules: p(`SELECT s.*, f.event_format FROM function_schedules s JOIN functions f ON f.name = s.function_name
      WHERE s.next_fire_at <= ? ORDER BY s.next_fire_at, s.id LIMIT ?`),
    nextFunctionFireAt: p('SELECT MIN(next_fire_at) FROM function_schedules').pluck(),
    functionsDueBetween: p(`SELECT function_name FROM function_schedules WHERE next_fire_at > ? AND next_fire_at <= ?
      GROUP BY function_name ORDER BY MIN(next_fire_at) LIMIT ?`).pluck(),
    moveFunctionSchedules: p(`UPDATE function_schedules SET next_fire_at = m.value ->> 1
      FROM json_each(@moves) m WHERE function_schedules.id = m.value ->> 0`),
    insertFunctionSlots: p(`INSERT INTO deliveries
      (id, target, function_name, schedule_id, trigger, trigger_json, status, scheduled_for, event_data_json, next_attempt_at,
        created_at)
      SELECT f.value ->> 0, f.value ->> 1, f.value ->> 2, f.value ->> 3, 'schedule', f.value ->> 5, 'pending',
        f.value ->> 4, f.value ->> 6, @due, @now
      FROM json_each(@fires) f WHERE true
      ON CONFLICT (schedule_id, scheduled_for) DO NOTHING RETURNING *`),
  };
}

const NOTHING_DUE: ClaimedSlots = { claimed: 0, deliveries: [], alreadyFired: [] };

export function sqliteSchedules(deps: { db: SqliteDb }): SchedulesPart {
  const { db } = deps;
  const s = prepare(db);
  return {
    async nextFireAt() {
      return (s.nextFireAt.get() as string | null) ?? null;
    },

    async claimDueSlots(now, limit, plan) {
      return db.write(() => {
        const rows = s.dueWebhooks.all(now, limit) as WebhookRow[];
        if (rows.length === 0) return { ...NOTHING_DUE };
        const stamp = db.stamp();
        const moves: Array<[string, string | null]> = [];
        const fires: Array<[id: string, webhook: string, slot: string]> = [];
        for (const row of rows) {
          const { slot, next } = plan(toWebhook(row));
          moves.push([row.id, next]);
          if (slot !== null) fires.push([newId('dlv'), row.id, slot]);
        }
        s.moveWebhooks.run({ moves: JSON.stringify(moves), now: stamp });
        const inserted = fires.length
          ? (s.insertWebhookSlots.all({ fires: JSON.stringify(fires), due: now, now: stamp }) as DeliveryRow[])
          : [];
        return claimedSlots(rows.length, inserted, fires.map(([, webhookId]) => webhookId), (r) => r.webhook_id);
      });
    },

    async nextFunctionFireAt() {
      return (s.nextFunctionFireAt.get() as string | null) ?? null;
    },

    async functionsDueBetween(after, until, limit) {
      return s.functionsDueBetween.all(after, until, limit) as string[];
    },

    async claimDueFunctionSlots(now, limit, plan) {
      return db.write(() => {
        const rows = s.dueFunctionSchedules.all(now, limit) as FunctionScheduleRow[];
        if (rows.length === 0) return { ...NOTHING_DUE };
        const stamp = db.stamp();
        const moves: Array<[string, string | null]> = [];
        const fires: Array<[id: string, target: string, fn: string, schedule: string, slot: string, trigger: string, event: string]> = [];
        for (const row of rows) {
          const { slot, next, event, detail } = plan(toDueFunctionSchedule(row));
          moves.push([row.id, next]);
          if (slot === null) continue;
          const trigger = JSON.stringify({ type: 'schedule', ...detail });
          const fn = row.function_name;
          fires.push([newId('dlv'), functionTarget(fn), fn, row.id, slot, trigger, JSON.stringify(event ?? null)]);
        }
        s.moveFunctionSchedules.run({ moves: JSON.stringify(moves) });
        const inserted = fires.length
          ? (s.insertFunctionSlots.all({ fires: JSON.stringify(fires), due: now, now: stamp }) as DeliveryRow[])
          : [];
        return claimedSlots(rows.length, inserted, fires.map(([, , , scheduleId]) => scheduleId), (r) => r.schedule_id);
      });
    },
  };
}
