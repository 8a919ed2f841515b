/**
 * Puts the log stream's events in the order a person reads them: each call's
 * console lines, then the call's own line, calls in the order they finished.
 *
 * The server sends a call (`event: invocation`) the moment it ends, while
 * its console lines reach the stream through the database a few hundred
 * milliseconds later; printed as they come, a call's line stood above its
 * own lines, and its lines arrived below later calls. Each call says how
 * many lines it wrote (`log_lines`): its line is held until that many lines
 * with its request id have arrived, or `holdMs` passed (a line pruned, or
 * lost), and a call is printed only after every call before it. Lines of a
 * held call wait with it; lines of no held call print at once. A server
 * older than `log_lines` gets the old order: its calls print as they come.
 *
 * `settle()` is for Ctrl-C: a call that ended just before may not have
 * reached the stream yet, and its lines come later still, so it waits a
 * moment (`STOP_GRACE_MS`), then until nothing is held (at most `HOLD_MS`),
 * before the stream is closed; `flush()` then prints whatever is left.
 */
import type { FunctionStreamEvent, StreamLogLine } from './server-api.js';

type LogEvent = Extract<FunctionStreamEvent, { type: 'log' }>;
type CallEvent = Extract<FunctionStreamEvent, { type: 'invocation' }>;

interface HeldCall {
  requestId: string;
  event: CallEvent;
  /** Lines still to come before the call is complete. */
  missing: number;
  lines: LogEvent[];
  expired: boolean;
  cancelTimer: () => void;
}

export interface CallOrderDeps {
  print(event: FunctionStreamEvent): void;
  /** The longest a call waits for its lines. */
  holdMs?: number;
  /** Timers, for tests: runs `fn` after `ms`, returns the cancel. */
  later?(fn: () => void, ms: number): () => void;
}

export interface CallOrder {
  push(event: FunctionStreamEvent): void;
  /** Resolves after `graceMs`, once nothing is held, or after `maxMs` at most. */
  settle(graceMs?: number, maxMs?: number): Promise<void>;
  /** Prints everything held, in order. */
  flush(): void;
}

/** How long a call waits for its lines by default: the database write (200 ms) and the stream's read (250 ms), with room. */
export const HOLD_MS = 1500;
/** What Ctrl-C waits in any case: a call just ended reaches the stream at once, its lines within 450 ms. */
export const STOP_GRACE_MS = 500;
/** Request ids whose lines arrived before their call, remembered for so many requests. */
const EARLY_KEPT = 1000;

const defaultLater = (fn: () => void, ms: number) => {
  const timer = setTimeout(fn, ms);
  return () => clearTimeout(timer);
};

const requestIdOf = (line: StreamLogLine): string | null => (typeof line.request_id === 'string' && line.request_id !== '' ? line.request_id : null);

export function createCallOrder(deps: CallOrderDeps): CallOrder {
  const holdMs = deps.holdMs ?? HOLD_MS;
  const later = deps.later ?? defaultLater;
  /** Calls in the order they arrived, the first one printed next. */
  const queue: HeldCall[] = [];
  const held = new Map<string, HeldCall>();
  /** Lines printed for requests no call had announced yet (another process's call may come later). */
  const early = new Map<string, number>();
  let waiters: Array<() => void> = [];

  const release = () => {
    while (queue.length > 0 && (queue[0].missing <= 0 || queue[0].expired)) {
      const call = queue.shift()!;
      held.delete(call.requestId);
      call.cancelTimer();
      for (const line of call.lines) deps.print(line);
      deps.print(call.event);
    }
    if (queue.length === 0 && waiters.length > 0) {
      const done = waiters;
      waiters = [];
      for (const w of done) w();
    }
  };

  const noteEarly = (requestId: string) => {
    early.set(requestId, (early.get(requestId) ?? 0) + 1);
    if (early.size > EARLY_KEPT) early.delete(early.keys().next().value!);
  };

  return {
    push(event) {
      if (event.type === 'log') {
        const requestId = requestIdOf(event.line);
        const call = requestId === null ? undefined : held.get(requestId);
        if (!call) {
          if (requestId !== null) noteEarly(requestId);
          deps.print(event);
          return;
        }
        call.lines.push(event);
        call.missing--;
        release();
        return;
      }
      const data = event.invocation as { request_id?: unknown; log_lines?: unknown };
      const requestId = typeof data.request_id === 'string' ? data.request_id : null;
      const count = typeof data.log_lines === 'number' ? data.log_lines : null;
      // An older server (no count) or a call without an id: nothing to wait for, but still behind earlier calls.
      const missing = count === null || requestId === null ? 0 : count - (early.get(requestId) ?? 0);
      if (requestId !== null) early.delete(requestId);
      const call: HeldCall = { requestId: requestId ?? '', event, missing, lines: [], expired: false, cancelTimer: () => undefined };
      if (missing > 0) {
        held.set(call.requestId, call);
        call.cancelTimer = later(() => {
          call.expired = true;
          release();
        }, holdMs);
      }
      queue.push(call);
      release();
    },
    settle(graceMs = STOP_GRACE_MS, maxMs = graceMs + holdMs) {
      return new Promise((resolve) => {
        let finished = false;
        const finish = () => {
          if (finished) return;
          finished = true;
          cancelMax();
          resolve();
        };
        const cancelMax = later(finish, maxMs);
        later(() => (queue.length === 0 ? finish() : waiters.push(finish)), graceMs);
      });
    },
    flush() {
      for (const call of queue) call.expired = true;
      release();
    },
  };
}
