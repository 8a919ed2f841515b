// `node bench/processes-compare.mjs`: the gateway with --processes 1 against
// --processes 2 (or the counts given), with bare node:http in the same run,
// all answering the hello function's JSON. A benchmark, not a test: figures
// drift between runs and with other load on the machine; the ratios to bare
// node:http of the same run are what to compare. Each gateway runs on its own
// temp SQLite file with LOG_LEVEL=warn and default workers.
//
// Options: --duration <s> (10)  --warmup <s> (2)  --connections <n> (50)
//          --processes <list> (1,2)
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startHelloGateway } from './hello-gateway.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: opt } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    processes: { type: 'string', default: '1,2' },
  },
});
const DURATION = Number(opt.duration);
const WARMUP = Number(opt.warmup);
const CONNECTIONS = Number(opt.connections);
const COUNTS = opt.processes.split(',').map(Number);

async function measure(label, url) {
  const common = { url, connections: CONNECTIONS, pipelining: 1 };
  console.error(`${label}: warm-up ${WARMUP} s, then ${DURATION} s at ${CONNECTIONS} connections`);
  await autocannon({ ...common, duration: WARMUP });
  const r = await autocannon({ ...common, duration: DURATION });
  return { label, rps: r.requests.mean, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

async function bare() {
  const child = fork(path.join(ROOT, 'bench', 'bare-server.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise((resolve) => child.once('message', (m) => resolve(m.port)));
  try {
    return await measure('bare node:http, 1 process', `http://127.0.0.1:${port}/`);
  } finally {
    child.kill('SIGTERM');
  }
}

async function gateway(processes) {
  const g = await startHelloGateway({ processes });
  try {
    const workers = processes > 1 ? 1 : 2;
    return await measure(`Switchyard --processes ${processes} (${workers} isolate worker${workers > 1 ? 's' : ''} each)`, g.url);
  } finally {
    await g.stop();
  }
}

const rows = [await bare()];
for (const n of COUNTS) rows.push(await gateway(n));
const baseRps = rows[0].rps;
const lines = [
  `${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ` +
    `autocannon ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s per target`,
  '',
  '| target | req/s | ratio to bare | p50 | p99 | non-2xx + errors |',
  '|---|---|---|---|---|---|',
  ...rows.map(
    (r) => `| ${r.label} | ${Math.round(r.rps)} | ${(r.rps / baseRps).toFixed(2)} | ${r.p50} ms | ${r.p99} ms | ${r.non2xx + r.errors} |`,
  ),
];
console.log(lines.join('\n'));
process.exit(0);
