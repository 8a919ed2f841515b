/**
 * Admin key check for the management API. The decision follows the route the
 * router matched, never the text of the URL: the router decodes the path
 * (`/%61pi/functions` is `/api/functions`), so a prefix test on the raw URL
 * could be sidestepped by any other spelling. Routes opt out with
 * `config: { public: true }` (the operational endpoints); every other matched
 * route needs `Authorization: Bearer <key>` when a key is configured, so a
 * route added later is protected unless it says otherwise. Requests no route
 * serves answer without the key: a 404, or a 405 listing the methods of a
 * management path, which reveals only the documented route table, never data.
 * The invocation endpoint is served ahead of Fastify (server.ts) and is public
 * by design. Wrong keys are slowed per client address (failed-attempts.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TooManyFailedAttemptsError, UnauthorizedError } from '../errors.js';
import type { FailedAttempts } from './failed-attempts.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without the admin key (liveness, readiness, metrics). */
    public?: boolean;
  }
}

/** Route options for a route that must stay reachable without the key. */
export const PUBLIC_ROUTE = { config: { public: true } } as const;

const digest = (value: string) => createHash('sha256').update(value).digest();

/** `Bearer` followed by at least one space; the scheme is case-insensitive (RFC 9110 section 11.1). */
const BEARER = /^bearer +/i;

/** Compares digests so neither the key's content nor its length leaks through timing. */
export function keyMatches(header: string | undefined, key: string): boolean {
  if (!header) return false;
  const scheme = BEARER.exec(header);
  if (!scheme) return false;
  return timingSafeEqual(digest(header.slice(scheme[0].length).trim()), digest(key));
}

/**
 * Checks `Authorization: Bearer <expected>` on a request, slowed per address
 * by `attempts` when given (failed-attempts.ts): a spent address gets the 429
 * before its key is compared. Throws `refusal()` when the key is missing or wrong.
 */
export function checkBearer(
  request: FastifyRequest,
  expected: string,
  attempts: FailedAttempts | null,
  refusal: () => Error = () => new UnauthorizedError(),
): void {
  const header = request.headers.authorization;
  if (!header) throw refusal();
  // The client's address: behind trusted proxies, from X-Forwarded-For (server.ts gives Fastify the setting).
  const address = request.ip ?? '';
  if (attempts) {
    const wait = attempts.waitSeconds(address);
    if (wait > 0) throw new TooManyFailedAttemptsError(wait);
  }
  if (keyMatches(header, expected)) return;
  attempts?.failed(address);
  throw refusal();
}

/** `attempts`: the per-address budget of wrong keys, or null for none (a loopback server). */
export function registerAdminAuth(app: FastifyInstance, adminKey: string | null, attempts: FailedAttempts | null = null): void {
  if (!adminKey) return;
  app.addHook('onRequest', async function requireAdminKey(request) {
    if (request.is404 || request.routeOptions.config.public === true) return;
    // The consumer API takes a portal token instead, and only that (portal.ts checks it).
    if (request.routeOptions.config.portal === true) return;
    checkBearer(request, adminKey, attempts);
  });
}
