/**
 * Which methods the management routes accept on a path, asked of Fastify's own
 * router so the answer follows exactly the matching the routes get (decoding,
 * trailing slash, parameters). A request that no route serves is a 405 with
 * these methods in `Allow` when the list is not empty, else a 404.
 */
import type { FastifyInstance } from 'fastify';

/** Every method a management route could be registered for, in the order `Allow` lists them. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** The methods some route serves for this request target (path and query as sent); empty when none does. */
export function allowedMethods(app: FastifyInstance, url: string): string[] {
  // The router answers a malformed percent-escape with its bad-URL handler for any
  // method; such a target names no path at all.
  const path = url.split('?', 1)[0];
  // Only an origin-form target names a path: the router would match `OPTIONS *`
  // (the asterisk form) against the route of `/` (the dashboard) as if it were one.
  if (!path.startsWith('/')) return [];
  try {
    decodeURIComponent(path);
  } catch {
    return [];
  }
  return METHODS.filter((method) => app.findRoute({ method, url }) !== null);
}
