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
import type { GuardCompiler, PolicyDeps, PolicyGrant, PolicyRequest, RouteGuard } from './guard-types.js';
import { compileApiKey } from './api-keys.js';
import { compileAuthorizer } from './authorizers.js';
import { compileThrottle } from './throttle.js';
import { compileRequestValidation } from './validation.js';

export type { AuthorizerGrant, GuardCompiler, PolicyDeps, PolicyGrant, PolicyRequest, RouteGuard } from './guard-types.js';

/**
 * The features' compilers in the order their checks run, which is API Gateway's:
 * throttling, then the API key and its usage plan, then the authorizer, then
 * request validation.
 */
const COMPILERS: readonly GuardCompiler[] = [
  (api, route, deps) => compileThrottle(api, route, deps.throttles),
  (api, route, deps) => compileApiKey(api, route, deps.apiKeys),
  compileAuthorizer,
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

/**
 * Runs a route's checks in order; the first refusal throws. While every check
 * answers at once (a cached key, a remembered token, tokens in hand: nearly
 * every request) this is synchronous, so a guarded request waits on no
 * promise; from the first check that has to wait, the rest run after it.
 */
export function runGuards(guards: readonly RouteGuard[], request: PolicyRequest): PolicyGrant | Promise<PolicyGrant> {
  const grant: PolicyGrant = {};
  for (let i = 0; i < guards.length; i++) {
    const pending = guards[i]!.check(request, grant);
    if (pending !== undefined) return runRest(pending as Promise<void>, guards, i + 1, request, grant);
  }
  return grant;
}

async function runRest(pending: Promise<void>, guards: readonly RouteGuard[], from: number, request: PolicyRequest, grant: PolicyGrant): Promise<PolicyGrant> {
  await pending;
  for (let i = from; i < guards.length; i++) await guards[i]!.check(request, grant);
  return grant;
}
