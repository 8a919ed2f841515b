/**
 * `createInProcessRuntime`: the same Runtime as pool.ts's createRuntime, with
 * the isolates hosted in this (serving) process: no worker process, no
 * socketpair, no frames, no second event loop. A request reaches its isolate
 * in one isolated-vm call, which is most of what the worker path cost
 * (bench/README.md, "Process model: where isolates run").
 *
 * The price: a catastrophic isolate failure (a V8 out-of-memory past
 * isolated-vm's soft limit) aborts this process, with every request it has in
 * flight. server.ts therefore uses this runtime only where that is one
 * process of several (`--processes` > 1, src/cluster.ts), whose primary
 * forks a replacement while the others keep serving. Everything else the
 * worker path guarantees holds here too, because it lives in IsolateHost and
 * the sandbox, not in the process around them: user code only in isolates,
 * their output checked (isolate-output.ts), memory and time limits, idle CPU
 * watchdog, emits and console lines. The isolate sees only its function's own
 * env (sandbox/index.ts), never this process's, which holds the admin key
 * and DATABASE_URL.
 *
 * The RSS watchdog cannot restart the process here without failing every
 * HTTP request it serves, so a breach restarts the runtime instead: in-flight
 * invocations fail with function_crashed, every isolate is disposed, and new
 * calls get fresh ones (logged at error, counted in stats().restarts). What
 * it measures leaves out the server's own V8 heap and external memory
 * (deliveries in flight, request bodies), which no isolate limit accounts
 * for and which discarding isolates would not give back.
 */
import { writeSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as jsonSchema from '../json-schema.js';
import { EmitRules, type EmitRule } from './emit-rules.js';
import { IsolateHost } from './isolate-host.js';
import { loadMessage, runStatsOf, versionKey, type ResultItem, type RunReportItem, type ToWorker } from './protocol.js';
import { startRssWatchdog } from './rss-watchdog.js';
import { TransformationHost, checkTransformation } from './transformations.js';
import { validateFunction } from './validate.js';
import type { Logger } from '../types.js';
import type { FetchSpanRecord, TraceCarrier } from '../telemetry/types.js';
import type { Runtime, RuntimeStats } from './pool.js';
import type { CallCounts, DeployedFunction, InvokeOutcome, RunReports, RunStats, TransformOutcome, ValidateLimits, ValidateOutcome } from './types.js';

export interface InProcessRuntimeOptions {
  allowPrivateTargets: boolean;
  logger?: Logger;
  /** Micro-batching (default on): one isolate call for every invocation of a version in the same turn. */
  batching?: boolean;
  /** As in RuntimeOptions (pool.ts): every `emit(event, data)` of a function, data as JSON text. */
  onEmit?: (functionName: string, event: string, dataJson: string, application?: string, trace?: TraceCarrier) => void;
  /** As in RuntimeOptions: each fetch of a traced invocation, to be recorded as a span. */
  onFetchSpan?: (record: FetchSpanRecord) => void;
  /** Idle isolates kept warm; past it the least recently used go. */
  warmIsolates?: number;
  /** The synchronous fast path into isolates (default on; isolate-host.ts). */
  syncCalls?: boolean;
  /** As IsolateHostDeps.syncSliceMs (tests only). */
  syncSliceMs?: number;
  /** Honour crashWorkerForTest and setWorkerRssBoundForTest (SWITCHYARD_TEST_HOOKS=1). */
  testHooks?: boolean;
  /** Which outcomes carry their RunStats (start time, heap): types.ts RunReports (default none). */
  runReports?: RunReports;
}

interface Batch {
  key: string;
  fn: DeployedFunction;
  ids: number[];
  rids: string[];
  /** Each call's trace context; null while none of the batch has one (tracing off). */
  traces: (TraceCarrier | null)[] | null;
  events: string[];
}

interface Pending {
  resolve: (o: InvokeOutcome) => void;
  start: number;
  stats?: RunStats;
}

/** After a breach, the watchdog rests this long before it checks again (the freed memory is returned lazily). */
const RSS_REARM_MS = 30_000;

/** Resident memory less the server's own V8 heap and external memory: what isolates and native code hold. */
function rssBesideOwnHeap(): number {
  const m = process.memoryUsage();
  return Math.max(0, m.rss - m.heapTotal - m.external);
}

const ms = (start: number) => Math.round((performance.now() - start) * 100) / 100;

const shuttingDown = (): InvokeOutcome => ({
  ok: false,
  error: { code: 'function_crashed', message: 'the function runtime is shutting down' },
  logs: [],
  durationMs: 0,
});

export function createInProcessRuntime(opts: InProcessRuntimeOptions): Runtime {
  return new InProcessRuntime(opts);
}

class InProcessRuntime implements Runtime {
  private host: IsolateHost;
  private transformations = new TransformationHost();
  /** The catalogue's reject-mode types (emit-rules.ts); ajv is loaded in a serving process anyway. */
  private readonly emitRules = new EmitRules(jsonSchema);
  /** Versions whose code `host` holds (IsolateHost.load ran for them). */
  private readonly loaded = new Set<string>();
  private readonly pending = new Map<number, Pending>();
  /** Other work (validations, transformations) in flight, for close(). */
  private others = 0;
  private readonly open = new Map<string, Batch>();
  private queue: Batch[] = [];
  private flushScheduled = false;
  private nextId = 0;
  private closing = false;
  private restarts = 0;
  /** Isolates created by the hosts an RSS breach discarded (the current host counts its own). */
  private coldStartsBefore = 0;
  private rssBoundForTest: number | null = null;
  private stopWatchdog: () => void;
  private rearm: NodeJS.Timeout | null = null;

  private readonly allowPrivateTargets: boolean;
  private readonly logger: Logger | undefined;
  private readonly batching: boolean;
  private readonly onEmit: InProcessRuntimeOptions['onEmit'];
  private readonly onFetchSpan: InProcessRuntimeOptions['onFetchSpan'];
  private readonly warmIsolates: number | undefined;
  private readonly runReports: RunReports;
  private readonly syncCalls: boolean | undefined;
  private readonly syncSliceMs: number | undefined;
  /** Fast-path counts of the hosts a restart replaced, so stats() covers this runtime's life. */
  private readonly pastCalls: CallCounts = { sync: 0, async: 0 };
  private readonly testHooks: boolean;

  constructor(deps: InProcessRuntimeOptions) {
    this.allowPrivateTargets = deps.allowPrivateTargets;
    this.logger = deps.logger;
    this.batching = deps.batching ?? true;
    this.onEmit = deps.onEmit;
    this.onFetchSpan = deps.onFetchSpan;
    this.warmIsolates = deps.warmIsolates;
    this.runReports = deps.runReports ?? 'none';
    this.syncCalls = deps.syncCalls;
    this.syncSliceMs = deps.syncSliceMs;
    this.testHooks = deps.testHooks ?? false;
    this.host = this.newHost();
    this.stopWatchdog = this.watchRss();
  }

  private newHost(): IsolateHost {
    return new IsolateHost({
      allowPrivateTargets: this.allowPrivateTargets,
      out: (items) => this.out(items),
      log: (level, msg) => this.logger?.[level]({ isolates: 'in-process' }, msg),
      fatal: () => this.fatal(),
      publish: (fn, event, dataJson, application, trace) => this.publish(fn, event, dataJson, application, trace),
      fetched: this.onFetchSpan,
      refuseEmit: (event, dataJson) => this.emitRules.refusal(event, dataJson),
      warmIsolates: this.warmIsolates,
      runReports: this.runReports,
      syncCalls: this.syncCalls,
      syncSliceMs: this.syncSliceMs,
    });
  }

  setEmitRules(rules: EmitRule[]): void {
    this.emitRules.set(rules, (name, why) => this.logger?.warn({ isolates: 'in-process', event: name }, `emit rule not taken: ${why}`));
  }

  /** The scheduler's prewarm before a slot: the version's isolate built now, only into free room (IsolateHost.prewarm). */
  prewarm(fn: DeployedFunction): void {
    if (this.closing) return;
    const key = versionKey(fn.name, fn.version);
    this.ensureLoaded(fn, key);
    this.host.prewarm(key);
  }

  /** Isolates live in this process: ready while it is not closing. */
  ready(): boolean {
    return !this.closing;
  }

  invoke(fn: DeployedFunction, eventJson: string, requestId: string, trace: TraceCarrier | null = null): Promise<InvokeOutcome> {
    if (this.closing) return Promise.resolve(shuttingDown());
    const key = versionKey(fn.name, fn.version);
    let batch = this.open.get(key);
    if (!batch || !this.batching) {
      batch = { key, fn, ids: [], rids: [], traces: null, events: [] };
      this.open.set(key, batch);
      this.queue.push(batch);
      this.schedule();
    }
    const id = ++this.nextId;
    batch.ids.push(id);
    batch.rids.push(requestId);
    if (trace !== null || batch.traces !== null) {
      batch.traces ??= batch.ids.slice(0, -1).map(() => null);
      batch.traces.push(trace);
    }
    batch.events.push(typeof eventJson === 'string' && eventJson !== '' ? eventJson : 'null');
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, start: performance.now() });
    });
  }

  private schedule(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // setImmediate, not a microtask: requests parsed in the same poll phase share one isolate call.
    setImmediate(() => {
      this.flushScheduled = false;
      this.open.clear();
      const batches = this.queue;
      this.queue = [];
      for (const b of batches) this.enter(b);
    });
  }

  private enter(b: Batch): void {
    const { fn, key } = b;
    this.ensureLoaded(fn, key);
    // The header the isolate's dispatcher reads (as a worker would receive it).
    const tps = b.traces === null ? '' : `,"tps":${JSON.stringify(b.traces)}`;
    const head = `{"t":"inv","k":${JSON.stringify(key)},"ids":[${b.ids.join(',')}],"rids":${JSON.stringify(b.rids)}${tps}}`;
    this.host.invoke(key, b.ids, b.rids, head, '[' + b.events.join(',') + ']', b.traces ?? undefined);
  }

  /**
   * Hands the version's code to the host once (what a worker's `load` frame does). Anything
   * else that reaches IsolateHost for a version (a prewarm, say) calls this first.
   */
  private ensureLoaded(fn: DeployedFunction, key: string): void {
    if (!this.loaded.has(key)) {
      this.host.load(loadMessage(fn));
      // load() retired the older versions of this name in the host: forget them here too.
      this.forgetLoaded(fn.name, fn.version);
      this.loaded.add(key);
    }
  }

  /** Result items from the host, each already checked (isolate-output.ts). */
  private out(items: string): void {
    if (items === '') return;
    for (const item of JSON.parse('[' + items + ']') as Array<ResultItem | RunReportItem>) this.settle(item);
  }

  private settle(item: ResultItem | RunReportItem): void {
    const p = this.pending.get(item.i);
    if (!p) return;
    if ('rep' in item) {
      p.stats = runStatsOf(item);
      return;
    }
    this.pending.delete(item.i);
    const outcome: InvokeOutcome = item.ok
      ? { ok: true, result: item.r, logs: item.l, durationMs: ms(p.start) }
      : { ok: false, error: { code: item.c, message: item.m }, logs: item.l, durationMs: ms(p.start) };
    if (p.stats !== undefined) outcome.stats = p.stats;
    p.resolve(outcome);
  }

  /**
   * V8 is no longer sound in this process (ivm's onCatastrophicError): no answer can be
   * trusted to go out, so say why on stderr, synchronously, and abort. The cluster's
   * primary forks a replacement; the other server processes keep serving.
   */
  private fatal(): never {
    try {
      writeSync(2, `switchyard: an isolate failed catastrophically (V8 out of memory); server process ${process.pid} aborts\n`);
    } catch {
      // nothing more to do
    }
    process.abort();
  }

  /** The receiver's failures stay its own (as in worker-handle.ts). */
  private publish(fn: string, event: string, dataJson: string, application: string | undefined, trace: TraceCarrier | undefined): void {
    if (!this.onEmit) return;
    const fail = (err: unknown) => this.logger?.warn({ function: fn, event, err: String(err) }, 'onEmit failed for a function event');
    try {
      const r: unknown = this.onEmit(fn, event, dataJson, application, trace);
      if (r && typeof (r as Promise<unknown>).then === 'function') (r as Promise<unknown>).then(undefined, fail);
    } catch (err) {
      fail(err);
    }
  }

  private watchRss(): () => void {
    return startRssWatchdog({
      rss: rssBesideOwnHeap,
      limits: () => [...this.host.memoryLimitsMb(), ...this.transformations.memoryLimitsMb()],
      boundOverrideMb: () => this.rssBoundForTest,
      onBreach: (rssMb, boundMb) => this.restartIsolates(rssMb, boundMb),
    });
  }

  /** The in-process answer to an RSS breach: every isolate goes, the process stays. */
  private restartIsolates(rssMb: number, boundMb: number): void {
    const why = `the server process used ${rssMb} MB, over its bound of ${boundMb} MB: its isolates are discarded`;
    this.logger?.error({ isolates: 'in-process', rssMb, boundMb }, `${why}; failing their in-flight calls`);
    this.restarts++;
    this.rssBoundForTest = null;
    const old = this.host;
    this.coldStartsBefore += old.created;
    const oldTransformations = this.transformations;
    this.host = this.newHost();
    this.transformations = new TransformationHost();
    this.loaded.clear();
    old.failAll('function_crashed', why);
    old.close();
    const counted = old.callCounts();
    this.pastCalls.sync += counted.sync;
    this.pastCalls.async += counted.async;
    oldTransformations.close();
    // A fresh watchdog, once the freed memory had time to go back: the next breach is a new one.
    this.stopWatchdog = () => undefined;
    this.rearm = setTimeout(() => {
      this.rearm = null;
      if (!this.closing) this.stopWatchdog = this.watchRss();
    }, RSS_REARM_MS);
    this.rearm.unref();
  }

  validate(compiled: string, limits: ValidateLimits): Promise<ValidateOutcome> {
    if (this.closing) return Promise.resolve({ ok: false, message: 'the function runtime is shutting down' });
    const { timeoutMs, memoryMb, env } = limits;
    return this.tracked(
      validateFunction({ code: compiled, timeoutMs, memoryMb, env, handler: limits.handler ?? null }, this.allowPrivateTargets),
      (err) => ({ ok: false, message: `validation failed: ${String(err)}` }),
    );
  }

  transform(hash: string, compiled: string, inputJson: string): Promise<TransformOutcome> {
    if (this.closing) return Promise.resolve({ ok: false, code: 'transformation_error', message: 'the function runtime is shutting down' });
    const t = this.transformations;
    if (!t.has(hash)) t.remember(hash, compiled);
    return this.tracked(t.run(hash, inputJson), (err) => ({ ok: false, code: 'transformation_error', message: String(err) }));
  }

  validateTransformation(compiled: string): Promise<ValidateOutcome> {
    if (this.closing) return Promise.resolve({ ok: false, message: 'the function runtime is shutting down' });
    return this.tracked(checkTransformation(compiled), (err) => ({ ok: false, message: String(err) }));
  }

  private tracked<T>(work: Promise<T>, onError: (err: unknown) => T): Promise<T> {
    this.others++;
    return work.then(
      (r) => {
        this.others--;
        return r;
      },
      (err: unknown) => {
        this.others--;
        return onError(err);
      },
    );
  }

  retire(name: string, keepVersion?: number): void {
    this.host.retire(name, keepVersion ?? null);
    this.forgetLoaded(name, keepVersion ?? null);
  }

  private forgetLoaded(name: string, keep: number | null): void {
    for (const key of this.loaded) {
      const at = key.lastIndexOf('@');
      if (key.slice(0, at) === name && (keep === null || Number(key.slice(at + 1)) < keep)) this.loaded.delete(key);
    }
  }

  async close(graceMs = 5000): Promise<void> {
    this.closing = true;
    const until = Date.now() + graceMs;
    while (Date.now() < until && (this.pending.size > 0 || this.others > 0 || this.queue.length > 0)) {
      await new Promise((r) => setTimeout(r, 20));
    }
    this.stopWatchdog();
    if (this.rearm) clearTimeout(this.rearm);
    this.host.failAll('function_crashed', 'runtime closed');
    for (const [id] of this.pending) this.settle({ i: id, ok: 0, c: 'function_crashed', m: 'runtime closed', l: [] });
    this.host.close();
    this.transformations.close();
  }

  stats(): RuntimeStats {
    return {
      workers: [
        {
          index: 0,
          pid: process.pid,
          restarts: this.restarts,
          inflight: this.pending.size + this.others,
          isolates: this.host.isolateCount(),
          coldStarts: this.coldStartsBefore + this.host.created,
          calls: this.calls(),
        },
      ],
    };
  }

  private calls(): CallCounts {
    const now = this.host.callCounts();
    return { sync: this.pastCalls.sync + now.sync, async: this.pastCalls.async + now.async };
  }

  /** Aborts this very process (what a V8 fatal error in an isolate does): only with test hooks. */
  crashWorkerForTest(_name: string): void {
    if (this.testHooks) process.abort();
  }

  setWorkerRssBoundForTest(_name: string, mb: number): void {
    if (this.testHooks) this.rssBoundForTest = mb;
  }
}
