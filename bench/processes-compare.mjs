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
import { fork, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { call, freePort } from './nodes.js';
import { stopGracefully } from './processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'dist', 'cli.js');
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
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const children = [];
process.on('exit', () => {
  for (const c of children) {
    try {
      process.kill(-c.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

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
  const port = await freePort();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-'));
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${path.join(dir, 'bench.db')}`,
    LOG_LEVEL: 'warn',
    SWITCHYARD_PROCESSES: String(processes),
  };
  for (const name of ['SWITCHYARD_ADMIN_KEY', 'SWITCHYARD_DEMO', 'SWITCHYARD_WORKERS']) delete env[name];
  const child = spawn(process.execPath, [CLI], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).status === 200) break;
    } catch {
      /* not yet */
    }
    if (i > 300) throw new Error(`gateway with ${processes} processes did not start`);
    await sleep(100);
  }
  try {
    const code = await readFile(path.join(ROOT, 'examples', 'functions', 'hello.js'), 'utf8');
    await call(base, 'POST', '/api/functions', { name: 'hello', code }, [201]);
    const api = await call(base, 'POST', '/api/apis', {
      name: 'bench',
      basePath: '/bench',
      routes: [{ method: 'GET', path: '/hello', function: 'hello' }],
    }, [201]);
    const url = `${base}/api/invoke/fn/${api.id}/bench/hello`;
    // Every process's caches and isolates warm before the warm-up.
    for (let i = 0; i < 20; i++) await fetch(url, { headers: { connection: 'close' } }).then((r) => r.text());
    const workers = processes > 1 ? 1 : 2;
    return await measure(`Switchyard --processes ${processes} (${workers} isolate worker${workers > 1 ? 's' : ''} each)`, url);
  } finally {
    await stopGracefully({ child, group: true }, 15_000);
    await rm(dir, { recursive: true, force: true });
  }
}

if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first');
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
