/**
 * A server-sent events client for the CLI's follow modes (`logs -f`): fetch
 * plus eventsource-parser for the wire format, with the reconnection rules of
 * the EventSource standard: after a dropped connection it waits the server's
 * `retry:` (else one second) and reopens with `Last-Event-ID` set to the last
 * id seen, so nothing is lost or repeated. It stops when `signal` aborts.
 *
 * The first connection failing is the caller's error (unreachable, refused);
 * later drops are reported through `onReconnect` and retried, except an answer
 * the server gives on purpose (4xx: the function was deleted, the key changed).
 */
import { createParser } from 'eventsource-parser';

export interface StreamEvent {
  event: string;
  id: string | undefined;
  data: string;
}

export interface FollowEventStreamOptions {
  url: string;
  /** Sent on the first connection only; later ones resume with Last-Event-ID. */
  query?: Record<string, string>;
  headers?: Record<string, string>;
  signal: AbortSignal;
  fetch?: typeof fetch;
  onEvent(event: StreamEvent): void;
  onReconnect?(reason: string, lastEventId: string | undefined): void;
  /** The error to throw when the first connection cannot be made. */
  unreachable(err: unknown): Error;
  /** The error to throw for an answer that is not a stream (a 4xx, or any non-2xx on the first try). */
  refused(res: Response): Promise<Error>;
}

const DEFAULT_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;
/** The server sends a ping comment every 15 s: twice that much silence is a dead connection. */
const IDLE_MS = 45_000;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((done) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), done()), { once: true });
  });

export async function followEventStream(opts: FollowEventStreamOptions): Promise<void> {
  const doFetch = opts.fetch ?? fetch;
  let lastEventId: string | undefined;
  let retryMs = DEFAULT_RETRY_MS;
  let connectedOnce = false;
  let failures = 0;

  while (!opts.signal.aborted) {
    const url = new URL(opts.url);
    if (!connectedOnce || lastEventId === undefined) for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { ...opts.headers, accept: 'text/event-stream', 'cache-control': 'no-cache' };
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;

    const idle = new AbortController();
    const signal = AbortSignal.any([opts.signal, idle.signal]);
    let idleTimer = setTimeout(() => idle.abort(), IDLE_MS);
    const alive = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => idle.abort(), IDLE_MS);
    };

    let reason: string;
    try {
      let res: Response;
      try {
        res = await doFetch(url, { headers, signal });
      } catch (err) {
        if (opts.signal.aborted) return;
        if (!connectedOnce) throw opts.unreachable(err);
        throw Object.assign(new Error('reconnect'), { reason: opts.unreachable(err).message });
      }
      const type = res.headers.get('content-type') ?? '';
      if (!res.ok || !type.startsWith('text/event-stream')) {
        if (!connectedOnce || (res.status >= 400 && res.status < 500)) throw await opts.refused(res);
        await res.body?.cancel().catch(() => undefined);
        throw Object.assign(new Error('reconnect'), { reason: `the server answered ${res.status}` });
      }
      connectedOnce = true;
      failures = 0;
      const parser = createParser({
        onEvent(message) {
          if (message.id !== undefined) lastEventId = message.id;
          opts.onEvent({ event: message.event ?? 'message', id: message.id, data: message.data });
        },
        onRetry(ms) {
          retryMs = ms;
        },
      });
      const decoder = new TextDecoder();
      const reader = res.body!.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          alive();
          parser.feed(decoder.decode(value, { stream: true }));
        }
        reason = 'the server closed the stream';
      } catch {
        if (opts.signal.aborted) return;
        reason = idle.signal.aborted ? `no data for ${IDLE_MS / 1000} s` : 'the connection was lost';
      }
    } catch (err) {
      const r = (err as { reason?: string }).reason;
      if (r === undefined) throw err;
      reason = r;
    } finally {
      clearTimeout(idleTimer);
    }
    if (opts.signal.aborted) return;
    failures++;
    opts.onReconnect?.(reason, lastEventId);
    // The server's retry for a clean drop; growing waits while it stays down.
    await sleep(Math.min(retryMs * 2 ** Math.max(0, failures - 1), MAX_RETRY_MS), opts.signal);
  }
}
