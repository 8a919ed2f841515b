/**
 * Webhook, delivery and attempt rows as SQLite returns them, and their mapping
 * to the domain objects of src/webhooks/types.ts and src/deliveries/types.ts. JSON-valued fields are TEXT
 * columns suffixed `_json`; SQL NULL maps to null.
 */
import type { NewWebhook, Webhook, WebhookMethod } from '../../webhooks/types.js';
import type { Attempt, Delivery, DeliveryRequest, DeliveryResponse, DeliveryStatus, DeliveryTrigger } from '../../deliveries/types.js';
import type { EventFormat } from '../../types.js';
import type { DueFunctionSchedule } from '../store.js';

export interface WebhookRow {
  id: string;
  name: string;
  target_url: string;
  method: string;
  headers_json: string;
  template_json: string;
  cron: string | null;
  timezone: string;
  mock_api_id: string | null;
  mock_path: string | null;
  events_json: string;
  enabled: number;
  secret: string | null;
  max_attempts: number;
  schedule_json: string | null;
  timeout_ms: number;
  next_fire_at: string | null;
  created_at: string;
  updated_at: string;
}

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
  next_attempt_at: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  completed_at: string | null;
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
}

/** The attempt columns lists and the engine read: all but response_json, up to 16 KiB of body each. */
export const ATTEMPT_COLUMNS = 'delivery_id, attempt, started_at, duration_ms, response_status, error, outcome, request_id';

const parseOrNull = <T>(json: string | null): T | null => (json === null ? null : (JSON.parse(json) as T));

/** JSON for a nullable column: undefined and null both become SQL NULL. */
export const jsonOrNull = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);

export function toWebhook(r: WebhookRow): Webhook {
  return {
    id: r.id,
    name: r.name,
    targetUrl: r.target_url,
    method: r.method as WebhookMethod,
    headers: JSON.parse(r.headers_json) as Record<string, string>,
    payloadTemplate: JSON.parse(r.template_json) as Record<string, unknown>,
    cron: r.cron,
    timezone: r.timezone,
    mockEndpoint: r.mock_api_id === null ? null : { apiId: r.mock_api_id, path: r.mock_path ?? '' },
    events: JSON.parse(r.events_json) as string[],
    enabled: r.enabled !== 0,
    secret: r.secret,
    retry: { maxAttempts: r.max_attempts, scheduleS: parseOrNull<number[]>(r.schedule_json) },
    timeoutMs: r.timeout_ms,
    nextFireAt: r.next_fire_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Named parameters for the webhook columns every insert and update writes. */
export function webhookParams(w: NewWebhook) {
  return {
    name: w.name,
    target_url: w.targetUrl,
    method: w.method,
    headers_json: JSON.stringify(w.headers ?? {}),
    template_json: JSON.stringify(w.payloadTemplate ?? {}),
    cron: w.cron ?? null,
    timezone: w.timezone ?? 'UTC',
    mock_api_id: w.mockEndpoint?.apiId ?? null,
    mock_path: w.mockEndpoint?.path ?? null,
    events_json: JSON.stringify(w.events ?? []),
    enabled: w.enabled ? 1 : 0,
    secret: w.secret ?? null,
    max_attempts: w.retry.maxAttempts,
    schedule_json: jsonOrNull(w.retry.scheduleS),
    timeout_ms: w.timeoutMs,
    next_fire_at: w.nextFireAt ?? null,
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
    createdAt: r.created_at,
    completedAt: r.completed_at,
  } as Delivery;
}

export interface FunctionScheduleRow {
  id: string;
  function_name: string;
  position: number;
  cron: string;
  timezone: string;
  payload_json: string | null;
  next_fire_at: string;
  event_format: string;
}

export function toDueFunctionSchedule(r: FunctionScheduleRow): DueFunctionSchedule {
  return {
    id: r.id,
    functionName: r.function_name,
    position: r.position,
    cron: r.cron,
    timezone: r.timezone,
    payload: parseOrNull<Record<string, unknown>>(r.payload_json),
    nextFireAt: r.next_fire_at,
    eventFormat: r.event_format as EventFormat,
  };
}
