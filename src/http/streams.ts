/**
 * Server-sent event streams of function activity:
 * `GET /api/functions/{name}/logs/stream` and `GET /api/logs/stream`.
 *
 * Console lines come from the store, read with an id cursor every few hundred
 * milliseconds, so a stream sees the lines of every node on the database and a
 * client resumes exactly where it stopped (`Last-Event-ID` or `?since=`).
 * Invocation events are this process's own (InvocationHub): they are live only.
 * Streams end on client disconnect and when the server begins to close, so they
 * never hold a shutdown; their number is bounded (503 beyond).
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidRequestError, TooManyStreamsError } from '../errors.js';
import { errors } from './schemas.js';
import type { FunctionService } from '../functions/service.js';
import type { Store } from '../store/store.js';
import type { InvocationEvent, InvocationHub } from '../streams/invocations.js';
import type { StoredLogLine } from '../types.js';

export interface StreamOptions {
  store: Store;
  functions: FunctionService;
  invocations: InvocationHub;
  /** Concurrent streams served by this process (default 100). */
  maxStreams?: number;
  /** How often the store is read for new lines (default 250 ms). */
  pollMs?: number;
}

export const DEFAULT_PING_MS = 15_000;
const BATCH = 500;
/** A client that reads nothing while this much waits in its socket is dropped; it can resume by id. */
const MAX_BUFFERED = 4 * 1024 * 1024;
const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export interface StreamQuery {
  since?: string;
  ping_ms?: string;
  function?: string;
}

/** The SSE wire form of one stored console line. */
export function logEventOf(line: StoredLogLine): string {
  const data = {
    id: line.id,
    function: line.function,
    version: line.version,
    request_id: line.requestId,
    level: line.level,
    message: line.message,
    ts: line.time,
    time: line.time,
  };
  return `event: log\nid: ${line.id}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function invocationEventOf(event: InvocationEvent): string {
  return `event: invocation\ndata: ${JSON.stringify(event)}\n\n`;
}

/** `?since=` wins over `Last-Event-ID`; both are a stored line id (0: from the oldest kept line). */
function startCursor(request: FastifyRequest<{ Querystring: StreamQuery }>): number | null {
  const header = request.headers['last-event-id'];
  const given = request.query.since ?? (typeof header === 'string' && header !== '' ? header : undefined);
  if (given === undefined) return null;
  if (!/^[0-9]{1,15}$/.test(given)) {
    const field = request.query.since !== undefined ? 'since' : 'Last-Event-ID';
    throw new InvalidRequestError(`${field} must be a log line id (a whole number), got "${given.slice(0, 40)}"`, { field });
  }
  return Number(given);
}

function functionFilter(value: string | undefined): string[] | null {
  if (value === undefined || value === '') return null;
  const names = [...new Set(value.split(',').map((n) => n.trim()).filter((n) => n !== ''))];
  const bad = names.find((n) => !NAME.test(n));
  if (bad !== undefined || names.length > 100) {
    throw new InvalidRequestError(`function must be a comma-separated list of up to 100 function names, got "${value.slice(0, 80)}"`, {
      field: 'function',
    });
  }
  return names.length > 0 ? names : null;
}

const streamQuery = {
  since: {
    type: 'string',
    pattern: '^[0-9]{1,15}$',
    description: 'Replay stored lines after this log line id, then stream live (the `Last-Event-ID` header does the same)',
  },
  ping_ms: {
    type: 'string',
    pattern: '^[0-9]{3,5}$',
    description: 'Interval of the `: ping` keep-alive comments in milliseconds, 100 to 99999 (default 15000)',
  },
} as const;

const EVENT_STREAM_DESCRIPTION =
  'Server-sent events. `event: log` (with `id:` the line id) carries a LogStreamEntry, ' +
  '`event: invocation` an InvocationEvent (this server\'s invocations, live only); `: ping` comments keep the connection open.';

const streamResponse = {
  description: EVENT_STREAM_DESCRIPTION,
  content: { 'text/event-stream': { schema: { type: 'string' } } },
} as const;

export function registerStreamRoutes(app: FastifyInstance, opts: StreamOptions): void {
  const maxStreams = opts.maxStreams ?? 100;
  const pollMs = opts.pollMs ?? 250;
  const open = new Set<() => void>();

  // preClose runs before the server stops taking connections: ending the streams
  // here keeps them from holding `close()` open until the grace period.
  app.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });

  async function serve(request: FastifyRequest<{ Querystring: StreamQuery }>, reply: FastifyReply, names: string[] | null) {
    if (open.size >= maxStreams) throw new TooManyStreamsError(maxStreams);
    const pingMs = request.query.ping_ms === undefined ? DEFAULT_PING_MS : Number(request.query.ping_ms);
    let cursor = startCursor(request) ?? (await opts.store.lastFunctionLogId());
    // Counted from here: the checks above could still fail with an ordinary answer.
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
    // Sends the headers at once: a client learns the stream is open before any event.
    res.write(': connected\n\n');

    let ended = false;
    let polling = false;
    let pollTimer: NodeJS.Timeout | null = null;
    const send = (text: string) => {
      if (ended) return;
      res.write(text);
      if (res.writableLength > MAX_BUFFERED) end();
    };
    const unsubscribe = opts.invocations.subscribe((event) => {
      if (names === null || names.includes(event.function)) send(invocationEventOf(event));
    });
    const ping = setInterval(() => send(': ping\n\n'), pingMs);

    const poll = async () => {
      pollTimer = null;
      if (ended) return;
      polling = true;
      let more = false;
      try {
        const lines = await opts.store.listFunctionLogsAfter(cursor, names, BATCH);
        for (const line of lines) {
          cursor = line.id;
          send(logEventOf(line));
        }
        more = lines.length === BATCH;
      } catch (err) {
        request.log.warn({ err }, 'log stream could not read the store; retrying');
      }
      polling = false;
      if (ended) return;
      // Behind a slow client, wait for its socket to drain before reading more.
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
      unsubscribe();
      clearInterval(ping);
      if (pollTimer) clearTimeout(pollTimer);
      if (!res.writableEnded) res.end();
    }
    open.add(end);
    res.on('close', end);
    // The client may have gone while the cursor was read: its 'close' is already past.
    if (res.destroyed || request.raw.socket.destroyed) end();
    else schedule(0);
  }

  app.get<{ Params: { name: string }; Querystring: StreamQuery }>(
    '/api/functions/:name/logs/stream',
    {
      schema: {
        tags: ['functions'],
        operationId: 'streamFunctionLogs',
        summary: "Stream a function's console lines and invocations (server-sent events)",
        params: {
          type: 'object',
          properties: { name: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$' } },
          required: ['name'],
        },
        querystring: { type: 'object', properties: streamQuery, additionalProperties: false },
        response: { 200: streamResponse, ...errors(404, 414) },
      },
    },
    async function streamFunctionLogs(request, reply) {
      await opts.functions.get(request.params.name);
      await serve(request, reply, [request.params.name]);
    },
  );

  app.get<{ Querystring: StreamQuery }>('/api/logs/stream', {
      schema: {
        tags: ['functions'],
        operationId: 'streamLogs',
        summary: "Stream every function's console lines and invocations (server-sent events)",
        querystring: {
          type: 'object',
          properties: {
            ...streamQuery,
            function: { type: 'string', maxLength: 6600, description: 'Only these functions: comma-separated names' },
          },
          additionalProperties: false,
        },
        response: { 200: streamResponse, ...errors() },
      },
    }, async function streamLogs(request, reply) {
    await serve(request, reply, functionFilter(request.query.function));
  });
}
