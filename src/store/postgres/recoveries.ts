/**
 * Recovery jobs on PostgreSQL (store.ts RecoveriesPart): as on SQLite, a
 * chunk reopens its deliveries and moves the job's cursor in one transaction,
 * with the job's row locked, so a job resends each delivery once.
 */
import { newId } from '../../ids.js';
import type { RecoveryFilter } from '../../webhooks/types.js';
import { recoveryBounds } from '../shared/held.js';
import { leaseUntil } from '../shared/leases.js';
import { toRecovery, type RecoveryRow } from '../shared/recovery-rows.js';
import type { RecoveriesPart } from '../store.js';
import type { PgDb } from './db.js';

/** $1 from, $2 to, $3 cursor, $4 webhook ids (null: all), $5 statuses, $6 events (null: all). */
const SELECTED = `webhook_id IS NOT NULL AND id >= $1 AND id < $2 AND id > $3
  AND ($4::text[] IS NULL OR webhook_id = ANY($4::text[]))
  AND status = ANY($5::text[])
  AND ($6::text[] IS NULL OR (trigger = 'event' AND event = ANY($6::text[])))`;

function args(filter: RecoveryFilter, cursor = ''): unknown[] {
  const b = recoveryBounds(filter);
  return [b.from, b.to, cursor, b.webhookIds, b.statuses, b.events];
}

export function pgRecoveries(deps: { db: PgDb }): RecoveriesPart {
  const { db } = deps;
  return {
    async countRecoverable(filter) {
      const [row] = await db.rows<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE ${SELECTED}`, args(filter));
      return row.n;
    },

    async createRecovery(recovery) {
      return db.tx(async (c) => {
        const [{ n }] = await db.rows<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE ${SELECTED}`, args(recovery.filter), c);
        const [row] = await db.rows<RecoveryRow>(
          `INSERT INTO recoveries (id, webhook_id, filter_json, status, total, created_at, updated_at)
           VALUES ($1, $2, $3, 'running', $4, $5, $5) RETURNING *`,
          [newId('rcv'), recovery.webhookId, JSON.stringify(recovery.filter), n, db.stamp()],
          c,
        );
        return toRecovery(row);
      });
    },

    async getRecovery(id) {
      const [row] = await db.rows<RecoveryRow>('SELECT * FROM recoveries WHERE id = $1', [id]);
      return row ? toRecovery(row) : null;
    },

    async listRecoveries(webhookId, page, applicationId) {
      const rows = await db.rows<RecoveryRow>(
        `SELECT * FROM recoveries WHERE ($1::text IS NULL OR webhook_id = $1) AND ($2::text IS NULL OR id < $2)
         AND ($4::text IS NULL OR webhook_id IN (SELECT id FROM webhooks WHERE application_id = $4))
         ORDER BY id DESC LIMIT $3`,
        [webhookId, page.after ?? null, page.limit, applicationId ?? null],
      );
      return rows.map(toRecovery);
    },

    async claimRecovery(owner, now, leaseMs) {
      const [row] = await db.rows<RecoveryRow>(
        `UPDATE recoveries SET lease_owner = $1, lease_until = $3, updated_at = $2
         WHERE id = (SELECT id FROM recoveries WHERE status = 'running' AND (lease_until IS NULL OR lease_until < $2)
                     ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [owner, now, leaseUntil(now, leaseMs)],
      );
      return row ? toRecovery(row) : null;
    },

    async advanceRecovery(id, owner, now, chunk, leaseMs) {
      return db.tx(async (c) => {
        const [job] = await db.rows<RecoveryRow>('SELECT * FROM recoveries WHERE id = $1 FOR UPDATE', [id], c);
        if (!job || job.lease_owner !== owner || job.status !== 'running') return null;
        const recovery = toRecovery(job);
        const selected = await db.rows<{ id: string }>(
          `SELECT id FROM deliveries WHERE ${SELECTED} ORDER BY id LIMIT $7 FOR UPDATE`,
          [...args(recovery.filter, recovery.cursor), chunk],
          c,
        );
        const ids = selected.map((r) => r.id);
        const resent =
          ids.length === 0
            ? 0
            : await db.changes(
                `UPDATE deliveries SET status = 'pending', next_attempt_at = $2, completed_at = NULL, error = NULL, retry_base = attempt_count
                 WHERE id = ANY($1::text[]) AND status = ANY($3::text[])`,
                [ids, now, recovery.filter.statuses],
                c,
              );
        const cursor = ids.length > 0 ? ids[ids.length - 1] : recovery.cursor;
        const done = ids.length < chunk;
        const [row] = await db.rows<RecoveryRow>(
          done
            ? `UPDATE recoveries SET cursor = $2, resent = resent + $3, status = 'done', finished_at = $4, lease_owner = NULL, lease_until = NULL,
                 updated_at = $4 WHERE id = $1 RETURNING *`
            : `UPDATE recoveries SET cursor = $2, resent = resent + $3, lease_until = $5, updated_at = $4 WHERE id = $1 RETURNING *`,
          done ? [id, cursor, resent, now] : [id, cursor, resent, now, leaseUntil(now, leaseMs)],
          c,
        );
        return toRecovery(row);
      });
    },

    async recoveryLeaseOwners() {
      const rows = await db.rows<{ lease_owner: string }>(
        `SELECT DISTINCT lease_owner FROM recoveries WHERE status = 'running' AND lease_owner IS NOT NULL`,
      );
      return rows.map((r) => r.lease_owner);
    },

    async releaseRecoveryLeases(owner) {
      return db.changes(`UPDATE recoveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1 AND status = 'running'`, [owner]);
    },

    async cancelRecovery(id, now) {
      const [row] = await db.rows<RecoveryRow>(
        `UPDATE recoveries SET status = 'cancelled', finished_at = $2, lease_owner = NULL, lease_until = NULL, updated_at = $2
         WHERE id = $1 AND status = 'running' RETURNING *`,
        [id, now],
      );
      return row ? toRecovery(row) : null;
    },
  };
}
