/**
 * Main-process side of one supervised worker process: spawns it, restarts it
 * with backoff when it dies (failing its in-flight invocations with
 * `function_crashed`, queueing new ones meanwhile), tracks which function
 * versions it has loaded, and micro-batches invocations: every invocation of
 * one version requested in the same event-loop turn goes out in one frame.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import { FrameDecoder, encodeFrame, splitFrame } from './framing.js';
import { loadMessage, runStatsOf, versionKey, type FromWorker, type ResultItem, type RunReportItem, type ToWorker } from './protocol.js';
import type { Logger } from '../types.js';
import type { EmitRule } from './emit-rules.js';
import type { FetchSpanRecord, TraceCarrier } from '../telemetry/types.js';
import type { DeployedFunction, InvokeOutcome, RunStats, TransformOutcome, ValidateOutcome } from './types.js';

export interface WorkerHandleDeps {
  index: number;
  /** The worker's script and its arguments. */
  script: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  logger?: Logger;
  /** False sends every invocation in its own frame and isolate call (benchmark comparison only). */
  batching?: boolean;
  onEmit?: (functionName: string, event: string, dataJson: string, application?: string, trace?: TraceCarrier) => void;
  onFetchSpan?: (record: FetchSpanRecord) => void;
}

/** Extra time the main process grants a worker past a function's own deadline before killing it. */
const SAFETY_MARGIN_MS = 2000;
const BACKOFF_MIN_MS = 100;
const BACKOFF_MAX_MS = 5000;
/** A worker that stayed up this long restarts with the minimum backoff again. */
const STABLE_AFTER_MS = 30_000;
/** How long a stopped worker may take to exit after its channel closes before it is killed. */
const STOP_TIMEOUT_MS = 2000;
/** How long a transformation's run or check may wait for its worker's answer (its own bound is 100 ms; a first run also builds the isolate). */
const TRANSFORM_ANSWER_MS = 10_000;

interface Batch {
  fn: DeployedFunction;
  ids: number[];
  rids: string[];
  /** Each call's trace context; null while none of the batch has one (tracing off). */
  traces: (TraceCarrier | null)[] | null;
  events: string[];
  left: number;
  /** Written to the current worker process; unsent batches survive a restart. */
  sent: boolean;
  timer: NodeJS.Timeout | null;
}

interface Pending {
  resolve: (o: InvokeOutcome) => void;
  start: number;
  batch: Batch;
  stats?: RunStats;
}

type Outgoing = { kind: 'batch'; batch: Batch } | { kind: 'frame'; msg: ToWorker } | { kind: 'warm'; fn: DeployedFunction };

const ms = (start: number) => Math.round((performance.now() - start) * 100) / 100;

export class WorkerHandle {
  restarts = 0;
  /** Isolates alive in the current worker process, and created by every process of this slot so far (its `iso` frames). */
  isolates = 0;
  coldStarts = 0;
  private coldStartsBefore = 0;
  private child: ChildProcess | null = null;
  private channel: net.Socket | null = null;
  private startedAt = 0;
  private backoff = BACKOFF_MIN_MS;
  private restartTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  /** False once the worker announced it is dying: new work waits for its successor. */
  private accepting = false;
  private exited: Promise<void> = Promise.resolve();
  private readonly loaded = new Set<string>();
  private readonly pending = new Map<number, Pending>();
  private readonly validations = new Map<
    number,
    { resolve: (o: ValidateOutcome) => void; timer: NodeJS.Timeout; sent: boolean }
  >();
  /** Transformation runs and checks awaiting the worker's answer (`sent`: written to the current process). */
  private readonly transforms = new Map<
    number,
    { resolve: (o: TransformOutcome) => void; hash: string; code: string; input: string; timer: NodeJS.Timeout; sent: boolean }
  >();
  private readonly transformChecks = new Map<number, { resolve: (o: ValidateOutcome) => void; timer: NodeJS.Timeout; sent: boolean }>();
  /** Transformation hashes whose code this worker process was sent. */
  private readonly loadedTransforms = new Set<string>();
  /** In order; written at the end of the turn, or on restart when the worker is down. */
  private outbox: Outgoing[] = [];
  private readonly open = new Map<string, Batch>();
  private flushScheduled = false;
  /** The last emit-rules frame, sent first to every process this handle starts. */
  private emitRules: Extract<ToWorker, { t: 'emit-rules' }> | null = null;

  readonly index: number;
  private readonly script: string;
  private readonly args: string[];
  private readonly env: NodeJS.ProcessEnv;
  private readonly logger: Logger | undefined;
  private readonly batching: boolean;
  private readonly onEmit: ((functionName: string, event: string, dataJson: string, application?: string, trace?: TraceCarrier) => void) | undefined;
  private readonly onFetchSpan: ((record: FetchSpanRecord) => void) | undefined;

  constructor(deps: WorkerHandleDeps) {
    this.index = deps.index;
    this.script = deps.script;
    this.args = deps.args;
    this.env = deps.env;
    this.logger = deps.logger;
    this.batching = deps.batching ?? true;
    this.onEmit = deps.onEmit;
    this.onFetchSpan = deps.onFetchSpan;
    this.start();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** A worker process runs and takes calls (false while it starts again after an exit, or says it is dying). */
  get ready(): boolean {
    return this.child !== null && this.accepting;
  }

  get inflight(): number {
    return this.pending.size + this.validations.size + this.transforms.size + this.transformChecks.size;
  }

  invoke(fn: DeployedFunction, eventJson: string, requestId: string, id: number, trace: TraceCarrier | null = null): Promise<InvokeOutcome> {
    const key = versionKey(fn.name, fn.version);
    let batch = this.open.get(key);
    // `sent`: a restart can flush the outbox mid-turn; later calls then start a new batch.
    if (!batch || batch.sent || !this.batching) {
      batch = { fn, ids: [], rids: [], traces: null, events: [], left: 0, sent: false, timer: null };
      const b = batch;
      b.timer = setTimeout(() => this.overdue(b), fn.timeoutMs + SAFETY_MARGIN_MS);
      this.open.set(key, batch);
      this.outbox.push({ kind: 'batch', batch });
      this.schedule();
    }
    batch.ids.push(id);
    batch.rids.push(requestId);
    if (trace !== null || batch.traces !== null) {
      // Filled in only once a traced call joins: untraced batches carry no array.
      batch.traces ??= batch.ids.slice(0, -1).map(() => null);
      batch.traces.push(trace);
    }
    batch.events.push(typeof eventJson === 'string' && eventJson !== '' ? eventJson : 'null');
    batch.left++;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, start: performance.now(), batch: batch! });
    });
  }

  validate(
    code: string,
    limits: { timeoutMs: number; memoryMb: number; env: Record<string, string>; handler: string | null },
    id: number,
  ): Promise<ValidateOutcome> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.validations.delete(id);
        resolve({ ok: false, message: `top-level code did not finish within ${limits.timeoutMs} ms` });
        this.logger?.warn({ worker: this.index }, 'runtime worker did not answer a validation; killing it');
        this.child?.kill('SIGKILL');
      }, limits.timeoutMs + SAFETY_MARGIN_MS + 3000);
      this.validations.set(id, { resolve, timer, sent: false });
      this.outbox.push({ kind: 'frame', msg: { t: 'val', id, code, ...limits } });
      this.schedule();
    });
  }

  transform(hash: string, code: string, input: string, id: number): Promise<TransformOutcome> {
    return new Promise((resolve) => {
      // The worker bounds a run at a few tens of ms; this only catches a worker that stopped answering.
      const timer = setTimeout(() => {
        if (!this.transforms.delete(id)) return;
        resolve({ ok: false, code: 'transformation_error', message: 'the runtime worker did not answer the transformation' });
      }, TRANSFORM_ANSWER_MS);
      this.transforms.set(id, { resolve, hash, code, input, timer, sent: false });
      this.outbox.push({ kind: 'frame', msg: { t: 'xrun', id, h: hash, input } });
      this.schedule();
    });
  }

  validateTransformation(code: string, id: number): Promise<ValidateOutcome> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (!this.transformChecks.delete(id)) return;
        resolve({ ok: false, message: 'the runtime worker did not answer the check' });
      }, TRANSFORM_ANSWER_MS);
      this.transformChecks.set(id, { resolve, timer, sent: false });
      this.outbox.push({ kind: 'frame', msg: { t: 'xval', id, code } });
      this.schedule();
    });
  }

  setEmitRules(rules: EmitRule[]): void {
    this.emitRules = { t: 'emit-rules', rules };
    this.outbox.push({ kind: 'frame', msg: this.emitRules });
    this.schedule();
  }

  /** Ships the version's code if this process lacks it, then asks for its isolate (no invocation, no answer). */
  prewarm(fn: DeployedFunction): void {
    this.outbox.push({ kind: 'warm', fn });
    this.schedule();
  }

  retire(name: string, keep: number | null): void {
    this.outbox.push({ kind: 'frame', msg: { t: 'ret', name, keep } });
    this.schedule();
  }

  crashForTest(): void {
    this.outbox.push({ kind: 'frame', msg: { t: 'crash' } });
    this.schedule();
  }

  rssBoundForTest(mb: number): void {
    this.outbox.push({ kind: 'frame', msg: { t: 'rss', mb } });
    this.schedule();
  }

  /**
   * Stops the process for good (no restart): closes its channel, on which the
   * worker exits (it ignores signals), and kills it if it is still there after
   * STOP_TIMEOUT_MS.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const force = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      this.channel?.end();
      await this.exited;
      clearTimeout(force);
    }
    this.failAll('runtime closed', true);
  }

  private schedule(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // setImmediate, not a microtask: requests parsed in the same poll phase join one batch.
    setImmediate(() => {
      this.flushScheduled = false;
      this.open.clear();
      this.flush();
    });
  }

  private flush(): void {
    const channel = this.channel;
    if (!channel || !this.accepting || this.outbox.length === 0) return;
    const items = this.outbox;
    this.outbox = [];
    channel.cork();
    for (const item of items) {
      if (item.kind === 'frame') {
        if (item.msg.t === 'ret') this.forgetLoaded(item.msg.name, item.msg.keep);
        if (item.msg.t === 'val') {
          const v = this.validations.get(item.msg.id);
          if (v) v.sent = true;
          else continue;
        }
        if (item.msg.t === 'xrun') {
          const x = this.transforms.get(item.msg.id);
          if (!x) continue;
          x.sent = true;
          // The code travels once per worker process, with the first run that needs it.
          if (!this.loadedTransforms.has(x.hash)) {
            this.loadedTransforms.add(x.hash);
            item.msg = { ...item.msg, code: x.code };
          }
        }
        if (item.msg.t === 'xval') {
          const x = this.transformChecks.get(item.msg.id);
          if (!x) continue;
          x.sent = true;
        }
        channel.write(encodeFrame(JSON.stringify(item.msg)));
      } else if (item.kind === 'warm') {
        this.writeLoad(channel, item.fn);
        channel.write(encodeFrame(JSON.stringify({ t: 'warm', k: versionKey(item.fn.name, item.fn.version) } satisfies ToWorker)));
      } else {
        this.writeBatch(channel, item.batch);
      }
    }
    channel.uncork();
  }

  private writeBatch(channel: net.Socket, batch: Batch): void {
    const { fn } = batch;
    batch.sent = true;
    const key = versionKey(fn.name, fn.version);
    const ids = batch.ids.filter((id) => this.pending.has(id));
    if (ids.length === 0) return;
    this.writeLoad(channel, fn);
    let events = batch.events;
    let rids = batch.rids;
    let traces = batch.traces;
    if (ids.length !== batch.ids.length) {
      const keep = new Set(ids);
      events = batch.events.filter((_, i) => keep.has(batch.ids[i]));
      rids = batch.rids.filter((_, i) => keep.has(batch.ids[i]));
      traces = traces && traces.filter((_, i) => keep.has(batch.ids[i]));
    }
    const tps = traces === null ? '' : `,"tps":${JSON.stringify(traces)}`;
    const head = `{"t":"inv","k":${JSON.stringify(key)},"ids":[${ids.join(',')}],"rids":${JSON.stringify(rids)}${tps}}`;
    channel.write(encodeFrame(head + '\n[' + events.join(',') + ']'));
  }

  /** The `load` frame of a version, once per worker process. */
  private writeLoad(channel: net.Socket, fn: DeployedFunction): void {
    const key = versionKey(fn.name, fn.version);
    if (this.loaded.has(key)) return;
    channel.write(encodeFrame(JSON.stringify(loadMessage(fn))));
    this.loaded.add(key);
  }

  private forgetLoaded(name: string, keep: number | null): void {
    for (const key of this.loaded) {
      const at = key.lastIndexOf('@');
      if (key.slice(0, at) === name && (keep === null || Number(key.slice(at + 1)) < keep)) this.loaded.delete(key);
    }
  }

  /**
   * A batch outlived its deadline plus a margin. Sent: the worker is wedged, kill it.
   * Unsent: the worker has been restarting for that long; stop waiting for it.
   */
  private overdue(batch: Batch): void {
    batch.timer = null;
    const { name, timeoutMs } = batch.fn;
    if (!batch.sent) {
      for (const id of batch.ids) {
        if (this.pending.get(id)?.batch !== batch) continue;
        this.settle({ i: id, ok: 0, c: 'function_crashed', m: 'the runtime worker process is restarting; try again', l: [] });
      }
      return;
    }
    let late = 0;
    for (const id of batch.ids) {
      if (this.pending.get(id)?.batch !== batch) continue;
      late++;
      this.settle({ i: id, ok: 0, c: 'function_timeout', m: `Function '${name}' timed out after ${timeoutMs} ms`, l: [] });
    }
    if (late > 0) {
      this.logger?.error({ worker: this.index, function: name }, 'runtime worker missed a deadline; killing it');
      this.child?.kill('SIGKILL');
    }
  }

  private settle(item: ResultItem | RunReportItem): void {
    const p = this.pending.get(item.i);
    if (!p) return; // already answered (e.g. by the safety deadline)
    if ('rep' in item) {
      p.stats = runStatsOf(item);
      return;
    }
    this.pending.delete(item.i);
    if (--p.batch.left === 0 && p.batch.timer) clearTimeout(p.batch.timer);
    const outcome: InvokeOutcome = item.ok
      ? { ok: true, result: item.r, logs: item.l, durationMs: ms(p.start) }
      : { ok: false, error: { code: item.c, message: item.m }, logs: item.l, durationMs: ms(p.start) };
    if (p.stats !== undefined) outcome.stats = p.stats;
    p.resolve(outcome);
  }

  private onFrame(text: string): void {
    const [head, body] = splitFrame(text);
    const msg = JSON.parse(head) as FromWorker;
    switch (msg.t) {
      case 'emit':
        this.publish(msg.fn, msg.event, body, msg.app, msg.tp);
        return;
      case 'span':
        this.onFetchSpan?.(msg.s);
        return;
      case 'res':
        for (const item of msg.r) this.settle(item);
        return;
      case 'val': {
        const v = this.validations.get(msg.id);
        if (!v) return;
        this.validations.delete(msg.id);
        clearTimeout(v.timer);
        const { t: _t, id: _id, ...outcome } = msg;
        v.resolve(outcome);
        return;
      }
      case 'xres': {
        const x = this.transforms.get(msg.id);
        if (!x) return;
        if ('miss' in msg) {
          // The worker let the code go (its bound on warm transformations): send it again.
          this.loadedTransforms.delete(x.hash);
          x.sent = false;
          this.outbox.push({ kind: 'frame', msg: { t: 'xrun', id: msg.id, h: x.hash, input: x.input } });
          this.schedule();
          return;
        }
        this.transforms.delete(msg.id);
        clearTimeout(x.timer);
        x.resolve(msg.ok ? { ok: true, out: msg.out } : { ok: false, code: msg.c, message: msg.m });
        return;
      }
      case 'xval': {
        const x = this.transformChecks.get(msg.id);
        if (!x) return;
        this.transformChecks.delete(msg.id);
        clearTimeout(x.timer);
        const { t: _t, id: _id, ...outcome } = msg;
        x.resolve(outcome);
        return;
      }
      case 'dying':
        this.accepting = false;
        return;
      case 'iso':
        this.isolates = msg.n;
        this.coldStarts = this.coldStartsBefore + msg.c;
        return;
      case 'log':
        this.logger?.[msg.level]({ worker: this.index }, msg.msg);
        return;
    }
  }

  /** The receiver's failures stay its own: they must not read as a garbled worker stream. */
  private publish(fn: string, event: string, dataJson: string, application: string | undefined, trace: TraceCarrier | undefined): void {
    if (!this.onEmit) return;
    const fail = (err: unknown) =>
      this.logger?.warn({ worker: this.index, function: fn, event, err: String(err) }, 'onEmit failed for a function event');
    try {
      const r: unknown = this.onEmit(fn, event, dataJson, application, trace);
      // Typed void, but an async receiver must not leave an unhandled rejection behind.
      if (r && typeof (r as Promise<unknown>).then === 'function') (r as Promise<unknown>).then(undefined, fail);
    } catch (err) {
      fail(err);
    }
  }

  private start(): void {
    this.startedAt = Date.now();
    const child = spawn(process.execPath, ['--no-node-snapshot', this.script, ...this.args], {
      stdio: ['ignore', 'inherit', 'inherit', 'pipe'],
      env: this.env,
      // Its own process group: Ctrl-C on a terminal goes to this process only, which
      // stops the worker when its calls are done. (A signal to the whole cgroup, as
      // systemd sends, still reaches it: it ignores those, see worker-signals.ts.)
      detached: true,
    });
    this.child = child;
    const channel = child.stdio[3] as net.Socket;
    this.channel = channel;
    this.accepting = true;
    // Before anything queued for it: a successor must refuse what its predecessor refused.
    if (this.emitRules && !this.outbox.some((o) => o.kind === 'frame' && o.msg === this.emitRules)) {
      this.outbox.unshift({ kind: 'frame', msg: this.emitRules });
    }
    const decoder = new FrameDecoder((text) => {
      try {
        this.onFrame(text);
      } catch (err) {
        // A garbled stream means the worker cannot be trusted: restart it.
        this.logger?.error({ worker: this.index, err: String(err) }, 'runtime worker sent an unreadable frame; killing it');
        child.kill('SIGKILL');
      }
    });
    channel.on('data', (chunk: Buffer) => decoder.push(chunk));
    channel.on('error', () => undefined); // the exit handler reports the failure
    let done!: () => void;
    this.exited = new Promise((r) => (done = r));
    let gone = false;
    const onGone = (reason: string) => {
      if (gone) return;
      gone = true;
      done();
      this.onExit(child, reason);
    };
    child.on('exit', (code, signal) =>
      onGone(signal ? `worker process exited with signal ${signal}` : `worker process exited with code ${code}`),
    );
    child.on('error', (err) => onGone(`worker process failed: ${err.message}`));
    this.flush();
  }

  private onExit(child: ChildProcess, reason: string): void {
    if (this.child !== child) return;
    this.channel?.destroy();
    this.channel = null;
    this.child = null;
    this.loaded.clear();
    this.loadedTransforms.clear();
    this.failAll(reason, false);
    this.isolates = 0;
    this.coldStartsBefore = this.coldStarts;
    if (this.stopping) return;
    if (Date.now() - this.startedAt >= STABLE_AFTER_MS) this.backoff = BACKOFF_MIN_MS;
    const delay = this.backoff;
    this.backoff = Math.min(this.backoff * 2, BACKOFF_MAX_MS);
    this.restarts++;
    this.logger?.warn({ worker: this.index, reason, restartInMs: delay, restarts: this.restarts }, 'runtime worker exited; restarting');
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.start();
    }, delay);
  }

  /** Fails what the dead process had been sent (or everything); the rest waits for the restart. */
  private failAll(reason: string, unsentToo: boolean): void {
    for (const [id, p] of this.pending) {
      if (unsentToo || p.batch.sent) this.settle({ i: id, ok: 0, c: 'function_crashed', m: reason, l: [] });
    }
    for (const [id, v] of this.validations) {
      if (!unsentToo && !v.sent) continue;
      this.validations.delete(id);
      clearTimeout(v.timer);
      v.resolve({ ok: false, message: `validation could not finish: ${reason}` });
    }
    for (const [id, x] of this.transforms) {
      if (!unsentToo && !x.sent) continue;
      this.transforms.delete(id);
      clearTimeout(x.timer);
      x.resolve({ ok: false, code: 'transformation_error', message: reason });
    }
    for (const [id, x] of this.transformChecks) {
      if (!unsentToo && !x.sent) continue;
      this.transformChecks.delete(id);
      clearTimeout(x.timer);
      x.resolve({ ok: false, message: `the check could not finish: ${reason}` });
    }
  }
}
