// prewarm(fn): the warm isolate is built (top level run, handler not called)
// before the first invocation, which then runs in it; and prewarming never
// evicts an isolate that served calls. A real worker process; the top level's
// emit (observed through onEmit) tells when an isolate was built.
// Needs dist/runtime/worker.js (npm test builds first).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSource } from '../../src/runtime/compile.js';
import { createRuntime, type Runtime } from '../../src/runtime/pool.js';
import type { DeployedFunction, InvokeOutcome } from '../../src/runtime/types.js';

const booted: string[] = [];
const runtimes: Runtime[] = [];

function runtime(warmIsolates: number): Runtime {
  const rt = createRuntime({
    workers: 1,
    allowPrivateTargets: false,
    warmIsolates,
    onEmit: (fn, event) => {
      if (event === 'isolate.booted') booted.push(fn);
    },
  });
  runtimes.push(rt);
  return rt;
}

afterAll(async () => {
  await Promise.all(runtimes.map((rt) => rt.close(1000)));
});

// Module scope lives as long as its isolate: `n` counts the calls one isolate served.
const CODE = `emit('isolate.booted'); let n = 0; exports.handler = async () => ++n;`;

async function fn(name: string): Promise<DeployedFunction> {
  return { name, version: 1, compiled: (await compileSource(CODE, 'javascript', name)).compiled, env: {}, timeoutMs: 5000, memoryMb: 64, handler: null };
}

function result(out: InvokeOutcome): unknown {
  if (!out.ok) throw new Error(`expected ok, got ${out.error.code}: ${out.error.message}`);
  return out.result;
}

const bootsOf = (name: string) => booted.filter((b) => b === name).length;

async function until(probe: () => boolean): Promise<void> {
  while (!probe()) await new Promise((r) => setTimeout(r, 10));
}

describe('runtime: prewarm', () => {
  let rt: Runtime;
  beforeAll(() => {
    rt = runtime(10);
  });

  it('builds the isolate without calling the handler; the first invocation runs in it', async () => {
    const f = await fn('prewarmed');
    rt.prewarm(f);
    await until(() => bootsOf('prewarmed') === 1); // built with no invocation sent
    expect(result(await rt.invoke(f, '{}', 'req_1'))).toBe(1); // the handler had not run
    expect(bootsOf('prewarmed')).toBe(1); // and the invocation did not build another
    rt.prewarm(f); // already warm: nothing new
    expect(result(await rt.invoke(f, '{}', 'req_2'))).toBe(2);
    expect(bootsOf('prewarmed')).toBe(1);
  });
});

describe('runtime: prewarm within the warm bound', () => {
  it('does nothing when the worker holds its bound of isolates: the ones that served calls stay', async () => {
    const small = runtime(2);
    const [a, b, c] = await Promise.all(['pw-a', 'pw-b', 'pw-c'].map(fn));
    expect(result(await small.invoke(a, '{}', 'r'))).toBe(1);
    expect(result(await small.invoke(b, '{}', 'r'))).toBe(1);
    small.prewarm(c);
    // Time for a prewarmed isolate to boot and push the least recently used (a) out, were one built.
    await new Promise((r) => setTimeout(r, 500));
    expect(bootsOf('pw-c')).toBe(0);
    expect(result(await small.invoke(a, '{}', 'r'))).toBe(2);
    expect(result(await small.invoke(b, '{}', 'r'))).toBe(2);
  });
});
