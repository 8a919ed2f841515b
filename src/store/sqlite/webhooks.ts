/**
 * The WebhookStore half of the SQLite store, and the transaction plumbing both
 * halves share (SqliteStore extends this class). Slot claims and delivery
 * leases run inside IMMEDIATE transactions: SQLite lets one writer in at a
 * time across every process on the file, so a slot is planned and moved once
 * and a free lease is taken once, without SKIP LOCKED; the unique (webhook,
 * slot) key still refuses a slot fired before.
 */
import type Database from 'better-sqlite3';
import { ConflictError, InvalidRequestError, NotFoundError, type ResourceLimits } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Page } from '../../types.js';
import type { NewWebhook, Webhook, WebhookHealth, WebhookPatch } from '../../webhooks/types.js';
import type { AttemptOutcome, Delivery, DeliveryRequest, DeliveryStatus, NewDelivery } from '../../deliveries/types.js';
import { functionTarget, type AttemptRecord } from '../../deliveries/types.js';
import { claimShares, NO_SHARE, targetNotFound, type ClaimShares, type DueFunctionSchedule, type FunctionSlotPlan, type ClaimedSlots, type SlotPlan, type WebhookStore } from '../store.js';
import { healthMap, HEALTH_FROM_RECENT, RECENT_STATUS, type HealthRow } from '../health.js';
import { checkRoom } from '../limits.js';
import { pickDue, prepareClaim, type ClaimStatements } from './claim.js';
import { ATTEMPT_COLUMNS, jsonOrNull, toDelivery, toDueFunctionSchedule, toWebhook, webhookParams } from './webhook-rows.js';
import type { FunctionScheduleRow } from './webhook-rows.js';
import type { AttemptRow, DeliveryRow, WebhookRow } from './webhook-rows.js';

export function sqliteCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

const OPERATIONAL_PREFIX = 'switchyard.';

const APPLY_OUTCOME = `UPDATE deliveries SET status = @status, error = @error, response_json = @response_json,
    next_attempt_at = @next_attempt_at, completed_at = @completed_at,
    request_json = COALESCE(@request_json, request_json), result_json = COALESCE(@result_json, result_json),
    attempt_count = attempt_count + 1,
    lease_owner = NULL, lease_until = NULL
  WHERE id = @id AND lease_owner = @owner`;

function prepareWebhookStatements(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  const webhookColumns = `name, target_url, method, headers_json, template_json, cron, timezone, mock_api_id, mock_path,
    events_json, enabled, secret, max_attempts, schedule_json, timeout_ms, next_fire_at`;
  const webhookValues = `@name, @target_url, @method, @headers_json, @template_json, @cron, @timezone, @mock_api_id,
    @mock_path, @events_json, @enabled, @secret, @max_attempts, @schedule_json, @timeout_ms, @next_fire_at`;
  return {
    insertWebhook: p(`INSERT INTO webhooks (id, ${webhookColumns}, created_at, updated_at)
      VALUES (@id, ${webhookValues}, @now, @now) RETURNING *`),
    getWebhook: p('SELECT * FROM webhooks WHERE id = ?'),
    listWebhooks: p('SELECT * FROM webhooks WHERE id > ? ORDER BY id LIMIT ?'),
    // No LATERAL in SQLite: each webhook's rows from the id of its window-th newest
    // delivery on (a range of the (webhook_id, id) index; the first when it has fewer).
    webhookHealth: p(`WITH asked(id) AS (SELECT value FROM json_each(@ids)),
      recent AS (
        SELECT d.webhook_id, ${RECENT_STATUS('d')} AS status, ROW_NUMBER() OVER (PARTITION BY d.webhook_id ORDER BY d.id DESC) AS n
        FROM asked JOIN deliveries d ON d.webhook_id = asked.id AND d.id >= COALESCE(
          (SELECT x.id FROM deliveries x WHERE x.webhook_id = asked.id ORDER BY x.id DESC LIMIT 1 OFFSET @skip), '')
      )${HEALTH_FROM_RECENT}`),
    updateWebhook: p(`UPDATE webhooks SET (${webhookColumns}, updated_at) = (${webhookValues}, @now)
      WHERE id = @id RETURNING *`),
    deleteWebhook: p('DELETE FROM webhooks WHERE id = ?'),
    webhooksUsingApi: p('SELECT * FROM webhooks WHERE mock_api_id = ? ORDER BY id'),
    insertEvent: p('INSERT OR IGNORE INTO webhook_events (event, webhook_id) VALUES (?, ?)'),
    deleteEvents: p('DELETE FROM webhook_events WHERE webhook_id = ?'),
    // `*` stands for every event except the operational ones, which are subscribed by name.
    // `+enabled` keeps the planner off the (enabled, next_fire_at) index: the subscription list is the narrow side.
    webhooksForEvent: p(`SELECT * FROM webhooks WHERE +enabled = 1 AND id IN (
        SELECT webhook_id FROM webhook_events WHERE event IN (@event, @star)
      ) ORDER BY id`),
    dueWebhooks: p(`SELECT * FROM webhooks
      WHERE enabled = 1 AND next_fire_at <= ? AND cron IS NOT NULL ORDER BY next_fire_at, id LIMIT ?`),
    nextFireAt: p('SELECT MIN(next_fire_at) FROM webhooks WHERE enabled = 1 AND cron IS NOT NULL').pluck(),
    // A claimed batch is moved and inserted in one statement each, its rows passed as one JSON
    // array: per-row statements with RETURNING cost about 50 µs a row, these about 10.
    moveNextFires: p(`UPDATE webhooks SET next_fire_at = m.value ->> 1, updated_at = @now
      FROM json_each(@moves) m WHERE webhooks.id = m.value ->> 0`),
    // A slot fired before conflicts on the unique (webhook, slot) key and inserts nothing.
    // (`WHERE true` tells SQLite's parser that ON CONFLICT belongs to the INSERT, not a join.)
    insertSlotDeliveries: p(`INSERT INTO deliveries
      (id, target, webhook_id, trigger, status, scheduled_for, event, event_data_json, next_attempt_at, created_at)
      SELECT f.value ->> 0, f.value ->> 1, f.value ->> 1, 'schedule', 'pending', f.value ->> 2, NULL, NULL, @due, @now
      FROM json_each(@fires) f WHERE true
      ON CONFLICT (webhook_id, scheduled_for) DO NOTHING RETURNING *`),

    dueFunctionSchedules: p(`SELECT s.*, f.event_format FROM function_schedules s JOIN functions f ON f.name = s.function_name
      WHERE s.next_fire_at <= ? ORDER BY s.next_fire_at, s.id LIMIT ?`),
    nextFunctionFireAt: p('SELECT MIN(next_fire_at) FROM function_schedules').pluck(),
    moveFunctionFires: p(`UPDATE function_schedules SET next_fire_at = m.value ->> 1
      FROM json_each(@moves) m WHERE function_schedules.id = m.value ->> 0`),
    // A slot fired before conflicts on the unique (schedule_id, scheduled_for) key and inserts nothing.
    insertFunctionSlots: p(`INSERT INTO deliveries
      (id, target, function_name, schedule_id, trigger, trigger_json, status, scheduled_for, event_data_json, next_attempt_at,
        created_at)
      SELECT f.value ->> 0, f.value ->> 1, f.value ->> 2, f.value ->> 3, 'schedule', f.value ->> 5, 'pending',
        f.value ->> 4, f.value ->> 6, @due, @now
      FROM json_each(@fires) f WHERE true
      ON CONFLICT (schedule_id, scheduled_for) DO NOTHING RETURNING *`),

    insertDelivery: p(`INSERT INTO deliveries
      (id, target, webhook_id, function_name, schedule_id, trigger, trigger_json, status, scheduled_for, event,
        event_data_json, next_attempt_at, created_at)
      VALUES (@id, @target, @webhook_id, @function_name, @schedule_id, @trigger, @trigger_json, 'pending', @scheduled_for,
        @event, @event_data_json, @next_attempt_at, @now)
      RETURNING *`),
    listInvocationsFirst: p(`SELECT * FROM deliveries WHERE function_name = @fn AND (@status IS NULL OR status = @status)
      ORDER BY id DESC LIMIT @limit`),
    listInvocationsAfter: p(`SELECT * FROM deliveries WHERE function_name = @fn AND (@status IS NULL OR status = @status)
      AND id < @after ORDER BY id DESC LIMIT @limit`),
    getDelivery: p('SELECT * FROM deliveries WHERE id = ?'),
    listDeliveriesFirst: p('SELECT * FROM deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT ?'),
    listDeliveriesAfter: p('SELECT * FROM deliveries WHERE webhook_id = ? AND id < ? ORDER BY id DESC LIMIT ?'),
    attemptsOf: p(`SELECT ${ATTEMPT_COLUMNS} FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt`),
    attemptsWithResponses: p('SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt'),
    attemptsOfMany: p(`SELECT ${ATTEMPT_COLUMNS} FROM delivery_attempts WHERE delivery_id IN (SELECT value FROM json_each(?))
      ORDER BY delivery_id, attempt`),
    // The claim's own reads are in claim.ts.
    leaseRows: p(`UPDATE deliveries SET lease_owner = @owner, lease_until = @until
      WHERE rowid IN (SELECT value FROM json_each(@rowids)) RETURNING *`),
    leaseOne: p(`UPDATE deliveries SET lease_owner = @owner, lease_until = @until
      WHERE id = @id AND status = 'pending' AND (lease_until IS NULL OR lease_until < @now)
      RETURNING *`),
    extendLease: p('UPDATE deliveries SET lease_until = ? WHERE id = ? AND lease_owner = ?'),
    saveRequest: p('UPDATE deliveries SET request_json = ? WHERE id = ?'),
    applyOutcome: p(`${APPLY_OUTCOME} RETURNING *`),
    // The same without reading the row back (BatchAttemptRecorder's lean items).
    applyOutcomeLean: p(APPLY_OUTCOME),
    insertAttempt: p(`INSERT INTO delivery_attempts
      (delivery_id, attempt, started_at, duration_ms, response_status, error, outcome, request_id, response_json)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    reopen: p(`UPDATE deliveries SET status = 'pending', next_attempt_at = @now, completed_at = NULL
      WHERE id = @id AND status <> 'pending' RETURNING *`),
    releaseLeases: p('UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ?'),
    releaseLease: p('UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?'),
    leaseOwners: p('SELECT DISTINCT lease_owner FROM deliveries WHERE lease_owner IS NOT NULL').pluck(),
    countPending: p(`SELECT COUNT(*) FROM deliveries WHERE status = 'pending'`).pluck(),
    countWebhooks: p('SELECT COUNT(*) FROM webhooks').pluck(),
    pendingByWebhook: p(`SELECT target, COUNT(*) AS n FROM deliveries INDEXED BY deliveries_pending_by_webhook
      WHERE status = 'pending' GROUP BY target ORDER BY n DESC, target LIMIT ?`).raw(),
    // Attempts go with them: ON DELETE CASCADE.
    prune: p(`DELETE FROM deliveries WHERE status <> 'pending' AND created_at < ?`),
  };
}

export class SqliteWebhookStore implements WebhookStore {
  private readonly w: ReturnType<typeof prepareWebhookStatements>;
  private readonly claim: ClaimStatements;
  private readonly tx: Database.Transaction<(fn: () => unknown) => unknown>;
  protected readonly now: () => Date;
  /** Per owner, where its last walk over webhooks stopped (see claim.ts). */
  private readonly claimCursors = new Map<string, string>();

  constructor(
    protected readonly db: Database.Database,
    now: (() => Date) | undefined,
    /** Bounds on what the store holds (limits.ts); null: none. */
    protected readonly limits: ResourceLimits | null = null,
  ) {
    this.w = prepareWebhookStatements(db);
    this.claim = prepareClaim(db);
    this.tx = db.transaction((fn: () => unknown) => fn());
    this.now = now ?? (() => new Date());
  }

  /** Reads see one snapshot. */
  protected read<T>(fn: () => T): T {
    return this.tx(fn) as T;
  }

  /** IMMEDIATE takes the write lock first, so a read-then-write never fails on a stale WAL snapshot. */
  protected write<T>(fn: () => T): T {
    return this.tx.immediate(fn) as T;
  }

  protected stamp(): string {
    return this.now().toISOString();
  }

  // ---- webhooks

  private setEvents(id: string, events: readonly string[]): void {
    this.w.deleteEvents.run(id);
    for (const e of events) this.w.insertEvent.run(e, id);
  }

  /** A mock endpoint naming a missing API is the only reference a webhook write can break. */
  private unknownApi(err: unknown, webhook: WebhookPatch): unknown {
    if (sqliteCode(err) !== 'SQLITE_CONSTRAINT_FOREIGNKEY') return err;
    return new InvalidRequestError(`mock_endpoint.api_id: API '${webhook.mockEndpoint?.apiId}' does not exist`, {
      field: 'mock_endpoint.api_id',
    });
  }

  async createWebhook(webhook: NewWebhook): Promise<Webhook> {
    try {
      return this.write(() => {
        if (this.limits) checkRoom(this.limits, 'webhooks', this.w.countWebhooks.get() as number);
        const id = newId('wh');
        const row = this.w.insertWebhook.get({ id, ...webhookParams(webhook), now: this.stamp() }) as WebhookRow;
        this.setEvents(id, webhook.events ?? []);
        return toWebhook(row);
      });
    } catch (err) {
      throw this.unknownApi(err, webhook);
    }
  }

  async getWebhook(id: string): Promise<Webhook | null> {
    const row = this.w.getWebhook.get(id) as WebhookRow | undefined;
    return row ? toWebhook(row) : null;
  }

  async listWebhooks(page: Page): Promise<Webhook[]> {
    return (this.w.listWebhooks.all(page.after ?? '', page.limit) as WebhookRow[]).map(toWebhook);
  }

  async webhookHealth(ids: string[], window: number): Promise<Map<string, WebhookHealth>> {
    if (ids.length === 0) return new Map();
    return healthMap(this.w.webhookHealth.all({ ids: JSON.stringify(ids), skip: window - 1 }) as HealthRow[]);
  }

  async updateWebhook(id: string, patch: WebhookPatch): Promise<Webhook | null> {
    const merged: { current?: NewWebhook } = {};
    try {
      return this.write(() => {
        const row = this.w.getWebhook.get(id) as WebhookRow | undefined;
        if (!row) return null;
        const next: NewWebhook = { ...toWebhook(row) };
        for (const [key, value] of Object.entries(patch)) {
          if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = value;
        }
        merged.current = next;
        const updated = this.w.updateWebhook.get({ id, ...webhookParams(next), now: this.stamp() }) as WebhookRow;
        if (patch.events !== undefined) this.setEvents(id, patch.events);
        return toWebhook(updated);
      });
    } catch (err) {
      throw this.unknownApi(err, merged.current ?? patch);
    }
  }

  async deleteWebhook(id: string): Promise<boolean> {
    // Subscriptions, deliveries and their attempts go with it: ON DELETE CASCADE.
    return this.w.deleteWebhook.run(id).changes > 0;
  }

  async webhooksUsingApi(apiId: string): Promise<Webhook[]> {
    return (this.w.webhooksUsingApi.all(apiId) as WebhookRow[]).map(toWebhook);
  }

  async webhooksForEvent(event: string): Promise<Webhook[]> {
    const star = event.startsWith(OPERATIONAL_PREFIX) ? event : '*';
    return (this.w.webhooksForEvent.all({ event, star }) as WebhookRow[]).map(toWebhook);
  }

  async nextFireAt(): Promise<string | null> {
    return (this.w.nextFireAt.get() as string | null) ?? null;
  }

  async claimDueSlots(now: string, limit: number, plan: (webhook: Webhook) => SlotPlan): Promise<ClaimedSlots> {
    // One IMMEDIATE transaction: the whole batch is read, planned and moved while this
    // process holds the file's write lock, so no other process sees a half-claimed slot.
    return this.write(() => {
      const rows = this.w.dueWebhooks.all(now, limit) as WebhookRow[];
      if (rows.length === 0) return { claimed: 0, deliveries: [], alreadyFired: [] };
      const stamp = this.stamp();
      const moves: Array<[string, string | null]> = [];
      const fires: Array<[string, string, string]> = [];
      for (const row of rows) {
        const { slot, next } = plan(toWebhook(row));
        moves.push([row.id, next]);
        if (slot !== null) fires.push([newId('dlv'), row.id, slot]);
      }
      this.w.moveNextFires.run({ moves: JSON.stringify(moves), now: stamp });
      const inserted = fires.length
        ? (this.w.insertSlotDeliveries.all({ fires: JSON.stringify(fires), due: now, now: stamp }) as DeliveryRow[])
        : [];
      const fired = new Set(inserted.map((r) => r.webhook_id));
      return {
        claimed: rows.length,
        deliveries: inserted.map((r) => toDelivery(r, [])),
        alreadyFired: fires.filter(([, webhookId]) => !fired.has(webhookId)).map(([, webhookId]) => webhookId),
      };
    });
  }

  async nextFunctionFireAt(): Promise<string | null> {
    return (this.w.nextFunctionFireAt.get() as string | null) ?? null;
  }

  async claimDueFunctionSlots(
    now: string,
    limit: number,
    plan: (schedule: DueFunctionSchedule) => FunctionSlotPlan,
  ): Promise<ClaimedSlots> {
    // As claimDueSlots: one IMMEDIATE transaction holds the file's write lock over read, plan and move.
    return this.write(() => {
      const rows = this.w.dueFunctionSchedules.all(now, limit) as FunctionScheduleRow[];
      if (rows.length === 0) return { claimed: 0, deliveries: [], alreadyFired: [] };
      const stamp = this.stamp();
      const moves: Array<[string, string | null]> = [];
      // [id, target, function, schedule, slot, trigger_json, event_json]
      const fires: Array<[string, string, string, string, string, string, string]> = [];
      for (const row of rows) {
        const { slot, next, event, detail } = plan(toDueFunctionSchedule(row));
        moves.push([row.id, next]);
        if (slot === null) continue;
        const trigger = JSON.stringify({ type: 'schedule', ...detail });
        const fn = row.function_name;
        fires.push([newId('dlv'), functionTarget(fn), fn, row.id, slot, trigger, JSON.stringify(event ?? null)]);
      }
      this.w.moveFunctionFires.run({ moves: JSON.stringify(moves) });
      const inserted = fires.length
        ? (this.w.insertFunctionSlots.all({ fires: JSON.stringify(fires), due: now, now: stamp }) as DeliveryRow[])
        : [];
      const fired = new Set(inserted.map((r) => r.schedule_id));
      return {
        claimed: rows.length,
        deliveries: inserted.map((r) => toDelivery(r, [])),
        alreadyFired: fires.filter(([, , , scheduleId]) => !fired.has(scheduleId)).map(([, , , scheduleId]) => scheduleId),
      };
    });
  }

  // ---- deliveries

  private insertDelivery(d: NewDelivery, now: string): Delivery {
    const row = this.w.insertDelivery.get({
      id: newId('dlv'),
      target: d.functionName ? functionTarget(d.functionName) : d.webhookId,
      webhook_id: d.webhookId ?? null,
      function_name: d.functionName ?? null,
      schedule_id: d.scheduleId ?? null,
      trigger_json: jsonOrNull(d.triggerDetail),
      trigger: d.trigger,
      scheduled_for: d.scheduledFor ?? null,
      event: d.event ?? null,
      event_data_json: jsonOrNull(d.eventData),
      next_attempt_at: d.nextAttemptAt,
      now,
    }) as DeliveryRow;
    return toDelivery(row, []);
  }

  private withAttempts(row: DeliveryRow): Delivery {
    return toDelivery(row, this.w.attemptsOf.all(row.id) as AttemptRow[]);
  }

  /** One query for the attempts of every row (none when no row has been attempted yet, the usual claim). */
  private withAttemptsMany(rows: DeliveryRow[]): Delivery[] {
    if (!rows.length) return [];
    const byDelivery = new Map<string, AttemptRow[]>(rows.map((r) => [r.id, []]));
    const attempted = rows.filter((r) => r.attempt_count > 0).map((r) => r.id);
    if (attempted.length > 0) {
      const attempts = this.w.attemptsOfMany.all(JSON.stringify(attempted)) as AttemptRow[];
      for (const a of attempts) byDelivery.get(a.delivery_id)?.push(a);
    }
    return rows.map((r) => toDelivery(r, byDelivery.get(r.id)!));
  }

  async createDelivery(delivery: NewDelivery): Promise<Delivery> {
    try {
      return this.insertDelivery(delivery, this.stamp());
    } catch (err) {
      const code = sqliteCode(err);
      if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw targetNotFound(delivery);
      if (code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw new ConflictError('slot_taken', `Slot ${delivery.scheduledFor} of '${delivery.webhookId ?? delivery.functionName}' was already fired`);
      }
      throw err;
    }
  }

  async getDelivery(id: string): Promise<Delivery | null> {
    return this.read(() => {
      const row = this.w.getDelivery.get(id) as DeliveryRow | undefined;
      return row ? this.withAttempts(row) : null;
    });
  }

  async getDeliveryDetail(id: string): Promise<Delivery | null> {
    return this.read(() => {
      const row = this.w.getDelivery.get(id) as DeliveryRow | undefined;
      return row ? toDelivery(row, this.w.attemptsWithResponses.all(row.id) as AttemptRow[]) : null;
    });
  }

  async listDeliveries(webhookId: string, page: Page): Promise<Delivery[]> {
    return this.read(() => {
      const rows = (
        page.after === undefined
          ? this.w.listDeliveriesFirst.all(webhookId, page.limit)
          : this.w.listDeliveriesAfter.all(webhookId, page.after, page.limit)
      ) as DeliveryRow[];
      return this.withAttemptsMany(rows);
    });
  }

  async listFunctionDeliveries(functionName: string, status: DeliveryStatus | null, page: Page): Promise<Delivery[]> {
    return this.read(() => {
      const params = { fn: functionName, status, limit: page.limit };
      const rows = (
        page.after === undefined
          ? this.w.listInvocationsFirst.all(params)
          : this.w.listInvocationsAfter.all({ ...params, after: page.after })
      ) as DeliveryRow[];
      return this.withAttemptsMany(rows);
    });
  }

  async claimDueDeliveries(
    owner: string,
    now: string,
    leaseMs: number,
    limit: number,
    perWebhook: number | ClaimShares = NO_SHARE,
  ): Promise<Delivery[]> {
    if (limit <= 0) return [];
    const shares = claimShares(perWebhook);
    // One IMMEDIATE transaction: what is read here is still free when it is leased.
    return this.write(() => {
      const picked = pickDue(this.claim, this.claimCursors, { owner, now, limit, shares });
      if (picked.length === 0) return [];
      const rows = this.w.leaseRows.all({
        owner,
        until: leaseUntil(now, leaseMs),
        rowids: JSON.stringify(picked),
      }) as DeliveryRow[];
      // RETURNING has no defined order.
      rows.sort((a, b) => cmp(a.next_attempt_at ?? '', b.next_attempt_at ?? '') || cmp(a.id, b.id));
      return this.withAttemptsMany(rows);
    });
  }

  async leaseDelivery(id: string, owner: string, now: string, leaseMs: number): Promise<Delivery | null> {
    return this.write(() => {
      const row = this.w.leaseOne.get({ id, owner, now, until: leaseUntil(now, leaseMs) }) as DeliveryRow | undefined;
      return row ? this.withAttempts(row) : null;
    });
  }

  async extendLease(id: string, owner: string, until: string): Promise<boolean> {
    return this.w.extendLease.run(until, id, owner).changes > 0;
  }

  async saveDeliveryRequest(id: string, request: DeliveryRequest): Promise<void> {
    this.w.saveRequest.run(JSON.stringify(request), id);
  }

  async recordAttempt(id: string, owner: string, outcome: AttemptOutcome): Promise<Delivery | null> {
    return this.write(() => this.applyAttempt(id, owner, outcome));
  }

  /**
   * `recordAttempt` for many deliveries in one IMMEDIATE transaction (the
   * engine's BatchAttemptRecorder): the commit is most of what a write costs,
   * so one commit per batch instead of one per attempt. Each item keeps its
   * own lease check; a failing item rolls the whole batch back.
   */
  async recordAttempts(owner: string, items: AttemptRecord[]): Promise<Array<Delivery | true | null>> {
    if (items.length === 0) return [];
    return this.write(() => items.map(({ id, outcome, lean }) => this.applyAttempt(id, owner, outcome, lean === true)));
  }

  private applyAttempt(id: string, owner: string, outcome: AttemptOutcome): Delivery | null;
  private applyAttempt(id: string, owner: string, outcome: AttemptOutcome, lean: boolean): Delivery | true | null;
  private applyAttempt(id: string, owner: string, outcome: AttemptOutcome, lean = false): Delivery | true | null {
    const pending = outcome.status === 'pending';
    const params = {
      id,
      owner,
      status: outcome.status,
      error: outcome.error ?? null,
      response_json: jsonOrNull(outcome.response),
      // A pending delivery without a due time would never be claimed again.
      next_attempt_at: pending ? (outcome.nextAttemptAt ?? this.stamp()) : null,
      completed_at: pending ? null : this.stamp(),
      request_json: jsonOrNull(outcome.request),
      result_json: outcome.result === undefined ? null : JSON.stringify(outcome.result),
    };
    const a = outcome.attempt;
    if (lean) {
      if (this.w.applyOutcomeLean.run(params).changes === 0) return null;
      this.w.insertAttempt.run(
        id, a.attempt, a.startedAt, a.durationMs, a.responseStatus ?? null, a.error ?? null, a.outcome ?? null, a.requestId ?? null,
        params.response_json,
      );
      return true;
    }
    const row = this.w.applyOutcome.get(params) as DeliveryRow | undefined;
    if (!row) return null;
    const attempt: AttemptRow = {
      delivery_id: id,
      attempt: a.attempt,
      started_at: a.startedAt,
      duration_ms: a.durationMs,
      response_status: a.responseStatus ?? null,
      error: a.error ?? null,
      outcome: a.outcome ?? null,
      request_id: a.requestId ?? null,
    };
    // The delivery's own response_json text, serialised once for both rows.
    this.w.insertAttempt.run(
      id, a.attempt, a.startedAt, a.durationMs, attempt.response_status, attempt.error, attempt.outcome, attempt.request_id,
      params.response_json,
    );
    // attempt_count counts the attempt rows, so a first attempt needs no read-back.
    return row.attempt_count === 1 ? toDelivery(row, [attempt]) : this.withAttempts(row);
  }

  async reopenDelivery(id: string, now: string): Promise<Delivery | null> {
    return this.write(() => {
      const row = this.w.reopen.get({ id, now }) as DeliveryRow | undefined;
      return row ? this.withAttempts(row) : null;
    });
  }

  async releaseLeases(owner: string): Promise<number> {
    return this.w.releaseLeases.run(owner).changes;
  }

  async releaseLease(id: string, owner: string): Promise<boolean> {
    return this.w.releaseLease.run(id, owner).changes > 0;
  }

  async leaseOwners(): Promise<string[]> {
    return this.w.leaseOwners.all() as string[];
  }

  async countPendingDeliveries(): Promise<number> {
    return this.w.countPending.get() as number;
  }

  async pendingByWebhook(limit: number): Promise<Array<[string, number]>> {
    return this.w.pendingByWebhook.all(limit) as Array<[string, number]>;
  }

  async pruneDeliveries(before: string): Promise<number> {
    return this.w.prune.run(before).changes;
  }
}

function leaseUntil(now: string, leaseMs: number): string {
  return new Date(Date.parse(now) + leaseMs).toISOString();
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
