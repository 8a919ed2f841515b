/**
 * Webhooks, their event subscriptions and schedule slots on PostgreSQL (the
 * WebhookStore, with deliveries from the base class). Due slots are claimed in
 * batches: the due webhook rows are locked with `FOR UPDATE SKIP LOCKED`, so
 * nodes split them, and the slot's delivery key (webhook_id, scheduled_for) is
 * unique, so a slot fires at most once whatever the clocks say.
 */
import type pg from 'pg';
import { InvalidRequestError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Page } from '../../types.js';
import type { NewWebhook, Webhook, WebhookHealth, WebhookPatch } from '../../webhooks/types.js';
import { healthMap, HEALTH_FROM_RECENT, RECENT_STATUS, type HealthRow } from '../health.js';
import type { ClaimedSlots, DueFunctionSchedule, FunctionSlotPlan, SlotPlan, WebhookStore } from '../store.js';
import { toDueFunctionSchedule, type FunctionScheduleRow } from '../sqlite/webhook-rows.js';
import { FOREIGN_KEY_VIOLATION, pgCode } from './db.js';
import { PgDeliveryStore } from './deliveries.js';
import { toDelivery, toWebhook, webhookParams, type PgDeliveryRow, type PgWebhookRow } from './rows.js';

const OPERATIONAL_PREFIX = 'switchyard.';

const WEBHOOK_COLUMNS = `name, target_url, method, headers_json, template_json, cron, timezone, mock_api_id, mock_path,
  events_json, enabled, secret, max_attempts, schedule_json, timeout_ms, next_fire_at`;
/** $2..$17 in WEBHOOK_COLUMNS order; $1 is the id and $18 the time. */
const WEBHOOK_VALUES = Array.from({ length: 16 }, (_, i) => `$${i + 2}`).join(', ');

function webhookValues(w: NewWebhook): unknown[] {
  const p = webhookParams(w);
  return [
    p.name, p.target_url, p.method, p.headers_json, p.template_json, p.cron, p.timezone, p.mock_api_id, p.mock_path,
    p.events_json, p.enabled === 1, p.secret, p.max_attempts, p.schedule_json, p.timeout_ms, p.next_fire_at,
  ];
}

export class PgWebhookStore extends PgDeliveryStore implements WebhookStore {
  // ---- webhooks

  private async setEvents(c: pg.PoolClient, id: string, events: readonly string[]): Promise<void> {
    await c.query('DELETE FROM webhook_events WHERE webhook_id = $1', [id]);
    if (events.length) {
      await c.query(
        'INSERT INTO webhook_events (event, webhook_id) SELECT DISTINCT e, $2::text FROM unnest($1::text[]) AS e ON CONFLICT DO NOTHING',
        [events, id],
      );
    }
  }

  /** A mock endpoint naming a missing API is the only reference a webhook write can break. */
  private unknownApi(err: unknown, webhook: WebhookPatch): unknown {
    if (pgCode(err) !== FOREIGN_KEY_VIOLATION) return err;
    return new InvalidRequestError(`mock_endpoint.api_id: API '${webhook.mockEndpoint?.apiId}' does not exist`, {
      field: 'mock_endpoint.api_id',
    });
  }

  async createWebhook(webhook: NewWebhook): Promise<Webhook> {
    try {
      return await this.tx(async (c) => {
        await this.checkRoomFor(c, 'webhooks');
        const id = newId('wh');
        const [row] = await this.rows<PgWebhookRow>(
          `INSERT INTO webhooks (id, ${WEBHOOK_COLUMNS}, created_at, updated_at)
           VALUES ($1, ${WEBHOOK_VALUES}, $18, $18) RETURNING *`,
          [id, ...webhookValues(webhook), this.stamp()],
          c,
        );
        await this.setEvents(c, id, webhook.events ?? []);
        return toWebhook(row);
      });
    } catch (err) {
      throw this.unknownApi(err, webhook);
    }
  }

  async getWebhook(id: string): Promise<Webhook | null> {
    const [row] = await this.rows<PgWebhookRow>('SELECT * FROM webhooks WHERE id = $1', [id]);
    return row ? toWebhook(row) : null;
  }

  async listWebhooks(page: Page): Promise<Webhook[]> {
    const rows = await this.rows<PgWebhookRow>('SELECT * FROM webhooks WHERE id > $1 ORDER BY id LIMIT $2', [
      page.after ?? '',
      page.limit,
    ]);
    return rows.map(toWebhook);
  }

  async webhookHealth(ids: string[], window: number): Promise<Map<string, WebhookHealth>> {
    if (ids.length === 0) return new Map();
    // LATERAL: each webhook's newest `window` rows, one index range read each.
    const rows = await this.rows<HealthRow>(
      `WITH recent AS (
         SELECT w.id AS webhook_id, d.status, d.n
         FROM unnest($1::text[]) AS w(id)
         CROSS JOIN LATERAL (
           SELECT status, ROW_NUMBER() OVER (ORDER BY id DESC) AS n
           FROM (SELECT id, ${RECENT_STATUS('deliveries')} AS status FROM deliveries WHERE webhook_id = w.id COLLATE "C" ORDER BY id DESC LIMIT $2) newest
         ) d
       )${HEALTH_FROM_RECENT}`,
      [ids, window],
    );
    return healthMap(rows);
  }

  async updateWebhook(id: string, patch: WebhookPatch): Promise<Webhook | null> {
    const merged: { current?: NewWebhook } = {};
    try {
      return await this.tx(async (c) => {
        const [row] = await this.rows<PgWebhookRow>('SELECT * FROM webhooks WHERE id = $1 FOR UPDATE', [id], c);
        if (!row) return null;
        const next: NewWebhook = { ...toWebhook(row) };
        for (const [key, value] of Object.entries(patch)) {
          if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = value;
        }
        merged.current = next;
        const [updated] = await this.rows<PgWebhookRow>(
          `UPDATE webhooks SET (${WEBHOOK_COLUMNS}, updated_at) = (${WEBHOOK_VALUES}, $18) WHERE id = $1 RETURNING *`,
          [id, ...webhookValues(next), this.stamp()],
          c,
        );
        if (patch.events !== undefined) await this.setEvents(c, id, patch.events);
        return toWebhook(updated);
      });
    } catch (err) {
      throw this.unknownApi(err, merged.current ?? patch);
    }
  }

  async deleteWebhook(id: string): Promise<boolean> {
    // Subscriptions, deliveries and their attempts go with it: ON DELETE CASCADE.
    return (await this.changes('DELETE FROM webhooks WHERE id = $1', [id])) > 0;
  }

  async webhooksUsingApi(apiId: string): Promise<Webhook[]> {
    return (await this.rows<PgWebhookRow>('SELECT * FROM webhooks WHERE mock_api_id = $1 ORDER BY id', [apiId])).map(
      toWebhook,
    );
  }

  async webhooksForEvent(event: string): Promise<Webhook[]> {
    // `*` stands for every event except the operational ones, which are subscribed by name.
    const star = event.startsWith(OPERATIONAL_PREFIX) ? event : '*';
    const rows = await this.rows<PgWebhookRow>(
      `SELECT * FROM webhooks WHERE enabled AND id IN (
         SELECT webhook_id FROM webhook_events WHERE event IN ($1, $2)
       ) ORDER BY id`,
      [event, star],
    );
    return rows.map(toWebhook);
  }

  async nextFireAt(): Promise<string | null> {
    const [row] = await this.rows<{ at: string | null }>(
      'SELECT MIN(next_fire_at) AS at FROM webhooks WHERE enabled AND cron IS NOT NULL',
    );
    return row?.at ?? null;
  }

  async claimDueSlots(now: string, limit: number, plan: (webhook: Webhook) => SlotPlan): Promise<ClaimedSlots> {
    return this.tx(async (c) => {
      // SKIP LOCKED: nodes ticking together split the due webhooks instead of queueing on
      // each other's rows; a row is re-checked after its lock, so a slot moved on by a
      // node that committed meanwhile is no longer due here.
      const rows = await this.rows<PgWebhookRow>(
        `SELECT * FROM webhooks WHERE enabled AND cron IS NOT NULL AND next_fire_at <= $1
         ORDER BY next_fire_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [now, limit],
        c,
      );
      if (rows.length === 0) return { claimed: 0, deliveries: [], alreadyFired: [] };
      const stamp = this.stamp();
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
      // A slot fired before conflicts on its unique (webhook, slot) key and is skipped.
      const inserted = fires.length
        ? await this.rows<PgDeliveryRow>(
            `INSERT INTO deliveries
               (id, target, webhook_id, trigger, status, scheduled_for, event, event_data_json, next_attempt_at, created_at)
             SELECT u.id, u.webhook_id, u.webhook_id, 'schedule', 'pending', u.slot, NULL, NULL, $4, $5
             FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS u(id, webhook_id, slot)
             ON CONFLICT (webhook_id, scheduled_for) DO NOTHING RETURNING *, '[]'::json AS attempts`,
            [fires.map((f) => f.id), fires.map((f) => f.webhookId), fires.map((f) => f.slot), now, stamp],
            c,
          )
        : [];
      const fired = new Set(inserted.map((r) => r.webhook_id));
      return {
        claimed: rows.length,
        deliveries: inserted.map((r) => toDelivery(r)),
        alreadyFired: fires.filter((f) => !fired.has(f.webhookId)).map((f) => f.webhookId),
      };
    });
  }

  async nextFunctionFireAt(): Promise<string | null> {
    const [row] = await this.rows<{ next: string | null }>('SELECT MIN(next_fire_at) AS next FROM function_schedules');
    return row?.next ?? null;
  }

  async claimDueFunctionSlots(
    now: string,
    limit: number,
    plan: (schedule: DueFunctionSchedule) => FunctionSlotPlan,
  ): Promise<ClaimedSlots> {
    return this.tx(async (c) => {
      // SKIP LOCKED, as for webhooks: nodes ticking together split the due schedules.
      const rows = await this.rows<FunctionScheduleRow>(
        `SELECT s.*, f.event_format FROM function_schedules s JOIN functions f ON f.name = s.function_name
         WHERE s.next_fire_at <= $1 ORDER BY s.next_fire_at, s.id LIMIT $2 FOR UPDATE OF s SKIP LOCKED`,
        [now, limit],
        c,
      );
      if (rows.length === 0) return { claimed: 0, deliveries: [], alreadyFired: [] };
      const stamp = this.stamp();
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
      // A slot fired before conflicts on its unique (schedule, slot) key and is skipped.
      const inserted = fires.length
        ? await this.rows<PgDeliveryRow>(
            `INSERT INTO deliveries
               (id, target, function_name, schedule_id, trigger, trigger_json, status, scheduled_for, event_data_json,
                next_attempt_at, created_at)
             SELECT u.id, 'fn:' || u.fn, u.fn, u.schedule_id, 'schedule', u.detail, 'pending', u.slot, u.event, $7, $8
             FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[])
               AS u(id, fn, schedule_id, slot, event, detail)
             ON CONFLICT (schedule_id, scheduled_for) DO NOTHING RETURNING *, '[]'::json AS attempts`,
            [
              fires.map((f) => f.id),
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
      const fired = new Set(inserted.map((r) => r.schedule_id));
      return {
        claimed: rows.length,
        deliveries: inserted.map((r) => toDelivery(r)),
        alreadyFired: fires.filter((f) => !fired.has(f.row.id)).map((f) => f.row.id),
      };
    });
  }
}
