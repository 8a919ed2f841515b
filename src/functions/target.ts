/**
 * The function target of the delivery pipeline: a background invocation run
 * once per attempt (runner.ts does the running). `ok` succeeds; any error
 * (the function threw, timed out, crashed) is retried on
 * FUNCTION_RETRY_SCHEDULE_S while the function allows retries, then fails.
 */
import type { AttemptContext, AttemptResult, DeliveryTarget } from '../deliveries/target.js';
import type { FunctionDelivery } from '../deliveries/types.js';
import type { Clock } from '../clock.js';

/**
 * Seconds before each retry of a function target: Lambda's spacing for its
 * asynchronous retries (about 1 minute, then 2), doubling on for the up to 5
 * retries a function may ask for.
 */
export const FUNCTION_RETRY_SCHEDULE_S: readonly number[] = [60, 120, 240, 480, 960];
/** Added to a function's timeout when its run outlasts the lease: loading, and recording the attempt. */
const FUNCTION_LEASE_MARGIN_MS = 30_000;

/** One run of a function target, as the function runner reports it. */
export interface FunctionRun {
  /** `ok`, or the invocation's error code (function_error, function_timeout, ...). */
  outcome: string;
  error: string | null;
  result: unknown;
  durationMs: number;
  /** The request id of the run's log lines. */
  requestId: string;
  /** False: a failure retrying cannot mend (a refused emit loop); it fails at once. */
  retryable?: boolean;
}

/** A function target ready to run: what the target needs to know before it runs it. */
export interface PreparedFunctionRun {
  /** Retries the function allows after a first failed attempt. */
  retries: number;
  /** The function's own timeout: the lease is stretched to outlast it. */
  timeoutMs: number;
  run(): Promise<FunctionRun>;
}

export interface FunctionRunner {
  /** The function to run for a delivery, null when it is gone (its deliveries go with it). */
  prepare(delivery: FunctionDelivery): Promise<PreparedFunctionRun | null>;
}

export class FunctionTarget implements DeliveryTarget<FunctionDelivery> {
  readonly noun = 'invocation';
  /** A finished run's record goes to the function's destination, success or failure. */
  readonly reportsSuccess = true;

  constructor(private readonly deps: { runner: FunctionRunner; clock: Clock }) {}

  async attempt(delivery: FunctionDelivery, ctx: AttemptContext): Promise<AttemptResult | null> {
    const prepared = await this.deps.runner.prepare(delivery);
    if (!prepared) return null;
    const clock = this.deps.clock;
    if (prepared.timeoutMs + FUNCTION_LEASE_MARGIN_MS > ctx.leaseMs) {
      if (!(await ctx.extendLease(clock.now() + prepared.timeoutMs + FUNCTION_LEASE_MARGIN_MS))) return null;
    }
    const startedMs = clock.now();
    const ran = await prepared.run();
    const ok = ran.outcome === 'ok';
    let retryInMs: number | null = null;
    if (!ok && !ctx.final && ran.retryable !== false && ctx.number <= prepared.retries) {
      retryInMs = FUNCTION_RETRY_SCHEDULE_S[Math.min(ctx.number - 1, FUNCTION_RETRY_SCHEDULE_S.length - 1)] * 1000;
    }
    const out: AttemptResult = {
      startedMs,
      durationMs: ran.durationMs,
      succeeded: ok,
      retryInMs,
      error: ran.error,
      responseStatus: null,
      response: null,
      outcome: ran.outcome,
      requestId: ran.requestId,
    };
    if (ok) out.result = ran.result;
    return out;
  }
}
