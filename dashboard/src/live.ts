/**
 * Live attempts for the webhook pages: the deliveries stream
 * (`GET /api/deliveries/stream`, which follows the store, so it carries every
 * process's and node's attempts) read with the package's follower, which uses
 * fetch rather than EventSource so that it can send the admin key as a bearer
 * header. The stream is closed when the view that opened it goes.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { followDeliveries, type Schemas } from '../../src/client/index.js';
import { adminKey, type ApiError } from './api.js';
import { toApiError } from './components.js';

export type LiveState = 'connecting' | 'live' | 'stopped';

export interface AttemptFilter {
  webhook?: string;
  function?: string;
}

/**
 * Calls `onAttempt` for each attempt recorded from now on, and `onOpen` each
 * time the stream (re)connects: what was recorded before is not sent, so the
 * caller reads its data again there. Keyed by the filter: a new one reconnects.
 */
export function useAttempts(filter: AttemptFilter | null, onAttempt: (a: Schemas['AttemptEvent']) => void, onOpen: () => void) {
  const [state, setState] = useState<LiveState>('connecting');
  const [error, setError] = useState<ApiError | null>(null);
  // The latest callbacks, so a re-render does not reopen the stream.
  const handlers = useRef({ onAttempt, onOpen });
  handlers.current = { onAttempt, onOpen };
  const key = filter ? `${filter.webhook ?? ''}\n${filter.function ?? ''}` : null;
  useEffect(() => {
    if (!filter) return;
    const stop = new AbortController();
    setState('connecting');
    setError(null);
    void (async () => {
      try {
        const events = followDeliveries({
          ...filter,
          baseUrl: location.origin,
          adminKey: adminKey(),
          signal: stop.signal,
          onOpen: () => (setState('live'), handlers.current.onOpen()),
          onReconnect: () => setState('connecting'),
        });
        for await (const event of events) handlers.current.onAttempt(event.data);
      } catch (err) {
        if (stop.signal.aborted) return;
        setState('stopped');
        const refused = err as { code?: string; message?: string };
        setError({ error: refused.message ?? String(err), code: refused.code ?? 'stream_error' });
      }
    })();
    return () => stop.abort();
  }, [key]);
  return { state, error };
}

/**
 * `load` now and whenever `again()` is called, one read at a time: calls that
 * arrive during a read cause one more read after it, not one each (a burst of
 * attempts costs two reads).
 */
export function coalesced(load: () => Promise<void>): () => void {
  let running = false;
  let pending = false;
  const again = () => {
    if (running) {
      pending = true;
      return;
    }
    running = true;
    void load().finally(() => {
      running = false;
      if (pending) (pending = false, again());
    });
  };
  return again;
}

/**
 * Data read with `load`, kept current by the deliveries stream: read again
 * when the stream opens and after each attempt `matches` accepts (reads
 * coalesced). Also read once at once, so the view fills even while the
 * stream is refused or slow to open.
 */
export function useLiveLoad<T>(load: () => Promise<T>, filter: AttemptFilter | null, matches: (a: Schemas['AttemptEvent']) => boolean, deps: unknown[]) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | null>(null);
  const loader = useRef<() => void>(() => {});
  useEffect(() => {
    let current = true;
    loader.current = coalesced(async () => {
      try {
        const value = await load();
        if (current) (setData(value), setError(null));
      } catch (err) {
        if (current) setError(toApiError(err));
      }
    });
    loader.current();
    return () => {
      current = false;
      loader.current = () => {};
    };
  }, deps);
  const live = useAttempts(
    filter,
    (a) => matches(a) && loader.current(),
    () => loader.current(),
  );
  return { data, error, setData, reload: () => loader.current(), live };
}
