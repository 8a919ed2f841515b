/**
 * Server-sent event streams that follow a store table by cursor: the log
 * streams (streams.ts) and the deliveries stream (stats.ts). The table is read
 * every few hundred milliseconds after the last id sent, so a stream sees the
 * rows of every node on the database and a client resumes exactly where it
 * stopped (`Last-Event-ID` or `?since=`). `: ping` comments keep proxies from
 * closing an idle stream; a client that reads nothing is dropped before its
 * backlog grows past MAX_BUFFERED (it can resume by id); the number of streams
 * is bounded (503 beyond) and all end when the server begins to close, so
 * they never hold a shutdown.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidRequestError, TooManyStreamsError } from '../errors.js';

const DEFAULT_PING_MS = 15_000;
/** Rows read per store query. */
const BATCH = 500;
/** A client that reads nothing while this much waits in its socket is dropped; it can resume by id. */
const MAX_BUFFERED = 4 * 1024 * 1024;

/** The query every cursor stream takes; `what` names the cursor in the descriptions. */
export function cursorQuery(what: string) {
  return {
    since: {
      type: 'integer',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: `Replay what was stored after this ${what}, then stream live (the \`Last-Event-ID\` header does the same)`,
    },
    ping_ms: {
      // Written plainly (integer-parameters.ts): `000` or `0100` is refused, not read as 0 or 100.
      type: 'integer',
      minimum: 100,
      maximum: 99999,
      description: 'Interval of the `: ping` keep-alive comments in milliseconds, 100 to 99999 (default 15000)',
    },
  } as const;
}

export interface CursorQuery {
  since?: number;
  ping_ms?: number;
}

/** `?since=` wins over `Last-Event-ID`; both are a cursor (`what` names it in the refusal). Null: neither was given. */
export function startCursor(request: FastifyRequest<{ Querystring: CursorQuery }>, what: string): number | null {
  if (request.query.since !== undefined) return request.query.since;
  const header = request.headers['last-event-id'];
  if (typeof header !== 'string' || header === '') return null;
  if (!/^[0-9]{1,15}$/.test(header)) {
    throw new InvalidRequestError(`Last-Event-ID must be ${what} (a whole number), got "${header.slice(0, 40)}"`, { field: 'Last-Event-ID' });
  }
  return Number(header);
}

/** What a stream follows: a table read after a cursor, each row one event. */
export interface CursorFeed<T> {
  read(cursor: number, limit: number): Promise<T[]>;
  cursorOf(row: T): number;
  eventOf(row: T): string;
}

export interface StreamOptions<T> {
  feed: CursorFeed<T>;
  /** Where to start: the last row sent before, or the newest row now. */
  cursor: number;
  /** Events that are not rows of the feed (live only): subscribes, returns the unsubscribe. */
  live?: (send: (text: string) => void) => () => void;
  /** For the warning when the store cannot be read. */
  name: string;
}

export interface EventStreamsDeps {
  /** Its preClose hook ends every stream. */
  app: FastifyInstance;
  /** Streams open at once at most (a 503 past it). */
  max: number;
  /** How often the store is read for new rows. */
  pollMs: number;
}

/** The streams of one kind a process serves: bounded, and all ended when the server begins to close. */
export class EventStreams {
  private readonly open = new Set<() => void>();

  private readonly max: number;
  private readonly pollMs: number;

  constructor(deps: EventStreamsDeps) {
    this.max = deps.max;
    this.pollMs = deps.pollMs;
    const { app } = deps;
    // preClose runs before the server stops taking connections: ending the streams
    // here keeps them from holding `close()` open until the grace period.
    app.addHook('preClose', async () => {
      for (const end of [...this.open]) end();
    });
  }

  /** Throws the 503 when no stream can be added now; call before the slow checks and again after. */
  checkRoom(): void {
    if (this.open.size >= this.max) throw new TooManyStreamsError(this.max);
  }

  /** Takes the request over and streams until the client or the server goes. */
  serve<T>(request: FastifyRequest<{ Querystring: CursorQuery }>, reply: FastifyReply, o: StreamOptions<T>): void {
    this.checkRoom();
    const pingMs = request.query.ping_ms ?? DEFAULT_PING_MS;
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

    let cursor = o.cursor;
    let ended = false;
    let polling = false;
    let pollTimer: NodeJS.Timeout | null = null;
    const send = (text: string) => {
      if (ended) return;
      res.write(text);
      if (res.writableLength > MAX_BUFFERED) end();
    };
    const unsubscribe = o.live?.(send);
    const ping = setInterval(() => send(': ping\n\n'), pingMs);

    const poll = async () => {
      pollTimer = null;
      if (ended) return;
      polling = true;
      let more = false;
      try {
        const rows = await o.feed.read(cursor, BATCH);
        for (const row of rows) {
          cursor = o.feed.cursorOf(row);
          send(o.feed.eventOf(row));
        }
        more = rows.length === BATCH;
      } catch (err) {
        request.log.warn({ err }, `${o.name} could not read the store; retrying`);
      }
      polling = false;
      if (ended) return;
      // Behind a slow client, wait for its socket to drain before reading more.
      if (res.writableNeedDrain) res.once('drain', () => schedule(0));
      else schedule(more ? 0 : this.pollMs);
    };
    const schedule = (ms: number) => {
      if (!ended && !polling && pollTimer === null) pollTimer = setTimeout(() => void poll(), ms);
    };

    const end = () => {
      if (ended) return;
      ended = true;
      this.open.delete(end);
      unsubscribe?.();
      clearInterval(ping);
      if (pollTimer) clearTimeout(pollTimer);
      if (!res.writableEnded) res.end();
    };
    this.open.add(end);
    res.on('close', end);
    // The client may have gone while the cursor was read: its 'close' is already past.
    if (res.destroyed || request.raw.socket.destroyed) end();
    else schedule(0);
  }
}
