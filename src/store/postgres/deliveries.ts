/**
 * Deliveries, their leases and attempts on PostgreSQL. Several nodes work one
 * queue: due deliveries are leased with `FOR UPDATE SKIP LOCKED` (claim.ts),
 * so workers never wait on, or take, each other's rows; an attempt is
 * recorded only while its worker still holds the lease. Reads are single
 * statements (one snapshot), with the attempts aggregated as a JSON column.
 */
import { newId } from '../../ids.js';
import type { AttemptRecord, Delivery, NewDelivery } from '../../deliveries/types.js';
import {
  ATTEMPT_COLUMNS,
  NEW_DELIVERY_COLUMNS,
  newDeliveryColumns,
  outcomeColumns,
  toDelivery,
  type DeliveryRow,
} from '../shared/delivery-rows.js';
import { deliveryWriteError } from '../shared/errors.js';
import { claimShares, leaseUntil, NO_SHARE, sortByDue } from '../shared/leases.js';
import type { DeliveriesPart } from '../store.js';
import { claimDue } from './claim.js';
import { attemptJsonSql, attemptsOfSql, constraintOf, type DeliveryWithAttemptsRow, type PgDb, type Queryable } from './db.js';

const withAttempts = (r: DeliveryWithAttemptsRow): Delivery => toDelivery(r, r.attempts);

const INSERT_SQL = `INSERT INTO deliveries (${NEW_DELIVERY_COLUMNS.join(', ')})
  VALUES (${NEW_DELIVERY_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING *`;

/** Rows per multi-row insert: far below PostgreSQL's 65,535 parameters a statement. */
const INSERT_MANY_ROWS = 1000;
const insertManySql = (n: number): string => {
  const width = NEW_DELIVERY_COLUMNS.length;
  const tuples: string[] = [];
  for (let r = 0; r < n; r++) tuples.push(`(${NEW_DELIVERY_COLUMNS.map((_, i) => `$${r * width + i + 1}`).join(', ')})`);
  return `INSERT INTO deliveries (${NEW_DELIVERY_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')} RETURNING *`;
};

/**
 * The delivery a multi-row insert failed on: PostgreSQL names the missing key in the
 * error's detail (`Key (webhook_id)=(wh_...) is not present ...`); else the first.
 */
function failedOf(err: unknown, deliveries: readonly NewDelivery[]): NewDelivery {
  const detail = typeof err === 'object' && err !== null && 'detail' in err ? String(err.detail) : '';
  const key = /^Key \((webhook_id|function_name)\)=\((.*)\) is not present/.exec(detail);
  const found = key && deliveries.find((d) => (key[1] === 'webhook_id' ? d.webhookId : d.functionName) === key[2]);
  return found || deliveries[0];
}

/** The recorded deliveries with their attempts: the statement snapshot's plus the ones it inserted (`added`). */
const READ_BACK = `SELECT d.*, (
         SELECT json_agg(y.j ORDER BY y.attempt) FROM (
           SELECT a.attempt, ${attemptJsonSql('a')} AS j FROM delivery_attempts a WHERE a.delivery_id = d.id
           UNION ALL
           SELECT n.attempt, ${attemptJsonSql('n')} FROM added n WHERE n.delivery_id = d.id
         ) y) AS attempts
       FROM d`;

/** The columns of outcomeColumns that applyAttempts passes as arrays, with their types, in parameter order from $2. */
const OUTCOME_PARAMS = [
  ['status', 'text'], ['error', 'text'], ['response_json', 'text'], ['next_attempt_at', 'timestamptz'],
  ['completed_at', 'timestamptz'], ['request_json', 'text'], ['attempt', 'int'], ['started_at', 'timestamptz'],
  ['duration_ms', 'float8'], ['response_status', 'int'], ['attempt_error', 'text'], ['result_json', 'text'], ['outcome', 'text'],
  ['request_id', 'text'], ['sent_json', 'text'],
] as const;

const applySql = (lean: boolean) => `WITH i AS (
    SELECT * FROM unnest($2::text[], ${OUTCOME_PARAMS.map(([, type], n) => `$${n + 3}::${type}[]`).join(', ')})
      WITH ORDINALITY AS i (id, ${OUTCOME_PARAMS.map(([name]) => name).join(', ')}, n)),
  d AS (
    UPDATE deliveries x SET status = i.status, error = i.error, response_json = i.response_json,
      next_attempt_at = i.next_attempt_at, completed_at = i.completed_at,
      request_json = COALESCE(i.request_json, x.request_json), result_json = COALESCE(i.result_json, x.result_json),
      attempt_count = x.attempt_count + 1,
      lease_owner = NULL, lease_until = NULL
    FROM i WHERE x.id = i.id AND x.lease_owner = $1
    RETURNING ${lean ? 'i.n' : 'x.*, i.n'}),
  added AS (
    INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, response_status, error, outcome,
      request_id, response_json, sent_json)
    SELECT i.id, i.attempt, i.started_at, i.duration_ms, i.response_status, i.attempt_error, i.outcome, i.request_id,
      i.response_json, i.sent_json
    FROM i JOIN d ON d.n = i.n
    RETURNING ${ATTEMPT_COLUMNS})
  ${lean ? 'SELECT d.n FROM d' : READ_BACK}`;
const APPLY_SQL = applySql(false);
const APPLY_LEAN_SQL = applySql(true);

export function pgDeliveries(deps: { db: PgDb }): DeliveriesPart {
  const { db } = deps;
  /** Per owner, where its last walk over targets stopped (see claim.ts). */
  const claimCursors = new Map<string, string>();

  /**
   * Applies each outcome and writes its attempt, only for deliveries `owner`
   * still leases, in one statement. Item ids must be distinct. The attempt
   * lists are the statement snapshot's plus the attempts it inserted; `lean`:
   * none of it, `true` for each recorded item.
   */
  async function applyAttempts(on: Queryable, owner: string, items: AttemptRecord[], lean: false): Promise<Array<Delivery | null>>;
  async function applyAttempts(on: Queryable, owner: string, items: AttemptRecord[], lean: boolean): Promise<Array<Delivery | true | null>>;
  async function applyAttempts(on: Queryable, owner: string, items: AttemptRecord[], lean: boolean): Promise<Array<Delivery | true | null>> {
    const stamp = db.stamp();
    const columns = items.map((i) => outcomeColumns(i.outcome, stamp));
    const rows = await db.rows<DeliveryWithAttemptsRow & { n: string }>(
      lean ? APPLY_LEAN_SQL : APPLY_SQL,
      [owner, items.map((i) => i.id), ...OUTCOME_PARAMS.map(([name]) => columns.map((c) => c[name]))],
      on,
    );
    const results: Array<Delivery | true | null> = items.map(() => null);
    for (const row of rows) results[Number(row.n) - 1] = lean ? true : withAttempts(row);
    return results;
  }

  return {
    async createDelivery(delivery) {
      try {
        const columns = newDeliveryColumns(delivery, newId('dlv'), db.stamp());
        const [row] = await db.rows<DeliveryRow>(INSERT_SQL, NEW_DELIVERY_COLUMNS.map((c) => columns[c]));
        return toDelivery(row, []);
      } catch (err) {
        throw deliveryWriteError(err, constraintOf(err), delivery);
      }
    },

    async createDeliveries(deliveries) {
      const stamp = db.stamp();
      const rows = deliveries.map((d) => newDeliveryColumns(d, newId('dlv'), stamp));
      const insert = async (part: typeof rows, on?: Queryable) => {
        const values = part.flatMap((columns) => NEW_DELIVERY_COLUMNS.map((c) => columns[c]));
        return db.rows<DeliveryRow>(insertManySql(part.length), values, on);
      };
      let inserted: DeliveryRow[];
      try {
        // One statement is one transaction already; a fan-out past the parameter bound takes several in one.
        inserted = rows.length <= INSERT_MANY_ROWS
          ? await insert(rows)
          : await db.tx(async (c) => {
              const all: DeliveryRow[] = [];
              for (let i = 0; i < rows.length; i += INSERT_MANY_ROWS) all.push(...(await insert(rows.slice(i, i + INSERT_MANY_ROWS), c)));
              return all;
            });
      } catch (err) {
        throw deliveryWriteError(err, constraintOf(err), failedOf(err, deliveries));
      }
      // RETURNING's order is not promised: the rows are put back in the order given, by id.
      const byId = new Map(inserted.map((row) => [row.id, row]));
      return rows.map((columns) => toDelivery(byId.get(columns.id as string)!, []));
    },

    async getDelivery(id) {
      const [row] = await db.rows<DeliveryWithAttemptsRow>(`SELECT d.*, ${attemptsOfSql('d')} FROM deliveries d WHERE d.id = $1`, [id]);
      return row ? withAttempts(row) : null;
    },

    async getDeliveryDetail(id) {
      const [row] = await db.rows<DeliveryWithAttemptsRow>(`SELECT d.*, ${attemptsOfSql('d', true)} FROM deliveries d WHERE d.id = $1`, [id]);
      return row ? withAttempts(row) : null;
    },

    async listDeliveries(webhookId, page, status = null) {
      const rows = await db.rows<DeliveryWithAttemptsRow>(
        `SELECT d.*, ${attemptsOfSql('d')} FROM deliveries d
         WHERE d.webhook_id = $1 AND ($2::text IS NULL OR d.status = $2) AND ($3::text IS NULL OR d.id < $3)
         ORDER BY d.id DESC LIMIT $4`,
        [webhookId, status, page.after ?? null, page.limit],
      );
      return rows.map(withAttempts);
    },

    async listFunctionDeliveries(functionName, status, page) {
      const rows = await db.rows<DeliveryWithAttemptsRow>(
        `SELECT d.*, ${attemptsOfSql('d')} FROM deliveries d
         WHERE d.function_name = $1 AND ($2::text IS NULL OR d.status = $2) AND ($3::text IS NULL OR d.id < $3)
         ORDER BY d.id DESC LIMIT $4`,
        [functionName, status, page.after ?? null, page.limit],
      );
      return rows.map(withAttempts);
    },

    async claimDueDeliveries(owner, now, leaseMs, limit, perWebhook = NO_SHARE) {
      if (limit <= 0) return [];
      const rows = await claimDue(db.pool, claimCursors, {
        owner,
        now,
        until: leaseUntil(now, leaseMs),
        limit,
        shares: claimShares(perWebhook),
      });
      return sortByDue(rows).map(withAttempts);
    },

    async leaseDelivery(id, owner, now, leaseMs) {
      const [row] = await db.rows<DeliveryWithAttemptsRow>(
        `UPDATE deliveries d SET lease_owner = $2, lease_until = $4
         WHERE d.id = $1 AND d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until < $3)
         RETURNING d.*, ${attemptsOfSql('d')}`,
        [id, owner, now, leaseUntil(now, leaseMs)],
      );
      return row ? withAttempts(row) : null;
    },

    async extendLease(id, owner, until) {
      return (await db.changes('UPDATE deliveries SET lease_until = $1 WHERE id = $2 AND lease_owner = $3', [until, id, owner])) > 0;
    },

    async saveDeliveryRequest(id, request) {
      await db.pool.query('UPDATE deliveries SET request_json = $1 WHERE id = $2', [JSON.stringify(request), id]);
    },

    async recordAttempt(id, owner, outcome) {
      const [result] = await applyAttempts(db.pool, owner, [{ id, outcome }], false);
      return result;
    },

    // One statement, so one round trip and one commit per batch (two statements in one
    // transaction when lean and full items are mixed).
    async recordAttempts(owner, items) {
      if (items.length === 0) return [];
      if (new Set(items.map((i) => i.id)).size < items.length) {
        // The same delivery twice: apply them in order, as separate calls would (the second finds the lease released).
        return db.tx(async (c) => {
          const results: Array<Delivery | true | null> = [];
          for (const item of items) results.push((await applyAttempts(c, owner, [item], item.lean === true))[0]);
          return results;
        });
      }
      const lean = items.filter((i) => i.lean);
      if (lean.length === items.length) return applyAttempts(db.pool, owner, items, true);
      if (lean.length === 0) return applyAttempts(db.pool, owner, items, false);
      const full = items.filter((i) => !i.lean);
      return db.tx(async (c) => {
        const byId = new Map<string, Delivery | true | null>();
        const leanResults = await applyAttempts(c, owner, lean, true);
        lean.forEach((item, i) => byId.set(item.id, leanResults[i]));
        const fullResults = await applyAttempts(c, owner, full, false);
        full.forEach((item, i) => byId.set(item.id, fullResults[i]));
        return items.map((item) => byId.get(item.id) ?? null);
      });
    },

    async reopenDelivery(id, now) {
      const [row] = await db.rows<DeliveryWithAttemptsRow>(
        `UPDATE deliveries d SET status = 'pending', next_attempt_at = $2, completed_at = NULL
         WHERE d.id = $1 AND d.status <> 'pending' RETURNING d.*, ${attemptsOfSql('d')}`,
        [id, now],
      );
      return row ? withAttempts(row) : null;
    },

    async releaseLeases(owner) {
      return db.changes('UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1', [owner]);
    },

    async releaseLease(id, owner) {
      return (await db.changes('UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2', [id, owner])) > 0;
    },

    async leaseOwners() {
      const rows = await db.rows<{ lease_owner: string }>('SELECT DISTINCT lease_owner FROM deliveries WHERE lease_owner IS NOT NULL');
      return rows.map((r) => r.lease_owner);
    },

    async countPendingDeliveries() {
      const [row] = await db.rows<{ n: number }>(`SELECT COUNT(*)::int AS n FROM deliveries WHERE status = 'pending'`);
      return row.n;
    },

    async pendingByWebhook(limit) {
      const rows = await db.rows<{ target: string; n: number }>(
        `SELECT target, count(*)::int AS n FROM deliveries WHERE status = 'pending'
         GROUP BY target ORDER BY n DESC, target LIMIT $1`,
        [limit],
      );
      return rows.map((r) => [r.target, r.n] as [string, number]);
    },

    async pruneDeliveries(before) {
      // Attempts go with them: ON DELETE CASCADE. Held ones count as finished here: retention applies to them too.
      return db.changes(`DELETE FROM deliveries WHERE status <> 'pending' AND created_at < $1`, [before]);
    },
  };
}
