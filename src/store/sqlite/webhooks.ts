/**
 * Webhooks and their event subscriptions on SQLite.
 */
import { wildcardFor } from '../../events/names.js';
import { newId } from '../../ids.js';
import type { Page } from '../../types.js';
import { rotatedSecrets, type NewWebhook, type Webhook, type WebhookPatch } from '../../webhooks/types.js';
import { webhookWriteError } from '../shared/errors.js';
import { healthMap, HEALTH_FROM_RECENT, RECENT_STATUS, type HealthRow } from '../shared/health.js';
import { SENDABLE } from '../shared/held.js';
import { checkApplicationRoom, checkRoom } from '../shared/limits.js';
import { patchedWebhook, toWebhook, WEBHOOK_COLUMNS, webhookColumns, type WebhookRow } from '../shared/webhook-rows.js';
import type { WebhooksPart } from '../store.js';
import { constraintOf, type SqliteDb } from './db.js';

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  const columns = WEBHOOK_COLUMNS.join(', ');
  const values = WEBHOOK_COLUMNS.map((c) => `@${c}`).join(', ');
  return {
    insert: p(`INSERT INTO webhooks (id, ${columns}, created_at, updated_at) VALUES (@id, ${values}, @now, @now) RETURNING *`),
    get: p('SELECT * FROM webhooks WHERE id = ?'),
    list: p('SELECT * FROM webhooks WHERE id > ? ORDER BY id LIMIT ?'),
    listOfApp: p('SELECT * FROM webhooks WHERE application_id = ? AND id > ? ORDER BY id LIMIT ?'),
    // No LATERAL in SQLite: each webhook's rows from the id of its window-th newest
    // delivery on (a range of the (webhook_id, id) index; the first when it has fewer).
    health: p(`WITH asked(id) AS (SELECT value FROM json_each(@ids)),
      recent AS (
        SELECT d.webhook_id, ${RECENT_STATUS('d')} AS status, ROW_NUMBER() OVER (PARTITION BY d.webhook_id ORDER BY d.id DESC) AS n
        FROM asked JOIN deliveries d ON d.webhook_id = asked.id AND d.id >= COALESCE(
          (SELECT x.id FROM deliveries x WHERE x.webhook_id = asked.id ORDER BY x.id DESC LIMIT 1 OFFSET @skip), '')
      )${HEALTH_FROM_RECENT}`),
    update: p(`UPDATE webhooks SET (${columns}, updated_at) = (${values}, @now) WHERE id = @id RETURNING *`),
    delete: p('DELETE FROM webhooks WHERE id = ?'),
    usingApi: p('SELECT * FROM webhooks WHERE mock_api_id = ? ORDER BY id'),
    count: p('SELECT COUNT(*) FROM webhooks').pluck(),
    appRoom: p(`SELECT json_extract(limits_json, '$.maxEndpoints') AS max, (SELECT COUNT(*) FROM webhooks WHERE application_id = a.id) AS owned
      FROM applications a WHERE a.id = ?`),
    insertEvent: p('INSERT OR IGNORE INTO webhook_events (event, webhook_id, application_id) VALUES (?, ?, ?)'),
    deleteEvents: p('DELETE FROM webhook_events WHERE webhook_id = ?'),
    // Disabled webhooks too: their deliveries are held, not dropped.
    // One seek of (application_id, event) per name: '' is the global webhooks' scope.
    forEvent: p(`SELECT w.*, NOT ${SENDABLE('w')} AS hold FROM webhooks w WHERE w.id IN (
        SELECT webhook_id FROM webhook_events WHERE application_id = @scope AND event IN (@event, @star)
      ) ORDER BY w.id`),
  };
}

export function sqliteWebhooks(deps: { db: SqliteDb }): WebhooksPart {
  const { db } = deps;
  const s = prepare(db);

  const setEvents = (id: string, events: readonly string[], applicationId: string | null | undefined) => {
    s.deleteEvents.run(id);
    for (const e of events) s.insertEvent.run(e, id, applicationId ?? '');
  };

  /** Inside the write: an unknown application is left to the foreign key. */
  const claimEndpoint = (applicationId: string | null | undefined) => {
    if (!applicationId) return;
    const room = s.appRoom.get(applicationId) as { max: number | null; owned: number } | undefined;
    if (room) checkApplicationRoom(applicationId, room.max, room.owned);
  };

  /** Fields present replace; a function makes the patch from the row as locked. */
  async function update(id: string, patch: WebhookPatch | ((current: Webhook) => WebhookPatch)): Promise<Webhook | null> {
    const merged: { current?: NewWebhook } = {};
    try {
      return db.write(() => {
        const row = s.get.get(id) as WebhookRow | undefined;
        if (!row) return null;
        if (typeof patch !== 'function' && patch.applicationId && patch.applicationId !== row.application_id) claimEndpoint(patch.applicationId);
        const next = (merged.current = patchedWebhook(row, patch));
        const updated = s.update.get({ id, ...webhookColumns(next), now: db.stamp() }) as WebhookRow;
        if (typeof patch !== 'function' && (patch.events !== undefined || patch.applicationId !== undefined)) setEvents(id, next.events, next.applicationId);
        return toWebhook(updated);
      });
    } catch (err) {
      throw webhookWriteError(err, constraintOf(err), merged.current ?? (typeof patch === 'function' ? {} : patch));
    }
  }

  return {
    async createWebhook(webhook) {
      try {
        return db.write(() => {
          if (db.limits) checkRoom(db.limits, 'webhooks', s.count.get() as number);
          claimEndpoint(webhook.applicationId);
          const id = newId('wh');
          const row = s.insert.get({ id, ...webhookColumns(webhook), now: db.stamp() }) as WebhookRow;
          setEvents(id, webhook.events ?? [], webhook.applicationId);
          return toWebhook(row);
        });
      } catch (err) {
        throw webhookWriteError(err, constraintOf(err), webhook);
      }
    },

    async getWebhook(id) {
      const row = s.get.get(id) as WebhookRow | undefined;
      return row ? toWebhook(row) : null;
    },

    async listWebhooks(page: Page, applicationId?: string) {
      const rows = applicationId === undefined ? s.list.all(page.after ?? '', page.limit) : s.listOfApp.all(applicationId, page.after ?? '', page.limit);
      return (rows as WebhookRow[]).map(toWebhook);
    },

    async webhookHealth(ids, window) {
      if (ids.length === 0) return new Map();
      return healthMap(s.health.all({ ids: JSON.stringify(ids), skip: window - 1 }) as HealthRow[]);
    },

    async updateWebhook(id, patch) {
      return update(id, patch);
    },

    async rotateWebhookSecret(id, rotation) {
      return update(id, (current) => rotatedSecrets(current, rotation));
    },

    async deleteWebhook(id) {
      // Subscriptions, deliveries and their attempts go with it: ON DELETE CASCADE.
      return s.delete.run(id).changes > 0;
    },

    async webhooksUsingApi(apiId) {
      return (s.usingApi.all(apiId) as WebhookRow[]).map(toWebhook);
    },

    async subscribersOf(event, applicationId = null) {
      const rows = s.forEvent.all({ event, star: wildcardFor(event), scope: applicationId ?? '' }) as Array<WebhookRow & { hold: number }>;
      return rows.map((row) => ({ webhook: toWebhook(row), hold: row.hold === 1 }));
    },
  };
}
