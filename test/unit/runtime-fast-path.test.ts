// The synchronous fast path into isolates (src/runtime/isolate-host.ts): which calls take it,
// that its limits and answers are those of the asynchronous path, and that an isolate busy on
// isolated-vm's threads is never entered synchronously (which would stop this event loop).
// Real isolates in this process (the in-process runtime); its counts come from stats().
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSource } from '../../src/runtime/compile.js';
import { createInProcessRuntime } from '../../src/runtime/in-process.js';
import { SYNC_SLOW_STREAK } from '../../src/runtime/isolate-host.js';
import type { Runtime } from '../../src/runtime/pool.js';
import type { CallCounts, DeployedFunction, InvokeOutcome } from '../../src/runtime/types.js';

let rt: Runtime;
let slow: Runtime;
const emitted: string[] = [];
// Wider than the default 20 ms: on a loaded CI machine a quick call's isolate CPU (a collection
// included) once passed 20 ms and took the version off the fast path a call early.
const SLICE_MS = 100;

beforeAll(() => {
  rt = createInProcessRuntime({ allowPrivateTargets: false, syncSliceMs: SLICE_MS, onEmit: (_fn, event) => void emitted.push(event) });
  slow = createInProcessRuntime({ allowPrivateTargets: false, syncCalls: false });
});
afterAll(async () => {
  await rt.close(1000);
  await slow.close(1000);
});

async function fn(name: string, code: string, extra: Partial<DeployedFunction> = {}): Promise<DeployedFunction> {
  return { name, version: 1, compiled: (await compileSource(code, 'javascript', name)).compiled, env: {}, timeoutMs: 5000, memoryMb: 64, handler: null, ...extra };
}

const counts = (r: Runtime = rt): CallCounts => r.stats().workers[0].calls!;

/** The outcomes of `run`, and how the counts moved meanwhile. */
async function counted<T>(run: () => Promise<T>, r: Runtime = rt): Promise<{ out: T; sync: number; async: number }> {
  const before = counts(r);
  const out = await run();
  const after = counts(r);
  return { out, sync: after.sync - before.sync, async: after.async - before.async };
}

function okResult(out: InvokeOutcome): unknown {
  if (!out.ok) throw new Error(`expected ok, got ${out.error.code}: ${out.error.message}`);
  return out.result;
}

describe('the synchronous fast path', () => {
  it('answers a synchronous handler, and an async one awaiting only settled values, in the synchronous call', async () => {
    const plain = await fn('plain', `exports.handler = (e) => ({ n: e.n })`);
    const awaiting = await fn('awaits-settled', `exports.handler = async (e) => { await null; const v = await Promise.resolve(e.n); return { n: await (async () => v)() }; }`);
    // Each version's first call boots its isolate (the asynchronous path); the counts are the next ones'.
    okResult(await rt.invoke(plain, '{"n":0}', 'req_warm1'));
    okResult(await rt.invoke(awaiting, '{"n":0}', 'req_warm2'));
    const a = await counted(() => rt.invoke(plain, '{"n":1}', 'req_1'));
    expect(okResult(a.out)).toEqual({ n: 1 });
    expect([a.sync, a.async]).toEqual([1, 0]);
    const b = await counted(() => rt.invoke(awaiting, '{"n":2}', 'req_2'));
    expect(okResult(b.out)).toEqual({ n: 2 });
    expect([b.sync, b.async]).toEqual([1, 0]);
  });

  it('leaves a call awaiting a timer to the asynchronous path, answering its batch-mates synchronously', async () => {
    const f = await fn(
      'mixed',
      `exports.handler = async (e, ctx) => {
        console.log('start', e.n);
        if (e.wait) await new Promise((r) => setTimeout(r, 30));
        console.log('end', e.n);
        return { n: e.n, rid: ctx.requestId };
      }`,
    );
    okResult(await rt.invoke(f, '{"n":0}', 'req_warm'));
    // Invoked in one turn: one batch, one isolate call.
    const c = await counted(() =>
      Promise.all([
        rt.invoke(f, '{"n":1}', 'req_a'),
        rt.invoke(f, '{"n":2,"wait":true}', 'req_b'),
        rt.invoke(f, '{"n":3}', 'req_c'),
      ]),
    );
    expect(c.out.map(okResult)).toEqual([
      { n: 1, rid: 'req_a' },
      { n: 2, rid: 'req_b' },
      { n: 3, rid: 'req_c' },
    ]);
    expect([c.sync, c.async]).toEqual([2, 1]);
    c.out.forEach((out, i) => {
      expect(out.logs.map((l) => [l.message, l.requestId])).toEqual([
        [`start ${i + 1}`, ['req_a', 'req_b', 'req_c'][i]],
        [`end ${i + 1}`, ['req_a', 'req_b', 'req_c'][i]],
      ]);
    });
  });

  it('keeps the Lambda conventions: a callback, context.succeed, getRemainingTimeInMillis within the limit', async () => {
    const cb = await fn('callback', `exports.handler = (e, ctx, callback) => { callback(null, { left: ctx.getRemainingTimeInMillis() }); }`, { timeoutMs: 3000 });
    const succeed = await fn('succeed', `exports.handler = (e, ctx) => { ctx.succeed('done'); }`);
    okResult(await rt.invoke(cb, '{}', 'req_w1'));
    okResult(await rt.invoke(succeed, '{}', 'req_w2'));
    const c = await counted(() => Promise.all([rt.invoke(cb, '{}', 'req_1'), rt.invoke(succeed, '{}', 'req_2')]));
    const { left } = okResult(c.out[0]) as { left: number };
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(3000);
    expect(okResult(c.out[1])).toBe('done');
    expect([c.sync, c.async]).toEqual([2, 0]);
  });

  it('stops an endless synchronous loop with the time limit error, failing its batch-mates, and serves the next call', async () => {
    const f = await fn('spin-sync', `exports.handler = (e) => { if (e.spin) for (;;) {} return 'calm'; }`, { timeoutMs: 300 });
    expect(okResult(await rt.invoke(f, '{}', 'req_warm'))).toBe('calm');
    const c = await counted(() => Promise.all([rt.invoke(f, '{}', 'req_mate'), rt.invoke(f, '{"spin":true}', 'req_spin')]));
    for (const out of c.out) {
      expect(!out.ok && out.error).toEqual({ code: 'function_timeout', message: "Function 'spin-sync' timed out after 300 ms" });
    }
    expect(c.async).toBe(2);
    expect(okResult(await rt.invoke(f, '{}', 'req_after'))).toBe('calm');
  });

  it('takes a version off the fast path, for its later isolates too, after SYNC_SLOW_STREAK synchronous calls in a row used over the slice of CPU', async () => {
    const f = await fn('busy', `exports.handler = (e) => { const end = Date.now() + e.ms; while (Date.now() < end); return e.ms; }`, { timeoutMs: 2000 });
    expect(okResult(await rt.invoke(f, '{"ms":0}', 'req_warm'))).toBe(0);
    const quick = await counted(() => rt.invoke(f, '{"ms":0}', 'req_quick'));
    expect([quick.sync, quick.async]).toEqual([1, 0]);
    // Spinning on the clock: its CPU is the wall time it ran, less what the machine's other load took.
    const spin = `{"ms":${SLICE_MS * 4}}`;
    const once = await counted(() => rt.invoke(f, spin, 'req_long1'));
    expect(okResult(once.out)).toBe(SLICE_MS * 4);
    // One slow call in between quick ones leaves it on the fast path (a collection of the isolate's heap can take that long).
    expect((await counted(() => rt.invoke(f, '{"ms":0}', 'req_between'))).sync).toBe(1);
    for (let i = 0; i < SYNC_SLOW_STREAK; i++) {
      // Each still enters synchronously: the heap check after a slow call reads at once, so it
      // never holds the isolate busy for the next call (it once did, asynchronously, under load).
      const long = await counted(() => rt.invoke(f, spin, `req_long_${i}`));
      expect(okResult(long.out)).toBe(SLICE_MS * 4);
      expect([long.sync, long.async]).toEqual([1, 0]);
    }
    const after = await counted(() => rt.invoke(f, '{"ms":0}', 'req_after'));
    expect(okResult(after.out)).toBe(0);
    expect([after.sync, after.async]).toEqual([0, 1]);
    // A loop that hit the time limit at once leaves the version off it: its next isolate is not entered synchronously.
    const looping = await fn('spin-once', `exports.handler = (e) => { if (e.spin) for (;;) {} return 'calm'; }`, { timeoutMs: 200 });
    expect(okResult(await rt.invoke(looping, '{}', 'req_warm'))).toBe('calm');
    const timedOut = await rt.invoke(looping, '{"spin":true}', 'req_spin');
    expect(!timedOut.ok && timedOut.error.code).toBe('function_timeout');
    const next = await counted(() => rt.invoke(looping, '{}', 'req_next'));
    expect(okResult(next.out)).toBe('calm');
    expect([next.sync, next.async]).toEqual([0, 1]);
  });

  it('stops an endless loop after an await of a settled value (microtasks run inside the time limit)', async () => {
    const f = await fn('spin-microtask', `exports.handler = async (e) => { await null; if (e.spin) for (;;) {} return 'calm'; }`, { timeoutMs: 300 });
    expect(okResult(await rt.invoke(f, '{}', 'req_warm'))).toBe('calm');
    const out = await rt.invoke(f, '{"spin":true}', 'req_spin');
    expect(!out.ok && out.error).toEqual({ code: 'function_timeout', message: "Function 'spin-microtask' timed out after 300 ms" });
    expect(okResult(await rt.invoke(f, '{}', 'req_after'))).toBe('calm');
  });

  it('does not enter an isolate synchronously while a timer callback runs in it: the event loop and its deadlines go on', async () => {
    const f = await fn(
      'spin-after-timer',
      `exports.handler = async (e) => { if (e.spin) { await new Promise((r) => setTimeout(r, 20)); emit('spinning'); for (;;) {} } return 'calm'; }`,
      { timeoutMs: 400 },
    );
    expect(okResult(await rt.invoke(f, '{}', 'req_warm'))).toBe('calm');
    const spinning = rt.invoke(f, '{"spin":true}', 'req_spin');
    // Once the emit is here, the timer's callback spins on isolated-vm's thread.
    while (!emitted.includes('spinning')) await new Promise((r) => setTimeout(r, 5));
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    const queued = await rt.invoke(f, '{}', 'req_queued');
    clearInterval(ticker);
    expect(ticks).toBeGreaterThan(0);
    expect(!queued.ok && queued.error.code).toBe('function_timeout');
    const spun = await spinning;
    expect(!spun.ok && spun.error.code).toBe('function_timeout');
    expect(okResult(await rt.invoke(f, '{}', 'req_after'))).toBe('calm');
  });

  it('is off with syncCalls: false (SWITCHYARD_SYNC_CALLS=0): every call takes the asynchronous path, with the same answers', async () => {
    const f = await fn('plain-off', `exports.handler = async (e) => ({ n: e.n })`);
    okResult(await slow.invoke(f, '{"n":0}', 'req_warm'));
    const c = await counted(() => slow.invoke(f, '{"n":5}', 'req_1'), slow);
    expect(okResult(c.out)).toEqual({ n: 5 });
    expect([c.sync, c.async]).toEqual([0, 1]);
  });
});
