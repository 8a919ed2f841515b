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
 * by design.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { UnauthorizedError } from '../errors.js';

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

export function registerAdminAuth(app: FastifyInstance, adminKey: string | null): void {
  if (!adminKey) return;
  app.addHook('onRequest', async function requireAdminKey(request) {
    if (request.is404 || request.routeOptions.config.public === true) return;
    if (!keyMatches(request.headers.authorization, adminKey)) throw new UnauthorizedError();
  });
}
