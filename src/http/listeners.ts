/**
 * Which requests each listener takes. By default one listener serves
 * everything: invocations (src/http/invoke.ts, ahead of Fastify) and the rest
 * (Fastify). With an admin listener (`SWITCHYARD_ADMIN_ADDRESS`) the two
 * origins hold different things (docs/security.md, "Origins"):
 *
 * - the public listener serves invocations and the health checks (and
 *   /metrics unless it is kept to the admin listener); any other path is a
 *   404, compared on the raw path, so no other spelling reaches Fastify;
 * - the admin listener serves the dashboard and the management API, and never
 *   an invocation: a function's answer (a page, a script, a header) is never
 *   on the origin that holds the admin key.
 *
 * With a metrics listener (`SWITCHYARD_METRICS_ADDRESS`) GET /metrics is
 * served there alone (any other path a 404) and by no other listener, so a
 * scraper's network can be given that port and nothing else. The other
 * listeners' raw-path check only gives the plain spelling a clear answer:
 * the router decodes the path (`/%6Detrics` is `/metrics`), so the /metrics
 * route itself refuses a request that did not arrive on the metrics listener
 * (`arrivedOnMetricsListener`, checked in ops.ts). The allowlists above (the
 * metrics listener, the public listener) pass only the exact spelling on, so
 * no other spelling reaches Fastify there.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { INVOKE_PREFIX } from '../gateway/paths.js';
import { originOf, type InvokeOrigin } from './common.js';
import { requestIdOf } from './invoke.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface ListenerLayout {
  /** Whether the dashboard and management API have their own listener. */
  separate: boolean;
  /** With `separate`: whether the public listener serves /metrics too. */
  metricsOnPublic: boolean;
  /** Whether /metrics has a listener of its own (and no other listener serves it). */
  metricsOwn?: boolean;
}

export interface Listeners {
  /** Invocations and health (and everything when there is no admin listener). */
  public: Server;
  /** The dashboard and management API; null when the public listener serves them. */
  admin: Server | null;
  /** GET /metrics alone; null when another listener serves it. */
  metrics: Server | null;
}

/** Requests the metrics listener took: an identity mark, which no spelling of a path can forge. */
const onMetricsListener = new WeakSet<IncomingMessage>();

/** Whether a request arrived on the metrics listener (for the /metrics route's own check). */
export function arrivedOnMetricsListener(req: IncomingMessage): boolean {
  return onMetricsListener.has(req);
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** A listener's answer to a path it does not serve. */
function notServedHere(req: IncomingMessage, res: ServerResponse, serves = 'invocations (/api/invoke/fn/...) and health checks'): void {
  const requestId = requestIdOf(typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : undefined);
  res.writeHead(404, {
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': requestId,
    'x-content-type-options': 'nosniff',
  });
  res.end(
    JSON.stringify({
      error: `No such endpoint: ${req.method} ${pathOf(req.url!)}. This listener serves ${serves} only`,
      code: 'not_found',
    }),
  );
}

export function createListeners(invoke: Handler, given: Handler, layout: ListenerLayout): Listeners {
  const own = layout.metricsOwn === true;
  const metrics = own
    ? createServer(function serveMetrics(req, res) {
        if (pathOf(req.url!) === '/metrics') {
          onMetricsListener.add(req);
          given(req, res);
        } else notServedHere(req, res, 'GET /metrics');
      })
    : null;
  // The other listeners keep /metrics off when it has its own.
  const fastify: Handler = own
    ? (req, res) => {
        if (pathOf(req.url!) === '/metrics') notServedHere(req, res, 'no metrics (SWITCHYARD_METRICS_ADDRESS serves them); it serves the rest');
        else given(req, res);
      }
    : given;
  if (!layout.separate) {
    return {
      public: createServer(function serveAll(req, res) {
        if (req.url!.startsWith(INVOKE_PREFIX)) invoke(req, res);
        else fastify(req, res);
      }),
      admin: null,
      metrics,
    };
  }
  const forwarded = new Set(['/healthz', '/readyz']);
  if (layout.metricsOnPublic && !own) forwarded.add('/metrics');
  return {
    metrics,
    public: createServer(function servePublic(req, res) {
      const url = req.url!;
      if (url.startsWith(INVOKE_PREFIX)) invoke(req, res);
      else if (forwarded.has(pathOf(url))) fastify(req, res);
      else notServedHere(req, res);
    }),
    // Fastify has no route under /api/invoke/: there, its 404.
    admin: createServer(fastify),
  };
}

/**
 * Where a management caller reaches invocations, for `invokeUrl` and the
 * dashboard's try-it: `SWITCHYARD_PUBLIC_URL` when set; with an admin
 * listener, the host name the caller used with the public listener's port
 * (read when asked: with PORT=0 it is known only once listening), or the
 * origin a trusted proxy names (X-Forwarded-Proto and -Host); otherwise the
 * caller's own origin, which behind trusted proxies is the one they name.
 */
export function invokeOriginOf(opts: { publicUrl: string | null; separate: boolean; publicPort: () => number }): InvokeOrigin {
  if (opts.publicUrl !== null) {
    const fixed = opts.publicUrl;
    return () => fixed;
  }
  if (!opts.separate) return originOf;
  return function publicOrigin(request: FastifyRequest) {
    // A trusted proxy's X-Forwarded-Host (server.ts's trustProxy) names the public side already, port included.
    if (request.host !== request.headers.host) return originOf(request);
    return `${request.protocol}://${request.hostname}:${opts.publicPort()}`;
  };
}
