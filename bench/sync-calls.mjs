// `node --no-node-snapshot bench/sync-calls.mjs`: the synchronous fast path into isolates
// (src/runtime/isolate-host.ts) against the asynchronous one (SWITCHYARD_SYNC_CALLS=0), on the
// in-process runtime alone (no HTTP, no gateway): CPU of this process (every thread, isolated-vm's
// too) per invocation over a fixed number of them, for an async hello handler (the benchmark's,
// answered after one microtask drain) and a synchronous one, with 1 call in flight (one isolate
// entry per call) and with 50 (calls of one turn share an entry). Interleaved rounds; a benchmark,
// not a test. Needs `npm run build` first.
//
// Options: --calls <n> (20000)  --rounds <n> (3)
import { parseArgs } from 'node:util';
import { compileSource } from '../dist/runtime/compile.js';
import { createInProcessRuntime } from '../dist/runtime/in-process.js';

const { values: opt } = parseArgs({ options: { calls: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '3' } } });
const N = Number(opt.calls);
const HANDLERS = {
  async: `exports.handler = async () => ({ statusCode: 200, body: { hello: 'world' } });`,
  sync: `exports.handler = () => ({ statusCode: 200, body: { hello: 'world' } });`,
};
const EVENT = JSON.stringify({ httpMethod: 'GET', path: '/hello', headers: { host: 'localhost', 'user-agent': 'bench' }, body: null });

async function measure(syncCalls, handler, inFlight) {
  const rt = createInProcessRuntime({ allowPrivateTargets: false, syncCalls });
  const fn = { name: `hello-${handler}`, version: 1, compiled: (await compileSource(HANDLERS[handler], 'javascript', 'hello')).compiled, env: {}, timeoutMs: 10000, memoryMb: 128, handler: null };
  try {
    for (let i = 0; i < 2000; i++) await rt.invoke(fn, EVENT, `warm_${i}`);
    let left = N;
    let seq = 0;
    const loop = async () => {
      while (left-- > 0) {
        const out = await rt.invoke(fn, EVENT, `req_${++seq}`);
        if (!out.ok) throw new Error(`${out.error.code}: ${out.error.message}`);
      }
    };
    const before = rt.stats().workers[0].calls;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(Array.from({ length: inFlight }, loop));
    const cpu = process.cpuUsage(cpu0);
    const secs = (performance.now() - t0) / 1000;
    const after = rt.stats().workers[0].calls;
    return { us: (cpu.user + cpu.system) / N, perSec: N / secs, sync: after.sync - before.sync };
  } finally {
    await rt.close(100);
  }
}

console.log(`${N} invocations per row, node ${process.version}; µs CPU per invocation (all threads of this process)`);
for (let round = 1; round <= Number(opt.rounds); round++) {
  for (const inFlight of [1, 50]) {
    for (const handler of ['async', 'sync']) {
      const on = await measure(true, handler, inFlight);
      const off = await measure(false, handler, inFlight);
      console.log(
        `round ${round}: ${String(inFlight).padStart(2)} in flight, ${handler.padEnd(5)} handler: fast path ${on.us.toFixed(2)} µs (${Math.round(on.perSec)}/s, ${on.sync} answered synchronously), ` +
          `asynchronous ${off.us.toFixed(2)} µs (${Math.round(off.perSec)}/s): x${(on.us / off.us).toFixed(2)}`,
      );
    }
  }
}
process.exit(0);
