/**
 * Reads the server-sent event streams: the log streams (`GET /api/logs/stream`,
 * `GET /api/functions/{name}/logs/stream`: typed `log` and `invocation` events)
 * and the deliveries stream (`GET /api/deliveries/stream`: `attempt` events),
 * with reconnection that resumes after the last stored row seen (`?since=`), so
 * a follower misses no stored line or attempt across a dropped connection or a
 * restart. One reader (`follow`) serves both; each stream names its URL and
 * which events carry a cursor.
 */
import type { components } from './schema.js';

export type StreamEvent =
  | { event: 'log'; id: number; data: components['schemas']['LogStreamEntry'] }
  | { event: 'invocation'; data: components['schemas']['InvocationEvent'] };

/** One recorded delivery attempt, of a webhook or a function (`GET /api/deliveries/stream`). */
export type AttemptStreamEvent = { event: 'attempt'; id: number; data: components['schemas']['AttemptEvent'] };

/** What every follower takes besides its stream's filters. */
interface FollowCommon {
  baseUrl: string;
  adminKey?: string | null;
  /** Stops following. */
  signal?: AbortSignal;
  /** Reconnect after a dropped connection (default true), waiting this long first (default 1000 ms). */
  reconnect?: boolean;
  reconnectDelayMs?: number;
  /** Called when a connection drops and a new one is tried. */
  onReconnect?(error: unknown): void;
  /**
   * Called each time the server has accepted a connection, before any event of
   * it: what happened before is no longer missed, so a page can read the
   * current state here and let the events keep it up to date.
   */
  onOpen?(): void;
}

export interface FollowLogsOptions extends FollowCommon {
  /** One function's stream; all functions when absent (see `functions`). */
  function?: string;
  /** With no `function`: only these functions. */
  functions?: string[];
  /** Replay stored lines after this line id first (0: every line kept). */
  since?: number;
}

export interface FollowDeliveriesOptions extends FollowCommon {
  /** Only the attempts of this webhook id. */
  webhook?: string;
  /** Only the attempts of this function. */
  function?: string;
  /** Replay stored attempts after this cursor (an event's `id`) first. */
  since?: number;
}

/** Thrown for answers that reconnecting cannot fix (401, 404, 400): `status` and the server's `code`. */
export class StreamRefusedError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'StreamRefusedError';
  }
}

function withQuery(baseUrl: string, path: string, query: URLSearchParams, since: number | undefined): string {
  if (since !== undefined) query.set('since', String(since));
  const text = query.toString();
  return `${baseUrl.replace(/\/+$/, '')}${path}${text ? `?${text}` : ''}`;
}

function logsUrl(opts: FollowLogsOptions, since: number | undefined): string {
  const path = opts.function ? `/api/functions/${encodeURIComponent(opts.function)}/logs/stream` : '/api/logs/stream';
  const query = new URLSearchParams();
  if (!opts.function && opts.functions?.length) query.set('function', opts.functions.join(','));
  return withQuery(opts.baseUrl, path, query, since);
}

function deliveriesUrl(opts: FollowDeliveriesOptions, since: number | undefined): string {
  const query = new URLSearchParams();
  if (opts.webhook) query.set('webhook', opts.webhook);
  if (opts.function) query.set('function', opts.function);
  return withQuery(opts.baseUrl, '/api/deliveries/stream', query, since);
}

/** One `event:`/`id:`/`data:` block as written; null for comments. */
function readBlock(block: string): { event: string; id: string | null; data: string } | null {
  let event = 'message';
  let id: string | null = null;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'id') id = value;
    else if (field === 'data') data.push(value);
  }
  return data.length === 0 ? null : { event, id, data: data.join('\n') };
}

/** Parses one block of a log stream; null for comments and unknown events. */
export function parseBlock(block: string): StreamEvent | null {
  const read = readBlock(block);
  if (read?.event === 'log') return { event: 'log', id: Number(read.id), data: JSON.parse(read.data) };
  if (read?.event === 'invocation') return { event: 'invocation', data: JSON.parse(read.data) };
  return null;
}

/** Parses one block of the deliveries stream; null for comments and unknown events. */
export function parseAttemptBlock(block: string): AttemptStreamEvent | null {
  const read = readBlock(block);
  return read?.event === 'attempt' ? { event: 'attempt', id: Number(read.id), data: JSON.parse(read.data) } : null;
}

/** Yields log stream events until `signal` aborts (or, with `reconnect: false`, until the stream ends). */
export function followLogs(opts: FollowLogsOptions): AsyncGenerator<StreamEvent> {
  return follow(opts, opts.since, (since) => logsUrl(opts, since), parseBlock, (e) => (e.event === 'log' ? e.id : undefined));
}

/** Yields the deliveries stream's attempts until `signal` aborts (or, with `reconnect: false`, until the stream ends). */
export function followDeliveries(opts: FollowDeliveriesOptions): AsyncGenerator<AttemptStreamEvent> {
  return follow(opts, opts.since, (since) => deliveriesUrl(opts, since), parseAttemptBlock, (e) => e.id);
}

/** The reader both follow: `cursorOf` says which events move the resume point. */
async function* follow<E>(
  opts: FollowCommon,
  start: number | undefined,
  url: (since: number | undefined) => string,
  parse: (block: string) => E | null,
  cursorOf: (event: E) => number | undefined,
): AsyncGenerator<E> {
  let since = start;
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (opts.adminKey) headers.authorization = `Bearer ${opts.adminKey}`;
  for (;;) {
    try {
      const res = await fetch(url(since), { headers, signal: opts.signal });
      if (res.status !== 200 || !res.body) {
        const body = (await res.json().catch(() => ({}))) as { error?: string; code?: string };
        const error = new StreamRefusedError(res.status, body.code ?? 'http_error', body.error ?? `HTTP ${res.status}`);
        // 503 (too many streams, shutting down) is worth another try; the rest is not.
        if (res.status !== 503) throw error;
        throw Object.assign(error, { retry: true });
      }
      opts.onOpen?.();
      const decoder = new TextDecoder();
      let buffer = '';
      // A reader rather than `for await` over the body: browsers without async
      // iteration of ReadableStream (Safari) run this too (the web dashboard).
      const reader = res.body.getReader();
      try {
        for (;;) {
          const { done, value: chunk } = await reader.read();
          if (done) break;
          buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) !== -1) {
            const parsed = parse(buffer.slice(0, cut));
            buffer = buffer.slice(cut + 2);
            if (!parsed) continue;
            since = cursorOf(parsed) ?? since;
            yield parsed;
          }
        }
      } finally {
        // Also when the caller stops early (`break` out of the loop): let the connection go.
        reader.cancel().catch(() => {});
      }
      if (opts.reconnect === false) return;
      opts.onReconnect?.(new Error('the server ended the stream'));
    } catch (err) {
      if (opts.signal?.aborted) return;
      if (err instanceof StreamRefusedError && !(err as { retry?: boolean }).retry) throw err;
      if (opts.reconnect === false) throw err;
      opts.onReconnect?.(err);
    }
    await new Promise((resolve) => setTimeout(resolve, opts.reconnectDelayMs ?? 1000));
    if (opts.signal?.aborted) return;
  }
}
