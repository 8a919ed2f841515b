// The sandbox's emit(event, data) end to end: a real worker process and real
// isolates, events observed through createRuntime's onEmit.
// Needs dist/runtime/worker.js (npm test builds first).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSource } from '../../src/runtime/compile.js';
import { createRuntime, type Runtime } from '../../src/runtime/pool.js';
import type { DeployedFunction, InvokeOutcome } from '../../src/runtime/types.js';

interface Emitted {
  fn: string;
  event: string;
  data: string;
}

let rt: Runtime;
const emitted: Emitted[] = [];
const waiters: Array<() => void> = [];

beforeAll(() => {
  rt = createRuntime({
    workers: 1,
    allowPrivateTargets: false,
    onEmit(fn, event, data) {
      emitted.push({ fn, event, data });
      for (const w of waiters.splice(0)) w();
      if (event === 'boom.sync') throw new Error('receiver failed');
      if (event === 'boom.async') return Promise.reject(new Error('receiver rejected')) as unknown as void;
    },
  });
});
afterAll(async () => {
  await rt.close(1000);
});

async function fn(name: string, code: string): Promise<DeployedFunction> {
  return { name, version: 1, compiled: (await compileSource(code, 'javascript', name)).compiled, env: {}, timeoutMs: 5000, memoryMb: 64, handler: null };
}

function okResult(out: InvokeOutcome): unknown {
  if (!out.ok) throw new Error(`expected ok, got ${out.error.code}: ${out.error.message}`);
  return out.result;
}

const call = async (f: DeployedFunction, event: unknown = {}) => okResult(await rt.invoke(f, JSON.stringify(event), 'req_1'));

/** Waits (bounded by the test timeout) until `n` events of `fnName` arrived. */
async function eventsOf(fnName: string, n: number): Promise<Emitted[]> {
  for (;;) {
    const mine = emitted.filter((e) => e.fn === fnName);
    if (mine.length >= n) return mine;
    await new Promise<void>((r) => waiters.push(r));
  }
}

describe('runtime: emit(event, data)', () => {
  it('publishes the event with its data as JSON text, tagged with the function name', async () => {
    const f = await fn('orders', `exports.handler = () => { emit('order.created', { id: 1 }); return 'ok'; }`);
    expect(await call(f)).toBe('ok');
    expect(await eventsOf('orders', 1)).toEqual([{ fn: 'orders', event: 'order.created', data: '{"id":1}' }]);
  });

  it('sends null for undefined data and keeps names with : - _', async () => {
    const f = await fn('nulls', `exports.handler = () => { emit('a:b-c_d.e'); return typeof emit; }`);
    expect(await call(f)).toBe('function');
    expect(await eventsOf('nulls', 1)).toEqual([{ fn: 'nulls', event: 'a:b-c_d.e', data: 'null' }]);
  });

  it('still arrives when emitted after an await', async () => {
    const f = await fn('later', `exports.handler = async (e) => {
      await new Promise((r) => setTimeout(r, 20));
      emit('order.shipped', { n: e.n });
      return 'done';
    }`);
    expect(await call(f, { n: 7 })).toBe('done');
    expect(await eventsOf('later', 1)).toEqual([{ fn: 'later', event: 'order.shipped', data: '{"n":7}' }]);
  });

  it('refuses switchyard.* events, bad names, unserialisable and oversized data inside the isolate', async () => {
    const f = await fn('refused', `exports.handler = () => {
      const tries = {
        reserved: () => emit('switchyard.function.deleted', {}),
        empty: () => emit(''),
        notString: () => emit(42),
        space: () => emit('has space'),
        tooLong: () => emit('a'.repeat(201)),
        bigint: () => emit('x.y', { n: 1n }),
        cycle: () => { const o = {}; o.o = o; emit('x.y', o); },
        fn: () => emit('x.y', () => 1),
        huge: () => emit('x.y', 'a'.repeat(256 * 1024)),
      };
      const out = {};
      for (const [k, t] of Object.entries(tries)) {
        try { t(); out[k] = 'no error'; } catch (e) { out[k] = e.name + ': ' + e.message; }
      }
      emit('refused.done', 'a'.repeat(1000));
      return out;
    }`);
    const out = (await call(f)) as Record<string, string>;
    expect(out.reserved).toMatch(/^TypeError: .*switchyard\..*reserved/);
    for (const k of ['empty', 'notString', 'space', 'tooLong']) expect(out[k]).toMatch(/^TypeError: emit: event must be/);
    for (const k of ['bigint', 'cycle', 'fn']) expect(out[k]).toMatch(/^TypeError: emit: data is not JSON-serialisable/);
    expect(out.huge).toMatch(/^TypeError: emit: data is larger than 256 KiB/);
    // Only the valid emit made it out (it is the last one, so earlier ones would have arrived first).
    expect((await eventsOf('refused', 1)).map((e) => e.event)).toEqual(['refused.done']);
  });

  it('rate-limits a runaway emitter with a TypeError', async () => {
    const f = await fn('flood', `exports.handler = () => {
      let sent = 0;
      try { for (let i = 0; i < 5000; i++) { emit('flood.tick', i); sent++; } } catch (e) { return { sent, error: e.message }; }
      return { sent, error: null };
    }`);
    const out = (await call(f)) as { sent: number; error: string | null };
    expect(out.error).toMatch(/^emit rate limit/);
    expect(out.sent).toBeGreaterThanOrEqual(1000);
    expect(out.sent).toBeLessThan(5000);
    expect((await eventsOf('flood', out.sent)).length).toBe(out.sent);
  });

  it('survives a receiver that throws or rejects', async () => {
    const f = await fn('boomer', `exports.handler = () => { emit('boom.sync', 1); emit('boom.async', 2); emit('boom.after', 3); return 'fine'; }`);
    expect(await call(f)).toBe('fine');
    expect((await eventsOf('boomer', 3)).map((e) => e.event)).toEqual(['boom.sync', 'boom.async', 'boom.after']);
    // The worker kept serving: a garbled-stream verdict would have killed it.
    expect(await call(f)).toBe('fine');
    expect(rt.stats().workers[0].restarts).toBe(0);
  });

  it('drops top-level emits at deploy-time validation but still checks them', async () => {
    const before = emitted.length;
    const good = await rt.validate((await compileSource(`emit('deploy.time', 1); exports.handler = () => 1;`, 'javascript')).compiled, {
      timeoutMs: 5000,
      memoryMb: 64,
      env: {},
    });
    expect(good).toEqual({ ok: true });
    const bad = await rt.validate((await compileSource(`emit('switchyard.api.created'); exports.handler = () => 1;`, 'javascript')).compiled, {
      timeoutMs: 5000,
      memoryMb: 64,
      env: {},
    });
    expect(bad.ok).toBe(false);
    // A later emit proves the channel is flowing, so the deploy-time one would have arrived by now.
    await call(await fn('marker', `exports.handler = () => { emit('marker.done'); }`));
    await eventsOf('marker', 1);
    expect(emitted.slice(before).map((e) => e.event)).toEqual(['marker.done']);
  });

  it('drops reserved names at the host even when user code patches the isolate-side checks', async () => {
    const f = await fn('tamper', `exports.handler = () => {
      RegExp.prototype.test = () => true;
      RegExp.prototype.exec = () => [''];
      String.prototype.slice = () => '';
      emit('switchyard.api.deleted', { forged: true });
      emit('not a name', 1);
      emit('tamper.done');
      return 'sent';
    }`);
    expect(await call(f)).toBe('sent');
    expect((await eventsOf('tamper', 1)).map((e) => e.event)).toEqual(['tamper.done']);
  });

  it('drops data nested too deep at the host even when user code defeats the isolate-side check', async () => {
    const f = await fn('deepTamper', `exports.handler = () => {
      let v = 1; for (let i = 0; i < 150; i++) v = [v];
      let refused = null;
      try { emit('deep.first', v); } catch (e) { refused = e.message; }
      String.prototype.charCodeAt = () => 0;
      emit('deep.second', v);
      emit('deepTamper.done');
      return refused;
    }`);
    expect(await call(f)).toBe('emit: data is nested deeper than 100 levels of arrays and objects');
    expect((await eventsOf('deepTamper', 1)).map((e) => e.event)).toEqual(['deepTamper.done']);
  });

  it('does not put the bridge on the global', async () => {
    const f = await fn('globals', `exports.handler = () => Object.getOwnPropertyNames(globalThis).filter((n) => /^host|Emit/.test(n))`);
    expect(await call(f)).toEqual([]);
  });
});
