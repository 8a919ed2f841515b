/**
 * Worker side: one warm isolate per function version (`name@version`),
 * created on first use, compiled once, serving concurrent batches. Enforces the
 * wall-clock time limit (one host timer per batch) and the memory limit (ivm's
 * soft limit plus a heap check), and drains/disposes isolates of retired
 * versions. Results leave through `out(itemsText)`: comma-joined ResultItem
 * JSON, which worker.ts coalesces into frames; the sandbox's `emit` events
 * leave through `publish(functionName, event, dataJson)`.
 */
import ivm from 'isolated-vm';
import { installSandbox } from './sandbox/index.js';
import { DISPATCHER_SOURCE } from './dispatcher.js';
import { USER_FILENAME, type ToWorker } from './protocol.js';
import type { InvocationErrorCode } from '../errors.js';

type Load = Extract<ToWorker, { t: 'load' }>;

/** Prefix and suffix around user code; the prefix shares line 1 so line numbers stay the user's. */
const WRAP_HEAD = '(function (exports, module) {';
const WRAP_TAIL = '\n})';
/** ivm's memory limit is soft: dispose an isolate whose heap grew past limit * this. */
const HEAP_MARGIN = 1.25;
const HEAP_CHECK_EVERY_MS = 200;
const IDLE_DISPOSE_MS = 10 * 60_000;

interface StartFailure {
  code: InvocationErrorCode;
  message: string;
}

interface Batch {
  inst: Instance;
  ids: number[];
  left: number;
  timer: NodeJS.Timeout;
  /** Its `dispatch` apply has not returned: at the deadline, the isolate is stuck in sync code. */
  applying: boolean;
}

interface Instance {
  load: Load;
  isolate: ivm.Isolate;
  /** Set once init succeeded. */
  dispatch: ivm.Reference<(payload: string) => string | Promise<string>> | null;
  ready: Promise<void>;
  sandbox: { dispose(): void } | null;
  /** Accepting new batches; false once draining or dead. */
  routed: boolean;
  dead: boolean;
  /** Why ivm disposed the isolate under us, if we did it ourselves. */
  killedFor: InvocationErrorCode | null;
  inflight: Set<number>;
  lastHeapCheck: number;
  lastUsed: number;
}

export interface CompileError {
  message: string;
  line?: number;
  column?: number;
}

/** Parses ivm's `Message [function.js:3:7]` suffix, correcting line 1's column for the wrapper. */
export function compileErrorOf(err: unknown): CompileError {
  const raw = err instanceof Error ? err.message : String(err);
  const m = /^(.*) \[[^\]]*:(\d+):(\d+)\]$/s.exec(raw);
  if (!m) return { message: raw };
  const line = Number(m[2]);
  let column = Number(m[3]);
  if (line === 1) column = Math.max(1, column - WRAP_HEAD.length);
  const name = err instanceof Error && err.name ? err.name : 'SyntaxError';
  return { message: `${name}: ${m[1]}`, line, column };
}

const item = (id: number, code: InvocationErrorCode, message: string): string =>
  `{"i":${id},"ok":0,"c":"${code}","m":${JSON.stringify(message)},"l":[]}`;

export class IsolateHost {
  private readonly loads = new Map<string, Load>();
  /** The instance new batches of a key go to. */
  private readonly current = new Map<string, Instance>();
  private readonly all = new Set<Instance>();
  private readonly inflight = new Map<number, Batch>();
  private readonly idleTimer: NodeJS.Timeout;

  constructor(
    private readonly allowPrivateTargets: boolean,
    private readonly out: (items: string) => void,
    private readonly log: (level: 'info' | 'warn' | 'error', msg: string) => void,
    /** Must send `items` synchronously and end the process: V8 is no longer sound. */
    private readonly fatal: (items: string) => never,
    private readonly publish: (functionName: string, event: string, dataJson: string) => void = () => undefined,
  ) {
    this.idleTimer = setInterval(() => this.disposeIdle(), 60_000);
    this.idleTimer.unref();
  }

  load(msg: Load): void {
    this.loads.set(msg.k, msg);
    // A newer version supersedes older ones: they finish in-flight work, then go.
    this.retire(msg.name, msg.version);
  }

  retire(name: string, keep: number | null): void {
    for (const [key, load] of this.loads) {
      if (load.name === name && (keep === null || load.version < keep)) this.loads.delete(key);
    }
    for (const inst of this.all) {
      if (inst.load.name === name && (keep === null || inst.load.version < keep)) this.drain(inst);
    }
  }

  /**
   * One batch. The isolate re-reads ids and request ids from the same header
   * (plus the deadline spliced in here) and parses the events body itself.
   */
  invoke(key: string, ids: number[], headText: string, body: string): void {
    const load = this.loads.get(key);
    if (!load) {
      let items = '';
      for (const id of ids) items += (items ? ',' : '') + item(id, 'function_crashed', `worker has no code for ${key}`);
      this.out(items);
      return;
    }
    let inst = this.current.get(key);
    if (!inst || !inst.routed) inst = this.create(load);
    inst.lastUsed = Date.now();
    const batch: Batch = { inst, ids, left: ids.length, applying: false, timer: setTimeout(() => this.deadline(batch), load.timeoutMs) };
    for (const id of ids) {
      this.inflight.set(id, batch);
      inst.inflight.add(id);
    }
    const target = inst;
    const payload = headText.slice(0, -1) + ',"dl":' + (Date.now() + load.timeoutMs) + '}\n' + body;
    if (target.dispatch) this.run(target, batch, payload);
    else target.ready.then(
      () => this.run(target, batch, payload),
      (f: StartFailure) => this.failBatch(batch, f.code, f.message),
    );
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
        for (const id of inst.inflight) items += (items ? ',' : '') + item(id, memory ? 'function_memory_limit' : 'function_crashed', text);
        this.fatal(items);
      },
    });
    const inst: Instance = {
      load,
      isolate,
      dispatch: null,
      ready: Promise.resolve(),
      sandbox: null,
      routed: true,
      dead: false,
      killedFor: null,
      inflight: new Set(),
      lastHeapCheck: Date.now(),
      lastUsed: Date.now(),
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
    return inst;
  }

  private async boot(inst: Instance): Promise<void> {
    const { isolate, load } = inst;
    const { dispatch, sandbox } = await prepare(isolate, load.code, load.env, load.timeoutMs, this.allowPrivateTargets, {
      name: load.name,
      deliver: (text: string) => this.settled(inst, text),
      onEmit: (event: string, dataJson: string) => this.publish(load.name, event, dataJson),
    });
    inst.sandbox = sandbox;
    if (inst.dead) {
      sandbox.dispose();
      throw new Error('isolate disposed while starting');
    }
    inst.dispatch = dispatch;
  }

  private run(inst: Instance, batch: Batch, payload: string): void {
    if (inst.dead || !inst.dispatch) return; // the batch was already answered when it died
    batch.applying = true;
    inst.dispatch.apply(undefined, [payload], { result: { promise: true } }).then(
      (text) => {
        batch.applying = false;
        this.settled(inst, text as string);
        this.checkHeap(inst);
      },
      (err: unknown) => {
        batch.applying = false;
        this.applyFailed(inst, batch, err);
      },
    );
  }

  /** `text` is `id,id\nitem,item` from the dispatcher. */
  private settled(inst: Instance, text: string): void {
    const nl = text.indexOf('\n');
    if (nl > 0) {
      for (const s of text.slice(0, nl).split(',')) this.forget(Number(s));
      this.out(text.slice(nl + 1));
    }
    if (!inst.routed && inst.inflight.size === 0) this.dispose(inst);
  }

  private forget(id: number): boolean {
    const batch = this.inflight.get(id);
    if (!batch) return false;
    this.inflight.delete(id);
    batch.inst.inflight.delete(id);
    if (--batch.left === 0) clearTimeout(batch.timer);
    return true;
  }

  private failBatch(batch: Batch, code: InvocationErrorCode, message: string): void {
    let items = '';
    for (const id of batch.ids) {
      if (this.inflight.get(id) === batch && this.forget(id)) items += (items ? ',' : '') + item(id, code, message);
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
  }

  private checkHeap(inst: Instance): void {
    const now = Date.now();
    if (now - inst.lastHeapCheck < HEAP_CHECK_EVERY_MS || inst.dead) return;
    inst.lastHeapCheck = now;
    inst.isolate.getHeapStatistics().then(
      (st) => {
        const limit = inst.load.memoryMb * 1024 * 1024 * HEAP_MARGIN;
        if (!inst.dead && st.used_heap_size + st.externally_allocated_size > limit) {
          const { name, memoryMb } = inst.load;
          this.kill(inst, 'function_memory_limit', `Function '${name}' exceeded its memory limit of ${memoryMb} MB`);
        }
      },
      () => undefined,
    );
  }

  /** Fails every in-flight invocation of `inst` and disposes it now. */
  private kill(inst: Instance, code: InvocationErrorCode, message: string): void {
    if (inst.dead) return;
    inst.killedFor = code;
    const batches = new Set<Batch>();
    for (const id of inst.inflight) {
      const b = this.inflight.get(id);
      if (b) batches.add(b);
    }
    for (const b of batches) this.failBatch(b, code, message);
    this.dispose(inst);
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
    try {
      inst.sandbox?.dispose();
    } catch (err) {
      this.log('warn', `sandbox dispose failed for ${inst.load.k}: ${String(err)}`);
    }
    inst.dispatch?.release();
    if (!inst.isolate.isDisposed) inst.isolate.dispose();
  }

  private disposeIdle(): void {
    const cutoff = Date.now() - IDLE_DISPOSE_MS;
    for (const inst of this.all) if (inst.inflight.size === 0 && inst.lastUsed < cutoff) this.dispose(inst);
  }

  /** Counts for tests and stats. */
  isolateCount(): number {
    return this.all.size;
  }

  close(): void {
    clearInterval(this.idleTimer);
    for (const inst of [...this.all]) this.dispose(inst);
  }
}

/**
 * Context + sandbox + dispatcher + user code: shared by warm isolates and by
 * validation. Throws a SyntaxError-like error (see compileErrorOf) when the
 * code does not compile, or an Error whose message explains a top-level failure.
 */
export async function prepare(
  isolate: ivm.Isolate,
  code: string,
  env: Record<string, string>,
  timeoutMs: number,
  allowPrivateTargets: boolean,
  opts: {
    name: string;
    /** Receives results that settle after `dispatch` returned (see dispatcher.ts). */
    deliver: (text: string) => void;
    /** The sandbox's `emit`; absent in validation isolates, whose emits are dropped. */
    onEmit?: (event: string, dataJson: string) => void;
  },
): Promise<{ dispatch: ivm.Reference<(payload: string) => string>; sandbox: { dispose(): void } }> {
  const context = await isolate.createContext();
  const sandbox = await installSandbox(isolate, context, { env, allowPrivateTargets, onEmit: opts.onEmit });
  try {
    const deliverRef = new ivm.Reference(opts.deliver);
    const init = await context.evalClosure(DISPATCHER_SOURCE, [deliverRef, opts.name], {
      result: { reference: true },
    });
    let script: ivm.Script;
    try {
      script = await isolate.compileScript(WRAP_HEAD + code + WRAP_TAIL, { filename: USER_FILENAME });
    } catch (err) {
      throw new UserCompileError(compileErrorOf(err));
    }
    const factory = await script.run(context, { reference: true, timeout: timeoutMs });
    script.release();
    const dispatch = (await init.apply(undefined, [factory.derefInto()], {
      timeout: timeoutMs,
      result: { reference: true },
    })) as ivm.Reference<(payload: string) => string>;
    init.release();
    factory.release();
    return { dispatch, sandbox };
  } catch (err) {
    sandbox.dispose();
    throw err;
  }
}

export class UserCompileError extends Error {
  constructor(readonly detail: CompileError) {
    super(detail.line ? `${detail.message} (line ${detail.line}, column ${detail.column})` : detail.message);
  }
}
