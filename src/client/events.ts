/**
 * Reads the log streams (`GET /api/logs/stream`, `GET /api/functions/{name}/logs/stream`):
 * server-sent events parsed into typed `log` and `invocation` events, with
 * reconnection that resumes after the last line seen (`Last-Event-ID`), so a
 * follower misses no stored line across a dropped connection or a restart.
 */
import type { components } from './schema.js';

export type StreamEvent =
  | { event: 'log'; id: number; data: components['schemas']['LogStreamEntry'] }
  | { event: 'invocation'; data: components['schemas']['InvocationEvent'] };

export interface FollowLogsOptions {
  baseUrl: string;
  adminKey?: string | null;
  /** One function's stream; all functions when absent (see `functions`). */
  function?: string;
  /** With no `function`: only these functions. */
  functions?: string[];
  /** Replay stored lines after this line id first (0: every line kept). */
  since?: number;
  /** Stops following. */
  signal?: AbortSignal;
  /** Reconnect after a dropped connection (default true), waiting this long first (default 1000 ms). */
  reconnect?: boolean;
  reconnectDelayMs?: number;
  /** Called when a connection drops and a new one is tried. */
  onReconnect?(error: unknown): void;
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

function streamUrl(opts: FollowLogsOptions, since: number | undefined): string {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const path = opts.function ? `/api/functions/${encodeURIComponent(opts.function)}/logs/stream` : '/api/logs/stream';
  const query = new URLSearchParams();
  if (!opts.function && opts.functions?.length) query.set('function', opts.functions.join(','));
  if (since !== undefined) query.set('since', String(since));
  const text = query.toString();
  return `${base}${path}${text ? `?${text}` : ''}`;
}

/** Parses one `event:`/`id:`/`data:` block; null for comments and unknown events. */
export function parseBlock(block: string): StreamEvent | null {
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
  if (data.length === 0) return null;
  if (event === 'log') return { event, id: Number(id), data: JSON.parse(data.join('\n')) };
  if (event === 'invocation') return { event, data: JSON.parse(data.join('\n')) };
  return null;
}

/** Yields events until `signal` aborts (or, with `reconnect: false`, until the stream ends). */
export async function* followLogs(opts: FollowLogsOptions): AsyncGenerator<StreamEvent> {
  let since = opts.since;
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (opts.adminKey) headers.authorization = `Bearer ${opts.adminKey}`;
  for (;;) {
    try {
      const res = await fetch(streamUrl(opts, since), { headers, signal: opts.signal });
      if (res.status !== 200 || !res.body) {
        const body = (await res.json().catch(() => ({}))) as { error?: string; code?: string };
        const error = new StreamRefusedError(res.status, body.code ?? 'http_error', body.error ?? `HTTP ${res.status}`);
        // 503 (too many streams, shutting down) is worth another try; the rest is not.
        if (res.status !== 503) throw error;
        throw Object.assign(error, { retry: true });
      }
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
            const parsed = parseBlock(buffer.slice(0, cut));
            buffer = buffer.slice(cut + 2);
            if (!parsed) continue;
            if (parsed.event === 'log') since = parsed.id;
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
