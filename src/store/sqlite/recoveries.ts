/**
 * Recovery jobs on SQLite (store.ts RecoveriesPart). A chunk reopens its
 * deliveries and moves the job's cursor in one IMMEDIATE transaction, so a
 * job resends each delivery once whatever restarts; time ranges are id
 * ranges of the primary key (../shared/held.ts idFloor).
 */
import { newId } from '../../ids.js';
import { leaseUntil } from '../shared/leases.js';
import { recoveryBounds } from '../shared/held.js';
import { toRecovery, type RecoveryRow } from '../shared/recovery-rows.js';
import type { RecoveriesPart } from '../store.js';
import type { RecoveryFilter } from '../../webhooks/types.js';
import type { SqliteDb } from './db.js';

const SELECTED = `webhook_id IS NOT NULL AND id >= @from AND id < @to AND id > @cursor
  AND (@webhooks IS NULL OR webhook_id IN (SELECT value FROM json_each(@webhooks)))
  AND status IN (SELECT value FROM json_each(@statuses))
  AND (@events IS NULL OR (trigger = 'event' AND event IN (SELECT value FROM json_each(@events))))`;

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    count: p(`SELECT COUNT(*) FROM deliveries WHERE ${SELECTED}`).pluck(),
    insert: p(`INSERT INTO recoveries (id, webhook_id, filter_json, status, total, created_at, updated_at)
      VALUES (@id, @webhook, @filter, 'running', @total, @now, @now) RETURNING *`),
    get: p('SELECT * FROM recoveries WHERE id = ?'),
    listAll: p('SELECT * FROM recoveries WHERE (@after IS NULL OR id < @after) ORDER BY id DESC LIMIT @limit'),
    listOf: p('SELECT * FROM recoveries WHERE webhook_id = @webhook AND (@after IS NULL OR id < @after) ORDER BY id DESC LIMIT @limit'),
    listOfApp: p(`SELECT * FROM recoveries WHERE webhook_id IN (SELECT id FROM webhooks WHERE application_id = @app)
      AND (@after IS NULL OR id < @after) ORDER BY id DESC LIMIT @limit`),
    claim: p(`UPDATE recoveries SET lease_owner = @owner, lease_until = @until, updated_at = @now
      WHERE id = (SELECT id FROM recoveries WHERE status = 'running' AND (lease_until IS NULL OR lease_until < @now) ORDER BY id LIMIT 1)
      RETURNING *`),
    chunk: p(`SELECT id FROM deliveries WHERE ${SELECTED} ORDER BY id LIMIT @chunk`).pluck(),
    reopen: p(`UPDATE deliveries SET status = 'pending', next_attempt_at = @now, completed_at = NULL, error = NULL,
        retry_base = attempt_count
      WHERE id IN (SELECT value FROM json_each(@ids)) AND status IN (SELECT value FROM json_each(@statuses))`),
    advance: p(`UPDATE recoveries SET cursor = @cursor, resent = resent + @resent, lease_until = @until, updated_at = @now
      WHERE id = @id AND lease_owner = @owner AND status = 'running' RETURNING *`),
    finish: p(`UPDATE recoveries SET cursor = @cursor, resent = resent + @resent, status = 'done', finished_at = @now,
        lease_owner = NULL, lease_until = NULL, updated_at = @now
      WHERE id = @id AND lease_owner = @owner AND status = 'running' RETURNING *`),
    owners: p(`SELECT DISTINCT lease_owner FROM recoveries WHERE status = 'running' AND lease_owner IS NOT NULL`).pluck(),
    release: p(`UPDATE recoveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ? AND status = 'running'`),
    cancel: p(`UPDATE recoveries SET status = 'cancelled', finished_at = @now, lease_owner = NULL, lease_until = NULL, updated_at = @now
      WHERE id = @id AND status = 'running' RETURNING *`),
  };
}

function params(filter: RecoveryFilter, cursor = '') {
  const b = recoveryBounds(filter);
  return {
    from: b.from,
    to: b.to,
    cursor,
    webhooks: b.webhookIds ? JSON.stringify(b.webhookIds) : null,
    statuses: JSON.stringify(b.statuses),
    events: b.events ? JSON.stringify(b.events) : null,
  };
}

export function sqliteRecoveries(deps: { db: SqliteDb }): RecoveriesPart {
  const { db } = deps;
  const s = prepare(db);
  return {
    async countRecoverable(filter) {
      return s.count.get(params(filter)) as number;
    },

    async createRecovery(recovery) {
      return db.write(() => {
        const total = s.count.get(params(recovery.filter)) as number;
        const row = s.insert.get({
          id: newId('rcv'),
          webhook: recovery.webhookId,
          filter: JSON.stringify(recovery.filter),
          total,
          now: db.stamp(),
        }) as RecoveryRow;
        return toRecovery(row);
      });
    },

    async getRecovery(id) {
      const row = s.get.get(id) as RecoveryRow | undefined;
      return row ? toRecovery(row) : null;
    },

    async listRecoveries(webhookId, page, applicationId) {
      const args = { after: page.after ?? null, limit: page.limit };
      if (applicationId !== undefined && webhookId === null) return (s.listOfApp.all({ ...args, app: applicationId }) as RecoveryRow[]).map(toRecovery);
      const rows = (webhookId === null ? s.listAll.all(args) : s.listOf.all({ ...args, webhook: webhookId })) as RecoveryRow[];
      return rows.map(toRecovery);
    },

    async claimRecovery(owner, now, leaseMs) {
      const row = s.claim.get({ owner, now, until: leaseUntil(now, leaseMs) }) as RecoveryRow | undefined;
      return row ? toRecovery(row) : null;
    },

    async advanceRecovery(id, owner, now, chunk, leaseMs) {
      return db.write(() => {
        const job = s.get.get(id) as RecoveryRow | undefined;
        if (!job || job.lease_owner !== owner || job.status !== 'running') return null;
        const recovery = toRecovery(job);
        const args = params(recovery.filter, recovery.cursor);
        const ids = s.chunk.all({ ...args, chunk }) as string[];
        const resent = ids.length === 0 ? 0 : s.reopen.run({ ids: JSON.stringify(ids), statuses: args.statuses, now }).changes;
        const cursor = ids.length > 0 ? ids[ids.length - 1] : recovery.cursor;
        const step = { id, owner, cursor, resent, now, until: leaseUntil(now, leaseMs) };
        const row = (ids.length < chunk ? s.finish.get(step) : s.advance.get(step)) as RecoveryRow | undefined;
        return row ? toRecovery(row) : null;
      });
    },

    async cancelRecovery(id, now) {
      const row = s.cancel.get({ id, now }) as RecoveryRow | undefined;
      return row ? toRecovery(row) : null;
    },

    async recoveryLeaseOwners() {
      return s.owners.all() as string[];
    },

    async releaseRecoveryLeases(owner) {
      return s.release.run(owner).changes;
    },
  };
}
