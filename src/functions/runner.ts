/**
 * Runs one attempt of a background invocation through the same
 * FunctionRuntime as a manual invoke: the function's event (an asynchronous
 * invoke's completed in its format), the hop count of its chain, its console
 * lines to the log sink and its outcome to the log streams.
 */
import type { FunctionDelivery } from '../deliveries/types.js';
import { defaultEventFor } from '../gateway/formats.js';
import { depthOf, type RunDepths } from '../hops.js';
import type { FunctionRuntime } from '../runtime/types.js';
import type { Store } from '../store/store.js';
import type { Tracing } from '../telemetry/tracing.js';
import { roundMs, type InvocationHub } from '../streams/invocations.js';
import type { FunctionLogSink } from './log-sink.js';
import type { FunctionRun, FunctionRunner, PreparedFunctionRun } from './target.js';

export interface BackgroundRunnerDeps {
  store: Store;
  runtime: FunctionRuntime;
  logSink: FunctionLogSink;
  /** The runs of this process that are part of a chain (shared with the gateway and manual invokes). */
  hops: RunDepths;
  hub?: InvocationHub | null;
  /** OpenTelemetry tracing; null: off. On, each run is a CONSUMER span in its cause's trace (a root one for a schedule's slot). */
  tracing?: Tracing | null;
}

export class BackgroundRunner implements FunctionRunner {
  constructor(private readonly deps: BackgroundRunnerDeps) {}

  /**
   * The request id is the invocation id, the same on every attempt (as
   * Lambda's for asynchronous retries): a handler deduplicates with it.
   */
  async prepare(delivery: FunctionDelivery): Promise<PreparedFunctionRun | null> {
    const name = delivery.functionName;
    const fn = await this.deps.store.getFunction(name);
    if (!fn) return null;
    const requestId = delivery.id;
    // An asynchronous invoke's event is completed in the function's format, as a manual invoke's is.
    const event =
      delivery.trigger === 'async' ? defaultEventFor(fn.eventFormat, delivery.eventData ?? {}, { requestId, functionName: name }) : delivery.eventData;
    const depth = depthOf(delivery.triggerDetail);
    const hops = this.deps.hops;
    const run = async (): Promise<FunctionRun> => {
      const tracked = hops.enter(name, delivery.id, depth);
      const tracing = this.deps.tracing;
      const span = tracing?.under(delivery.traceContext, `run ${name}`, 'consumer', {
        'faas.invoked_name': name,
        'faas.invocation_id': requestId,
        'faas.trigger': delivery.trigger === 'schedule' ? 'timer' : delivery.trigger === 'event' ? 'pubsub' : 'other',
        'switchyard.trigger': delivery.trigger,
      });
      let outcome: Awaited<ReturnType<FunctionRuntime['invoke']>>;
      try {
        outcome = await this.deps.runtime.invoke(fn, JSON.stringify(event ?? {}), requestId, span && tracing!.carrierOf(span));
      } catch (err) {
        // The runtime answers failures as outcomes; a throw (it stopped) still ends the span, so the trace keeps it.
        if (span !== undefined) {
          tracing!.failed(span, 'runtime_error');
          span.end();
        }
        throw err;
      } finally {
        if (tracked) hops.leave(name, delivery.id);
      }
      if (span !== undefined) {
        span.setAttribute('switchyard.isolate_ms', outcome.durationMs);
        // OpenTelemetry's FaaS convention: the run that started its isolate (a prewarmed one's first run is warm).
        if (outcome.stats !== undefined) span.setAttribute('faas.coldstart', outcome.stats.initMs !== null);
        if (!outcome.ok) tracing!.failed(span, outcome.error.code);
        span.end();
      }
      this.deps.logSink.push(
        name,
        outcome.logs,
        fn.version,
        this.deps.logSink.runLines === true ? { requestId, durationMs: outcome.durationMs, memoryMb: fn.memoryMb, stats: outcome.stats } : undefined,
      );
      const durationMs = roundMs(outcome.durationMs);
      const code = outcome.ok ? 'ok' : outcome.error.code;
      const hub = this.deps.hub;
      if (hub?.active) {
        hub.publish({
          function: name,
          api_id: null,
          method: 'EVENT',
          path: `/api/functions/${name}/invocations/${delivery.id}`,
          status: outcome.ok ? 200 : 502,
          duration_ms: durationMs,
          request_id: requestId,
          ts: new Date().toISOString(),
          outcome: code,
          log_lines: outcome.logs.length,
        });
      }
      if (tracked?.stopped) {
        return { outcome: 'loop_stopped', error: tracked.stopped, result: null, durationMs, requestId, retryable: false };
      }
      return outcome.ok
        ? { outcome: 'ok', error: null, result: outcome.result ?? null, durationMs, requestId }
        : { outcome: code, error: outcome.error.message, result: null, durationMs, requestId };
    };
    return { retries: fn.async.retries, timeoutMs: fn.timeoutMs, run };
  }
}
