/**
 * Operational endpoints: liveness, readiness (the store answers) and metrics.
 * They are public (no admin key): probes and scrapers carry no credentials.
 */
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.js';
import type { Store } from '../store/store.js';
import { PUBLIC_ROUTE } from './auth.js';
import { ref } from './schemas.js';

export function registerOpsRoutes(app: FastifyInstance, store: Store, metrics: Metrics): void {
  app.get(
    '/healthz',
    {
      ...PUBLIC_ROUTE,
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
      ...PUBLIC_ROUTE,
      schema: {
        tags: ['operations'],
        operationId: 'readyz',
        security: [],
        summary: 'Readiness: 503 when the store does not answer',
        response: {
          200: { description: 'Ready to serve', ...ref('Readiness') },
          503: { description: 'The store does not answer', ...ref('Readiness') },
        },
      },
    },
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

  app.get(
    '/metrics',
    {
      ...PUBLIC_ROUTE,
      schema: {
        tags: ['operations'],
        operationId: 'metrics',
        security: [],
        summary: 'Prometheus metrics',
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async function metricsText(_request, reply) {
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(await metrics.exposition());
  });
}
