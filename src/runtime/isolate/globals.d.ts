/**
 * What the dispatcher's closure (dispatcher.js) sees besides its parameters:
 * the host's constants, spliced in as `__NAME__` placeholders (values in
 * ../dispatcher.ts), and the shapes it passes around.
 */
declare const __MAX_LOG_LINES__: number;
declare const __MAX_LOG_LINE_CHARS__: number;
declare const __MAX_ERROR_CHARS__: number;
declare const __MAX_JSON_DEPTH__: number;
declare const __SETTLE_TURNS__: number;
declare const __LISTED_EXPORTS__: number;

/** An isolated-vm Reference to the host's deliver function. */
interface DeliverRef {
  applyIgnored: Function;
}

/** An append-only list without a prototype: `n` entries at 0..n-1. */
interface List<T> {
  n: number;
  [i: number]: T;
}

/** One batch `dispatch` answers: results that settle while it is open go out with it. */
interface Batch {
  open: boolean;
  remaining: number;
  out: string;
}

/** One invocation in flight. */
interface Rec {
  id: number;
  rid: string;
  /** The invocation's `traceparent` (tracing on only). */
  tp: string | undefined;
  logs: List<string>;
  dropped: number;
  batch: Batch;
  /** The result item's head, held while its own synchronous code still runs. */
  head: string | null;
  callback: ((err?: unknown, result?: unknown) => void) | null;
}

/** A batch's header line (protocol.ts): ids, request ids and the deadline. */
interface BatchHead {
  ids: number[];
  rids: string[];
  dl: number;
  /** Each invocation's trace context, only when one is traced (traceparent, maybe a newline and tracestate). */
  tps?: (string | null)[];
}

/** handler-export.ts DispatcherSetup. */
interface DispatcherSetup {
  handler: string | null;
  path: string[] | null;
  version: number;
  memoryMb: number;
}

/** Lambda's context object: the public type handlers are written against (src/index.ts), so the dispatcher is checked against what docs/functions.md promises. */
type LambdaContext = import('../../index.js').SwitchyardContext;
