/**
 * Operational endpoints: liveness, readiness (the store answers) and metrics.
 * They are public (no admin key): probes and scrapers carry no credentials.
 */
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.js';
import type { Store } from '../store/store.js';
import { PUBLIC_ROUTE } from './auth.js';

export function registerOpsRoutes(app: FastifyInstance, store: Store, metrics: Metrics): void {
  app.get('/healthz', { ...PUBLIC_ROUTE, schema: { tags: ['operations'], security: [], summary: 'Liveness' } }, async function healthz() {
    return { status: 'ok' };
  });

  app.get('/readyz', { ...PUBLIC_ROUTE, schema: { tags: ['operations'], security: [], summary: 'Readiness: 503 when the store does not answer' } },
    async function readyz(request, reply) {
      try {
        await store.ping();
        return { status: 'ready' };
      } catch (err) {
        request.log.warn({ err }, 'store is not answering');
        return reply.code(503).send({ status: 'unavailable', error: 'store is not answering', code: 'store_unavailable' });
      }
    },
  );

  app.get('/metrics', { ...PUBLIC_ROUTE, schema: { tags: ['operations'], security: [], summary: 'Prometheus metrics' } }, async function metricsText(_request, reply) {
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(metrics.registry.render());
  });
}
