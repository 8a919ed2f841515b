/**
 * Operational endpoints: liveness, readiness (the store answers, the isolate
 * workers run, and the process is not draining after SIGTERM) and metrics.
 * They need no admin key: probes and scrapers carry none. The probes answer
 * under any `Host` (keyless-guard.ts); `/metrics` can ask for its own token
 * (`SWITCHYARD_METRICS_TOKEN`), and its scrapes share one collection at a
 * time (metrics.ts). `registerMetricsRoute` mounts `/metrics` alone, for a
 * listener of its own.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NotFoundError, UnauthorizedError } from '../errors.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { Store } from '../store/store.js';
import { checkBearer, PUBLIC_ROUTE } from './auth.js';
import type { FailedAttempts } from './failed-attempts.js';
import { ref } from './schemas.js';

/** Who may read /metrics: anyone (token null), or who sends the token; wrong tokens count as wrong keys. */
export interface MetricsAccess {
  token: string | null;
  attempts: FailedAttempts | null;
  /**
   * With a metrics listener of its own: whether a request arrived there
   * (listeners.ts). Decided on the matched route, since the router decodes
   * the path and a raw-path test elsewhere misses `/%6Detrics`.
   */
  arrivedOnOwnListener?: ((raw: IncomingMessage) => boolean) | null;
}

const PROBE_ROUTE = { config: { public: true, anyHost: true } } as const;

/** Why this process is not ready although its store answers: draining after SIGTERM, or its isolate workers down. */
export interface NotReady {
  status: 'draining' | 'unavailable';
  error: string;
  code: 'shutting_down' | 'runtime_unavailable';
}

export function registerOpsRoutes(
  app: FastifyInstance,
  store: Store,
  metrics: Metrics,
  access?: MetricsAccess,
  notReady: () => NotReady | null = () => null,
): void {
  app.get(
    '/healthz',
    {
      ...PROBE_ROUTE,
      schema: {
        tags: ['operations'],
        operationId: 'healthz',
        security: [],
        summary: 'Liveness',
        response: { 200: { description: 'The process answers', ...ref('Health') } },
      },
    },
    async function healthz() {
    // The answering process: with --processes above 1, which of them served this connection.
    return { status: 'ok', pid: process.pid };
  });

  app.get(
    '/readyz',
    {
      ...PROBE_ROUTE,
      schema: {
        tags: ['operations'],
        operationId: 'readyz',
        security: [],
        summary: 'Readiness: 503 when the store does not answer, the isolate workers are down, or the process drains after SIGTERM',
        response: {
          200: { description: 'Ready to serve', ...ref('Readiness') },
          503: { description: 'The store does not answer, the isolate workers are not running, or the process is draining', ...ref('Readiness') },
        },
      },
    },
    async function readyz(request, reply) {
      const why = notReady();
      if (why !== null) return reply.code(503).send(why);
      try {
        await store.ping();
        return { status: 'ready' };
      } catch (err) {
        request.log.warn({ err }, 'store is not answering');
        return reply.code(503).send({ status: 'unavailable', error: 'store is not answering', code: 'store_unavailable' });
      }
    },
  );

  registerMetricsRoute(app, metrics, access);
}

const notOnThisListener = (request: FastifyRequest) =>
  new NotFoundError(
    'not_found',
    `No such endpoint: ${request.method} ${request.url.split('?')[0]}. This listener serves no metrics (SWITCHYARD_METRICS_ADDRESS serves them)`,
  );

const metricsRefusal = () =>
  new UnauthorizedError('Missing or wrong metrics token: send Authorization: Bearer <SWITCHYARD_METRICS_TOKEN>');

export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, access: MetricsAccess = { token: null, attempts: null }): void {
  const { token, attempts } = access;
  const ownListener = access.arrivedOnOwnListener ?? null;
  // Ahead of the token: another listener answers as if it had no such route.
  const hooks = [
    ...(ownListener === null
      ? []
      : [
          async function onlyOnMetricsListener(request: FastifyRequest) {
            if (!ownListener(request.raw)) throw notOnThisListener(request);
          },
        ]),
    ...(token === null
      ? []
      : [
          async function requireMetricsToken(request: FastifyRequest) {
            checkBearer(request, token, attempts, metricsRefusal);
          },
        ]),
  ];
  app.get(
    '/metrics',
    {
      ...PUBLIC_ROUTE,
      ...(hooks.length === 0 ? {} : { onRequest: hooks }),
      schema: {
        tags: ['operations'],
        operationId: 'metrics',
        security: [],
        summary: 'Prometheus metrics',
        description:
          'Public unless SWITCHYARD_METRICS_TOKEN is set (then `Authorization: Bearer <token>`). Scrapes that arrive together ' +
          'share one collection, and a collection starts at most once a second; past 4 waiting scrapes, 503 too_many_scrapes.',
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          401: { description: 'SWITCHYARD_METRICS_TOKEN is set and the request lacks it', ...ref('Error') },
          403: { description: 'Without an admin key: a request from a page of another origin', ...ref('Error') },
          421: { description: 'Without an admin key: a Host that is not a loopback name', ...ref('Error') },
          429: { description: 'Too many wrong tokens or keys from this address', ...ref('Error') },
          503: { description: 'Too many scrapes wait already (too_many_scrapes; Retry-After: 1)', ...ref('Error') },
        },
      },
    },
    async function metricsText(_request, reply) {
      return reply.type('text/plain; version=0.0.4; charset=utf-8').send(await metrics.exposition());
    },
  );
}
