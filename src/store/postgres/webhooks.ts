/**
 * Webhooks and their event subscriptions on PostgreSQL.
 */
import type pg from 'pg';
import { wildcardFor } from '../../events/names.js';
import { newId } from '../../ids.js';
import type { Page } from '../../types.js';
import { rotatedSecrets, type NewWebhook, type Webhook, type WebhookPatch } from '../../webhooks/types.js';
import { webhookWriteError } from '../shared/errors.js';
import { healthMap, HEALTH_FROM_RECENT, RECENT_STATUS, type HealthRow } from '../shared/health.js';
import { SENDABLE } from '../shared/held.js';
import { checkApplicationRoom } from '../shared/limits.js';
import { patchedWebhook, toWebhook, WEBHOOK_COLUMNS, webhookColumns, type WebhookRow } from '../shared/webhook-rows.js';
import type { WebhooksPart } from '../store.js';
import { constraintOf, type PgDb } from './db.js';

const COLUMNS = WEBHOOK_COLUMNS.join(', ');
/** $2.. in WEBHOOK_COLUMNS order; $1 is the id and the last one the time. */
const VALUES = WEBHOOK_COLUMNS.map((_, i) => `$${i + 2}`).join(', ');
const STAMP = `$${WEBHOOK_COLUMNS.length + 2}`;

function webhookValues(w: NewWebhook): unknown[] {
  const columns = webhookColumns(w);
  return WEBHOOK_COLUMNS.map((c) => (c === 'enabled' ? columns.enabled === 1 : columns[c]));
}

export function pgWebhooks(deps: { db: PgDb }): WebhooksPart {
  const { db } = deps;

  const setEvents = async (c: pg.PoolClient, id: string, events: readonly string[], applicationId: string | null | undefined) => {
    await c.query('DELETE FROM webhook_events WHERE webhook_id = $1', [id]);
    if (events.length) {
      await c.query(
        'INSERT INTO webhook_events (event, webhook_id, application_id) SELECT DISTINCT e, $2::text, $3::text FROM unnest($1::text[]) AS e ON CONFLICT DO NOTHING',
        [events, id, applicationId ?? ''],
      );
    }
  };

  /**
   * Inside the transaction: the application's row lock (NO KEY UPDATE, so
   * foreign-key checks of its other rows do not wait) makes creators for one
   * application count one after the other. Unknown: left to the foreign key.
   */
  const claimEndpoint = async (c: pg.PoolClient, applicationId: string | null | undefined) => {
    if (!applicationId) return;
    const [app] = await db.rows<{ max: string | null }>(
      `SELECT limits_json::json->>'maxEndpoints' AS max FROM applications WHERE id = $1 FOR NO KEY UPDATE`,
      [applicationId],
      c,
    );
    if (!app || app.max === null) return;
    const [{ owned }] = await db.rows<{ owned: number }>('SELECT COUNT(*)::int AS owned FROM webhooks WHERE application_id = $1', [applicationId], c);
    checkApplicationRoom(applicationId, Number(app.max), owned);
  };

  /** Fields present replace; a function makes the patch from the row as locked. */
  async function update(id: string, patch: WebhookPatch | ((current: Webhook) => WebhookPatch)): Promise<Webhook | null> {
    const merged: { current?: NewWebhook } = {};
    try {
      return await db.tx(async (c) => {
        const [row] = await db.rows<WebhookRow>('SELECT * FROM webhooks WHERE id = $1 FOR UPDATE', [id], c);
        if (!row) return null;
        if (typeof patch !== 'function' && patch.applicationId && patch.applicationId !== row.application_id) await claimEndpoint(c, patch.applicationId);
        const next = (merged.current = patchedWebhook(row, patch));
        const [updated] = await db.rows<WebhookRow>(
          `UPDATE webhooks SET (${COLUMNS}, updated_at) = (${VALUES}, ${STAMP}) WHERE id = $1 RETURNING *`,
          [id, ...webhookValues(next), db.stamp()],
          c,
        );
        if (typeof patch !== 'function' && (patch.events !== undefined || patch.applicationId !== undefined)) {
          await setEvents(c, id, next.events, next.applicationId);
        }
        return toWebhook(updated);
      });
    } catch (err) {
      throw webhookWriteError(err, constraintOf(err), merged.current ?? (typeof patch === 'function' ? {} : patch));
    }
  }

  return {
    async createWebhook(webhook) {
      try {
        return await db.tx(async (c) => {
          await db.checkRoomFor(c, 'webhooks');
          await claimEndpoint(c, webhook.applicationId);
          const id = newId('wh');
          const [row] = await db.rows<WebhookRow>(
            `INSERT INTO webhooks (id, ${COLUMNS}, created_at, updated_at) VALUES ($1, ${VALUES}, ${STAMP}, ${STAMP}) RETURNING *`,
            [id, ...webhookValues(webhook), db.stamp()],
            c,
          );
          await setEvents(c, id, webhook.events ?? [], webhook.applicationId);
          return toWebhook(row);
        });
      } catch (err) {
        throw webhookWriteError(err, constraintOf(err), webhook);
      }
    },

    async getWebhook(id) {
      const [row] = await db.rows<WebhookRow>('SELECT * FROM webhooks WHERE id = $1', [id]);
      return row ? toWebhook(row) : null;
    },

    async listWebhooks(page: Page, applicationId?: string) {
      const rows = applicationId === undefined
        ? await db.rows<WebhookRow>('SELECT * FROM webhooks WHERE id > $1 ORDER BY id LIMIT $2', [page.after ?? '', page.limit])
        : await db.rows<WebhookRow>('SELECT * FROM webhooks WHERE application_id = $3 AND id > $1 ORDER BY id LIMIT $2', [page.after ?? '', page.limit, applicationId]);
      return rows.map(toWebhook);
    },

    async webhookHealth(ids, window) {
      if (ids.length === 0) return new Map();
      // LATERAL: each webhook's newest `window` rows, one index range read each.
      const rows = await db.rows<HealthRow>(
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
    },

    async updateWebhook(id, patch) {
      return update(id, patch);
    },

    async rotateWebhookSecret(id, rotation) {
      return update(id, (current) => rotatedSecrets(current, rotation));
    },

    async deleteWebhook(id) {
      // Subscriptions, deliveries and their attempts go with it: ON DELETE CASCADE.
      return (await db.changes('DELETE FROM webhooks WHERE id = $1', [id])) > 0;
    },

    async webhooksUsingApi(apiId) {
      return (await db.rows<WebhookRow>('SELECT * FROM webhooks WHERE mock_api_id = $1 ORDER BY id', [apiId])).map(toWebhook);
    },

    async subscribersOf(event, applicationId = null) {
      // Disabled webhooks too: their deliveries are held, not dropped. '' is the global webhooks' scope.
      const rows = await db.rows<WebhookRow & { hold: boolean }>(
        `SELECT w.*, NOT ${SENDABLE('w')} AS hold FROM webhooks w WHERE w.id IN (
           SELECT webhook_id FROM webhook_events WHERE application_id = $3 AND event IN ($1, $2)
         ) ORDER BY w.id`,
        [event, wildcardFor(event), applicationId ?? ''],
      );
      return rows.map((row) => ({ webhook: toWebhook(row), hold: row.hold }));
    },
  };
}
