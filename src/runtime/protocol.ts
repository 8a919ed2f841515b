/**
 * Messages between the main process (pool.ts) and a worker (worker.ts).
 * Every frame's header is one of these JSON objects; `inv` carries a body: the
 * JSON array of events, spliced raw. Results travel as `res` frames whose `r`
 * array holds the isolate's items, each checked by the worker on its own
 * before it is spliced in (see isolate-output.ts).
 */
import type { InvocationErrorCode } from '../errors.js';
import type { FunctionLogLine } from '../types.js';
import type { DeployedFunction, RunStats } from './types.js';
import type { EmitRule } from './emit-rules.js';
import type { FetchSpanRecord, TraceCarrier } from '../telemetry/types.js';

/** main -> worker */
export type ToWorker =
  | {
      t: 'load';
      k: string;
      name: string;
      version: number;
      code: string;
      env: Record<string, string>;
      timeoutMs: number;
      memoryMb: number;
      /** The export to call (null: the default rule; see handler-export.ts). */
      handler: string | null;
    }
  /**
   * A batch: `ids[i]`/`rids[i]` belong to the i-th event of the body; `tps[i]`,
   * present only when tracing is on, is that invocation's trace context.
   */
  | { t: 'inv'; k: string; ids: number[]; rids: string[]; tps?: (TraceCarrier | null)[] }
  | {
      t: 'val';
      id: number;
      code: string;
      timeoutMs: number;
      memoryMb: number;
      env: Record<string, string>;
      handler: string | null;
    }
  /** A webhook transformation's run (transformations.ts): `code` only when the worker may not hold `h` yet; `input` is JSON text. */
  | { t: 'xrun'; id: number; h: string; code?: string; input: string }
  /** The write-time check of a transformation's code, in a throwaway isolate. */
  | { t: 'xval'; id: number; code: string }
  /** The catalogue's reject-mode types, the whole set (emit-rules.ts); sent again to a restarted worker. */
  | { t: 'emit-rules'; rules: EmitRule[] }
  /** Create the warm isolate of `k` (already loaded) without invoking it, if the worker has room. */
  | { t: 'warm'; k: string }
  /** Forget versions of `name` older than `keep` (all when null). */
  | { t: 'ret'; name: string; keep: number | null }
  /** Test hook, honoured only when SWITCHYARD_TEST_HOOKS=1: abort the worker. */
  | { t: 'crash' }
  /** Test hook, honoured only when SWITCHYARD_TEST_HOOKS=1: use this RSS bound (MB) from now on. */
  | { t: 'rss'; mb: number };

/** One invocation's answer, as produced in the isolate or by the worker. */
export type ResultItem =
  | { i: number; ok: 1; r?: unknown; l: FunctionLogLine[] }
  | { i: number; ok: 0; c: InvocationErrorCode; m: string; l: FunctionLogLine[] };

/**
 * What the host adds before an invocation's item when run reports are on
 * (SWITCHYARD_FUNCTION_REPORT_LINES): `[initMs, heapMb]`, initMs -1 on a warm
 * start. Never produced by the isolate: isolate-output.ts refuses it there.
 */
export type RunReportItem = { i: number; rep: [number, number] };

export function runStatsOf(item: RunReportItem): RunStats {
  return { initMs: item.rep[0] < 0 ? null : item.rep[0], memoryUsedMb: item.rep[1] };
}

/** worker -> main */
export type FromWorker =
  | { t: 'res'; r: Array<ResultItem | RunReportItem> }
  | { t: 'val'; id: number; ok: true }
  | { t: 'val'; id: number; ok: false; message: string; line?: number; column?: number }
  | { t: 'log'; level: 'info' | 'warn' | 'error'; msg: string }
  /** A function's `emit(event, data)`; the frame body is the data's JSON text. */
  | { t: 'emit'; fn: string; event: string; app?: string; tp?: TraceCarrier }
  /** A traced invocation's fetch, for the main process to record as a span (src/telemetry/tracing.ts). */
  | { t: 'span'; s: FetchSpanRecord }
  /** A transformation's run: `miss` when the worker holds no code for its hash (send it again with the code). */
  | { t: 'xres'; id: number; ok: true; out: string }
  | { t: 'xres'; id: number; ok: false; c: 'transformation_error' | 'transformation_cpu_limit'; m: string }
  | { t: 'xres'; id: number; miss: true }
  | { t: 'xval'; id: number; ok: true }
  | { t: 'xval'; id: number; ok: false; message: string; line?: number; column?: number }
  /** The worker is about to abort: send it nothing more, queue for its successor. */
  | { t: 'dying' }
  /** After an isolate was created or disposed: isolates alive now (`n`) and created since the process started (`c`), for metrics. */
  | { t: 'iso'; n: number; c: number };

export const versionKey = (name: string, version: number): string => `${name}@${version}`;

/** The `load` message of a version: what a worker (or the in-process host) needs to build its isolate. */
export function loadMessage(fn: DeployedFunction): Extract<ToWorker, { t: 'load' }> {
  return {
    t: 'load',
    k: versionKey(fn.name, fn.version),
    name: fn.name,
    version: fn.version,
    code: fn.compiled,
    env: fn.env,
    timeoutMs: fn.timeoutMs,
    memoryMb: fn.memoryMb,
    handler: fn.handler ?? null,
  };
}

/** Filename user code is compiled under; stack frames naming it are user lines. */
export const USER_FILENAME = 'function.js';
