// The function runtime end to end: real worker processes, real isolates.
// Needs dist/runtime/worker.js (npm test builds first).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSource } from '../../src/runtime/compile.js';
import { createRuntime, workerIndexFor, type Runtime } from '../../src/runtime/pool.js';
import type { DeployedFunction, InvokeOutcome } from '../../src/runtime/types.js';
import { InvalidCodeError } from '../../src/errors.js';
import { RSS_BASE_MB, RSS_PER_ISOLATE_FACTOR, RSS_PER_ISOLATE_MB, rssBoundMb } from '../../src/runtime/rss-watchdog.js';

process.env.SWITCHYARD_TEST_HOOKS = '1';

const WORKERS = 2;
let rt: Runtime;

beforeAll(() => {
  rt = createRuntime({ workers: WORKERS, allowPrivateTargets: false });
});
afterAll(async () => {
  await rt.close(1000);
});

async function fn(name: string, code: string, extra: Partial<DeployedFunction> = {}): Promise<DeployedFunction> {
  const runtime = extra.compiled === undefined && /:\s*\w+\s*[,)=]/.test(code) ? 'typescript' : 'javascript';
  return { name, version: 1, compiled: (await compileSource(code, runtime, name)).compiled, env: {}, timeoutMs: 5000, memoryMb: 64, handler: null, ...extra };
}

const call = (f: DeployedFunction, event: unknown = {}, rid = 'req_1') => rt.invoke(f, JSON.stringify(event), rid);

function okResult(out: InvokeOutcome): unknown {
  if (!out.ok) throw new Error(`expected ok, got ${out.error.code}: ${out.error.message}`);
  return out.result;
}

/** A name pinned to worker `index`, so tests can aim at (or away from) one process. */
function nameOn(index: number, prefix: string): string {
  for (let i = 0; ; i++) if (workerIndexFor(`${prefix}${i}`, WORKERS) === index) return `${prefix}${i}`;
}

describe('runtime: results and handler forms', () => {
  it('runs a handler and returns its result', async () => {
    const hello = await fn('hello', `exports.handler = async (event, ctx) => ({ statusCode: 200, body: { hello: event.who, fn: ctx.functionName, rid: ctx.requestId, left: ctx.getRemainingTimeInMillis() > 0 } })`);
    expect(okResult(await call(hello, { who: 'world' }, 'req_a'))).toEqual({
      statusCode: 200,
      body: { hello: 'world', fn: 'hello', rid: 'req_a', left: true },
    });
  });

  it.each([
    ['exports.handler', `exports.handler = async () => ({ statusCode: 201, body: 'a' })`],
    ['module.exports = { handler }', `async function handler() { return { statusCode: 201, body: 'a' } }\nmodule.exports = { handler };`],
    ['export async function handler', `export async function handler() { return { statusCode: 201, body: 'a' } }`],
    ['export const handler (TypeScript)', `export const handler = async (event: unknown): Promise<{ statusCode: number; body: string }> => ({ statusCode: 201, body: 'a' });`],
  ])('supports %s', async (_form, code) => {
    expect(okResult(await call(await fn(`form${_form.length}`, code)))).toEqual({ statusCode: 201, body: 'a' });
  });

  it('keeps undefined distinct from null', async () => {
    const f = await fn('undef', `exports.handler = (e) => e.null ? null : undefined`);
    const none = await call(f, { null: false });
    expect(none.ok && 'result' in none && none.result === undefined).toBe(true);
    expect(okResult(await call(f, { null: true }))).toBeNull();
  });

  it('serves a batch of concurrent invocations, each with its own event and logs', async () => {
    const f = await fn('batch', `exports.handler = async (e, ctx) => { console.log('start', e.n); await null; console.info('after await'); return e.n * 2; }`);
    const outs = await Promise.all([1, 2, 3, 4, 5].map((n) => call(f, { n }, `req_${n}`)));
    outs.forEach((out, i) => {
      expect(okResult(out)).toBe((i + 1) * 2);
      const own = out.logs.filter((l) => l.requestId !== null);
      expect(own).toEqual([expect.objectContaining({ level: 'log', message: `start ${i + 1}`, requestId: `req_${i + 1}` })]);
    });
    // After an await with several invocations in flight, a line belongs to none of them.
    const after = outs.flatMap((o) => o.logs).filter((l) => l.message === 'after await');
    expect(after).toHaveLength(5);
    expect(after.every((l) => l.requestId === null)).toBe(true);
  });

  it('delivers results that settle long after the batch entered the isolate', async () => {
    const f = await fn('slowchain', `exports.handler = async (e) => { for (let i = 0; i < 200; i++) await null; console.log('done', e.n); return e.n; }`);
    const outs = await Promise.all([1, 2, 3].map((n) => call(f, { n }, `req_${n}`)));
    expect(outs.map(okResult)).toEqual([1, 2, 3]);
  });

  it('attributes lines after an await to the only invocation in flight', async () => {
    const f = await fn('awaiter', `exports.handler = async () => { await null; await null; console.log('late'); return 1; }`);
    expect((await call(f, {}, 'req_solo')).logs).toEqual([expect.objectContaining({ message: 'late', requestId: 'req_solo' })]);
  });

  it('returns console lines with the request id, level and formatted message', async () => {
    const f = await fn('logger', `exports.handler = (e) => { console.log('a', 1, { b: 2 }); console.warn('w'); console.error(new TypeError('bad')); return 1; }`);
    const out = await call(f, {}, 'req_log');
    expect(out.logs.map((l) => [l.level, l.requestId])).toEqual([['log', 'req_log'], ['warn', 'req_log'], ['error', 'req_log']]);
    expect(out.logs[0].message).toBe('a 1 {"b":2}');
    expect(out.logs[2].message).toContain('TypeError: bad');
    expect(Date.parse(out.logs[0].time)).not.toBeNaN();
  });

  it('caps console output per invocation', async () => {
    const f = await fn('chatty', `exports.handler = () => { for (let i = 0; i < 150; i++) console.log(i); console.log('x'.repeat(20000)); return 1; }`);
    const out = await call(f);
    expect(out.logs).toHaveLength(101);
    expect(out.logs[100].message).toContain('51 more console lines dropped');
    const big = await fn('bigline', `exports.handler = () => { console.log('x'.repeat(20000)); return 1; }`);
    const line = (await call(big)).logs[0].message;
    expect(line.length).toBeLessThan(9000);
    expect(line).toContain('[truncated');
  });
});

describe('runtime: failures', () => {
  it('turns a throw into function_error with the message and user line', async () => {
    const f = await fn('thrower', `exports.handler = () => {\n  throw new RangeError('nope');\n}`);
    const out = await call(f);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.error.code).toBe('function_error');
    expect(out.error.message).toMatch(/^RangeError: nope \(thrower\.js, line 2, column \d+\)$/);
  });

  it('turns a rejection into function_error and an unserialisable result into invalid_result', async () => {
    const rej = await call(await fn('rejecter', `exports.handler = async () => { throw new Error('later') }`));
    expect(!rej.ok && rej.error).toMatchObject({ code: 'function_error', message: expect.stringContaining('Error: later') });
    const big = await call(await fn('bigint', `exports.handler = () => ({ statusCode: 200, body: 10n })`));
    expect(!big.ok && big.error).toMatchObject({ code: 'invalid_result', message: expect.stringContaining('JSON') });
  });

  it('times out an endless loop, and the next call gets a fresh isolate', async () => {
    const f = await fn('looper', `let calls = 0; exports.handler = (e) => { calls++; if (e.loop) for (;;) {} return calls; }`, { timeoutMs: 300 });
    const out = await call(f, { loop: true });
    expect(!out.ok && out.error.code).toBe('function_timeout');
    // Module state restarted: the looping isolate was disposed.
    expect(okResult(await call(f, { loop: false }))).toBe(1);
  });

  it('times out a promise that never settles', async () => {
    const f = await fn('hanger', `exports.handler = () => new Promise(() => {})`, { timeoutMs: 300 });
    const out = await call(f);
    expect(!out.ok && out.error).toMatchObject({ code: 'function_timeout', message: "Function 'hanger' timed out after 300 ms" });
  });

  it('stops a memory bomb with function_memory_limit while other functions keep working', async () => {
    const bomb = await fn('bomb', `exports.handler = (e) => { if (!e.bomb) return 'fine'; const a = []; for (;;) a.push(new Array(1e5).fill(Math.random())); }`, { memoryMb: 16 });
    const other = await fn('bystander', `exports.handler = () => 'still here'`);
    const [out, side] = await Promise.all([call(bomb, { bomb: true }), call(other)]);
    expect(!out.ok && out.error.code).toBe('function_memory_limit');
    expect(okResult(side)).toBe('still here');
    expect(okResult(await call(bomb, { bomb: false }))).toBe('fine');
    expect(okResult(await call(other))).toBe('still here');
  });

  it('answers function_memory_limit when an allocation overshoots into a V8 fatal OOM, and restarts that worker only', async () => {
    // A Map doubling its table jumps past ivm's soft limit; V8 gives up and the worker must die.
    const name = nameOn(0, 'mapbomb');
    const bomb = await fn(name, `exports.handler = (e) => { if (!e.bomb) return 'ok'; const m = new Map(); for (let i = 0; ; i++) m.set(i, { i }); }`, { memoryMb: 16 });
    const other = await fn(nameOn(1, 'calm'), `exports.handler = () => 'calm'`);
    const before = rt.stats().workers.map((w) => w.restarts);
    const out = await call(bomb, { bomb: true });
    expect(!out.ok && out.error.code).toBe('function_memory_limit');
    expect(okResult(await call(other))).toBe('calm');
    expect(okResult(await call(bomb, { bomb: false }))).toBe('ok');
    expect(rt.stats().workers.map((w) => w.restarts)).toEqual([before[0] + 1, before[1]]);
  });

  it('fails in-flight calls of a crashed worker with function_crashed, restarts it, and others keep serving', async () => {
    const victimName = nameOn(0, 'victim');
    const victim = await fn(victimName, `exports.handler = (e) => e.hang ? new Promise(() => {}) : 'back'`, { timeoutMs: 20000 });
    const safe = await fn(nameOn(1, 'safe'), `exports.handler = () => 'safe'`);
    const restartsBefore = rt.stats().workers[0].restarts;
    const inflight = call(victim, { hang: true });
    expect(okResult(await call(victim, { hang: false }))).toBe('back'); // the worker is up and holds the hanging call
    rt.crashWorkerForTest(victimName);
    const out = await inflight;
    expect(!out.ok && out.error).toMatchObject({ code: 'function_crashed', message: expect.stringContaining('signal') });
    expect(okResult(await call(safe))).toBe('safe');
    expect(okResult(await call(victim, { hang: false }))).toBe('back'); // queued during the restart, then served
    expect(rt.stats().workers[0].restarts).toBe(restartsBefore + 1);
  });

  it('is not ready (GET /readyz) from a worker\'s exit until its successor runs', async () => {
    const victimName = nameOn(0, 'unready');
    const victim = await fn(victimName, `exports.handler = (e) => e.hang ? new Promise(() => {}) : 'back'`, { timeoutMs: 20000 });
    expect(okResult(await call(victim, { hang: false }))).toBe('back');
    expect(rt.ready()).toBe(true);
    const inflight = call(victim, { hang: true });
    await new Promise((r) => setTimeout(r, 20));
    rt.crashWorkerForTest(victimName);
    // Failed on the exit, at least 100 ms before the restart.
    expect((await inflight).ok).toBe(false);
    expect(rt.ready()).toBe(false);
    while (!rt.ready()) await new Promise((r) => setTimeout(r, 20));
    expect(okResult(await call(victim, { hang: false }))).toBe('back');
  });
});

describe('runtime: emit rules (the catalogue\'s reject mode)', () => {
  const rules = [{ name: 'rule.checked', version: 3, schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } }];
  const emitter = (name: string) =>
    fn(name, `exports.handler = (e) => { try { emit('rule.checked', e); return 'sent'; } catch (err) { return [err.name, err.code, err.message]; } }`);

  it('refuses in the function what the rules refuse, lets the rest through, and follows every new set', async () => {
    const f = await emitter(nameOn(1, 'emitter'));
    expect(okResult(await call(f, {}))).toBe('sent'); // no rules yet
    rt.setEmitRules(rules);
    expect(okResult(await call(f, { n: 'x' }))).toEqual(['EventInvalidError', 'event_invalid', "emit: data/n: must be integer (event type 'rule.checked' version 3)"]);
    expect(okResult(await call(f, { n: 2 }))).toBe('sent');
    rt.setEmitRules([]);
    expect(okResult(await call(f, { n: 'x' }))).toBe('sent');
  });

  it('a worker restarted after a crash has the rules before its first call', async () => {
    const name = nameOn(0, 'emitter');
    const f = await emitter(name);
    rt.setEmitRules(rules);
    expect(okResult(await call(f, {}))).toEqual(['EventInvalidError', 'event_invalid', "emit: data: must have required property 'n' (event type 'rule.checked' version 3)"]);
    const restarts = rt.stats().workers[0].restarts;
    rt.crashWorkerForTest(name);
    while (rt.stats().workers[0].restarts === restarts) await new Promise((r) => setTimeout(r, 20));
    // Sent while the successor starts: it is queued behind the rules.
    expect(okResult(await call(f, {}))).toEqual(['EventInvalidError', 'event_invalid', expect.stringContaining("required property 'n'")]);
    rt.setEmitRules([]);
  });
});

describe('runtime: worker RSS watchdog', () => {
  it('computes the bound from the isolates it holds, with a fixed base', () => {
    expect(rssBoundMb([])).toBe(RSS_BASE_MB);
    expect(rssBoundMb([128, 32])).toBe(RSS_BASE_MB + 2 * RSS_PER_ISOLATE_MB + RSS_PER_ISOLATE_FACTOR * 160);
  });

  it('restarts a worker over its bound: its in-flight calls fail with function_crashed, the other worker keeps serving', async () => {
    const victimName = nameOn(0, 'heavy');
    const victim = await fn(victimName, `exports.handler = (e) => e.hang ? new Promise(() => {}) : 'back'`, { timeoutMs: 20000 });
    const safe = await fn(nameOn(1, 'light'), `exports.handler = () => 'light'`);
    const before = rt.stats().workers.map((w) => w.restarts);
    const inflight = call(victim, { hang: true });
    expect(okResult(await call(victim, { hang: false }))).toBe('back');
    // Any real worker is over 1 MB: the next check trips.
    rt.setWorkerRssBoundForTest(victimName, 1);
    const out = await inflight;
    expect(!out.ok && out.error).toMatchObject({ code: 'function_crashed', message: expect.stringContaining('over its bound of 1 MB') });
    expect(okResult(await call(safe))).toBe('light');
    expect(okResult(await call(victim, { hang: false }))).toBe('back'); // served by the restarted worker
    expect(rt.stats().workers.map((w) => w.restarts)).toEqual([before[0] + 1, before[1]]);
  });
});

describe('runtime: versions', () => {
  it('finishes an in-flight call on its version while the new version serves new calls', async () => {
    const v1 = await fn('versioned', `exports.handler = (e) => { const end = Date.now() + (e.slow ? 400 : 0); while (Date.now() < end) {} return 'v1'; }`);
    const v2 = { ...(await fn('versioned', `exports.handler = () => 'v2'`)), version: 2 };
    expect(okResult(await call(v1))).toBe('v1'); // warm v1
    const slow = call(v1, { slow: true });
    await new Promise((r) => setTimeout(r, 50));
    rt.retire('versioned', 2);
    const fresh = await Promise.all([call(v2), call(v2)]);
    expect(fresh.map(okResult)).toEqual(['v2', 'v2']);
    expect(okResult(await slow)).toBe('v1');
  });
});

describe('runtime: validate', () => {
  const limits = { timeoutMs: 1000, memoryMb: 32, env: {} };

  it('reports a syntax error at the user line and column', async () => {
    expect(await rt.validate('exports.handler = () => 1;\n\nlet x = ;', limits)).toEqual({
      ok: false,
      message: expect.stringContaining('SyntaxError'),
      line: 3,
      column: 9,
    });
  });

  it('requires a function to call, listing the exports found', async () => {
    expect(await rt.validate('exports.other = 1', limits)).toEqual({
      ok: false,
      message: "no function to call: export one named 'handler' or a default export; exports found: other",
    });
  });

  it('reports a top-level throw, and times out an endless top level', async () => {
    const out = await rt.validate('exports.handler = () => 1;\nnull.boom;', limits);
    expect(out).toMatchObject({ ok: false, message: expect.stringContaining('TypeError'), line: 2 });
    // The position travels in line/column only; whoever prints it adds it once.
    expect(!out.ok && out.message).not.toMatch(/\(line/);
    expect(await rt.validate('for (;;) {}', { timeoutMs: 200, memoryMb: 32, env: {} })).toMatchObject({
      ok: false,
      message: expect.stringContaining('timed out'),
    });
  });

  it('accepts valid code', async () => {
    expect(await rt.validate((await compileSource('export const handler = () => 1', 'javascript')).compiled, limits)).toEqual({ ok: true });
  });
});

describe('runtime: sandbox boundary', () => {
  it("exposes no host require and no host process (the module's require is the sandbox's)", async () => {
    const f = await fn('escape', `exports.handler = () => {
      const g = ({}).constructor.constructor('return this')();
      const p = ({}).constructor.constructor('return typeof process === "undefined" ? undefined : process')();
      let fs;
      try { require(['f', 's'].join('')).readFileSync('/etc/hostname'); } catch (e) { fs = e.code; }
      return { require: typeof g.require, module: typeof g.module, pid: p && p.pid, exit: typeof (p && p.exit), own: p === process,
        globals: Object.getOwnPropertyNames(g).filter((k) => /^(__|ivm|_ivm|\\$)/.test(k)), fs,
        sameRealm: require.constructor.constructor('return this')() === g && require('buffer').Buffer.constructor.constructor('return this')() === g };
    }`);
    expect(okResult(await call(f))).toEqual({
      require: 'undefined',
      module: 'undefined',
      pid: undefined,
      exit: 'undefined',
      own: true,
      globals: [],
      fs: 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM',
      sameRealm: true,
    });
  });

  it("keeps one function's env from another", async () => {
    const a = await fn('env-a', `exports.handler = () => process.env.SECRET`, { env: { SECRET: 'a-secret' } });
    const b = await fn('env-b', `exports.handler = () => typeof process === 'undefined' ? 'no process' : String(process.env.SECRET)`);
    expect(okResult(await call(a))).toBe('a-secret');
    expect(okResult(await call(b))).not.toBe('a-secret');
  });
});

describe('compileSource', () => {
  it('rejects invalid code with the line', async () => {
    await expect(compileSource('const = 1', 'javascript')).rejects.toThrow(InvalidCodeError);
    let caught: unknown;
    try {
      await compileSource('\nconst x: = 1', 'typescript', 'users-get');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidCodeError);
    expect((caught as InvalidCodeError).details).toEqual({ line: 2, column: expect.any(Number) });
    expect((caught as InvalidCodeError).message).toMatch(/\(users-get\.ts, line 2, column \d+\)$/);
  });
});

describe('runtime: warm isolates past the bound', () => {
  let small: Runtime;
  beforeAll(() => {
    small = createRuntime({ workers: 1, allowPrivateTargets: false, warmIsolates: 2 });
  });
  afterAll(async () => {
    await small.close(1000);
  });

  it('disposes the least recently used idle isolate, and only that one', async () => {
    // Module scope survives between calls only while the isolate is kept warm.
    const counter = `let n = 0; exports.handler = async () => ++n;`;
    const [a, b, c] = await Promise.all(['lru-a', 'lru-b', 'lru-c'].map((name) => fn(name, counter)));
    const run = async (f: DeployedFunction) => okResult(await small.invoke(f, '{}', 'req_lru'));
    expect(await run(a)).toBe(1);
    expect(await run(a)).toBe(2);
    expect(await run(b)).toBe(1);
    expect(await run(c)).toBe(1); // three idle, two kept: a (least recently used) goes
    expect(await run(c)).toBe(2);
    expect(await run(b)).toBe(2); // b was kept
    expect(await run(a)).toBe(1); // a starts over in a new isolate
  });
});
