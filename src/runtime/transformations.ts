/**
 * Worker side of webhook transformations (docs/webhooks.md, "Transformations"):
 * one warm isolate per transformation code hash, compiled once and reused,
 * and the write-time check of a transformation in a throwaway isolate.
 *
 * A transformation's isolate is barer than a function's: a plain context with
 * the language's own globals and a console that drops what it is given.
 * There is no sandbox at all (no `fetch`, `require`, `process`, timers,
 * `emit` or any host reference), so nothing it runs can leave the isolate but
 * its return value, which the main process checks (src/webhooks/transformation.ts).
 *
 * Limits: isolated-vm can only cut a run short by wall-clock time, so each
 * run gets RUN_WALL_MS of wall time (an endless loop stops there), and the
 * CPU it used, read from `isolate.cpuTime` around the run, must stay within
 * CPU_LIMIT_MS: a run past either fails with `transformation_cpu_limit`.
 * Memory: MEMORY_MB per isolate (ivm's limit).
 */
import ivm from 'isolated-vm';

/** The CPU a run may use (ms), read from the isolate's own CPU clock. */
export const CPU_LIMIT_MS = 10;
/**
 * The wall-clock time ivm stops a run at (ms): what stops an endless loop.
 * Ten times the CPU limit, so that honest code on a busy machine (its CPU
 * shared with other processes) is judged by the CPU it used, not cut short.
 */
export const RUN_WALL_MS = 100;
const MEMORY_MB = 32;
/** Warm transformation isolates per worker; past it the least recently used goes. */
const WARM_TRANSFORMS = 200;
/** What a run's JSON answer may weigh (the main process bounds the body more tightly). */
const MAX_OUTPUT_CHARS = 2 * 1024 * 1024;

export type TransformFailureCode = 'transformation_error' | 'transformation_cpu_limit';
export type TransformRunOutcome = { ok: true; out: string } | { ok: false; code: TransformFailureCode; message: string };
export type TransformCheck = { ok: true } | { ok: false; message: string; line?: number; column?: number };

/**
 * Runs in the isolate before the user's code, capturing what it needs so that
 * code overwriting `JSON` cannot change how its input is read. `install`
 * takes the user's module wrapper and finds the entry point: a function
 * `handler` declared at the top level (Svix's form), else the module's
 * `handler` export, its default export, or the module itself when it is a function.
 */
const RUNNER = `(() => {
  const parse = JSON.parse, stringify = JSON.stringify;
  const isThenable = (v) => v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function';
  let entry = null;
  globalThis.console = { log() {}, info() {}, warn() {}, error() {}, debug() {} };
  delete globalThis.WebAssembly;
  return {
    install(wrapper) {
      const module = { exports: {} };
      const own = wrapper(module, module.exports);
      const ex = module.exports;
      entry = typeof own === 'function' ? own
        : ex && typeof ex.handler === 'function' ? ex.handler
        : ex && typeof ex.default === 'function' ? ex.default
        : typeof ex === 'function' ? ex : null;
      if (!entry) throw new TypeError('no handler: declare function handler(webhook) or export one');
    },
    run(input) {
      const webhook = parse(input);
      const result = entry(webhook);
      if (isThenable(result)) throw new TypeError('the handler returned a Promise: transformations run synchronously');
      const text = stringify(result === undefined ? webhook : result);
      return text === undefined ? 'null' : text;
    },
  };
})()`;

const WRAP_HEAD = '(function (module, exports) {';
const WRAP_TAIL = '\n;return typeof handler === "function" ? handler : undefined;})';

interface Warm {
  isolate: ivm.Isolate;
  run: ivm.Reference<(input: string) => string>;
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.name && !err.message.startsWith(err.name) ? `${err.name}: ${err.message}` : err.message;
  return String(err);
}

/** ivm's `Message [file:line:col]` suffix, as a position in the user's code (line 1 less the wrapper). */
function positionOf(err: unknown): TransformCheck & { ok: false } {
  const raw = messageOf(err);
  const m = /^(.*) \[[^\]]*:(\d+):(\d+)\]$/s.exec(raw);
  if (!m) return { ok: false, message: raw };
  const line = Number(m[2]);
  let column = Number(m[3]);
  if (line === 1) column = Math.max(1, column - WRAP_HEAD.length);
  return { ok: false, message: m[1], line, column };
}

/** A new isolate with the user's code installed; throws what its compile or top level threw. */
async function build(code: string): Promise<Warm> {
  const isolate = new ivm.Isolate({ memoryLimit: MEMORY_MB });
  try {
    const context = await isolate.createContext();
    const runner = (await context.eval(RUNNER, { reference: true, timeout: RUN_WALL_MS })) as ivm.Reference<{
      install: unknown;
      run: unknown;
    }>;
    const install = (await runner.get('install', { reference: true })) as ivm.Reference<(w: unknown) => void>;
    const run = (await runner.get('run', { reference: true })) as ivm.Reference<(input: string) => string>;
    const script = await isolate.compileScript(WRAP_HEAD + code + WRAP_TAIL, { filename: 'transformation.js' });
    const wrapper = (await script.run(context, { reference: true, timeout: RUN_WALL_MS })) as ivm.Reference;
    // The top level runs here, under the same wall-clock bound as a run.
    await install.apply(undefined, [wrapper.derefInto()], { timeout: RUN_WALL_MS });
    wrapper.release();
    install.release();
    runner.release();
    return { isolate, run };
  } catch (err) {
    if (!isolate.isDisposed) isolate.dispose();
    throw err;
  }
}

const timedOut = (err: unknown) => /timed out/i.test(messageOf(err));

export class TransformationHost {
  /** Warm isolates by code hash, least recently used first; each with its code. */
  private readonly warm = new Map<string, Promise<Warm>>();
  private readonly codes = new Map<string, string>();

  /** False: the worker holds no code for `hash` (never sent, or evicted); the caller sends it again. */
  has(hash: string): boolean {
    return this.codes.has(hash);
  }

  remember(hash: string, code: string): void {
    this.codes.delete(hash);
    this.codes.set(hash, code);
    while (this.codes.size > WARM_TRANSFORMS) {
      const oldest = this.codes.keys().next().value as string;
      this.forget(oldest);
    }
  }

  private forget(hash: string): void {
    this.codes.delete(hash);
    const warm = this.warm.get(hash);
    this.warm.delete(hash);
    warm?.then((w) => w.isolate.isDisposed || w.isolate.dispose(), () => undefined);
  }

  private instance(hash: string, code: string): Promise<Warm> {
    let warm = this.warm.get(hash);
    if (warm) {
      this.warm.delete(hash);
      this.warm.set(hash, warm);
      return warm;
    }
    warm = build(code);
    warm.catch(() => this.warm.delete(hash));
    this.warm.set(hash, warm);
    return warm;
  }

  async run(hash: string, input: string): Promise<TransformRunOutcome> {
    const code = this.codes.get(hash);
    if (code === undefined) return { ok: false, code: 'transformation_error', message: 'the worker holds no code for this transformation' };
    let warm: Warm;
    try {
      warm = await this.instance(hash, code);
    } catch (err) {
      return timedOut(err)
        ? { ok: false, code: 'transformation_cpu_limit', message: `the top level ran past ${RUN_WALL_MS} ms of wall-clock time` }
        : { ok: false, code: 'transformation_error', message: messageOf(err) };
    }
    const before = warm.isolate.cpuTime;
    try {
      const out = await warm.run.apply(undefined, [input], { timeout: RUN_WALL_MS, result: { copy: true } });
      const cpuMs = Number(warm.isolate.cpuTime - before) / 1e6;
      if (cpuMs > CPU_LIMIT_MS) {
        return { ok: false, code: 'transformation_cpu_limit', message: `used ${cpuMs.toFixed(1)} ms of CPU, over the limit of ${CPU_LIMIT_MS} ms` };
      }
      if (typeof out !== 'string' || out.length > MAX_OUTPUT_CHARS) {
        return { ok: false, code: 'transformation_error', message: 'the handler returned more than 2 MiB of JSON' };
      }
      return { ok: true, out };
    } catch (err) {
      if (warm.isolate.isDisposed || timedOut(err)) {
        // A run cut short may have left the isolate mid-way through anything: start afresh next time.
        this.warm.delete(hash);
        if (!warm.isolate.isDisposed) warm.isolate.dispose();
      }
      if (timedOut(err)) {
        return { ok: false, code: 'transformation_cpu_limit', message: `stopped after ${RUN_WALL_MS} ms of wall-clock time (the CPU limit is ${CPU_LIMIT_MS} ms)` };
      }
      if (/memory limit/i.test(messageOf(err))) {
        return { ok: false, code: 'transformation_error', message: `the transformation went over its memory limit of ${MEMORY_MB} MB` };
      }
      return { ok: false, code: 'transformation_error', message: messageOf(err) };
    }
  }

  /** The memory limit of each warm isolate, for the worker's RSS bound (rss-watchdog.ts). */
  memoryLimitsMb(): number[] {
    return Array.from({ length: this.warm.size }, () => MEMORY_MB);
  }

  close(): void {
    for (const hash of [...this.codes.keys()]) this.forget(hash);
  }
}

/** The write-time check: compiles the code and runs its top level once in a throwaway isolate, then finds the entry point. */
export async function checkTransformation(code: string): Promise<TransformCheck> {
  try {
    const warm = await build(code);
    warm.isolate.dispose();
    return { ok: true };
  } catch (err) {
    if (timedOut(err)) return { ok: false, message: `the top level ran past ${RUN_WALL_MS} ms` };
    return positionOf(err);
  }
}
