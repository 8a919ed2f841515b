/**
 * In-process feed of finished invocations (gateway requests and manual invokes)
 * for the server-sent event streams. The gateway's hot path asks `active` first
 * and builds nothing while nobody listens; listeners run synchronously and must
 * not throw (a stream only queues a line for its socket).
 */

export interface InvocationEvent {
  function: string;
  /** The API the request came through; null for `POST /api/functions/{name}/invoke`. */
  api_id: string | null;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  request_id: string;
  ts: string;
  /** `ok`, or the failure code (function_error, function_timeout, invalid_result, ...). */
  outcome: string;
}

export type InvocationListener = (event: InvocationEvent) => void;

export class InvocationHub {
  private readonly listeners = new Set<InvocationListener>();

  /** True while at least one stream listens: callers build events only then. */
  get active(): boolean {
    return this.listeners.size > 0;
  }

  subscribe(listener: InvocationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(event: InvocationEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // One broken stream must not break the invocation or the other streams.
      }
    }
  }
}

/** Milliseconds rounded to hundredths, as the invoke endpoint reports them. */
export const roundMs = (ms: number) => Math.round(ms * 100) / 100;
