// The in-process runtime (src/runtime/in-process.ts): real isolates in this test process,
// no worker process. Its fatal path (a V8 abort) is tested across processes in
// test/integration/isolates-in-process.test.ts; everything survivable is tested here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSource } from '../../src/runtime/compile.js';
import { createInProcessRuntime } from '../../src/runtime/in-process.js';
import type { Runtime } from '../../src/runtime/pool.js';
import type { DeployedFunction, InvokeOutcome } from '../../src/runtime/types.js';

const SECRET = 'unit-admin-key-never-seen-by-functions';
const DB = 'postgres://user:hunter2@db.example:5432/switchyard';
const emits: Array<[string, string, string]> = [];
let rt: Runtime;

beforeAll(() => {
  process.env.SWITCHYARD_ADMIN_KEY = SECRET;
  process.env.DATABASE_URL = DB;
  rt = createInProcessRuntime({ allowPrivateTargets: false, testHooks: true, onEmit: (fn, event, data) => void emits.push([fn, event, data]) });
});
afterAll(async () => {
  await rt.close(1000);
  delete process.env.SWITCHYARD_ADMIN_KEY;
  delete process.env.DATABASE_URL;
});

async function fn(name: string, code: string, extra: Partial<DeployedFunction> = {}): Promise<DeployedFunction> {
  return { name, version: 1, compiled: (await compileSource(code, 'javascript', name)).compiled, env: {}, timeoutMs: 5000, memoryMb: 64, handler: null, ...extra };
}

const call = (f: DeployedFunction, event: unknown = {}, rid = 'req_1') => rt.invoke(f, JSON.stringify(event), rid);

function okResult(out: InvokeOutcome): unknown {
  if (!out.ok) throw new Error(`expected ok, got ${out.error.code}: ${out.error.message}`);
  return out.result;
}

describe('in-process runtime', () => {
  it('runs handlers in this process, concurrent calls each with their own event and console lines', async () => {
    const f = await fn('hello', `exports.handler = async (e, ctx) => { console.log('n', e.n); return { n: e.n, rid: ctx.requestId }; }`);
    const outs = await Promise.all([1, 2, 3].map((n) => call(f, { n }, `req_${n}`)));
    outs.forEach((out, i) => {
      expect(okResult(out)).toEqual({ n: i + 1, rid: `req_${i + 1}` });
      expect(out.logs).toEqual([expect.objectContaining({ level: 'log', message: `n ${i + 1}`, requestId: `req_${i + 1}` })]);
    });
    expect(rt.stats().workers).toEqual([expect.objectContaining({ pid: process.pid, restarts: 0 })]);
  });

  it("never shows a function this process's environment: not the admin key, not DATABASE_URL", async () => {
    const f = await fn(
      'peek',
      `exports.handler = () => ({ all: JSON.stringify(process.env), admin: process.env.SWITCHYARD_ADMIN_KEY ?? null, db: process.env.DATABASE_URL ?? null, mine: process.env.MINE })`,
      { env: { MINE: 'mine' } },
    );
    const out = okResult(await call(f)) as { all: string; admin: unknown; db: unknown; mine: string };
    expect(out).toMatchObject({ admin: null, db: null, mine: 'mine' });
    expect(out.all).not.toContain(SECRET);
    expect(out.all).not.toContain('hunter2');
    // Nor through top-level code at deploy.
    const leak = await compileSource(`if (JSON.stringify(process.env).includes(${JSON.stringify(SECRET)})) throw new Error('leaked'); exports.handler = () => 1;`, 'javascript', 'v');
    expect(await rt.validate(leak.compiled, { timeoutMs: 1000, memoryMb: 64, env: {} })).toEqual({ ok: true });
  });

  it('enforces the time and memory limits and keeps serving', async () => {
    const loop = await fn('loop', `exports.handler = () => { for (;;) {} }`, { timeoutMs: 200 });
    const bomb = await fn('bomb', `exports.handler = () => { const a = []; for (;;) a.push(new Array(1e5).fill(Math.random())); }`, { memoryMb: 16 });
    const calm = await fn('calm', `exports.handler = () => 'calm'`);
    const [timedOut, oom, side] = await Promise.all([call(loop), call(bomb), call(calm)]);
    expect(!timedOut.ok && timedOut.error.code).toBe('function_timeout');
    expect(!oom.ok && oom.error.code).toBe('function_memory_limit');
    expect(okResult(side)).toBe('calm');
  });

  it('hands emits to onEmit, before the result of the call that made them', async () => {
    const f = await fn('emitter', `exports.handler = async () => { emit('thing.happened', { a: 1 }); return 'emitted'; }`);
    emits.length = 0;
    expect(okResult(await call(f))).toBe('emitted');
    expect(emits).toEqual([['emitter', 'thing.happened', '{"a":1}']]);
  });

  it("refuses an emit by the catalogue's reject-mode rules in the function, and publishes nothing", async () => {
    const f = await fn('rule-emitter', `exports.handler = (e) => { try { emit('rule.checked', e); return 'sent'; } catch (err) { return [err.code, err.message]; } }`);
    rt.setEmitRules([{ name: 'rule.checked', version: 2, schema: { type: 'object', required: ['n'] } }]);
    const before = emits.length;
    expect(okResult(await call(f, {}))).toEqual(['event_invalid', "emit: data: must have required property 'n' (event type 'rule.checked' version 2)"]);
    expect(emits.length).toBe(before);
    expect(okResult(await call(f, { n: 1 }))).toBe('sent');
    expect(emits.length).toBe(before + 1);
    rt.setEmitRules([]);
    expect(okResult(await call(f, {}))).toBe('sent');
    expect(rt.ready()).toBe(true);
  });

  it('prewarms: the isolate is built (top level run) before the first call, which runs in it', async () => {
    const f = await fn('prewarmed-here', `emit('isolate.booted'); let n = 0; exports.handler = async () => ++n;`);
    const boots = () => emits.filter(([name, event]) => name === 'prewarmed-here' && event === 'isolate.booted').length;
    rt.prewarm(f);
    while (boots() === 0) await new Promise((r) => setTimeout(r, 10));
    expect(okResult(await call(f))).toBe(1);
    expect(boots()).toBe(1);
  });

  it('serves a new version after a retire, and validates and transforms in this process', async () => {
    const v1 = await fn('versioned', `exports.handler = () => 1`);
    expect(okResult(await call(v1))).toBe(1);
    const v2 = { ...(await fn('versioned', `exports.handler = () => 2`)), version: 2 };
    rt.retire('versioned', 2);
    expect(okResult(await call(v2))).toBe(2);
    expect(await rt.validate('exports.nothing = 1', { timeoutMs: 1000, memoryMb: 64, env: {} })).toMatchObject({ ok: false });
  });

  it('answers an RSS breach by discarding its isolates, not the process: in-flight calls fail with function_crashed', async () => {
    const hang = await fn('hang', `exports.handler = (e) => e.hang ? new Promise(() => {}) : 'back'`, { timeoutMs: 20000 });
    const inflight = call(hang, { hang: true });
    expect(okResult(await call(hang))).toBe('back');
    rt.setWorkerRssBoundForTest('hang', 1);
    const out = await inflight;
    expect(!out.ok && out.error).toMatchObject({ code: 'function_crashed', message: expect.stringContaining('over its bound of 1 MB') });
    expect(okResult(await call(hang))).toBe('back');
    expect(rt.stats().workers[0].restarts).toBe(1);
  });
});
