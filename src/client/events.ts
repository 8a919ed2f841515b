/**
 * Reads the server-sent event streams: the log streams (`GET /api/logs/stream`,
 * `GET /api/functions/{name}/logs/stream`: typed `log` and `invocation` events)
 * and the deliveries stream (`GET /api/deliveries/stream`: `attempt` events),
 * with reconnection that resumes after the last stored row seen (`?since=`), so
 * a follower misses no stored line or attempt across a dropped connection or a
 * restart. One reader (`follow`) serves both; each stream names its URL and
 * which events carry a cursor. The wire format is read by eventsource-parser
 * (line endings `\n`, `\r\n` and `\r`, a leading BOM, `retry:`), not by hand.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { StreamRefusedError, UnexpectedAnswerError, isErrorBody } from './errors.js';
import type { components } from './schema.js';

export type StreamEvent =
  | { event: 'log'; id: number; data: components['schemas']['LogStreamEntry'] }
  | { event: 'invocation'; data: components['schemas']['InvocationEvent'] };

/** One recorded delivery attempt, of a webhook or a function (`GET /api/deliveries/stream`). */
export type AttemptStreamEvent = { event: 'attempt'; id: number; data: components['schemas']['AttemptEvent'] };

/** What every follower takes besides its stream's filters. */
export interface FollowCommon {
  baseUrl: string;
  adminKey?: string | null;
  /** Extra headers on every connection. */
  headers?: Record<string, string>;
  /** A fetch to use instead of the global one. */
  fetch?: (input: Request) => Promise<Response>;
  /** Stops following. */
  signal?: AbortSignal;
  /**
   * Reconnect after a dropped connection (default true), waiting
   * `reconnectDelayMs` first (default 1000 ms) until the server sets its own
   * wait with a `retry:` field.
   */
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

/** One message of a log stream; null for events it does not know. */
export function parseLogMessage(message: EventSourceMessage): StreamEvent | null {
  if (message.event === 'log') return { event: 'log', id: Number(message.id), data: JSON.parse(message.data) };
  if (message.event === 'invocation') return { event: 'invocation', data: JSON.parse(message.data) };
  return null;
}

/** One message of the deliveries stream; null for events it does not know. */
export function parseAttemptMessage(message: EventSourceMessage): AttemptStreamEvent | null {
  return message.event === 'attempt' ? { event: 'attempt', id: Number(message.id), data: JSON.parse(message.data) } : null;
}

/** Yields log stream events until `signal` aborts (or, with `reconnect: false`, until the stream ends). */
export function followLogs(opts: FollowLogsOptions): AsyncGenerator<StreamEvent> {
  return follow(opts, opts.since, (since) => logsUrl(opts, since), parseLogMessage, (e) => (e.event === 'log' ? e.id : undefined));
}

/** Yields the deliveries stream's attempts until `signal` aborts (or, with `reconnect: false`, until the stream ends). */
export function followDeliveries(opts: FollowDeliveriesOptions): AsyncGenerator<AttemptStreamEvent> {
  return follow(opts, opts.since, (since) => deliveriesUrl(opts, since), parseAttemptMessage, (e) => e.id);
}

/** Answers worth another try: too many streams now, or the server shutting down. */
class StreamUnavailable extends Error {}

/** The reader both follow: `cursorOf` says which events move the resume point. */
async function* follow<E>(
  opts: FollowCommon,
  start: number | undefined,
  url: (since: number | undefined) => string,
  parse: (message: EventSourceMessage) => E | null,
  cursorOf: (event: E) => number | undefined,
): AsyncGenerator<E> {
  let since = start;
  let delayMs = opts.reconnectDelayMs ?? 1000;
  const headers: Record<string, string> = { ...opts.headers, accept: 'text/event-stream' };
  if (opts.adminKey) headers.authorization = `Bearer ${opts.adminKey}`;
  const doFetch = opts.fetch ?? ((request: Request) => fetch(request));
  for (;;) {
    try {
      const res = await doFetch(new Request(url(since), { headers, signal: opts.signal }));
      if (res.status !== 200 || !res.body) throw await refusal(res);
      opts.onOpen?.();
      // Per connection: a new parser (no half line carried over) and decoder.
      const decoder = new TextDecoder();
      const messages: EventSourceMessage[] = [];
      const parser = createParser({
        onEvent: (message) => void messages.push(message),
        onRetry: (ms) => void (delayMs = ms),
      });
      // A reader rather than `for await` over the body: browsers without async
      // iteration of ReadableStream (Safari) run this too (the web dashboard).
      const reader = res.body.getReader();
      try {
        for (;;) {
          const { done, value: chunk } = await reader.read();
          if (done) break;
          parser.feed(decoder.decode(chunk, { stream: true }));
          while (messages.length > 0) {
            const parsed = parse(messages.shift()!);
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
      if (err instanceof StreamRefusedError || err instanceof UnexpectedAnswerError) throw err;
      if (opts.reconnect === false) throw err instanceof StreamUnavailable ? err.cause : err;
      opts.onReconnect?.(err instanceof StreamUnavailable ? err.cause : err);
    }
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (opts.signal?.aborted) return;
  }
}

/** Why a stream was not served: a 503 is worth another try, anything else is thrown as it is. */
async function refusal(res: Response): Promise<Error> {
  const body: unknown = await res.json().catch(() => undefined);
  const error = isErrorBody(body)
    ? new StreamRefusedError(res.status, body)
    : new UnexpectedAnswerError(res.status, `${res.url} answered ${res.status} ${res.statusText}, not an event stream`);
  return res.status === 503 ? new StreamUnavailable(error.message, { cause: error }) : error;
}
