/**
 * Where an authorizer's grant lands in the route function's event, per event
 * format, as API Gateway puts it in `requestContext.authorizer`:
 *  - aws-v2 (HTTP API, payload 2.0): `{ jwt: { claims, scopes } }` or `{ lambda: context }`;
 *  - aws-v1 (REST API / payload 1.0): `{ claims, scopes }` for a JWT, and for a
 *    function authorizer its context keys beside `principalId` and `integrationLatency`;
 *  - switchyard: as aws-v1, but a JWT's claims keep their JSON types.
 * The AWS formats give claims as strings, as HTTP APIs do: numbers and
 * booleans as their text, a list as `[a b]`, an object as its JSON.
 */
import type { EventFormat } from '../../types.js';
import type { AuthorizerGrant } from './guard-types.js';

function claimText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return `[${value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(' ')}]`;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function claimsAsText(claims: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(claims)) Object.defineProperty(out, key, { value: claimText(claims[key]), enumerable: true, writable: true, configurable: true });
  return out;
}

/** `requestContext.authorizer` of a request admitted with `grant`, for a function of `format`. */
export function authorizerContext(format: EventFormat, grant: AuthorizerGrant): Record<string, unknown> {
  if (grant.kind === 'jwt') {
    if (format === 'aws-v2') return { jwt: { claims: claimsAsText(grant.claims), scopes: grant.scopes } };
    return { claims: format === 'aws-v1' ? claimsAsText(grant.claims) : grant.claims, scopes: grant.scopes };
  }
  if (format === 'aws-v2') return { lambda: { ...grant.context } };
  return { ...grant.context, principalId: grant.principalId, integrationLatency: grant.latencyMs };
}
