// Read-your-writes on one node with two server processes: N rounds of a
// function update (PUT) followed at once by two calls on new connections,
// which the primary hands to either process. Reports the write's latency
// (p50, p95) and how many calls still ran the old code. `--cli <path>` runs
// another build's cli.js (an A/B against a build from before a change).
//   node bench/write-propagation.mjs [--rounds 200] [--cli ../old/dist/cli.js]
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startHelloGateway } from './hello-gateway.mjs';
import { call } from './nodes.js';

const { values: opt } = parseArgs({ options: { rounds: { type: 'string', default: '200' }, cli: { type: 'string' } } });
const rounds = Number(opt.rounds);
const gateway = await startHelloGateway({ processes: 2, ...(opt.cli ? { cli: path.resolve(opt.cli) } : {}) });
const code = (v) => `exports.handler = async () => ({ statusCode: 200, body: { v: ${v} } });`;
try {
  await call(gateway.base, 'POST', '/api/functions', { name: 'ryw', code: code(0) }, [201]);
  const api = await call(gateway.base, 'POST', '/api/apis', { name: 'ryw', basePath: '/ryw', routes: [{ method: 'GET', path: '/', function: 'ryw' }] }, [201]);
  const url = `${gateway.base}/api/invoke/fn/${api.id}/ryw`;
  const fresh = () => fetch(url, { headers: { connection: 'close' } }).then((r) => r.json());
  for (let i = 0; i < 10; i++) await fresh();
  const latencies = [];
  let stale = 0;
  for (let v = 1; v <= rounds; v++) {
    const started = performance.now();
    await call(gateway.base, 'PUT', '/api/functions/ryw', { code: code(v) }, [200]);
    latencies.push(performance.now() - started);
    for (const answer of [await fresh(), await fresh()]) if (answer.v !== v) stale++;
  }
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1);
  console.log(`${rounds} writes with 2 server processes: write p50 ${at(0.5)} ms, p95 ${at(0.95)} ms; stale calls ${stale} of ${rounds * 2}`);
} finally {
  await gateway.stop();
}
