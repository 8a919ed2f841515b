/**
 * Throttles: token buckets per API (all its routes together), per route, and
 * per API key (its usage plan's throttle), shared by every process of every
 * node on the database. Past a bucket the request is refused with 429 and
 * `Retry-After` (whole seconds until a token is back, at least 1).
 *
 * The buckets are the store's, spent through leases (src/limits/leased-buckets.ts
 * says how, and the bound on what the processes of a cluster admit together).
 */
import type { Clock } from '../../clock.js';
import { PolicyRefusalError } from '../../errors.js';
import { LeasedBuckets } from '../../limits/leased-buckets.js';
import type { LimitsPart } from '../../store/store.js';
import type { Api, Route, ThrottleConfig } from '../../types.js';

/** The answer's Retry-After: whole seconds, at least 1. */
function retryAfter(ms: number): Record<string, string> {
  return { 'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))) };
}

function refuseAfter(waitMs: number, what: string): void {
  if (waitMs > 0) throw new PolicyRefusalError('throttled', `Too many requests for this ${what}: retry after Retry-After seconds`, undefined, retryAfter(waitMs));
}

/** The gateway's throttles: a token of the named shared bucket per request, or a 429 with Retry-After. */
export class Throttles {
  private readonly buckets: LeasedBuckets;

  constructor(deps: { limits: LimitsPart; clock: Clock }) {
    this.buckets = new LeasedBuckets(deps);
  }

  /**
   * Spends one token of the named bucket (`api:<id>`, `route:<id>`, `key:<id>`)
   * or refuses with 429 and Retry-After: at once (undefined, or the refusal
   * thrown) when this process holds a token, else a promise.
   */
  admit(name: string, throttle: ThrottleConfig, what: string): void | Promise<void> {
    const spent = this.buckets.spend(name, throttle);
    if (typeof spent === 'number') return refuseAfter(spent, what);
    return spent.then((waitMs) => refuseAfter(waitMs, what));
  }
}

/** The route's and the API's throttles, checked in that order; null when neither is set (or nothing enforces them). */
export function compileThrottle(api: Api, route: Route, throttles: Throttles | undefined): { check(): void | Promise<void> } | null {
  const own = route.throttle ?? null;
  const shared = api.throttle ?? null;
  if (!throttles || (own === null && shared === null)) return null;
  const ownBucket = `route:${route.id}`;
  const sharedBucket = `api:${api.id}`;
  const admitShared = (): void | Promise<void> => (shared === null ? undefined : throttles.admit(sharedBucket, shared, 'API'));
  return {
    check() {
      const first = own === null ? undefined : throttles.admit(ownBucket, own, 'route');
      return first === undefined ? admitShared() : first.then(admitShared);
    },
  };
}
