/**
 * Worker side: one warm isolate per function version (`name@version`),
 * created on first use, compiled once, serving concurrent batches. Enforces the
 * wall-clock time limit (one host timer per batch) and the memory limit (ivm's
 * soft limit plus a heap check), and drains/disposes isolates of retired
 * versions.
 *
 * What an isolate hands back is untrusted (isolate-output.ts): only answers
 * for invocations that isolate has in flight, of the right shape, leave
 * through `out(itemsText)` (comma-joined ResultItem JSON, each checked
 * alone), which worker.ts coalesces into frames; anything else discards that
 * isolate and fails its own calls. The sandbox's `emit` events leave through
 * `publish(functionName, event, dataJson)`.
 *
 * An isolate with nothing in flight is idle: its sandbox drops timers and
 * fetches and receives nothing, and a watchdog discards it if it still burns
 * CPU (code that outlived its invocation), before a caller queues behind it.
 *
 * The synchronous fast path: a batch goes into its isolate with `applySync`
 * (isolated-vm's time limit as the function's), which answers every call its
 * handler finished without waiting on the host (synchronous handlers, async
 * ones that await only settled values: isolated-vm drains the isolate's
 * microtasks before that call returns) with no hop to isolated-vm's threads
 * and back; calls still pending are delivered later, as on the asynchronous
 * path (`apply`). The fast path is taken only while nothing else runs in that
 * isolate (no `apply` of ours and no sandbox call into it unfinished): a
 * synchronous call would otherwise wait for it with this event loop, and so
 * every deadline timer, stopped. It also stops this event loop for as long as
 * the handler runs, so versions that proved slow leave it (SYNC_SLICE_MS).
 */
import ivm from 'isolated-vm';
import { MAX_JSON_DEPTH } from '../json-limits.js';
import { dispatcherSetup } from './handler-export.js';
import { readIsolateOutput } from './isolate-output.js';
import { prepare } from './prepare.js';
import type { ToWorker } from './protocol.js';
import type { SandboxHandle } from './sandbox/index.js';
import type { CallCounts, RunReports } from './types.js';
import type { InvocationErrorCode } from '../errors.js';
import { isSampledCarrier, type FetchSpanRecord, type TraceCarrier } from '../telemetry/types.js';

type Load = Extract<ToWorker, { t: 'load' }>;

/** ivm's memory limit is soft: dispose an isolate whose heap grew past limit * this. */
const HEAP_MARGIN = 1.25;
const HEAP_CHECK_EVERY_MS = 200;
const IDLE_DISPOSE_MS = 10 * 60_000;
/**
 * Idle isolates a worker keeps warm when nobody said (the server passes one
 * derived from the machine's memory, src/config.ts). An idle hello-world isolate
 * costs about 2 MB of RSS; without a bound, every distinct function run in the
 * last ten minutes would stay in memory.
 */
export const DEFAULT_WARM_ISOLATES = 1000;
/**
 * CPU an idle isolate may still spend (microtasks finishing after the last
 * answer take microseconds); past it, the isolate is running code nobody
 * waits for and is discarded. Checked every IDLE_CPU_CHECK_MS, and when a
 * call is about to enter an idle isolate.
 */
export const IDLE_CPU_BUDGET_MS = 100;
const IDLE_CPU_CHECK_MS = 250;
/**
 * A synchronous call stops this process's event loop (other functions' calls, and in a
 * server process its HTTP requests) while it runs. A version whose synchronous calls used
 * more CPU than this SYNC_SLOW_STREAK times in a row, or one that hit its time limit in one,
 * takes the asynchronous path from then on, so a CPU-heavy or looping handler stalls its
 * process once or twice, not on every call. The isolate's CPU time, not the wall clock: on
 * a loaded machine a sub-millisecond call can be descheduled for longer. In a row, because
 * a hello call was once measured at 94 ms of CPU (a collection of the isolate's heap, it
 * seems) among 20,000 of a few µs.
 */
export const SYNC_SLICE_MS = 20;
export const SYNC_SLOW_STREAK = 2;

interface StartFailure {
  code: InvocationErrorCode;
  message: string;
}

interface Batch {
  inst: Instance;
  ids: number[];
  left: number;
  /** When its time limit ends (ms since the epoch). */
  deadline: number;
  /** Armed while some of its calls may outlive a synchronous call; null before (the fast path may answer them all). */
  timer: NodeJS.Timeout | null;
  /** Its `dispatch` apply has not returned: at the deadline, the isolate is stuck in sync code. */
  applying: boolean;
}

interface Instance {
  load: Load;
  isolate: ivm.Isolate;
  /** Set once init succeeded. Mode 0: asynchronous, 1: the fast path's call, 2: its collect (isolate/dispatcher.js). */
  dispatch: ivm.Reference<(payload: string, mode: number) => string | null | Promise<string>> | null;
  /** Our `apply` calls into it not finished yet: while any is, the fast path is not taken. */
  applies: number;
  /** Its version may take the fast path (not in IsolateHost.asyncOnly). */
  sync: boolean;
  /** Its last synchronous calls that used more than SYNC_SLICE_MS of CPU, in a row. */
  slowCalls: number;
  ready: Promise<void>;
  sandbox: SandboxHandle | null;
  /** Accepting new batches; false once draining or dead. */
  routed: boolean;
  dead: boolean;
  /** Why ivm disposed the isolate under us, if we did it ourselves. */
  killedFor: InvocationErrorCode | null;
  /** Invocation id -> request id, for every call this isolate owes an answer. */
  inflight: Map<number, string>;
  /** Invocation id -> trace context, for traced calls in flight; null until the first one comes. */
  traces: Map<number, TraceCarrier> | null;
  /** Ids the host answered for it (deadline): a late answer for them is dropped, not an error. */
  answered: Set<number>;
  /** The isolate's CPU time (ns) when it last went idle; null while busy. */
  idleCpu: bigint | null;
  lastHeapCheck: number;
  lastUsed: number;
  /** When it was created (performance.now()), and how long it took to start; null until started. */
  createdAt: number;
  initMs: number | null;
  /** Its start was reported with a call (run reports): later calls are warm. */
  startReported: boolean;
}

export { UserCompileError, prepare } from './prepare.js';

const item = (id: number, code: InvocationErrorCode, message: string): string =>
  `{"i":${id},"ok":0,"c":"${code}","m":${JSON.stringify(message)},"l":[]}`;

function cpuTimeOf(inst: Instance): bigint | null {
  try {
    return inst.isolate.isDisposed ? null : inst.isolate.cpuTime;
  } catch {
    return null;
  }
}

export interface IsolateHostDeps {
  allowPrivateTargets: boolean;
  /** Sends result items to the main process. */
  out: (items: string) => void;
  /** The worker process's log: a line to the main process, which logs it. */
  log: (level: 'info' | 'warn' | 'error', msg: string) => void;
  /** Must send `items` synchronously and end the process: V8 is no longer sound. */
  fatal: (items: string) => never;
  publish?: (functionName: string, event: string, dataJson: string, application?: string, trace?: TraceCarrier) => void;
  /** Each fetch of a traced invocation, once over (see sandbox/index.ts SandboxTrace). */
  fetched?: (record: FetchSpanRecord) => void;
  /** Why an emit may not be published (the catalogue's reject mode, emit-rules.ts): thrown in the function instead. */
  refuseEmit?: (event: string, dataJson: string) => string | undefined;
  /** Idle isolates kept warm at most; past it the least recently used are disposed. */
  warmIsolates?: number;
  /** Which answers get a RunReportItem (protocol.ts) before them: start time and heap (types.ts RunReports; default none). */
  runReports?: RunReports;
  /** The synchronous fast path (default on); off, every batch takes `apply` (SWITCHYARD_SYNC_CALLS=0, for A/B measurements). */
  syncCalls?: boolean;
  /** Told after an isolate was created or disposed (the counts for metrics: `created`, `isolateCount()`). */
  counted?: () => void;
  /** The CPU a synchronous call may use before it counts as slow (default SYNC_SLICE_MS); tests set a wider one, so a loaded machine's quick call never counts. */
  syncSliceMs?: number;
}

/** The isolate's heap after a call, in MB (0 once it is disposed). */
function heapMbOf(inst: Instance): number {
  try {
    const st = inst.isolate.getHeapStatisticsSync();
    return Math.ceil((st.used_heap_size + st.externally_allocated_size) / (1024 * 1024));
  } catch {
    return 0;
  }
}

export class IsolateHost {
  /** Isolates created so far (cold starts, replacements, prewarms): switchyard_isolate_cold_starts_total. */
  created = 0;
  private readonly counted: () => void;
  private readonly loads = new Map<string, Load>();
  /** The instance new batches of a key go to. */
  private readonly current = new Map<string, Instance>();
  private readonly all = new Set<Instance>();
  /** Idle instances, least recently used first (a Set keeps insertion order; use re-inserts). */
  private readonly idle = new Set<Instance>();
  private readonly inflight = new Map<number, Batch>();
  private readonly idleTimer: NodeJS.Timeout;
  private readonly cpuWatchdog: NodeJS.Timeout;

  private readonly allowPrivateTargets: boolean;
  private readonly out: (items: string) => void;
  private readonly log: (level: 'info' | 'warn' | 'error', msg: string) => void;
  private readonly fatal: (items: string) => never;
  private readonly publish: (functionName: string, event: string, dataJson: string, application?: string, trace?: TraceCarrier) => void;
  private readonly fetched: ((record: FetchSpanRecord) => void) | undefined;
  private readonly refuseEmit: (event: string, dataJson: string) => string | undefined;
  private readonly warmIsolates: number;
  private readonly runReports: RunReports;
  private readonly syncCalls: boolean;
  private readonly syncSliceNs: bigint;
  private readonly counts: CallCounts = { sync: 0, async: 0 };
  /** Versions (keys) taken off the fast path: slow synchronous calls (SYNC_SLICE_MS) or one that hit the time limit. */
  private readonly asyncOnly = new Set<string>();

  constructor(deps: IsolateHostDeps) {
    this.allowPrivateTargets = deps.allowPrivateTargets;
    this.out = deps.out;
    this.log = deps.log;
    this.fatal = deps.fatal;
    this.publish = deps.publish ?? (() => undefined);
    this.fetched = deps.fetched;
    this.refuseEmit = deps.refuseEmit ?? (() => undefined);
    this.warmIsolates = deps.warmIsolates ?? DEFAULT_WARM_ISOLATES;
    this.runReports = deps.runReports ?? 'none';
    this.syncCalls = deps.syncCalls ?? true;
    this.syncSliceNs = BigInt(deps.syncSliceMs ?? SYNC_SLICE_MS) * 1_000_000n;
    this.counted = deps.counted ?? (() => undefined);
    this.idleTimer = setInterval(() => this.disposeIdle(), 60_000);
    this.idleTimer.unref();
    this.cpuWatchdog = setInterval(() => this.watchIdleCpu(), IDLE_CPU_CHECK_MS);
    this.cpuWatchdog.unref();
  }

  load(msg: Load): void {
    this.loads.set(msg.k, msg);
    // A newer version supersedes older ones: they finish in-flight work, then go.
    this.retire(msg.name, msg.version);
  }

  retire(name: string, keep: number | null): void {
    for (const [key, load] of this.loads) {
      if (load.name === name && (keep === null || load.version < keep)) {
        this.loads.delete(key);
        this.asyncOnly.delete(key);
      }
    }
    for (const inst of this.all) {
      if (inst.load.name === name && (keep === null || inst.load.version < keep)) this.drain(inst);
    }
  }

  /**
   * One batch. The isolate re-reads ids and request ids from the same header
   * (plus the deadline spliced in here) and parses the events body itself.
   */
  invoke(key: string, ids: number[], rids: string[], headText: string, body: string, traces?: (TraceCarrier | null)[]): void {
    const load = this.loads.get(key);
    if (!load) {
      let items = '';
      for (const id of ids) items += (items ? ',' : '') + item(id, 'function_crashed', `worker has no code for ${key}`);
      this.out(items);
      return;
    }
    let inst = this.current.get(key);
    if (inst && inst.idleCpu !== null && this.overIdleBudget(inst)) this.discardBusyIdle(inst);
    if (!inst || !inst.routed) inst = this.create(load);
    inst.lastUsed = Date.now();
    if (inst.idleCpu !== null) {
      inst.idleCpu = null;
      this.idle.delete(inst);
      inst.sandbox?.setActive(true);
    }
    const deadline = Date.now() + load.timeoutMs;
    const batch: Batch = { inst, ids, left: ids.length, deadline, applying: false, timer: null };
    for (let i = 0; i < ids.length; i++) {
      this.inflight.set(ids[i], batch);
      inst.inflight.set(ids[i], rids[i]);
      const trace = traces?.[i];
      if (trace != null) (inst.traces ??= new Map()).set(ids[i], trace);
    }
    const runOn = inst;
    const payload = headText.slice(0, -1) + ',"dl":' + deadline + '}\n' + body;
    // Ready and nothing else running in it: the synchronous call answers what it can, and its
    // own time limit stands in for the deadline timer, which is armed only if calls remain.
    if (runOn.dispatch && this.canRunSync(runOn)) {
      this.runSync(runOn, batch, payload);
      return;
    }
    this.arm(batch);
    if (runOn.dispatch) this.run(runOn, batch, payload);
    else runOn.ready.then(
      () => this.run(runOn, batch, payload),
      (f: StartFailure) => this.failBatch(batch, f.code, f.message),
    );
  }

  /**
   * Creates the warm isolate of `key` ahead of its first invocation (the
   * scheduler's prewarm before a slot). Only into free room: with the warm
   * bound reached it does nothing, so a prewarm never evicts an isolate that
   * served calls. The new isolate goes idle once booted, as after a call; a
   * failing top level is left for the invocation to report.
   */
  prewarm(key: string): void {
    const load = this.loads.get(key);
    if (!load) return;
    const inst = this.current.get(key);
    if (inst && inst.routed) return;
    if (this.all.size >= this.warmIsolates) return;
    this.create(load).startReported = true;
  }

  private create(load: Load): Instance {
    const isolate = new ivm.Isolate({
      memoryLimit: load.memoryMb,
      // A large single allocation (a Map or dictionary doubling) can overshoot ivm's soft limit
      // into a V8 fatal OOM. ivm says the process is then unsound: answer the culprit's
      // invocations and die; the supervisor restarts the worker, other workers are untouched.
      onCatastrophicError: (message) => {
        const memory = /memory/i.test(message);
        const text = memory
          ? `Function '${load.name}' exceeded its memory limit of ${load.memoryMb} MB`
          : `isolate of '${load.name}' failed: ${message}`;
        let items = '';
        for (const id of inst.inflight.keys()) items += (items ? ',' : '') + item(id, memory ? 'function_memory_limit' : 'function_crashed', text);
        this.fatal(items);
      },
    });
    const inst: Instance = {
      load,
      isolate,
      dispatch: null,
      applies: 0,
      sync: !this.asyncOnly.has(load.k),
      slowCalls: 0,
      ready: Promise.resolve(),
      sandbox: null,
      routed: true,
      dead: false,
      killedFor: null,
      inflight: new Map(),
      traces: null,
      answered: new Set(),
      idleCpu: null,
      lastHeapCheck: Date.now(),
      lastUsed: Date.now(),
      createdAt: performance.now(),
      initMs: null,
      // A prewarmed isolate's start was paid before any call: its first call is warm.
      startReported: false,
    };
    inst.ready = this.boot(inst).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      let failure: StartFailure;
      if (inst.killedFor === 'function_memory_limit' || /memory limit/.test(message)) {
        failure = { code: 'function_memory_limit', message: `Function '${load.name}' exceeded its memory limit of ${load.memoryMb} MB while starting` };
      } else if (inst.killedFor === 'function_timeout' || /timed out/.test(message)) {
        failure = { code: 'function_timeout', message: `Function '${load.name}' timed out after ${load.timeoutMs} ms while running its top-level code` };
      } else {
        failure = { code: 'function_error', message };
      }
      // Retry from scratch on the next call: the top level may be non-deterministic.
      this.dispose(inst);
      throw failure;
    });
    inst.ready.catch(() => undefined);
    this.current.set(load.k, inst);
    this.all.add(inst);
    this.created++;
    this.counted();
    return inst;
  }

  private async boot(inst: Instance): Promise<void> {
    const { isolate, load } = inst;
    const { dispatch, sandbox } = await prepare(isolate, load.code, load.env, load.timeoutMs, this.allowPrivateTargets, {
      name: load.name,
      setup: dispatcherSetup(load.handler, load.version, load.memoryMb),
      deliver: (text: unknown) => this.settled(inst, text),
      onEmit: (event: string, dataJson: string, application?: string) => {
        const refusal = this.refuseEmit(event, dataJson);
        if (refusal === undefined) this.publish(load.name, event, dataJson, application, this.traceOf(inst));
        return refusal;
      },
      trace: this.fetched === undefined ? undefined : { current: () => this.traceOf(inst), fetched: this.fetched },
      // Off, the fast path never reads the count: its sends stay fire-and-forget.
      countEntries: this.syncCalls,
    });
    inst.sandbox = sandbox;
    inst.initMs = performance.now() - inst.createdAt;
    if (inst.dead) {
      sandbox.dispose();
      throw new Error('isolate disposed while starting');
    }
    inst.dispatch = dispatch;
    // Calls that failed while it started (none, usually) may have left it idle already.
    if (inst.inflight.size === 0) this.settle(inst);
  }

  /** `before`: the isolate's CPU time when the synchronous call began. */
  private checkSlice(inst: Instance, before: bigint | null): void {
    const now = cpuTimeOf(inst);
    // A disposed isolate (memory limit) reads null: its calls were answered, a new isolate may try again.
    if (before === null || now === null) return;
    if (now - before <= this.syncSliceNs) {
      inst.slowCalls = 0;
      return;
    }
    if (++inst.slowCalls < SYNC_SLOW_STREAK) return;
    this.takeOffFastPath(inst, `used over ${Number(this.syncSliceNs / 1_000_000n)} ms of CPU in ${SYNC_SLOW_STREAK} synchronous calls in a row`);
  }

  private takeOffFastPath(inst: Instance, why: string): void {
    inst.sync = false;
    this.asyncOnly.add(inst.load.k);
    this.log('info', `${inst.load.k} ${why}; its calls take the asynchronous path from now on`);
  }

  private arm(batch: Batch): void {
    batch.timer = setTimeout(() => this.deadline(batch), Math.max(0, batch.deadline - Date.now()));
  }

  private canRunSync(inst: Instance): boolean {
    return this.syncCalls && inst.sync && inst.applies === 0 && inst.sandbox !== null && inst.sandbox.entering() === 0;
  }

  private run(inst: Instance, batch: Batch, payload: string): void {
    if (inst.dead || !inst.dispatch) return; // the batch was already answered when it died
    this.counts.async += batch.ids.length;
    batch.applying = true;
    inst.applies++;
    inst.dispatch.apply(undefined, [payload, 0], { result: { promise: true } }).then(
      (text) => {
        inst.applies--;
        batch.applying = false;
        this.settled(inst, text);
        this.checkHeap(inst, false);
      },
      (err: unknown) => {
        inst.applies--;
        batch.applying = false;
        this.applyFailed(inst, batch, err);
      },
    );
  }

  /**
   * The fast path: the batch in one `applySync` under the function's time limit, which
   * covers the microtasks isolated-vm drains before returning; a batch that did not finish
   * in the handlers' own synchronous code is read out with a second, trivial call (mode 2).
   */
  private runSync(inst: Instance, batch: Batch, payload: string): void {
    const dispatch = inst.dispatch!;
    let text: string | null;
    const cpu = cpuTimeOf(inst);
    let limit = batch.deadline - Date.now();
    try {
      text = dispatch.applySync(undefined, [payload, 1], { timeout: Math.max(1, limit) }) as string | null;
      if (text === null) {
        limit = batch.deadline - Date.now();
        text = dispatch.applySync(undefined, ['', 2], { timeout: Math.max(1, limit) }) as string | null;
      }
    } catch (err) {
      this.counts.async += batch.ids.length;
      // ivm's own words for its time limit; a rejection the function left unhandled could say
      // the same, but not before its time was up.
      if (err instanceof Error && err.message === 'Script execution timed out.' && Date.now() >= batch.deadline - 1 && !inst.isolate.isDisposed) {
        const { name, timeoutMs } = inst.load;
        this.takeOffFastPath(inst, `ran past its time limit of ${timeoutMs} ms`);
        this.kill(inst, 'function_timeout', `Function '${name}' timed out after ${timeoutMs} ms`);
      } else {
        this.checkSlice(inst, cpu);
        this.applyFailed(inst, batch, err);
      }
      return;
    }
    this.checkSlice(inst, cpu);
    const left = batch.left;
    this.settled(inst, text);
    if (inst.dead) {
      this.counts.async += left;
      return;
    }
    this.counts.sync += left - batch.left;
    this.counts.async += batch.left;
    if (batch.left > 0) this.arm(batch);
    this.checkHeap(inst, inst.applies === 0);
  }

  /** `text` is what the isolate returned or delivered: one ResultItem JSON per line, if it plays by the rules. */
  private settled(inst: Instance, text: unknown): void {
    if (inst.dead) return; // its calls were answered when it died
    const { name } = inst.load;
    const verdict = readIsolateOutput(
      text,
      inst.inflight,
      inst.answered,
      `Function '${name}' returned a result nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`,
    );
    if (!verdict.ok) {
      this.log('warn', `isolate of ${inst.load.k} produced output the worker cannot accept (${verdict.reason}); discarding it`);
      this.kill(inst, 'function_crashed', `Function '${name}' produced output the runtime cannot accept; its isolate was discarded`);
      return;
    }
    if (verdict.late) for (const id of verdict.late) inst.answered.delete(id);
    // Before forget: it drops the calls' trace contexts, which say what 'sampled' reports.
    const reports = this.runReports === 'none' || verdict.text === '' ? '' : this.reportsOf(inst, verdict.ids);
    for (const id of verdict.ids) this.forget(id);
    this.out(reports + verdict.text);
    this.settle(inst);
  }

  /**
   * RunReportItems for these answers (all, or in 'sampled' those of a sampled trace), each followed
   * by a comma: the first call of a new isolate carries its start time, reported or not, so a later
   * sampled call is not taken for the cold one.
   */
  private reportsOf(inst: Instance, ids: number[]): string {
    let heapMb = -1;
    let text = '';
    for (const id of ids) {
      const initMs = !inst.startReported && inst.initMs !== null ? Math.round(inst.initMs * 100) / 100 : -1;
      inst.startReported = true;
      if (this.runReports === 'sampled') {
        const trace = inst.traces?.get(id);
        if (trace === undefined || !isSampledCarrier(trace)) continue;
      }
      if (heapMb < 0) heapMb = heapMbOf(inst);
      text += `{"i":${id},"rep":[${initMs},${heapMb}]},`;
    }
    return text;
  }

  /**
   * The trace context a fetch or emit of this isolate belongs to: that of its
   * one invocation in flight. With several in flight the host cannot tell
   * whose it is (they share the isolate's event loop), so it belongs to none.
   */
  private traceOf(inst: Instance): TraceCarrier | undefined {
    const traces = inst.traces;
    if (traces === null || traces.size !== 1 || inst.inflight.size !== 1) return undefined;
    return traces.values().next().value;
  }

  private forget(id: number): boolean {
    const batch = this.inflight.get(id);
    if (!batch) return false;
    this.inflight.delete(id);
    batch.inst.inflight.delete(id);
    batch.inst.traces?.delete(id);
    if (--batch.left === 0 && batch.timer !== null) clearTimeout(batch.timer);
    return true;
  }

  /** After answers went out: an instance with nothing left in flight goes idle, or away if draining. */
  private settle(inst: Instance): void {
    if (inst.dead || inst.inflight.size > 0) return;
    if (!inst.routed) {
      this.dispose(inst);
      return;
    }
    if (inst.idleCpu !== null || !inst.sandbox) return;
    inst.sandbox.setActive(false);
    inst.idleCpu = cpuTimeOf(inst) ?? 0n;
    this.idle.add(inst);
    for (const oldest of this.idle) {
      if (this.idle.size <= this.warmIsolates) break;
      this.dispose(oldest);
    }
  }

  private failBatch(batch: Batch, code: InvocationErrorCode, message: string): void {
    let items = '';
    const inst = batch.inst;
    for (const id of batch.ids) {
      if (this.inflight.get(id) === batch && this.forget(id)) {
        items += (items ? ',' : '') + item(id, code, message);
        if (!inst.dead) inst.answered.add(id);
      }
    }
    if (items) this.out(items);
  }

  private deadline(batch: Batch): void {
    const inst = batch.inst;
    const { name, timeoutMs } = inst.load;
    this.failBatch(batch, 'function_timeout', `Function '${name}' timed out after ${timeoutMs} ms`);
    if (inst.dead) return;
    if (batch.applying || !inst.dispatch) {
      // Still running synchronously (an endless loop, or a top level that never ends): nothing
      // else can run in this isolate, so its other invocations fail too.
      this.kill(inst, 'function_timeout', `Function '${name}' timed out after ${timeoutMs} ms`);
    } else {
      // Only awaiting: let the other invocations finish, route new ones to a fresh isolate.
      this.drain(inst);
    }
  }

  private applyFailed(inst: Instance, batch: Batch, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    if (inst.killedFor) return; // answered by kill()
    if (inst.isolate.isDisposed || /disposed/.test(message)) {
      const memory = /memory limit/.test(message);
      const { name, memoryMb } = inst.load;
      this.kill(
        inst,
        memory ? 'function_memory_limit' : 'function_crashed',
        memory ? `Function '${name}' exceeded its memory limit of ${memoryMb} MB` : `isolate of '${name}' was disposed: ${message}`,
      );
      return;
    }
    this.failBatch(batch, 'function_error', message);
    // The dispatcher itself threw (user code broke a builtin it cannot do without):
    // new calls go to a fresh isolate, this one goes once its other calls are done.
    this.drain(inst);
  }

  /**
   * `sync`: the caller has just left the isolate on this thread and nothing else runs in it,
   * so the statistics are read at once. An asynchronous read holds `applies` up until ivm's
   * thread answers, and any call arriving meanwhile would miss the fast path.
   */
  private checkHeap(inst: Instance, sync: boolean): void {
    const now = Date.now();
    if (now - inst.lastHeapCheck < HEAP_CHECK_EVERY_MS || inst.dead) return;
    inst.lastHeapCheck = now;
    if (sync) {
      let st: ivm.HeapStatistics;
      try {
        st = inst.isolate.getHeapStatisticsSync();
      } catch {
        return; // disposed meanwhile (memory limit): its calls were answered
      }
      this.heapChecked(inst, st);
      return;
    }
    inst.applies++;
    inst.isolate.getHeapStatistics().then(
      (st) => {
        inst.applies--;
        this.heapChecked(inst, st);
      },
      () => void inst.applies--,
    );
  }

  private heapChecked(inst: Instance, st: ivm.HeapStatistics): void {
    const limit = inst.load.memoryMb * 1024 * 1024 * HEAP_MARGIN;
    if (!inst.dead && st.used_heap_size + st.externally_allocated_size > limit) {
      const { name, memoryMb } = inst.load;
      this.kill(inst, 'function_memory_limit', `Function '${name}' exceeded its memory limit of ${memoryMb} MB`);
    }
  }

  /** Fails every in-flight invocation of `inst` and disposes it now. */
  private kill(inst: Instance, code: InvocationErrorCode, message: string): void {
    if (inst.dead) return;
    inst.killedFor = code;
    const batches = new Set<Batch>();
    for (const id of inst.inflight.keys()) {
      const b = this.inflight.get(id);
      if (b) batches.add(b);
    }
    for (const b of batches) this.failBatch(b, code, message);
    this.dispose(inst);
  }

  /** Fails every invocation in flight on this worker (it is about to restart). */
  failAll(code: InvocationErrorCode, message: string): void {
    for (const inst of [...this.all]) this.kill(inst, code, message);
    const batches = new Set(this.inflight.values());
    for (const b of batches) this.failBatch(b, code, message);
  }

  private drain(inst: Instance): void {
    inst.routed = false;
    if (this.current.get(inst.load.k) === inst) this.current.delete(inst.load.k);
    if (inst.inflight.size === 0) this.dispose(inst);
  }

  private dispose(inst: Instance): void {
    if (inst.dead) return;
    inst.dead = true;
    inst.routed = false;
    if (this.current.get(inst.load.k) === inst) this.current.delete(inst.load.k);
    this.all.delete(inst);
    this.idle.delete(inst);
    this.counted();
    try {
      inst.sandbox?.dispose();
    } catch (err) {
      this.log('warn', `sandbox dispose failed for ${inst.load.k}: ${String(err)}`);
    }
    inst.dispatch?.release();
    if (!inst.isolate.isDisposed) inst.isolate.dispose();
  }

  private overIdleBudget(inst: Instance): boolean {
    if (inst.idleCpu === null) return false;
    const now = cpuTimeOf(inst);
    return now !== null && now - inst.idleCpu > BigInt(IDLE_CPU_BUDGET_MS) * 1_000_000n;
  }

  private watchIdleCpu(): void {
    for (const inst of this.all) if (!inst.dead && this.overIdleBudget(inst)) this.discardBusyIdle(inst);
  }

  private discardBusyIdle(inst: Instance): void {
    this.log('warn', `isolate of ${inst.load.k} used over ${IDLE_CPU_BUDGET_MS} ms of CPU after its last invocation ended; discarding it`);
    this.dispose(inst);
  }

  private disposeIdle(): void {
    const cutoff = Date.now() - IDLE_DISPOSE_MS;
    for (const inst of this.all) if (inst.inflight.size === 0 && inst.lastUsed < cutoff) this.dispose(inst);
  }

  /** Counts for tests and stats. */
  callCounts(): CallCounts {
    return { ...this.counts };
  }

  isolateCount(): number {
    return this.all.size;
  }

  /** The memory limits (MB) of the isolates alive now, for the worker's RSS bound. */
  memoryLimitsMb(): number[] {
    return [...this.all].map((inst) => inst.load.memoryMb);
  }

  close(): void {
    clearInterval(this.idleTimer);
    clearInterval(this.cpuWatchdog);
    for (const inst of [...this.all]) this.dispose(inst);
  }
}
