/**
 * Throttles, `api_key_required` and usage plans as the project file writes
 * them (snake_case, like every key of the file: `rate_limit`, `burst_limit`)
 * and as the API takes them (camelCase, src/schema/apis.ts `Throttle`,
 * src/schema/api-keys.ts). The project holds an API's and a plan's throttle
 * in the API's form (as `cors`), a route's as the file writes it (a route is
 * also what importers write); these map one to the other (a route's whole
 * policy: ./route-policy.ts).
 */
import type { ThrottleConfig } from '../types.js';
import type { FileThrottle } from './types.js';

/** The file's `throttle` in the API's form; null for none. */
export function throttleFromFile(raw: FileThrottle | null | undefined): ThrottleConfig | null {
  return raw ? { rateLimit: raw.rate_limit, burstLimit: raw.burst_limit } : null;
}

/** The API's `throttle` as the file writes it. */
export function throttleToFile(throttle: ThrottleConfig): FileThrottle {
  return { rate_limit: throttle.rateLimit, burst_limit: throttle.burstLimit };
}
