/**
 * Admin key check for the management API. Invocation routes and the
 * operational endpoints stay public; everything else under /api needs
 * `Authorization: Bearer <key>` when a key is configured.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { UnauthorizedError } from '../errors.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Compares digests so neither the key's content nor its length leaks through timing. */
export function keyMatches(header: string | undefined, key: string): boolean {
  if (!header || !header.startsWith('Bearer ')) return false;
  return timingSafeEqual(digest(header.slice(7).trim()), digest(key));
}

export function registerAdminAuth(app: FastifyInstance, adminKey: string | null): void {
  if (!adminKey) return;
  app.addHook('onRequest', async function requireAdminKey(request) {
    const url = request.url;
    if (!url.startsWith('/api/') || url.startsWith('/api/invoke/')) return;
    if (!keyMatches(request.headers.authorization, adminKey)) throw new UnauthorizedError();
  });
}
