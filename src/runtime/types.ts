/**
 * What the rest of Switchyard sees of the function runtime. The implementation
 * (pool.ts + worker.ts) runs isolates in supervised worker processes.
 */
import type { FunctionLogLine, FunctionRecord } from '../types.js';
import type { InvocationErrorCode } from '../errors.js';
import type { TraceCarrier } from '../telemetry/types.js';

/** The subset of a function record an isolate needs; `version` keys the isolate. */
export type DeployedFunction = Pick<
  FunctionRecord,
  'name' | 'version' | 'compiled' | 'env' | 'timeoutMs' | 'memoryMb' | 'handler'
>;

/** What deploy-time validation runs the top level under, and the export it must find. */
export interface ValidateLimits {
  timeoutMs: number;
  memoryMb: number;
  env: Record<string, string>;
  /** The configured export name (null: the default rule). */
  handler?: string | null;
}

/**
 * Which answers carry RunStats: 'all' (run report lines are written), 'sampled' (tracing: only a
 * call of a sampled trace, whose invocation span says whether it was a cold start; the other calls,
 * nine in ten at a 10 % ratio, skip the heap reading), or 'none'.
 */
export type RunReports = 'all' | 'sampled' | 'none';

/**
 * What a run report line says beyond the duration (runtimes built with
 * `runReports`): how long the isolate took to start when this call started it
 * (null: it was warm), and its heap after the call, in MB.
 */
export interface RunStats {
  initMs: number | null;
  memoryUsedMb: number;
}

export type InvokeOutcome =
  | {
      ok: true;
      /** The handler's return value after a JSON round trip; `undefined` when it returned nothing. */
      result: unknown;
      logs: FunctionLogLine[];
      durationMs: number;
      stats?: RunStats;
    }
  | {
      ok: false;
      error: { code: InvocationErrorCode; message: string };
      logs: FunctionLogLine[];
      durationMs: number;
      stats?: RunStats;
    };

export type ValidateOutcome = { ok: true } | { ok: false; message: string; line?: number; column?: number };

export interface FunctionRuntime {
  /**
   * Runs that function version's handler (the export its `handler` field
   * names, see handler-export.ts) as `(event, context, callback)`. `eventJson` is the
   * event already serialised (it crosses two process/isolate boundaries as text).
   * Never rejects for user-code failures: those are `ok: false` outcomes.
   * `trace`: the invocation span's context (tracing on only); the function
   * sees it as `context.traceparent`, and its fetches and emits are its children.
   */
  invoke(fn: DeployedFunction, eventJson: string, requestId: string, trace?: TraceCarrier | null): Promise<InvokeOutcome>;
  /**
   * Compiles `compiled` and runs its top level once in a throwaway isolate,
   * under the time and memory limits with the function's env (top-level code may
   * read process.env), and checks that it exports the function `limits.handler`
   * names (or, without one, that the default rule finds one).
   */
  validate(compiled: string, limits: ValidateLimits): Promise<ValidateOutcome>;
  /**
   * Creates that version's warm isolate (compiles it, runs its top level)
   * without running the handler, so its next invocation is warm: the scheduler
   * calls it a few seconds before a slot. Best effort and bounded: it never
   * evicts a warm isolate to make room, and is dropped when no room is left.
   * Optional: a runtime without it just starts cold.
   */
  prewarm?(fn: DeployedFunction): void;
  /**
   * Forget every version of `name` older than `keepVersion` (or all of them when
   * omitted): isolates are disposed once their in-flight invocations finish.
   */
  retire(name: string, keepVersion?: number): void;
  /** Stops the workers after in-flight invocations settle (or `graceMs`). */
  close(graceMs?: number): Promise<void>;
}

/** A transformation run's answer: the handler's return value as JSON text (untrusted), or why there is none. */
export type TransformOutcome =
  | { ok: true; out: string }
  | { ok: false; code: 'transformation_error' | 'transformation_cpu_limit'; message: string };

/**
 * Webhook transformations (src/runtime/transformations.ts): code already
 * compiled by compileTransformation, run in worker processes, one warm isolate
 * per `hash` of its code, pinned to a worker by that hash.
 */
export interface TransformationRuntime {
  /** Runs the code's handler on `inputJson`; never rejects for the code's own failures. */
  transform(hash: string, compiled: string, inputJson: string): Promise<TransformOutcome>;
  /** Runs the top level once in a throwaway isolate and checks there is a handler to call. */
  validateTransformation(compiled: string): Promise<ValidateOutcome>;
}

/** Invocations answered inside the fast path's synchronous isolate call, and all others (isolate-host.ts; for tests and benchmarks). */
export interface CallCounts {
  sync: number;
  async: number;
}
