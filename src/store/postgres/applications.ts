/**
 * Applications and their portal tokens on PostgreSQL: as on SQLite
 * (sqlite/applications.ts). An update locks the application's row first.
 */
import type { Application, ApplicationPatch, NewApplication } from '../../applications/types.js';
import { applicationExists } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Page } from '../../types.js';
import { definedOf, toApplication, toPortalSession, type ApplicationRow, type PortalTokenRow } from '../shared/application-rows.js';
import type { ApplicationsPart } from '../store.js';
import { constraintOf, type PgDb } from './db.js';

const values = (a: NewApplication) => [a.uid, a.name, JSON.stringify(a.metadata), JSON.stringify(a.limits), JSON.stringify(a.portal), a.project ?? null];

export function pgApplications({ db }: { db: PgDb }): ApplicationsPart {
  const uidTaken = (err: unknown, uid: string | null | undefined) => (constraintOf(err) === 'unique' && uid ? applicationExists(uid) : err);
  const one = async (sql: string, args: unknown[]) => {
    const [row] = await db.rows<ApplicationRow>(sql, args);
    return row ? toApplication(row) : null;
  };
  return {
    async createApplication(app) {
      try {
        const [row] = await db.rows<ApplicationRow>(
          `INSERT INTO applications (id, uid, name, metadata_json, limits_json, portal_json, project, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING *`,
          [newId('app'), ...values(app), db.stamp()],
        );
        return toApplication(row);
      } catch (err) {
        throw uidTaken(err, app.uid);
      }
    },
    getApplication: (id) => one('SELECT * FROM applications WHERE id = $1', [id]),
    getApplicationByUid: (uid) => one('SELECT * FROM applications WHERE uid = $1', [uid]),
    async listApplications(page: Page) {
      const rows = await db.rows<ApplicationRow>('SELECT * FROM applications WHERE id > $1 ORDER BY id LIMIT $2', [page.after ?? '', page.limit]);
      return rows.map(toApplication);
    },
    async updateApplication(id, patchOf) {
      let patch: ApplicationPatch = typeof patchOf === 'function' ? {} : patchOf;
      try {
        return await db.tx(async (c) => {
          const [row] = await db.rows<ApplicationRow>('SELECT * FROM applications WHERE id = $1 FOR UPDATE', [id], c);
          if (!row) return null;
          if (typeof patchOf === 'function') patch = patchOf(toApplication(row));
          const next: Application = { ...toApplication(row), ...definedOf(patch) };
          const [updated] = await db.rows<ApplicationRow>(
            'UPDATE applications SET uid = $2, name = $3, metadata_json = $4, limits_json = $5, portal_json = $6, project = $7, updated_at = $8 WHERE id = $1 RETURNING *',
            [id, ...values(next), db.stamp()],
            c,
          );
          return toApplication(updated);
        });
      } catch (err) {
        throw uidTaken(err, patch.uid);
      }
    },
    async deleteApplication(id) {
      return (await db.changes('DELETE FROM applications WHERE id = $1', [id])) > 0;
    },
    async countApplicationWebhooks(id) {
      const [row] = await db.rows<{ n: string }>('SELECT COUNT(*) AS n FROM webhooks WHERE application_id = $1', [id]);
      return Number(row.n);
    },
    async createPortalToken(hash, session) {
      await db.changes(
        'INSERT INTO portal_tokens (hash, application_id, created_at, expires_at, max_expires_at) VALUES ($1, $2, $3, $4, $5)',
        [hash, session.applicationId, session.createdAt, session.expiresAt, session.maxExpiresAt],
      );
    },
    async portalSession(hash) {
      const [row] = await db.rows<PortalTokenRow>('SELECT * FROM portal_tokens WHERE hash = $1', [hash]);
      return row ? toPortalSession(row) : null;
    },
    async refreshPortalToken(hash, expiresAt, now) {
      const [row] = await db.rows<PortalTokenRow>(
        `UPDATE portal_tokens SET expires_at = LEAST($2::timestamptz, max_expires_at)
         WHERE hash = $1 AND revoked_at IS NULL AND expires_at > $3::timestamptz RETURNING *`,
        [hash, expiresAt, now],
      );
      return row ? toPortalSession(row) : null;
    },
    async pruneApplicationDeliveries(nowMs) {
      let removed = 0;
      const apps = await db.rows<{ id: string; days: string }>(
        `SELECT id, limits_json::json->>'retentionDays' AS days FROM applications WHERE limits_json::json->>'retentionDays' IS NOT NULL`,
      );
      for (const { id, days } of apps) {
        removed += await db.changes(
          `DELETE FROM deliveries WHERE status <> 'pending' AND created_at < $2
           AND webhook_id IN (SELECT id FROM webhooks WHERE application_id = $1)`,
          [id, new Date(nowMs - Number(days) * 86_400_000).toISOString()],
        );
      }
      return removed;
    },
    async revokePortalTokens(applicationId, now, hash) {
      return hash === undefined
        ? db.changes('UPDATE portal_tokens SET revoked_at = $2 WHERE application_id = $1 AND revoked_at IS NULL', [applicationId, now])
        : db.changes('UPDATE portal_tokens SET revoked_at = $2 WHERE application_id = $1 AND hash = $3 AND revoked_at IS NULL', [applicationId, now, hash]);
    },
  };
}
