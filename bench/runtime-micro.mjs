// Micro-benchmark of FunctionRuntime.invoke() alone (no HTTP): keeps N invocations
// of a hello function in flight for a few seconds and reports invocations/s and
// latency percentiles. Not a test. Needs `npm run build` first.
//   node bench/runtime-micro.mjs [concurrency=200] [seconds=3] [workers=1] [batching=on|off]
import { createRuntime } from '../dist/runtime/pool.js';
import { compileSource } from '../dist/runtime/compile.js';

const concurrency = Number(process.argv[2] ?? 200);
const seconds = Number(process.argv[3] ?? 3);
const workers = Number(process.argv[4] ?? 1);
const batching = process.argv[5] !== 'off';

const rt = createRuntime({ workers, allowPrivateTargets: false, batching });
console.log(`workers ${workers}, batching ${batching ? 'on' : 'off'}`);
const code = `export async function handler(event) { return { statusCode: 200, body: { hello: 'world' } }; }`;
const fn = { name: 'hello', version: 1, compiled: (await compileSource(code, 'javascript')).compiled, env: {}, timeoutMs: 10000, memoryMb: 128 };
const event = JSON.stringify({ httpMethod: 'GET', path: '/hello', headers: { host: 'localhost', 'user-agent': 'bench' }, queryStringParameters: null, body: null });

async function run(conc, ms) {
  let done = 0, failed = 0, seq = 0;
  const lat = [];
  const until = performance.now() + ms;
  async function loop() {
    while (performance.now() < until) {
      const t = performance.now();
      const out = await rt.invoke(fn, event, `req_${++seq}`);
      lat.push(performance.now() - t);
      if (out.ok) done++; else failed++;
    }
  }
  const start = performance.now();
  await Promise.all(Array.from({ length: conc }, loop));
  const secs = (performance.now() - start) / 1000;
  lat.sort((a, b) => a - b);
  const p = (q) => lat[Math.min(lat.length - 1, Math.floor(lat.length * q))].toFixed(2);
  return { conc, perSec: Math.round(done / secs), failed, p50: p(0.5), p99: p(0.99) };
}

await run(concurrency, 1000); // warm up
for (const conc of [1, 10, concurrency]) {
  const r = await run(conc, seconds * 1000);
  console.log(`concurrency ${String(r.conc).padStart(4)}: ${String(r.perSec).padStart(7)} invokes/s  p50 ${r.p50} ms  p99 ${r.p99} ms  failed ${r.failed}`);
}
await rt.close();
