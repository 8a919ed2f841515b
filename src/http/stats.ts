/**
 * The overview's data: `GET /api/stats` (per-minute statistics of every
 * process and node, src/stats/) and `GET /api/deliveries/stream` (one
 * server-sent event per recorded delivery attempt, followed in the store by
 * cursor like the log streams: event-stream.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { Stats } from '../stats/index.js';
import type { AttemptEvent } from '../stats/types.js';
import type { Store } from '../store/store.js';
import { errors, ref } from './schemas.js';
import { cursorQuery, EventStreams, startCursor, type CursorQuery } from './event-stream.js';
import { NAME_PATTERN } from '../schema/functions.js';

export interface StatsRouteOptions {
  store: Store;
  stats: Stats;
  /** Concurrent deliveries streams served by this process (default 100). */
  maxStreams?: number;
  /** How often the store is read for new attempts (default 250 ms). */
  pollMs?: number;
}

const MAX_MINUTES = 1440;


/** The SSE wire form of one attempt. */
export function attemptEventOf(a: AttemptEvent): string {
  const data = {
    seq: a.seq,
    delivery_id: a.deliveryId,
    target: a.functionName !== null ? 'function' : 'webhook',
    webhook_id: a.webhookId,
    function: a.functionName,
    attempt: a.attempt,
    outcome: a.outcome,
    status: a.responseStatus,
    invocation_outcome: a.invocationOutcome,
    error: a.error,
    started_at: a.startedAt,
    duration_ms: a.durationMs,
  };
  return `event: attempt\nid: ${a.seq}\ndata: ${JSON.stringify(data)}\n\n`;
}

interface StreamQuery extends CursorQuery {
  webhook?: string;
  function?: string;
}

export function registerStatsRoutes(app: FastifyInstance, opts: StatsRouteOptions): void {
  app.get<{ Querystring: { minutes?: number } }>(
    '/api/stats',
    {
      schema: {
        tags: ['stats'],
        operationId: 'getStats',
        summary: 'Per-minute request, invocation and delivery statistics of every node, for charts',
        querystring: {
          type: 'object',
          properties: {
            minutes: { type: 'integer', minimum: 1, maximum: MAX_MINUTES, description: 'The window: the last 1 to 1440 minutes, the current one included (default 60)' },
          },
          additionalProperties: false,
        },
        response: { 200: { description: 'The window', ...ref('Stats') }, ...errors() },
      },
    },
    async function getStats(request) {
      return opts.stats.window(request.query.minutes ?? 60);
    },
  );

  const streams = new EventStreams({ app, max: opts.maxStreams ?? 100, pollMs: opts.pollMs ?? 250 });

  app.get<{ Querystring: StreamQuery }>(
    '/api/deliveries/stream',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'streamDeliveries',
        summary: 'Stream every recorded delivery attempt, of webhooks and functions (server-sent events)',
        querystring: {
          type: 'object',
          properties: {
            ...cursorQuery('attempt cursor (an event id)'),
            webhook: { type: 'string', minLength: 1, maxLength: 200, description: 'Only the attempts of this webhook id' },
            function: { type: 'string', pattern: NAME_PATTERN, description: 'Only the attempts of this function' },
          },
          additionalProperties: false,
        },
        response: {
          200: {
            description:
              'Server-sent events. `event: attempt` (with `id:` the cursor) carries an AttemptEvent; `: ping` comments keep the connection open.',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          ...errors(),
        },
      },
    },
    async function streamDeliveries(request, reply) {
      streams.checkRoom();
      const filter = { webhookId: request.query.webhook, functionName: request.query.function };
      const cursor = startCursor(request, 'an attempt cursor') ?? (await opts.store.lastAttemptSeq());
      streams.serve(request, reply, {
        name: 'deliveries stream',
        cursor,
        feed: {
          read: (after, limit) => opts.store.listAttemptsAfter(after, filter, limit),
          cursorOf: (a) => a.seq,
          eventOf: attemptEventOf,
        },
      });
    },
  );
}
