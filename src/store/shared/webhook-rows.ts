/**
 * Webhook rows as both databases return them, and their mapping to the
 * domain objects of src/webhooks/types.ts. JSON-valued fields are TEXT
 * columns suffixed `_json`; SQL NULL maps to null.
 */
import {
  AUTO_DISABLE_DEFAULTS,
  BREAKER_DEFAULTS,
  originOf,
  type AutoDisable,
  type BreakerSettings,
  type DisabledReason,
  type NewWebhook,
  type PreviousSecret,
  type RateLimit,
  type Webhook,
  type WebhookMethod,
  type WebhookPatch,
} from '../../webhooks/types.js';
import { jsonOrNull, parseOrNull } from './rows.js';

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
  /** Migration 24; null: none. */
  transformation: string | null;
  events_json: string;
  /** 0 or 1 on SQLite, a boolean on PostgreSQL. */
  enabled: number | boolean;
  secret: string | null;
  /** Migration 23: when the secret was set, and the secrets a rotation replaced (JSON PreviousSecret[]; null: none). */
  secret_created_at: string | null;
  previous_secrets_json: string | null;
  max_attempts: number;
  schedule_json: string | null;
  timeout_ms: number;
  next_fire_at: string | null;
  paused_at: string | null;
  disabled_reason: string | null;
  /** The breaker, rate limit and auto-disable settings (HealthSettings); null: the defaults (rows before migration 18). */
  health_json: string | null;
  target_origin: string | null;
  project: string | null;
  /** The payload filter as JSON; null: none (rows before migration 22 too). */
  filter_json: string | null;
  /** Migration 27; null: a global webhook. */
  application_id: string | null;
  created_at: string;
  updated_at: string;
}

/** What health_json holds. */
interface HealthSettings {
  breaker: BreakerSettings;
  rateLimit: RateLimit | null;
  autoDisable: AutoDisable | null;
}

/** The columns every webhook insert and update writes, in the order of webhookColumns' keys. */
export const WEBHOOK_COLUMNS = [
  'name', 'target_url', 'method', 'headers_json', 'template_json', 'cron', 'timezone', 'mock_api_id', 'mock_path',
  'events_json', 'enabled', 'secret', 'max_attempts', 'schedule_json', 'timeout_ms', 'next_fire_at',
  'paused_at', 'disabled_reason', 'health_json', 'target_origin', 'project', 'secret_created_at', 'previous_secrets_json', 'filter_json', 'transformation',
  'application_id',
] as const;

/** The values of WEBHOOK_COLUMNS for a webhook (`enabled` as 0 or 1). */
export function webhookColumns(w: NewWebhook): Record<(typeof WEBHOOK_COLUMNS)[number], unknown> & { enabled: number } {
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
    paused_at: w.pausedAt ?? null,
    disabled_reason: w.disabledReason ?? null,
    health_json: JSON.stringify({ breaker: w.breaker, rateLimit: w.rateLimit, autoDisable: w.autoDisable } satisfies HealthSettings),
    target_origin: originOf(w.targetUrl),
    project: w.project ?? null,
    secret_created_at: w.secretCreatedAt ?? null,
    previous_secrets_json: w.previousSecrets?.length ? JSON.stringify(w.previousSecrets) : null,
    filter_json: jsonOrNull(w.filter ?? null),
    transformation: w.transformation ?? null,
    application_id: w.applicationId ?? null,
  };
}

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
    transformation: r.transformation ?? null,
    events: JSON.parse(r.events_json) as string[],
    enabled: r.enabled !== 0 && r.enabled !== false,
    secret: r.secret,
    secretCreatedAt: r.secret_created_at ?? null,
    previousSecrets: parseOrNull<PreviousSecret[]>(r.previous_secrets_json ?? null) ?? [],
    retry: { maxAttempts: r.max_attempts, scheduleS: parseOrNull<number[]>(r.schedule_json) },
    timeoutMs: r.timeout_ms,
    nextFireAt: r.next_fire_at,
    pausedAt: r.paused_at,
    disabledReason: r.disabled_reason as DisabledReason | null,
    ...healthSettingsOf(r.health_json),
    project: r.project ?? null,
    filter: filterOf(r.filter_json ?? null),
    applicationId: r.application_id ?? null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** A stored webhook with a patch applied: fields present replace. A function makes the patch from the row as locked (a rotation). */
export function patchedWebhook(row: WebhookRow, patch: WebhookPatch | ((current: Webhook) => WebhookPatch)): NewWebhook {
  const current = toWebhook(row);
  const next: NewWebhook = { ...current };
  for (const [key, value] of Object.entries(typeof patch === 'function' ? patch(current) : patch)) {
    if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = value;
  }
  return next;
}

/** Parsed filters by their stored text: bounded, emptied when full (a filter no webhook holds any more goes with it). */
const FILTERS = new Map<string, Readonly<Record<string, unknown>>>();
const FILTERS_MAX = 10_000;

/**
 * A stored filter, parsed once per text and frozen: every publish reads its subscribers' rows again,
 * and handing back the same object lets the fan-out keep one compiled filter per object (a changed
 * filter is another text, so another object) without parsing 1,000 filters per publish.
 */
function filterOf(json: string | null): Record<string, unknown> | null {
  if (json === null) return null;
  let filter = FILTERS.get(json);
  if (filter === undefined) {
    if (FILTERS.size >= FILTERS_MAX) FILTERS.clear();
    filter = deepFreeze(JSON.parse(json) as Record<string, unknown>);
    FILTERS.set(json, filter);
  }
  return filter as Record<string, unknown>;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

function healthSettingsOf(json: string | null): HealthSettings {
  const stored = parseOrNull<Partial<HealthSettings>>(json) ?? {};
  return {
    breaker: { ...BREAKER_DEFAULTS, ...stored.breaker },
    rateLimit: stored.rateLimit ?? null,
    autoDisable: stored.autoDisable === undefined ? { ...AUTO_DISABLE_DEFAULTS } : stored.autoDisable,
  };
}
