/** API keys and usage plans as the API shows them: a key's secret only when just created. */
import type { ApiKey, UsagePlan } from '../../types.js';
import type { ApiKeyView, UsagePlanView } from '../../schema/api-keys.js';

export function usagePlanView(plan: UsagePlan): UsagePlanView {
  return {
    id: plan.id,
    name: plan.name,
    apiIds: plan.apiIds,
    throttle: plan.throttle,
    quota: plan.quota,
    createdAt: plan.createdAt,
    updatedAt: plan.updatedAt,
  };
}

export function apiKeyView(key: ApiKey, secret?: string): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    enabled: key.enabled,
    usagePlanId: key.usagePlanId,
    createdAt: key.createdAt,
    updatedAt: key.updatedAt,
    ...(secret === undefined ? {} : { value: secret }),
  };
}
