/**
 * Applications and their portal tokens on SQLite. An application's webhooks,
 * and so their deliveries, go with it by ON DELETE CASCADE.
 */
import type { Application, ApplicationPatch, NewApplication } from '../../applications/types.js';
import { applicationExists } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Page } from '../../types.js';
import { definedOf, toApplication, toPortalSession, type ApplicationRow, type PortalTokenRow } from '../shared/application-rows.js';
import type { ApplicationsPart } from '../store.js';
import { constraintOf, type SqliteDb } from './db.js';

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    insert: p(`INSERT INTO applications (id, uid, name, metadata_json, limits_json, portal_json, project, created_at, updated_at)
      VALUES (@id, @uid, @name, @metadata_json, @limits_json, @portal_json, @project, @now, @now) RETURNING *`),
    get: p('SELECT * FROM applications WHERE id = ?'),
    byUid: p('SELECT * FROM applications WHERE uid = ?'),
    list: p('SELECT * FROM applications WHERE id > ? ORDER BY id LIMIT ?'),
    update: p(`UPDATE applications SET uid = @uid, name = @name, metadata_json = @metadata_json, limits_json = @limits_json, portal_json = @portal_json, project = @project, updated_at = @now
      WHERE id = @id RETURNING *`),
    delete: p('DELETE FROM applications WHERE id = ?'),
    countWebhooks: p('SELECT COUNT(*) FROM webhooks WHERE application_id = ?').pluck(),
    insertToken: p(`INSERT INTO portal_tokens (hash, application_id, created_at, expires_at, max_expires_at)
      VALUES (@hash, @applicationId, @createdAt, @expiresAt, @maxExpiresAt)`),
    token: p('SELECT * FROM portal_tokens WHERE hash = ?'),
    // ISO text in UTC with milliseconds compares as time does.
    refresh: p(`UPDATE portal_tokens SET expires_at = MIN(@expiresAt, max_expires_at)
      WHERE hash = @hash AND revoked_at IS NULL AND expires_at > @now RETURNING *`),
    revokeAll: p('UPDATE portal_tokens SET revoked_at = @now WHERE application_id = @applicationId AND revoked_at IS NULL'),
    withRetention: p(`SELECT id, json_extract(limits_json, '$.retentionDays') AS days FROM applications
      WHERE json_extract(limits_json, '$.retentionDays') IS NOT NULL`),
    pruneOf: p(`DELETE FROM deliveries WHERE status <> 'pending' AND created_at < @before
      AND webhook_id IN (SELECT id FROM webhooks WHERE application_id = @id)`),
    revokeOne: p('UPDATE portal_tokens SET revoked_at = @now WHERE application_id = @applicationId AND hash = @hash AND revoked_at IS NULL'),
  };
}

const columns = (a: NewApplication) => ({
  uid: a.uid,
  name: a.name,
  metadata_json: JSON.stringify(a.metadata),
  limits_json: JSON.stringify(a.limits),
  portal_json: JSON.stringify(a.portal),
  project: a.project ?? null,
});

export function sqliteApplications({ db }: { db: SqliteDb }): ApplicationsPart {
  const s = prepare(db);
  const uidTaken = (err: unknown, uid: string | null | undefined) => (constraintOf(err) === 'unique' && uid ? applicationExists(uid) : err);
  return {
    async createApplication(app) {
      try {
        const row = s.insert.get({ id: newId('app'), ...columns(app), now: db.stamp() }) as ApplicationRow;
        return toApplication(row);
      } catch (err) {
        throw uidTaken(err, app.uid);
      }
    },
    async getApplication(id) {
      const row = s.get.get(id) as ApplicationRow | undefined;
      return row ? toApplication(row) : null;
    },
    async getApplicationByUid(uid) {
      const row = s.byUid.get(uid) as ApplicationRow | undefined;
      return row ? toApplication(row) : null;
    },
    async listApplications(page: Page) {
      return (s.list.all(page.after ?? '', page.limit) as ApplicationRow[]).map(toApplication);
    },
    async updateApplication(id, patchOf) {
      let patch: ApplicationPatch = typeof patchOf === 'function' ? {} : patchOf;
      try {
        return db.write(() => {
          const row = s.get.get(id) as ApplicationRow | undefined;
          if (!row) return null;
          if (typeof patchOf === 'function') patch = patchOf(toApplication(row));
          const next: Application = { ...toApplication(row), ...definedOf(patch) };
          return toApplication(s.update.get({ id, ...columns(next), now: db.stamp() }) as ApplicationRow);
        });
      } catch (err) {
        throw uidTaken(err, patch.uid);
      }
    },
    async deleteApplication(id) {
      return s.delete.run(id).changes > 0;
    },
    async countApplicationWebhooks(id) {
      return s.countWebhooks.get(id) as number;
    },
    async createPortalToken(hash, session) {
      s.insertToken.run({ hash, ...session });
    },
    async portalSession(hash) {
      const row = s.token.get(hash) as PortalTokenRow | undefined;
      return row ? toPortalSession(row) : null;
    },
    async refreshPortalToken(hash, expiresAt, now) {
      const row = s.refresh.get({ hash, expiresAt, now }) as PortalTokenRow | undefined;
      return row ? toPortalSession(row) : null;
    },
    async pruneApplicationDeliveries(nowMs) {
      let removed = 0;
      for (const { id, days } of s.withRetention.all() as Array<{ id: string; days: number }>) {
        removed += s.pruneOf.run({ id, before: new Date(nowMs - days * 86_400_000).toISOString() }).changes;
      }
      return removed;
    },
    async revokePortalTokens(applicationId, now, hash) {
      return (hash === undefined ? s.revokeAll.run({ applicationId, now }) : s.revokeOne.run({ applicationId, now, hash })).changes;
    },
  };
}
