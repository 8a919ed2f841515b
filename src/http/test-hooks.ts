/**
 * Test-only endpoints, registered only with SWITCHYARD_TEST_HOOKS=1: move the
 * service's clock by hand so schedule tests run minutes in milliseconds
 * against a real server process. Never enable in production.
 */
import type { FastifyInstance } from 'fastify';
import type { ManualClock } from '../clock.js';

export function registerTestHooks(app: FastifyInstance, clock: ManualClock): void {
  app.get('/api/_test/clock', { schema: { hide: true } }, async function readClock() {
    return { now: new Date(clock.now()).toISOString() };
  });

  app.put<{ Body: { now?: string; advance_ms?: number } }>(
    '/api/_test/clock',
    {
      schema: {
        hide: true,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { now: { type: 'string', format: 'date-time' }, advance_ms: { type: 'integer', minimum: 0 } },
        },
      },
    },
    async function moveClock(request) {
      if (request.body.now !== undefined) clock.set(Date.parse(request.body.now));
      if (request.body.advance_ms !== undefined) clock.advance(request.body.advance_ms);
      return { now: new Date(clock.now()).toISOString() };
    },
  );
}
