/**
 * Deliveries and their attempts on PostgreSQL. Several nodes work one queue:
 * due deliveries are leased with `FOR UPDATE SKIP LOCKED`, so workers never
 * wait on, or take, each other's rows; an attempt is recorded only while its
 * worker still holds the lease. Reads are single statements (one snapshot),
 * with the attempts aggregated as a JSON column.
 */
import { ConflictError, NotFoundError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Page } from '../../types.js';
import { functionTarget, type AttemptOutcome, type AttemptRecord, type Delivery, type DeliveryRequest, type DeliveryStatus, type NewDelivery } from '../../deliveries/types.js';
import { claimShares, NO_SHARE, targetNotFound, type ClaimShares } from '../store.js';
import { claimDue } from './claim.js';
import { FOREIGN_KEY_VIOLATION, PgBase, UNIQUE_VIOLATION, pgCode, type Queryable } from './db.js';
import { ATTEMPT_COLUMNS, attemptJsonSql, attemptsOfSql, jsonOrNull, toDelivery, type PgDeliveryRow } from './rows.js';

const DELIVERY_INSERT = `INSERT INTO deliveries
  (id, target, webhook_id, function_name, schedule_id, trigger, trigger_json, status, scheduled_for, event,
    event_data_json, next_attempt_at, created_at)`;

function deliveryValues(d: NewDelivery, now: string): unknown[] {
  return [
    newId('dlv'), d.functionName ? functionTarget(d.functionName) : d.webhookId, d.webhookId ?? null,
    d.functionName ?? null, d.scheduleId ?? null, d.trigger, jsonOrNull(d.triggerDetail), d.scheduledFor ?? null,
    d.event ?? null, jsonOrNull(d.eventData), d.nextAttemptAt, now,
  ];
}

export class PgDeliveryStore extends PgBase {
  async createDelivery(delivery: NewDelivery): Promise<Delivery> {
    try {
      const [row] = await this.rows<PgDeliveryRow>(
        `${DELIVERY_INSERT} VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9, $10, $11, $12)
         RETURNING *, '[]'::json AS attempts`,
        deliveryValues(delivery, this.stamp()),
      );
      return toDelivery(row);
    } catch (err) {
      const code = pgCode(err);
      if (code === FOREIGN_KEY_VIOLATION) throw targetNotFound(delivery);
      if (code === UNIQUE_VIOLATION) {
        throw new ConflictError('slot_taken', `Slot ${delivery.scheduledFor} of '${delivery.webhookId ?? delivery.functionName}' was already fired`);
      }
      throw err;
    }
  }

  async getDelivery(id: string): Promise<Delivery | null> {
    const [row] = await this.rows<PgDeliveryRow>(`SELECT d.*, ${attemptsOfSql('d')} FROM deliveries d WHERE d.id = $1`, [id]);
    return row ? toDelivery(row) : null;
  }

  async getDeliveryDetail(id: string): Promise<Delivery | null> {
    const [row] = await this.rows<PgDeliveryRow>(
      `SELECT d.*, ${attemptsOfSql('d', true)} FROM deliveries d WHERE d.id = $1`,
      [id],
    );
    return row ? toDelivery(row) : null;
  }

  async listDeliveries(webhookId: string, page: Page): Promise<Delivery[]> {
    const rows =
      page.after === undefined
        ? await this.rows<PgDeliveryRow>(
            `SELECT d.*, ${attemptsOfSql('d')} FROM deliveries d WHERE d.webhook_id = $1 ORDER BY d.id DESC LIMIT $2`,
            [webhookId, page.limit],
          )
        : await this.rows<PgDeliveryRow>(
            `SELECT d.*, ${attemptsOfSql('d')} FROM deliveries d WHERE d.webhook_id = $1 AND d.id < $2
             ORDER BY d.id DESC LIMIT $3`,
            [webhookId, page.after, page.limit],
          );
    return rows.map(toDelivery);
  }

  async listFunctionDeliveries(functionName: string, status: DeliveryStatus | null, page: Page): Promise<Delivery[]> {
    const rows = await this.rows<PgDeliveryRow>(
      `SELECT d.*, ${attemptsOfSql('d')} FROM deliveries d
       WHERE d.function_name = $1 AND ($2::text IS NULL OR d.status = $2) AND ($3::text IS NULL OR d.id < $3)
       ORDER BY d.id DESC LIMIT $4`,
      [functionName, status, page.after ?? null, page.limit],
    );
    return rows.map(toDelivery);
  }

  /** Per owner, where its last walk over webhooks stopped (see claim.ts). */
  private readonly claimCursors = new Map<string, string>();

  async claimDueDeliveries(
    owner: string,
    now: string,
    leaseMs: number,
    limit: number,
    perWebhook: number | ClaimShares = NO_SHARE,
  ): Promise<Delivery[]> {
    if (limit <= 0) return [];
    const rows = await claimDue(this.pool, this.claimCursors, {
      owner,
      now,
      until: leaseUntil(now, leaseMs),
      limit,
      shares: claimShares(perWebhook),
    });
    // RETURNING has no defined order.
    rows.sort((a, b) => cmp(a.next_attempt_at ?? '', b.next_attempt_at ?? '') || cmp(a.id, b.id));
    return rows.map(toDelivery);
  }

  async leaseDelivery(id: string, owner: string, now: string, leaseMs: number): Promise<Delivery | null> {
    const [row] = await this.rows<PgDeliveryRow>(
      `UPDATE deliveries d SET lease_owner = $2, lease_until = $4
       WHERE d.id = $1 AND d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until < $3)
       RETURNING d.*, ${attemptsOfSql('d')}`,
      [id, owner, now, leaseUntil(now, leaseMs)],
    );
    return row ? toDelivery(row) : null;
  }

  async extendLease(id: string, owner: string, until: string): Promise<boolean> {
    return (await this.changes('UPDATE deliveries SET lease_until = $1 WHERE id = $2 AND lease_owner = $3', [until, id, owner])) > 0;
  }

  async saveDeliveryRequest(id: string, request: DeliveryRequest): Promise<void> {
    await this.pool.query('UPDATE deliveries SET request_json = $1 WHERE id = $2', [JSON.stringify(request), id]);
  }

  async recordAttempt(id: string, owner: string, outcome: AttemptOutcome): Promise<Delivery | null> {
    const [result] = await this.applyAttempts(this.pool, owner, [{ id, outcome }], false);
    return result;
  }

  /**
   * `recordAttempt` for many deliveries at once (the engine's
   * BatchAttemptRecorder): one statement, so one round trip and one commit per
   * batch instead of one per attempt (two statements in one transaction when
   * lean and full items are mixed). Each item keeps its own lease check; a
   * failing item fails the whole batch. A lean item answers `true`: no row
   * nor attempt list is read back.
   */
  async recordAttempts(owner: string, items: AttemptRecord[]): Promise<Array<Delivery | true | null>> {
    if (items.length === 0) return [];
    if (new Set(items.map((i) => i.id)).size < items.length) {
      // The same delivery twice: apply them in order, as separate calls would (the second finds the lease released).
      return this.tx(async (c) => {
        const results: Array<Delivery | true | null> = [];
        for (const item of items) results.push((await this.applyAttempts(c, owner, [item], item.lean === true))[0]);
        return results;
      });
    }
    const lean = items.filter((i) => i.lean);
    if (lean.length === items.length) return this.applyAttempts(this.pool, owner, items, true);
    if (lean.length === 0) return this.applyAttempts(this.pool, owner, items, false);
    const full = items.filter((i) => !i.lean);
    return this.tx(async (c) => {
      const byId = new Map<string, Delivery | true | null>();
      const leanResults = await this.applyAttempts(c, owner, lean, true);
      lean.forEach((item, i) => byId.set(item.id, leanResults[i]));
      const fullResults = await this.applyAttempts(c, owner, full, false);
      full.forEach((item, i) => byId.set(item.id, fullResults[i]));
      return items.map((item) => byId.get(item.id) ?? null);
    });
  }

  /**
   * Applies each outcome and writes its attempt, only for deliveries `owner`
   * still leases. Item ids must be distinct. The attempt lists are the
   * statement snapshot's plus the attempts it inserted; `lean`: none of it,
   * `true` for each recorded item.
   */
  private async applyAttempts(on: Queryable, owner: string, items: AttemptRecord[], lean: false): Promise<Array<Delivery | null>>;
  private async applyAttempts(on: Queryable, owner: string, items: AttemptRecord[], lean: boolean): Promise<Array<Delivery | true | null>>;
  private async applyAttempts(
    on: Queryable,
    owner: string,
    items: AttemptRecord[],
    lean: boolean,
  ): Promise<Array<Delivery | true | null>> {
    const stamp = this.stamp();
    const col = <T>(f: (o: AttemptOutcome) => T) => items.map((i) => f(i.outcome));
    const pending = (o: AttemptOutcome) => o.status === 'pending';
    const rows = await this.rows<PgDeliveryRow & { n: string }>(
      `WITH i AS (
         SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::timestamptz[],
             $8::text[], $9::int[], $10::timestamptz[], $11::float8[], $12::int[], $13::text[], $14::text[], $15::text[],
             $16::text[])
           WITH ORDINALITY AS i (id, status, error, response_json, next_attempt_at, completed_at, request_json,
             attempt, started_at, duration_ms, response_status, attempt_error, result_json, outcome, request_id, n)),
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
           request_id, response_json)
         SELECT i.id, i.attempt, i.started_at, i.duration_ms, i.response_status, i.attempt_error, i.outcome, i.request_id,
           i.response_json
         FROM i JOIN d ON d.n = i.n
         RETURNING ${ATTEMPT_COLUMNS})
       ${lean ? 'SELECT d.n FROM d' : READ_BACK}`,
      [
        owner,
        items.map((i) => i.id),
        col((o) => o.status),
        col((o) => o.error ?? null),
        col((o) => jsonOrNull(o.response)),
        // A pending delivery without a due time would never be claimed again.
        col((o) => (pending(o) ? (o.nextAttemptAt ?? stamp) : null)),
        col((o) => (pending(o) ? null : stamp)),
        col((o) => jsonOrNull(o.request)),
        col((o) => o.attempt.attempt),
        col((o) => o.attempt.startedAt),
        col((o) => o.attempt.durationMs),
        col((o) => o.attempt.responseStatus ?? null),
        col((o) => o.attempt.error ?? null),
        col((o) => (o.result === undefined ? null : JSON.stringify(o.result))),
        col((o) => o.attempt.outcome ?? null),
        col((o) => o.attempt.requestId ?? null),
      ],
      on,
    );
    const results: Array<Delivery | true | null> = items.map(() => null);
    for (const row of rows) results[Number(row.n) - 1] = lean ? true : toDelivery(row);
    return results;
  }

  async reopenDelivery(id: string, now: string): Promise<Delivery | null> {
    const [row] = await this.rows<PgDeliveryRow>(
      `UPDATE deliveries d SET status = 'pending', next_attempt_at = $2, completed_at = NULL
       WHERE d.id = $1 AND d.status <> 'pending' RETURNING d.*, ${attemptsOfSql('d')}`,
      [id, now],
    );
    return row ? toDelivery(row) : null;
  }

  async releaseLeases(owner: string): Promise<number> {
    return this.changes('UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1', [owner]);
  }

  async releaseLease(id: string, owner: string): Promise<boolean> {
    const n = await this.changes(
      'UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2',
      [id, owner],
    );
    return n > 0;
  }

  async leaseOwners(): Promise<string[]> {
    const rows = await this.rows<{ lease_owner: string }>(
      'SELECT DISTINCT lease_owner FROM deliveries WHERE lease_owner IS NOT NULL',
    );
    return rows.map((r) => r.lease_owner);
  }

  async countPendingDeliveries(): Promise<number> {
    const [row] = await this.rows<{ n: number }>(`SELECT COUNT(*)::int AS n FROM deliveries WHERE status = 'pending'`);
    return row.n;
  }

  async pendingByWebhook(limit: number): Promise<Array<[string, number]>> {
    const rows = await this.rows<{ target: string; n: number }>(
      `SELECT target, count(*)::int AS n FROM deliveries WHERE status = 'pending'
       GROUP BY target ORDER BY n DESC, target LIMIT $1`,
      [limit],
    );
    return rows.map((r) => [r.target, r.n]);
  }

  async pruneDeliveries(before: string): Promise<number> {
    // Attempts go with them: ON DELETE CASCADE.
    return this.changes(`DELETE FROM deliveries WHERE status <> 'pending' AND created_at < $1`, [before]);
  }
}

/** The recorded deliveries with their attempts: the statement snapshot's plus the ones it inserted (`added`). */
const READ_BACK = `SELECT d.*, (
         SELECT json_agg(y.j ORDER BY y.attempt) FROM (
           SELECT a.attempt, ${attemptJsonSql('a')} AS j FROM delivery_attempts a WHERE a.delivery_id = d.id
           UNION ALL
           SELECT n.attempt, ${attemptJsonSql('n')} FROM added n WHERE n.delivery_id = d.id
         ) y) AS attempts
       FROM d`;

function leaseUntil(now: string, leaseMs: number): string {
  return new Date(Date.parse(now) + leaseMs).toISOString();
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
