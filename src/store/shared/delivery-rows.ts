/**
 * Delivery and attempt rows as both databases return them, and their mapping
 * to the domain objects of src/deliveries/types.ts: toDelivery is the one place
 * a row becomes a Delivery, newDeliveryColumns and outcomeColumns the one
 * place a new delivery or an attempt's outcome becomes columns.
 */
import {
  functionTarget,
  type Attempt,
  type AttemptOutcome,
  type Delivery,
  type DeliveryRequest,
  type DeliveryResponse,
  type DeliveryStatus,
  type DeliveryTrigger,
  type NewDelivery,
} from '../../deliveries/types.js';
import type { ClaimedSlots } from '../store.js';
import { jsonOrNull, parseOrNull } from './rows.js';

export interface DeliveryRow {
  id: string;
  target: string;
  webhook_id: string | null;
  function_name: string | null;
  schedule_id: string | null;
  trigger: string;
  trigger_json: string | null;
  result_json: string | null;
  status: string;
  error: string | null;
  scheduled_for: string | null;
  event: string | null;
  event_data_json: string | null;
  request_json: string | null;
  response_json: string | null;
  attempt_count: number;
  /** Attempts before the latest recovery reopened it (0 on rows before migration 18's default). */
  retry_base: number;
  next_attempt_at: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  completed_at: string | null;
  /** Migration 26: the cause's trace context (null: untraced). */
  trace_context?: string | null;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: string;
  duration_ms: number;
  response_status: number | null;
  error: string | null;
  outcome: string | null;
  request_id: string | null;
  /** Only selected by the single-delivery read (ATTEMPT_COLUMNS leaves it out). */
  response_json?: string | null;
  /** The request a transformation made (migration 24); selected with response_json. */
  sent_json?: string | null;
}

/** The attempt columns lists and the engine read: all but response_json, up to 16 KiB of body each. */
export const ATTEMPT_COLUMNS = 'delivery_id, attempt, started_at, duration_ms, response_status, error, outcome, request_id';

/** The columns a new delivery writes, in insert order. */
export const NEW_DELIVERY_COLUMNS = [
  'id', 'target', 'webhook_id', 'function_name', 'schedule_id', 'trigger', 'trigger_json', 'scheduled_for', 'event',
  'event_data_json', 'next_attempt_at', 'created_at', 'status', 'trace_context',
] as const;

export function newDeliveryColumns(d: NewDelivery, id: string, now: string): Record<(typeof NEW_DELIVERY_COLUMNS)[number], unknown> {
  return {
    id,
    target: d.functionName ? functionTarget(d.functionName) : d.webhookId,
    webhook_id: d.webhookId ?? null,
    function_name: d.functionName ?? null,
    schedule_id: d.scheduleId ?? null,
    trigger: d.trigger,
    trigger_json: jsonOrNull(d.triggerDetail),
    scheduled_for: d.scheduledFor ?? null,
    event: d.event ?? null,
    event_data_json: jsonOrNull(d.eventData),
    next_attempt_at: d.nextAttemptAt,
    created_at: now,
    status: d.held === true ? 'held' : 'pending',
    trace_context: d.traceContext ?? null,
  };
}

/** The delivery's columns after an attempt's outcome, and the attempt's own row (`attempt_*`). */
export function outcomeColumns(o: AttemptOutcome, stamp: string) {
  const pending = o.status === 'pending';
  const a = o.attempt;
  return {
    status: o.status,
    error: o.error ?? null,
    // Kept on the delivery and on the attempt row: serialised once for both.
    response_json: jsonOrNull(o.response),
    // A pending delivery without a due time would never be claimed again.
    next_attempt_at: pending ? (o.nextAttemptAt ?? stamp) : null,
    completed_at: pending ? null : stamp,
    request_json: jsonOrNull(o.request),
    result_json: o.result === undefined ? null : JSON.stringify(o.result),
    attempt: a.attempt,
    started_at: a.startedAt,
    duration_ms: a.durationMs,
    response_status: a.responseStatus ?? null,
    attempt_error: a.error ?? null,
    outcome: a.outcome ?? null,
    request_id: a.requestId ?? null,
    sent_json: jsonOrNull(a.sent ?? null),
  };
}

/** The attempt row outcomeColumns wrote, as a list read would return it. */
export function writtenAttempt(id: string, c: ReturnType<typeof outcomeColumns>): AttemptRow {
  return {
    delivery_id: id,
    attempt: c.attempt,
    started_at: c.started_at,
    duration_ms: c.duration_ms,
    response_status: c.response_status,
    error: c.attempt_error,
    outcome: c.outcome,
    request_id: c.request_id,
  };
}

export function toAttempt(r: AttemptRow): Attempt {
  const attempt: Attempt = {
    attempt: r.attempt,
    startedAt: r.started_at,
    durationMs: r.duration_ms,
    responseStatus: r.response_status,
    error: r.error,
    outcome: r.outcome ?? null,
    requestId: r.request_id ?? null,
  };
  // Present only when the read selected it: a list's attempts have no response key at all.
  if (r.response_json !== undefined) attempt.response = parseOrNull<DeliveryResponse>(r.response_json);
  if (r.sent_json !== undefined) attempt.sent = parseOrNull<DeliveryRequest>(r.sent_json);
  return attempt;
}

export function toDelivery(r: DeliveryRow, attempts: AttemptRow[]): Delivery {
  // The schema's check keeps exactly one of webhook_id and function_name set.
  return {
    kind: r.function_name === null ? 'webhook' : 'function',
    id: r.id,
    target: r.target,
    webhookId: r.webhook_id,
    functionName: r.function_name,
    scheduleId: r.schedule_id,
    triggerDetail: parseOrNull<Record<string, unknown>>(r.trigger_json),
    result: parseOrNull<unknown>(r.result_json),
    trigger: r.trigger as DeliveryTrigger,
    status: r.status as DeliveryStatus,
    error: r.error,
    scheduledFor: r.scheduled_for,
    event: r.event,
    eventData: parseOrNull<unknown>(r.event_data_json),
    attempts: attempts.map(toAttempt),
    request: parseOrNull<DeliveryRequest>(r.request_json),
    response: parseOrNull<DeliveryResponse>(r.response_json),
    nextAttemptAt: r.next_attempt_at,
    retryBase: Number(r.retry_base ?? 0),
    createdAt: r.created_at,
    completedAt: r.completed_at,
    // Only on traced deliveries: an untraced one reads as before.
    ...(r.trace_context == null ? {} : { traceContext: r.trace_context }),
  } as Delivery;
}

/**
 * The answer of a slot claim: the deliveries it inserted, and which of its
 * `fires` (webhook or schedule ids, as `keyOf` reads them off a row) found
 * their slot taken, so were moved on without one.
 */
export function claimedSlots(claimed: number, inserted: DeliveryRow[], fires: string[], keyOf: (r: DeliveryRow) => string | null): ClaimedSlots {
  const made = new Set(inserted.map(keyOf));
  return { claimed, deliveries: inserted.map((r) => toDelivery(r, [])), alreadyFired: fires.filter((key) => !made.has(key)) };
}
