/**
 * `createRuntime`: the FunctionRuntime the gateway uses. Isolates never run in
 * this process: it spawns `workers` supervised worker processes (worker.ts) and
 * pins each function name to one of them (stable hash), so a version's warm
 * isolate lives in exactly one place and its code is shipped there once.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../types.js';
import type { EmitRule } from './emit-rules.js';
import type { FetchSpanRecord, TraceCarrier } from '../telemetry/types.js';
import { WorkerHandle } from './worker-handle.js';
import type { CallCounts, DeployedFunction, RunReports, FunctionRuntime, InvokeOutcome, TransformationRuntime, TransformOutcome, ValidateLimits, ValidateOutcome } from './types.js';

export interface RuntimeOptions {
  workers: number;
  allowPrivateTargets: boolean;
  logger?: Logger;
  /** Micro-batching (default on). Off only to measure what it buys (bench/runtime-micro.mjs). */
  batching?: boolean;
  /**
   * Receives every `emit(event, data)` of a function (data as JSON text), in the
   * main process. Fire-and-forget: what it throws or rejects is logged, never
   * seen by the function. Without it emits are dropped.
   */
  onEmit?: (functionName: string, event: string, dataJson: string, application?: string, trace?: TraceCarrier) => void;
  /**
   * Receives each fetch of a traced invocation (one that came with a trace
   * context), timed where it ran, to be recorded as a span. Without it none is reported.
   */
  onFetchSpan?: (record: FetchSpanRecord) => void;
  /** Idle isolates each worker keeps warm; past it the least recently used go (default: the worker's own default). */
  warmIsolates?: number;
  /** Which outcomes carry their RunStats (start time, heap): types.ts RunReports (default none). */
  runReports?: RunReports;
  /** The synchronous fast path into isolates (default on; isolate-host.ts). */
  syncCalls?: boolean;
}

export interface RuntimeStats {
  /** `calls`: invocations answered on the fast path and otherwise (isolate-host.ts), where this process hosts the isolates. */
  workers: Array<{ index: number; pid: number | undefined; restarts: number; inflight: number; isolates: number; coldStarts: number; calls?: CallCounts }>;
}

export interface Runtime extends FunctionRuntime, TransformationRuntime {
  prewarm(fn: DeployedFunction): void;
  stats(): RuntimeStats;
  /** Every worker process runs and takes calls (GET /readyz). */
  ready(): boolean;
  /**
   * The catalogue's reject-mode types, the whole set: an `emit()` whose data
   * fails its type's schema throws in the function (emit-rules.ts). Every
   * worker has it before any call made after this returns.
   */
  setEmitRules(rules: EmitRule[]): void;
  /** Aborts the worker hosting `name`; only honoured when workers run with SWITCHYARD_TEST_HOOKS=1. */
  crashWorkerForTest(name: string): void;
  /** Sets the RSS bound (MB) of the worker hosting `name`; only honoured with SWITCHYARD_TEST_HOOKS=1. */
  setWorkerRssBoundForTest(name: string, mb: number): void;
}

/** FNV-1a: stable across processes and restarts, unlike anything keyed on object identity. */
export function workerIndexFor(name: string, workers: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % workers;
}

/** dist/runtime/worker.js next to this file, or the built copy when running from src (vitest). */
function workerScript(): string {
  const beside = fileURLToPath(new URL('./worker.js', import.meta.url));
  if (existsSync(beside)) return beside;
  const built = fileURLToPath(new URL('../../dist/runtime/worker.js', import.meta.url));
  if (existsSync(built)) return built;
  throw new Error(`runtime worker script not found at ${beside} or ${built}: run npm run build`);
}

/**
 * Workers need no secrets of the main process: user code cannot reach them, but keep it that way.
 * TZ=UTC: V8 takes the isolates' time zone from its process, and Lambda runs every function in UTC
 * whatever the server's zone (the isolate's own `process.env.TZ` says `:UTC`, see sandbox/index.ts).
 */
function workerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TZ: 'UTC' };
  delete env.SWITCHYARD_ADMIN_KEY;
  delete env.DATABASE_URL;
  return env;
}

export function createRuntime(opts: RuntimeOptions): Runtime {
  const count = Math.max(1, Math.floor(opts.workers));
  const script = workerScript();
  const args = opts.allowPrivateTargets ? ['--allow-private-targets'] : [];
  if (opts.warmIsolates !== undefined) args.push(`--warm-isolates=${Math.max(1, Math.floor(opts.warmIsolates))}`);
  if (opts.runReports !== undefined && opts.runReports !== 'none') args.push(`--run-reports=${opts.runReports}`);
  if (opts.syncCalls === false) args.push('--no-sync-calls');
  const env = workerEnv();
  const workers = Array.from(
    { length: count },
    (_, index) => new WorkerHandle({ index, script, args, env, logger: opts.logger, batching: opts.batching ?? true, onEmit: opts.onEmit, onFetchSpan: opts.onFetchSpan }),
  );
  let nextId = 0;
  let nextValidator = 0;
  let closing = false;

  const workerFor = (name: string) => workers[workerIndexFor(name, count)];

  return {
    invoke(fn: DeployedFunction, eventJson: string, requestId: string, trace?: TraceCarrier | null): Promise<InvokeOutcome> {
      if (closing) {
        return Promise.resolve({
          ok: false,
          error: { code: 'function_crashed', message: 'the function runtime is shutting down' },
          logs: [],
          durationMs: 0,
        });
      }
      return workerFor(fn.name).invoke(fn, eventJson, requestId, ++nextId, trace ?? null);
    },

    validate(compiled: string, limits: ValidateLimits): Promise<ValidateOutcome> {
      if (closing) return Promise.resolve({ ok: false, message: 'the function runtime is shutting down' });
      const w = workers[nextValidator++ % count];
      const { timeoutMs, memoryMb, env } = limits;
      return w.validate(compiled, { timeoutMs, memoryMb, env, handler: limits.handler ?? null }, ++nextId);
    },

    transform(hash: string, compiled: string, inputJson: string): Promise<TransformOutcome> {
      if (closing) return Promise.resolve({ ok: false, code: 'transformation_error', message: 'the function runtime is shutting down' });
      // Pinned by hash, as functions are by name: one warm isolate per transformation.
      return workers[workerIndexFor(hash, count)].transform(hash, compiled, inputJson, ++nextId);
    },

    validateTransformation(compiled: string): Promise<ValidateOutcome> {
      if (closing) return Promise.resolve({ ok: false, message: 'the function runtime is shutting down' });
      return workers[nextValidator++ % count].validateTransformation(compiled, ++nextId);
    },

    setEmitRules(rules: EmitRule[]): void {
      for (const w of workers) w.setEmitRules(rules);
    },

    prewarm(fn: DeployedFunction): void {
      if (!closing) workerFor(fn.name).prewarm(fn);
    },

    retire(name: string, keepVersion?: number): void {
      workerFor(name).retire(name, keepVersion ?? null);
    },

    async close(graceMs = 5000): Promise<void> {
      closing = true;
      const until = Date.now() + graceMs;
      while (Date.now() < until && workers.some((w) => w.inflight > 0)) {
        await new Promise((r) => setTimeout(r, 20));
      }
      await Promise.all(workers.map((w) => w.stop()));
    },

    ready(): boolean {
      return !closing && workers.every((w) => w.ready);
    },

    stats(): RuntimeStats {
      return {
        workers: workers.map((w) => ({ index: w.index, pid: w.pid, restarts: w.restarts, inflight: w.inflight, isolates: w.isolates, coldStarts: w.coldStarts })),
      };
    },

    crashWorkerForTest(name: string): void {
      workerFor(name).crashForTest();
    },

    setWorkerRssBoundForTest(name: string, mb: number): void {
      workerFor(name).rssBoundForTest(mb);
    },
  };
}
