/**
 * Deliveries, their leases and attempts on SQLite. A lease is taken and an
 * outcome recorded inside an IMMEDIATE transaction, so what is read is still
 * free when it is leased, and an attempt counts only while its owner holds
 * the lease.
 */
import { newId } from '../../ids.js';
import type { AttemptOutcome, Delivery, DeliveryStatus, NewDelivery } from '../../deliveries/types.js';
import {
  ATTEMPT_COLUMNS,
  NEW_DELIVERY_COLUMNS,
  newDeliveryColumns,
  outcomeColumns,
  toDelivery,
  writtenAttempt,
  type AttemptRow,
  type DeliveryRow,
} from '../shared/delivery-rows.js';
import { deliveryWriteError } from '../shared/errors.js';
import { claimShares, leaseUntil, NO_SHARE, sortByDue } from '../shared/leases.js';
import type { DeliveriesPart } from '../store.js';
import { pickDue, prepareClaim } from './claim.js';
import { constraintOf, type SqliteDb } from './db.js';

const APPLY_OUTCOME = `UPDATE deliveries SET status = @status, error = @error, response_json = @response_json,
    next_attempt_at = @next_attempt_at, completed_at = @completed_at,
    request_json = COALESCE(@request_json, request_json), result_json = COALESCE(@result_json, result_json),
    attempt_count = attempt_count + 1,
    lease_owner = NULL, lease_until = NULL
  WHERE id = @id AND lease_owner = @owner`;

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    insert: p(`INSERT INTO deliveries (${NEW_DELIVERY_COLUMNS.join(', ')})
      VALUES (${NEW_DELIVERY_COLUMNS.map((c) => `@${c}`).join(', ')}) RETURNING *`),
    get: p('SELECT * FROM deliveries WHERE id = ?'),
    listFirst: p(`SELECT * FROM deliveries WHERE webhook_id = @webhook AND (@status IS NULL OR status = @status)
      ORDER BY id DESC LIMIT @limit`),
    listAfter: p(`SELECT * FROM deliveries WHERE webhook_id = @webhook AND (@status IS NULL OR status = @status) AND id < @after
      ORDER BY id DESC LIMIT @limit`),
    listOfFunctionFirst: p(`SELECT * FROM deliveries WHERE function_name = @fn AND (@status IS NULL OR status = @status)
      ORDER BY id DESC LIMIT @limit`),
    listOfFunctionAfter: p(`SELECT * FROM deliveries WHERE function_name = @fn AND (@status IS NULL OR status = @status)
      AND id < @after ORDER BY id DESC LIMIT @limit`),
    attemptsOf: p(`SELECT ${ATTEMPT_COLUMNS} FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt`),
    attemptsWithResponses: p('SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt'),
    attemptsOfMany: p(`SELECT ${ATTEMPT_COLUMNS} FROM delivery_attempts WHERE delivery_id IN (SELECT value FROM json_each(?))
      ORDER BY delivery_id, attempt`),
    leaseRows: p(`UPDATE deliveries SET lease_owner = @owner, lease_until = @until
      WHERE rowid IN (SELECT value FROM json_each(@rowids)) RETURNING *`),
    leaseOne: p(`UPDATE deliveries SET lease_owner = @owner, lease_until = @until
      WHERE id = @id AND status = 'pending' AND (lease_until IS NULL OR lease_until < @now)
      RETURNING *`),
    extendLease: p('UPDATE deliveries SET lease_until = ? WHERE id = ? AND lease_owner = ?'),
    saveRequest: p('UPDATE deliveries SET request_json = ? WHERE id = ?'),
    applyOutcome: p(`${APPLY_OUTCOME} RETURNING *`),
    // The same without reading the row back (a lean item of recordAttempts).
    applyOutcomeLean: p(APPLY_OUTCOME),
    insertAttempt: p(`INSERT INTO delivery_attempts
      (delivery_id, attempt, started_at, duration_ms, response_status, error, outcome, request_id, response_json, sent_json)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    reopen: p(`UPDATE deliveries SET status = 'pending', next_attempt_at = @now, completed_at = NULL
      WHERE id = @id AND status <> 'pending' RETURNING *`),
    releaseLeases: p('UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ?'),
    releaseLease: p('UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?'),
    leaseOwners: p('SELECT DISTINCT lease_owner FROM deliveries WHERE lease_owner IS NOT NULL').pluck(),
    countPending: p(`SELECT COUNT(*) FROM deliveries WHERE status = 'pending'`).pluck(),
    pendingByWebhook: p(`SELECT target, COUNT(*) AS n FROM deliveries INDEXED BY deliveries_pending_by_webhook
      WHERE status = 'pending' GROUP BY target ORDER BY n DESC, target LIMIT ?`).raw(),
    // Attempts go with them: ON DELETE CASCADE. Held ones count as finished here: retention applies to them too.
    prune: p(`DELETE FROM deliveries WHERE status <> 'pending' AND created_at < ?`),
  };
}

export function sqliteDeliveries(deps: { db: SqliteDb }): DeliveriesPart {
  const { db } = deps;
  const s = prepare(db);
  const claim = prepareClaim(db);
  /** Per owner, where its last walk over targets stopped (see claim.ts). */
  const claimCursors = new Map<string, string>();

  const withAttempts = (row: DeliveryRow): Delivery => toDelivery(row, s.attemptsOf.all(row.id) as AttemptRow[]);

  /** One query for the attempts of every row (none when no row has been attempted yet, the usual claim). */
  const withAttemptsMany = (rows: DeliveryRow[]): Delivery[] => {
    if (!rows.length) return [];
    const byDelivery = new Map<string, AttemptRow[]>(rows.map((r) => [r.id, []]));
    const attempted = rows.filter((r) => r.attempt_count > 0).map((r) => r.id);
    if (attempted.length > 0) {
      for (const a of s.attemptsOfMany.all(JSON.stringify(attempted)) as AttemptRow[]) byDelivery.get(a.delivery_id)?.push(a);
    }
    return rows.map((r) => toDelivery(r, byDelivery.get(r.id)!));
  };

  function applyAttempt(id: string, owner: string, outcome: AttemptOutcome): Delivery | null;
  function applyAttempt(id: string, owner: string, outcome: AttemptOutcome, lean: boolean): Delivery | true | null;
  function applyAttempt(id: string, owner: string, outcome: AttemptOutcome, lean = false): Delivery | true | null {
    const c = outcomeColumns(outcome, db.stamp());
    const params = { id, owner, ...c };
    const addAttempt = () =>
      s.insertAttempt.run(id, c.attempt, c.started_at, c.duration_ms, c.response_status, c.attempt_error, c.outcome, c.request_id, c.response_json, c.sent_json);
    if (lean) {
      if (s.applyOutcomeLean.run(params).changes === 0) return null;
      addAttempt();
      return true;
    }
    const row = s.applyOutcome.get(params) as DeliveryRow | undefined;
    if (!row) return null;
    addAttempt();
    // attempt_count counts the attempt rows, so a first attempt needs no read-back.
    return row.attempt_count === 1 ? toDelivery(row, [writtenAttempt(id, c)]) : withAttempts(row);
  }

  return {
    async createDelivery(delivery) {
      try {
        return toDelivery(s.insert.get(newDeliveryColumns(delivery, newId('dlv'), db.stamp())) as DeliveryRow, []);
      } catch (err) {
        throw deliveryWriteError(err, constraintOf(err), delivery);
      }
    },

    async createDeliveries(deliveries) {
      let current: NewDelivery | undefined;
      try {
        return db.write(() => {
          const stamp = db.stamp();
          return deliveries.map((d) => {
            current = d;
            return toDelivery(s.insert.get(newDeliveryColumns(d, newId('dlv'), stamp)) as DeliveryRow, []);
          });
        });
      } catch (err) {
        if (current === undefined) throw err;
        throw deliveryWriteError(err, constraintOf(err), current);
      }
    },

    async getDelivery(id) {
      return db.read(() => {
        const row = s.get.get(id) as DeliveryRow | undefined;
        return row ? withAttempts(row) : null;
      });
    },

    async getDeliveryDetail(id) {
      return db.read(() => {
        const row = s.get.get(id) as DeliveryRow | undefined;
        return row ? toDelivery(row, s.attemptsWithResponses.all(row.id) as AttemptRow[]) : null;
      });
    },

    async listDeliveries(webhookId, page, status = null) {
      return db.read(() => {
        const params = { webhook: webhookId, status, limit: page.limit };
        const rows = (page.after === undefined ? s.listFirst.all(params) : s.listAfter.all({ ...params, after: page.after })) as DeliveryRow[];
        return withAttemptsMany(rows);
      });
    },

    async listFunctionDeliveries(functionName, status: DeliveryStatus | null, page) {
      return db.read(() => {
        const params = { fn: functionName, status, limit: page.limit };
        const rows = (
          page.after === undefined
            ? s.listOfFunctionFirst.all(params)
            : s.listOfFunctionAfter.all({ ...params, after: page.after })
        ) as DeliveryRow[];
        return withAttemptsMany(rows);
      });
    },

    async claimDueDeliveries(owner, now, leaseMs, limit, perWebhook = NO_SHARE) {
      if (limit <= 0) return [];
      const shares = claimShares(perWebhook);
      return db.write(() => {
        const picked = pickDue(claim, claimCursors, { owner, now, limit, shares });
        if (picked.length === 0) return [];
        const rows = s.leaseRows.all({ owner, until: leaseUntil(now, leaseMs), rowids: JSON.stringify(picked) }) as DeliveryRow[];
        return withAttemptsMany(sortByDue(rows));
      });
    },

    async leaseDelivery(id, owner, now, leaseMs) {
      return db.write(() => {
        const row = s.leaseOne.get({ id, owner, now, until: leaseUntil(now, leaseMs) }) as DeliveryRow | undefined;
        return row ? withAttempts(row) : null;
      });
    },

    async extendLease(id, owner, until) {
      return s.extendLease.run(until, id, owner).changes > 0;
    },

    async saveDeliveryRequest(id, request) {
      s.saveRequest.run(JSON.stringify(request), id);
    },

    async recordAttempt(id, owner, outcome) {
      return db.write(() => applyAttempt(id, owner, outcome));
    },

    // One IMMEDIATE transaction: the commit is most of what a write costs; a failing item rolls the batch back.
    async recordAttempts(owner, items) {
      if (items.length === 0) return [];
      return db.write(() => items.map(({ id, outcome, lean }) => applyAttempt(id, owner, outcome, lean === true)));
    },

    async reopenDelivery(id, now) {
      return db.write(() => {
        const row = s.reopen.get({ id, now }) as DeliveryRow | undefined;
        return row ? withAttempts(row) : null;
      });
    },

    async releaseLeases(owner) {
      return s.releaseLeases.run(owner).changes;
    },

    async releaseLease(id, owner) {
      return s.releaseLease.run(id, owner).changes > 0;
    },

    async leaseOwners() {
      return s.leaseOwners.all() as string[];
    },

    async countPendingDeliveries() {
      return s.countPending.get() as number;
    },

    async pendingByWebhook(limit) {
      return s.pendingByWebhook.all(limit) as Array<[string, number]>;
    },

    async pruneDeliveries(before) {
      return s.prune.run(before).changes;
    },
  };
}
