/**
 * A route's access policy as the gateway runs it: checks compiled once per
 * route table from the API's and the route's policy, run in order after the
 * route matched and before its function is looked up. A route without policy
 * has no checks (null), so it pays one null test per request.
 *
 * A check refuses with PolicyRefusalError (its reason becomes the answer's
 * code and the refusal metric's label) or records what it admitted on the
 * grant: an authorizer's principal and context, the API key. The event
 * builders read the grant to fill `requestContext` where AWS puts them.
 */
import type { Api, Route } from '../../types.js';
import type { RequestFacts } from '../event.js';
import { compileApiKey, type ApiKeyDeps } from './api-keys.js';
import { compileThrottle, type Throttles } from './throttle.js';
import { compileRequestValidation } from './validation.js';

/** What the checks admitted the request with, for the function's event. */
export interface PolicyGrant {
  /** What the route's authorizer passes on, placed as AWS places it (v1 `requestContext.authorizer`, v2 its `jwt` or `lambda`). */
  authorizer?: Record<string, unknown>;
  /** The id of the API key the request was admitted with (`requestContext.identity.apiKey` / usage counting). */
  apiKeyId?: string;
  /** The key as the caller sent it (aws-v1 `requestContext.identity.apiKey`, as API Gateway passes it). */
  apiKey?: string;
}

/** The matched request a check sees. */
export interface PolicyRequest {
  req: RequestFacts;
  route: Route;
  /** basePath + the route's template, as written (`/shop/items/:id`). */
  resource: string;
  pathParameters: Record<string, string> | null;
}

export interface RouteGuard {
  /** Throws PolicyRefusalError to refuse; otherwise may add to `grant`. */
  check(request: PolicyRequest, grant: PolicyGrant): void | Promise<void>;
}

/**
 * What checks need beyond the API (the store for keys and shared counters, the
 * runtime for authorizer functions, a clock), given by the gateway's owner.
 * Each policy feature adds its optional fields.
 */
export interface PolicyDeps {
  /** The shared token buckets (./throttle.ts); absent: throttles are not enforced (tests of other features). */
  throttles?: Throttles;
  /** API keys and their usage plans (./api-keys.ts); absent: `apiKeyRequired` is not enforced (tests of other features). */
  apiKeys?: ApiKeyDeps;
}

/** Builds one feature's check for a route, or null when the API and route leave that feature off. */
export type GuardCompiler = (api: Api, route: Route, deps: PolicyDeps) => RouteGuard | null;

/**
 * The features' compilers in the order their checks run, which is API Gateway's:
 * throttling, then the API key and its usage plan, then the authorizer, then
 * request validation.
 */
const COMPILERS: readonly GuardCompiler[] = [
  (api, route, deps) => compileThrottle(api, route, deps.throttles),
  (api, route, deps) => compileApiKey(api, route, deps.apiKeys),
  compileRequestValidation,
];

/** A route's checks in order; null when it has none. */
export function compileGuards(api: Api, route: Route, deps: PolicyDeps): RouteGuard[] | null {
  let guards: RouteGuard[] | null = null;
  for (const compile of COMPILERS) {
    const guard = compile(api, route, deps);
    if (guard !== null) (guards ??= []).push(guard);
  }
  return guards;
}

/** Runs a route's checks in order; the first refusal throws. */
export async function runGuards(guards: readonly RouteGuard[], request: PolicyRequest): Promise<PolicyGrant> {
  const grant: PolicyGrant = {};
  for (const guard of guards) await guard.check(request, grant);
  return grant;
}
