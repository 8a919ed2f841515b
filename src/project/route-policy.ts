/**
 * A route's policy between the project file (snake_case keys: `authorizer`,
 * `authorization_scopes`, `api_key_required`, `throttle: {rate_limit,
 * burst_limit}`, `request`) and the API (camelCase route fields): what apply
 * sends, what export writes, and which keys a plan names as changed. One
 * place for every route policy field, so a new one is added here once.
 */
import { canonicalJson as canonical } from '../canonical-json.js';
import type { ApiBody, RemoteRoute } from './api.js';
import { throttleFromFile, throttleToFile } from './throttle.js';
import type { ProjectRoute } from './types.js';

type RoutePolicyFields = Omit<ApiBody['routes'][number], 'method' | 'path' | 'function'>;
type FileRoutePolicy = Pick<ProjectRoute, 'authorizer' | 'authorization_scopes' | 'request' | 'throttle' | 'api_key_required'>;

/** A route's policy as the API takes it: only what the file sets (absent means none). */
export function routePolicyBody(route: ProjectRoute): RoutePolicyFields {
  return {
    ...(route.request !== undefined ? { request: route.request } : {}),
    ...(route.authorizer !== undefined ? { authorizer: route.authorizer } : {}),
    ...(route.authorization_scopes !== undefined ? { authorizationScopes: route.authorization_scopes } : {}),
    ...(route.throttle ? { throttle: throttleFromFile(route.throttle)! } : {}),
    ...(route.api_key_required ? { apiKeyRequired: true } : {}),
  };
}

/** A server route's policy as the file writes it (what is unset left out). */
export function routePolicyToFile(route: RemoteRoute): FileRoutePolicy {
  return {
    ...(route.authorizer !== undefined ? { authorizer: route.authorizer } : {}),
    ...(route.authorizationScopes !== undefined ? { authorization_scopes: route.authorizationScopes } : {}),
    ...(route.request ? { request: route.request } : {}),
    ...(route.throttle ? { throttle: throttleToFile(route.throttle) } : {}),
    ...(route.apiKeyRequired ? { api_key_required: true } : {}),
  };
}

/** The route policy keys (file names) whose values differ between the file's route and the server's. */
export function routePolicyChanges(route: ProjectRoute, current: RemoteRoute): string[] {
  const changed: string[] = [];
  if (canonical(route.request ?? null) !== canonical(current.request ?? null)) changed.push('request');
  if ((current.authorizer ?? null) !== (route.authorizer ?? null)) changed.push('authorizer');
  if (canonical(current.authorizationScopes ?? []) !== canonical(route.authorization_scopes ?? [])) changed.push('authorization_scopes');
  const t = (x: { rateLimit: number; burstLimit: number } | null | undefined) => (x ? `${x.rateLimit}/${x.burstLimit}` : '');
  if (t(throttleFromFile(route.throttle)) !== t(current.throttle)) changed.push('throttle');
  if ((route.api_key_required ?? false) !== (current.apiKeyRequired ?? false)) changed.push('api_key_required');
  return changed;
}
