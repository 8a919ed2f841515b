/**
 * A small server-sent events reader for the integration tests: opens a stream
 * with fetch, parses `event:`/`id:`/`data:` blocks and `:` comments as they
 * arrive, and lets a test wait for the event it expects.
 */
import { until } from './until.js';

export interface SseEvent {
  event: string;
  id: string | null;
  data: string;
  json: any;
}

export interface SseStream {
  status: number;
  headers: Headers;
  events: SseEvent[];
  comments: string[];
  /** True once the server ended the stream. */
  ended(): boolean;
  /** Resolves with the first event that matches; fails after `ms`. */
  waitFor(what: string, match: (e: SseEvent) => boolean, ms?: number): Promise<SseEvent>;
  close(): void;
  /** The body of a non-200 answer. */
  text: string;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let done = false;
  let text = '';
  if (res.status !== 200 || !res.body) {
    text = await res.text();
    done = true;
  } else {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) !== -1) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const e: SseEvent = { event: 'message', id: null, data: '', json: undefined };
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) comments.push(line.slice(1).trim());
              else if (line.startsWith('event: ')) e.event = line.slice(7);
              else if (line.startsWith('id: ')) e.id = line.slice(4);
              else if (line.startsWith('data: ')) data.push(line.slice(6));
            }
            if (data.length === 0) continue;
            e.data = data.join('\n');
            try {
              e.json = JSON.parse(e.data);
            } catch {
              /* not JSON */
            }
            events.push(e);
          }
        }
      } catch {
        /* aborted */
      }
      done = true;
    })();
  }
  return {
    status: res.status,
    headers: res.headers,
    events,
    comments,
    text,
    ended: () => done,
    waitFor: (what, match, ms = 10_000) => until(() => events.find(match), what, ms),
    close: () => controller.abort(),
  };
}
