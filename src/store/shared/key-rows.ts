/** API keys and usage plans as both dialects store them (sqlite/api-keys.ts, postgres/api-keys.ts). */
import { ConflictError, InvalidRequestError } from '../../errors.js';
import type { ApiKey, QuotaConfig, ThrottleConfig, UsagePlan } from '../../types.js';
import type { UsagePlanPatch } from '../store.js';

export interface UsagePlanRow {
  id: string;
  name: string;
  api_ids_json: string;
  throttle_json: string | null;
  quota_json: string | null;
  created_at: string | Date;
  updated_at: string | Date;
}

export interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  enabled: number | boolean;
  usage_plan_id: string | null;
  created_at: string | Date;
  updated_at: string | Date;
}

// Dates from a driver, ISO text from SQLite or from PostgreSQL's row_to_json: one form out.
const iso = (t: string | Date) => new Date(t).toISOString();

export function toUsagePlan(r: UsagePlanRow): UsagePlan {
  return {
    id: r.id,
    name: r.name,
    apiIds: JSON.parse(r.api_ids_json) as string[],
    throttle: r.throttle_json === null ? null : (JSON.parse(r.throttle_json) as ThrottleConfig),
    quota: r.quota_json === null ? null : (JSON.parse(r.quota_json) as QuotaConfig),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

export function toApiKey(r: ApiKeyRow): ApiKey {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    enabled: r.enabled === true || r.enabled === 1,
    usagePlanId: r.usage_plan_id,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

/** A plan's columns after `patch` (absent fields as in `cur`). */
export function usagePlanColumns(patch: UsagePlanPatch, cur?: UsagePlan) {
  const pick = <K extends keyof UsagePlanPatch>(k: K) => (patch[k] !== undefined ? patch[k] : cur?.[k]);
  const throttle = pick('throttle') ?? null;
  const quota = pick('quota') ?? null;
  return {
    name: pick('name') as string,
    api_ids_json: JSON.stringify(pick('apiIds') ?? []),
    throttle_json: throttle === null ? null : JSON.stringify(throttle),
    quota_json: quota === null ? null : JSON.stringify(quota),
  };
}

/** A key naming a plan that does not exist (the reference failed). */
export function unknownUsagePlan(id: string | null): InvalidRequestError {
  return new InvalidRequestError(`usagePlanId: usage plan '${id}' does not exist`, { field: 'usagePlanId' });
}

/** deleteUsagePlan while keys are on it. */
export function usagePlanInUse(id: string, keyIds: readonly string[]): ConflictError {
  return new ConflictError('usage_plan_in_use', `Usage plan '${id}' has ${keyIds.length} API key(s) on it`, { apiKeys: keyIds });
}
