/**
 * Throttles, `api_key_required` and usage plans as the project file writes
 * them (snake_case, like every key of the file: `rate_limit`, `burst_limit`)
 * and as the API takes them (camelCase, src/schema/apis.ts `Throttle`,
 * src/schema/api-keys.ts). The project holds an API's and a plan's throttle
 * in the API's form (as `cors`), a route's as the file writes it (a route is
 * also what importers write); these map one to the other, and a route's
 * policy between the file's keys and the API's fields.
 */
import type { RemoteRoute } from './api.js';
import type { ThrottleConfig } from '../types.js';
import type { FileThrottle, ProjectRoute } from './types.js';

/** The file's `throttle` in the API's form; null for none. */
export function throttleFromFile(raw: FileThrottle | null | undefined): ThrottleConfig | null {
  return raw ? { rateLimit: raw.rate_limit, burstLimit: raw.burst_limit } : null;
}

/** The API's `throttle` as the file writes it. */
export function throttleToFile(throttle: ThrottleConfig): FileThrottle {
  return { rate_limit: throttle.rateLimit, burst_limit: throttle.burstLimit };
}

/** A route's policy as the API takes it: only what the file sets (absent means none). */
export function routePolicyBody(route: ProjectRoute): { throttle?: ThrottleConfig; apiKeyRequired?: boolean } {
  const out: { throttle?: ThrottleConfig; apiKeyRequired?: boolean } = {};
  if (route.throttle) out.throttle = throttleFromFile(route.throttle)!;
  if (route.api_key_required) out.apiKeyRequired = true;
  return out;
}

/** A server route's policy as the file writes it (what is unset left out). */
export function routePolicyToFile(route: RemoteRoute): Pick<ProjectRoute, 'throttle' | 'api_key_required'> {
  const out: Pick<ProjectRoute, 'throttle' | 'api_key_required'> = {};
  if (route.throttle) out.throttle = throttleToFile(route.throttle);
  if (route.apiKeyRequired) out.api_key_required = true;
  return out;
}

/** The route policy keys (file names) whose values differ between the file's route and the server's. */
export function routePolicyChanges(route: ProjectRoute, current: RemoteRoute): string[] {
  const want = routePolicyBody(route);
  const have = { throttle: current.throttle ?? undefined, apiKeyRequired: current.apiKeyRequired ? true : undefined };
  const changed: string[] = [];
  const t = (x: ThrottleConfig | undefined) => (x ? `${x.rateLimit}/${x.burstLimit}` : '');
  if (t(want.throttle) !== t(have.throttle)) changed.push('throttle');
  if ((want.apiKeyRequired ?? false) !== (have.apiKeyRequired ?? false)) changed.push('api_key_required');
  return changed;
}
