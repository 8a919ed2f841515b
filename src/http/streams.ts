/**
 * Server-sent event streams of function activity:
 * `GET /api/functions/{name}/logs/stream` and `GET /api/logs/stream`.
 *
 * Console lines come from the store, followed by id (event-stream.ts: every
 * node's lines, resumable with `Last-Event-ID` or `?since=`). Invocation
 * events come from the InvocationHub (every process's and node's, shared
 * through the store while someone watches): they are live only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidRequestError } from '../errors.js';
import { cursorQuery, EventStreams, startCursor, type CursorQuery } from './event-stream.js';
import { NAME_PATTERN } from '../schema/functions.js';
import { errors } from './schemas.js';
import type { FunctionService } from '../functions/service.js';
import type { Store } from '../store/store.js';
import type { InvocationHub } from '../streams/invocations.js';
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

const NAME = new RegExp(NAME_PATTERN);

export interface StreamQuery extends CursorQuery {
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

/** The SSE wire form of one finished invocation (`data`: its JSON, serialised once by the hub). */
export const invocationEventOf = (data: string) => `event: invocation\ndata: ${data}\n\n`;

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

const streamQuery = cursorQuery('log line id');

const EVENT_STREAM_DESCRIPTION =
  'Server-sent events. `event: log` (with `id:` the line id) carries a LogStreamEntry, ' +
  '`event: invocation` an InvocationEvent (every node\'s invocations, live only); `: ping` comments keep the connection open.';

const streamResponse = {
  description: EVENT_STREAM_DESCRIPTION,
  content: { 'text/event-stream': { schema: { type: 'string' } } },
} as const;

export function registerStreamRoutes(app: FastifyInstance, opts: StreamOptions): void {
  const streams = new EventStreams({ app, max: opts.maxStreams ?? 100, pollMs: opts.pollMs ?? 250 });

  async function serve(request: FastifyRequest<{ Querystring: StreamQuery }>, reply: FastifyReply, names: string[] | null) {
    streams.checkRoom();
    // 0: from the oldest line kept.
    const cursor = startCursor(request, 'a log line id') ?? (await opts.store.lastFunctionLogId());
    streams.serve(request, reply, {
      name: 'log stream',
      cursor,
      feed: {
        read: (after, limit) => opts.store.listFunctionLogsAfter(after, names, limit),
        cursorOf: (line) => line.id,
        eventOf: logEventOf,
      },
      live: (send) =>
        opts.invocations.subscribe((functionName, data) => {
          if (names === null || names.includes(functionName)) send(invocationEventOf(data));
        }),
    });
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
          properties: { name: { type: 'string', pattern: NAME_PATTERN } },
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
