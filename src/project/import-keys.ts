/**
 * API keys, usage plans and throttles from serverless.yml and SAM templates,
 * as the project file's `api_key_required` (routes), `throttle` (APIs and
 * routes) and `usage_plans`. API keys themselves are never carried: they are
 * secrets the server makes (POST /api/api-keys), so each named key is listed
 * in the notes, its value (if the file gives one) never copied.
 *
 * - serverless.yml: `private: true` on an `http` event; `provider.apiGateway.
 *   apiKeys` (names, `{name, value}` objects, or keys grouped by usage plan)
 *   and `provider.apiGateway.usagePlan` (one plan, or a list of named plans)
 *   with `quota` (`limit`, `period`, `offset`) and `throttle` (`rateLimit`,
 *   `burstLimit`).
 * - SAM: `Auth.ApiKeyRequired` of an Api (every route) and of an `Api` event
 *   (that route, over the API's), `Auth.UsagePlan` (`CreateUsagePlan`
 *   PER_API, SHARED or NONE; `Quota`, `Throttle`), and the stage's default
 *   method throttle (`MethodSettings` for `/*` and `*`) or an HttpApi's
 *   `DefaultRouteSettings`, which API Gateway applies to each method or route
 *   on its own: carried as each route's own throttle.
 */
import type { QuotaConfig } from '../types.js';
import type { FileThrottle, FileUsagePlan } from './types.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : undefined);

/**
 * AWS's throttle (`rateLimit`/`burstLimit`, or SAM's capitalized keys) as the
 * file's; a rate without a burst gets a burst of the rate rounded up (a
 * bucket needs both; said in a note); anything else is a note.
 */
export function throttleFrom(raw: unknown, where: string, notes: string[], keys: [string, string] = ['rateLimit', 'burstLimit']): FileThrottle | undefined {
  if (raw === undefined || raw === null) return undefined;
  const given = isObj(raw) ? raw : {};
  const rate = num(given[keys[0]]);
  const burst = num(given[keys[1]]);
  if (rate === undefined || rate <= 0 || rate > 1_000_000) {
    notes.push(`${where}: ${keys[0]} ${JSON.stringify(given[keys[0]])} is not carried (a rate above 0 and at most 1000000 per second); no throttle`);
    return undefined;
  }
  if (burst === undefined) {
    const filled = Math.max(1, Math.ceil(rate));
    notes.push(`${where}: no ${keys[1]}; the burst is the rate, ${filled}`);
    return { rate_limit: rate, burst_limit: filled };
  }
  if (!Number.isInteger(burst) || burst < 1 || burst > 1_000_000) {
    notes.push(`${where}: ${keys[1]} ${JSON.stringify(given[keys[1]])} is not carried (an integer from 1 to 1000000); no throttle`);
    return undefined;
  }
  return { rate_limit: rate, burst_limit: burst };
}

/** AWS's quota (`limit`, `period`, `offset`, or SAM's capitalized keys): `offset` is not carried (a count starts at 0 each period). */
export function quotaFrom(raw: unknown, where: string, notes: string[], keys: [string, string, string] = ['limit', 'period', 'offset']): QuotaConfig | undefined {
  if (raw === undefined || raw === null) return undefined;
  const given = isObj(raw) ? raw : {};
  const limit = num(given[keys[0]]);
  const period = typeof given[keys[1]] === 'string' ? (given[keys[1]] as string).toUpperCase() : undefined;
  if (limit === undefined || !Number.isInteger(limit) || limit < 1 || limit > 1_000_000_000 || !['DAY', 'WEEK', 'MONTH'].includes(period ?? '')) {
    notes.push(`${where}: ${JSON.stringify(raw)} is not carried (a quota has an integer limit and a period DAY, WEEK or MONTH)`);
    return undefined;
  }
  const offset = num(given[keys[2]]);
  if (given[keys[2]] !== undefined && offset !== 0) notes.push(`${where}.${keys[2]}: ${JSON.stringify(given[keys[2]])} not carried (a quota counts from 0 each period)`);
  return { limit, period: period as QuotaConfig['period'] };
}

/** A usage plan as the file writes it, from AWS's `throttle` and `quota` (either keys' spelling); null when it sets neither validly and says nothing. */
function planOf(throttle: FileThrottle | undefined, quota: QuotaConfig | undefined, apis: string[]): FileUsagePlan {
  const plan: FileUsagePlan = { apis };
  if (throttle) plan.throttle = throttle;
  if (quota) plan.quota = quota;
  return plan;
}

const KEYS_NOTE = 'keys are secrets made on the server (POST /api/api-keys with the usage plan, or the dashboard), never in switchyard.yaml; no value is carried';

/**
 * serverless.yml's `provider.apiGateway.usagePlan` (one plan, named after the
 * service, or a list of `- name: {quota, throttle}`) and `apiKeys` (each
 * named in a note). The plans cover `api`, the service's REST API.
 */
export function serverlessUsagePlans(gateway: Obj, service: string, api: string, notes: string[]): Record<string, FileUsagePlan> {
  const plans: Record<string, FileUsagePlan> = {};
  const raw = gateway.usagePlan;
  const one = (name: string, spec: unknown, where: string) => {
    if (!isObj(spec)) {
      notes.push(`${where}: ${JSON.stringify(spec)} is not a usage plan (quota, throttle); not carried`);
      return;
    }
    const rest = Object.keys(spec).filter((k) => k !== 'quota' && k !== 'throttle');
    if (rest.length > 0) notes.push(`${where}: ${rest.join(', ')} not carried (a usage plan has a quota and a throttle)`);
    plans[name] = planOf(throttleFrom(spec.throttle, `${where}.throttle`, notes), quotaFrom(spec.quota, `${where}.quota`, notes), [api]);
  };
  if (Array.isArray(raw)) {
    raw.forEach((entry, i) => {
      const name = isObj(entry) ? Object.keys(entry)[0] : undefined;
      if (name === undefined) notes.push(`provider.apiGateway.usagePlan[${i}]: not a named plan; not carried`);
      else one(name, (entry as Obj)[name], `provider.apiGateway.usagePlan[${i}].${name}`);
    });
  } else if (raw !== undefined) one(service, raw, 'provider.apiGateway.usagePlan');

  const keys = gateway.apiKeys;
  if (keys !== undefined) {
    const names: string[] = [];
    const nameOf = (k: unknown) => (typeof k === 'string' ? k : isObj(k) && typeof k.name === 'string' ? k.name : isObj(k) && k.value !== undefined ? '(unnamed)' : undefined);
    for (const entry of Array.isArray(keys) ? keys : [keys]) {
      const direct = nameOf(entry);
      if (direct !== undefined) names.push(direct);
      // `- free: [key, ...]`: the keys of one usage plan.
      else if (isObj(entry)) {
        for (const [plan, list] of Object.entries(entry)) for (const k of Array.isArray(list) ? list : [list]) names.push(`${nameOf(k) ?? '(unnamed)'} (usage plan ${plan})`);
      }
    }
    // No usage plan given: Serverless makes one for the keys, with no limits.
    if (raw === undefined && names.length > 0) plans[service] = { apis: [api] };
    notes.push(`provider.apiGateway.apiKeys: ${names.join(', ')} not carried (${KEYS_NOTE})`);
  }
  return plans;
}

/** What SAM's `Auth.UsagePlan` of one API makes: a plan of its own (PER_API), the shared one (SHARED), or none. */
export interface SamPlanResult {
  kind: 'PER_API' | 'SHARED' | 'NONE';
  throttle?: FileThrottle;
  quota?: QuotaConfig;
}

/** SAM's `Auth.UsagePlan`; undefined when absent or not understood (noted). */
export function samUsagePlan(raw: unknown, where: string, notes: string[]): SamPlanResult | undefined {
  if (raw === undefined) return undefined;
  const spec = isObj(raw) ? raw : {};
  const kind = spec.CreateUsagePlan;
  if (kind !== 'PER_API' && kind !== 'SHARED' && kind !== 'NONE') {
    notes.push(`${where}.CreateUsagePlan: ${JSON.stringify(kind)} is not PER_API, SHARED or NONE; no usage plan carried`);
    return undefined;
  }
  const rest = Object.keys(spec).filter((k) => !['CreateUsagePlan', 'Quota', 'Throttle', 'UsagePlanName', 'Description', 'Tags'].includes(k));
  if (rest.length > 0) notes.push(`${where}: ${rest.join(', ')} not carried`);
  if (kind === 'NONE') return { kind };
  notes.push(`${where}: SAM's API key for the plan is not carried (${KEYS_NOTE})`);
  const out: SamPlanResult = { kind };
  const throttle = throttleFrom(spec.Throttle, `${where}.Throttle`, notes, ['RateLimit', 'BurstLimit']);
  const quota = quotaFrom(spec.Quota, `${where}.Quota`, notes, ['Limit', 'Period', 'Offset']);
  if (throttle) out.throttle = throttle;
  if (quota) out.quota = quota;
  return out;
}

/** SAM's usage plans as the file's: `<api>UsagePlan` per API (SAM's logical ids), `ServerlessUsagePlan` shared. */
export function samUsagePlans(byApi: Map<string, SamPlanResult>): Record<string, FileUsagePlan> {
  const plans: Record<string, FileUsagePlan> = {};
  for (const [api, plan] of byApi) {
    if (plan.kind === 'PER_API') plans[`${api}UsagePlan`] = planOf(plan.throttle, plan.quota, [api]);
    else if (plan.kind === 'SHARED') {
      const shared = (plans.ServerlessUsagePlan ??= { apis: [] });
      shared.apis.push(api);
      // SAM takes the settings of one of the APIs that share it: the first that gives them.
      if (plan.throttle && !shared.throttle) shared.throttle = plan.throttle;
      if (plan.quota && !shared.quota) shared.quota = plan.quota;
    }
  }
  return plans;
}

/**
 * A stage's default throttle: an Api's `MethodSettings` entry for every
 * resource and method (`/*`, `*`), or an HttpApi's `DefaultRouteSettings`.
 * Entries for one path or method are listed, not carried.
 */
export function samStageThrottle(props: Obj, where: string, notes: string[]): FileThrottle | undefined {
  const keys: [string, string] = ['ThrottlingRateLimit', 'ThrottlingBurstLimit'];
  if (isObj(props.DefaultRouteSettings)) {
    const settings = props.DefaultRouteSettings;
    if (settings.ThrottlingRateLimit === undefined && settings.ThrottlingBurstLimit === undefined) return undefined;
    return throttleFrom(settings, `${where}.DefaultRouteSettings`, notes, keys);
  }
  if (!Array.isArray(props.MethodSettings)) return undefined;
  let found: FileThrottle | undefined;
  props.MethodSettings.forEach((s, i) => {
    const at = `${where}.MethodSettings[${i}]`;
    if (!isObj(s) || (s.ThrottlingRateLimit === undefined && s.ThrottlingBurstLimit === undefined)) return;
    if (s.ResourcePath === '/*' && s.HttpMethod === '*') found = throttleFrom(s, at, notes, keys);
    else notes.push(`${at}: the throttle of ${String(s.HttpMethod)} ${String(s.ResourcePath)} is not carried (only the stage's default, /* and *; set a route's throttle in switchyard.yaml)`);
  });
  return found;
}
