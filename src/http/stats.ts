/**
 * The overview's data: `GET /api/stats` (per-minute statistics of every
 * process and node, src/stats/) and `GET /api/deliveries/stream` (one
 * server-sent event per recorded delivery attempt). The stream follows the
 * log streams' conventions (streams.ts): it reads the store with a cursor
 * every few hundred milliseconds, so it sees the attempts of every node and a
 * client resumes where it stopped (`Last-Event-ID` or `?since=`); `: ping`
 * comments keep it open; their number is bounded (503 beyond); they end when
 * the server begins to close.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { InvalidRequestError, TooManyStreamsError } from '../errors.js';
import type { Stats } from '../stats/index.js';
import type { AttemptEvent } from '../stats/types.js';
import type { Store } from '../store/store.js';
import { errors, ref } from './schemas.js';
import { DEFAULT_PING_MS } from './streams.js';

export interface StatsRouteOptions {
  store: Store;
  stats: Stats;
  /** Concurrent deliveries streams served by this process (default 100). */
  maxStreams?: number;
  /** How often the store is read for new attempts (default 250 ms). */
  pollMs?: number;
}

const MAX_MINUTES = 1440;
const BATCH = 500;
const MAX_BUFFERED = 4 * 1024 * 1024;
const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

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

function readMinutes(value: string | undefined): number {
  if (value === undefined) return 60;
  const n = /^[0-9]{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= MAX_MINUTES)) {
    throw new InvalidRequestError(`minutes must be a whole number from 1 to ${MAX_MINUTES}, got "${value.slice(0, 40)}"`, {
      field: 'minutes',
    });
  }
  return n;
}

interface StreamQuery {
  since?: string;
  ping_ms?: string;
  webhook?: string;
  function?: string;
}

export function registerStatsRoutes(app: FastifyInstance, opts: StatsRouteOptions): void {
  app.get<{ Querystring: { minutes?: string } }>(
    '/api/stats',
    {
      schema: {
        tags: ['stats'],
        operationId: 'getStats',
        summary: 'Per-minute request, invocation and delivery statistics of every node, for charts',
        querystring: {
          type: 'object',
          properties: {
            minutes: { type: 'string', maxLength: 40, description: 'The window: the last 1 to 1440 minutes, the current one included (default 60)' },
          },
          additionalProperties: false,
        },
        response: { 200: { description: 'The window', ...ref('Stats') }, ...errors() },
      },
    },
    async function getStats(request) {
      return opts.stats.window(readMinutes(request.query.minutes));
    },
  );

  const maxStreams = opts.maxStreams ?? 100;
  const pollMs = opts.pollMs ?? 250;
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });

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
            since: {
              type: 'string',
              pattern: '^[0-9]{1,15}$',
              description: 'Replay the attempts recorded after this cursor (an event id), then stream live (`Last-Event-ID` does the same)',
            },
            ping_ms: {
              type: 'string',
              pattern: '^[0-9]{3,5}$',
              description: 'Interval of the `: ping` keep-alive comments in milliseconds, 100 to 99999 (default 15000)',
            },
            webhook: { type: 'string', minLength: 1, maxLength: 200, description: 'Only the attempts of this webhook id' },
            function: { type: 'string', pattern: NAME.source, description: 'Only the attempts of this function' },
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
      if (open.size >= maxStreams) throw new TooManyStreamsError(maxStreams);
      const filter = { webhookId: request.query.webhook, functionName: request.query.function };
      const pingMs = request.query.ping_ms === undefined ? DEFAULT_PING_MS : Number(request.query.ping_ms);
      const header = request.headers['last-event-id'];
      const given = request.query.since ?? (typeof header === 'string' && header !== '' ? header : undefined);
      if (given !== undefined && !/^[0-9]{1,15}$/.test(given)) {
        throw new InvalidRequestError(`Last-Event-ID must be an attempt cursor (a whole number), got "${given.slice(0, 40)}"`, {
          field: 'Last-Event-ID',
        });
      }
      let cursor = given !== undefined ? Number(given) : await opts.store.lastAttemptSeq();
      if (open.size >= maxStreams) throw new TooManyStreamsError(maxStreams);

      reply.hijack();
      const res: ServerResponse = reply.raw;
      res.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
        connection: 'keep-alive',
      });
      res.write(': connected\n\n');

      let ended = false;
      let polling = false;
      let pollTimer: NodeJS.Timeout | null = null;
      const send = (text: string) => {
        if (ended) return;
        res.write(text);
        if (res.writableLength > MAX_BUFFERED) end();
      };
      const ping = setInterval(() => send(': ping\n\n'), pingMs);
      const poll = async () => {
        pollTimer = null;
        if (ended) return;
        polling = true;
        let more = false;
        try {
          const attempts = await opts.store.listAttemptsAfter(cursor, filter, BATCH);
          for (const a of attempts) {
            cursor = a.seq;
            send(attemptEventOf(a));
          }
          more = attempts.length === BATCH;
        } catch (err) {
          request.log.warn({ err }, 'deliveries stream could not read the store; retrying');
        }
        polling = false;
        if (ended) return;
        if (res.writableNeedDrain) res.once('drain', () => schedule(0));
        else schedule(more ? 0 : pollMs);
      };
      const schedule = (ms: number) => {
        if (!ended && !polling && pollTimer === null) pollTimer = setTimeout(() => void poll(), ms);
      };
      function end() {
        if (ended) return;
        ended = true;
        open.delete(end);
        clearInterval(ping);
        if (pollTimer) clearTimeout(pollTimer);
        if (!res.writableEnded) res.end();
      }
      open.add(end);
      res.on('close', end);
      if (res.destroyed || request.raw.socket.destroyed) end();
      else schedule(0);
    },
  );
}
