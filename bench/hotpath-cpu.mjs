// `node bench/hotpath-cpu.mjs`: CPU time per request of bare node:http and of
// the gateway (`--processes 1`), split into the main process and its isolate
// worker processes, read from /proc (Linux) around a fixed load. CPU per
// request moves far less than req/s when other work shares the cores, so it
// is the figure to compare when changing the hot path; the throughput ratio
// to bare node:http of the same run is printed too. Needs `npm run build`.
//
// Options: --duration <s> (6)  --connections <n> (50)  --rounds <n> (2)
//          --cpu-prof <dir>: profile the gateway's main process (node --cpu-prof)
//          and print its top self-time functions (wall-clock samples: a process
//          preempted inside a syscall is charged to it).
//          --node-args='<flags>': node flags for the gateway's main process.
//          --perf <file>: `perf record -e cpu-clock -g` the main process during
//          the last round's timed load (on-CPU samples only; JS names through
//          --perf-basic-prof); read it with `perf report -i <file>`.
import autocannon from 'autocannon';
import { fork, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startHelloGateway } from './hello-gateway.mjs';
import { childrenOf, cpuUs } from './proc-cpu.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: opt } = parseArgs({
  options: {
    duration: { type: 'string', default: '6' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '2' },
    'cpu-prof': { type: 'string' },
    perf: { type: 'string' },
    'node-args': { type: 'string', default: '' },
    cli: { type: 'string' },
  },
});
// --cli <path>: another build's cli.js (e.g. a copy of dist/ before a change), for A/B runs.
const CLI = opt.cli ? path.resolve(opt.cli) : path.join(ROOT, 'dist', 'cli.js');
const DURATION = Number(opt.duration);
const CONNECTIONS = Number(opt.connections);
const ROUNDS = Number(opt.rounds);
/** The timed load's [start, end] in µs of the monotonic clock the profiles use. */
let window = [0, Infinity];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function load(url, pids, perfFile) {
  const common = { url, connections: CONNECTIONS, pipelining: 1 };
  await autocannon({ ...common, duration: 1 });
  const perf = perfFile
    ? spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', '2000', '-g', '-o', perfFile, '-p', String(pids[0])], { stdio: 'inherit' })
    : null;
  if (perf) await sleep(300);
  const before = pids.map(cpuUs);
  const from = process.hrtime.bigint();
  const r = await autocannon({ ...common, duration: DURATION });
  window = [Number(from / 1000n), Number(process.hrtime.bigint() / 1000n)];
  const after = pids.map(cpuUs);
  if (perf) {
    const done = new Promise((r) => perf.once('exit', r));
    perf.kill('SIGINT');
    await done;
  }
  const n = r.requests.total;
  return { rps: r.requests.mean, p99: r.latency.p99, bad: r.non2xx + r.errors, perReq: after.map((a, i) => (a - before[i]) / n) };
}

async function bare() {
  const child = fork(path.join(ROOT, 'bench', 'bare-server.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise((resolve) => child.once('message', (m) => resolve(m.port)));
  try {
    return await load(`http://127.0.0.1:${port}/`, [child.pid]);
  } finally {
    child.kill('SIGTERM');
  }
}

async function gateway(profDir, perfFile) {
  const nodeArgs = profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
  if (perfFile) nodeArgs.push('--perf-basic-prof');
  if (opt['node-args']) nodeArgs.push(...opt['node-args'].split(' '));
  const g = await startHelloGateway({ processes: 1, nodeArgs, cli: CLI });
  try {
    return await load(g.url, [g.child.pid, ...childrenOf(g.child.pid)], perfFile);
  } finally {
    await g.stop();
  }
}

/** Self time by function (name file:line) of the newest profile in `dir`, as a share of sampled time. */
function topSelf(dir, n = 25) {
  const file = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort().at(-1);
  const prof = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
  const byId = new Map(prof.nodes.map((node) => [node.id, node]));
  const self = new Map();
  const dt = prof.timeDeltas;
  let total = 0;
  let t = prof.startTime;
  for (let i = 0; i < prof.samples.length; i++) {
    t += dt[i];
    if (t < window[0] || t > window[1]) continue;
    const node = byId.get(prof.samples[i]);
    const cf = node.callFrame;
    const where = cf.url ? `${cf.url.replace(/^file:\/\/.*?\/(dist|node_modules)\//, '$1/')}:${cf.lineNumber + 1}` : '';
    const key = `${cf.functionName || '(anonymous)'} ${where}`.trim();
    const us = dt[i] ?? 0;
    self.set(key, (self.get(key) ?? 0) + us);
    total += us;
  }
  if (total === 0) return `no samples between ${window} (profile ${prof.startTime}..${prof.endTime})`;
  const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, n);
  return rows.map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`).join('\n');
}

if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first');
const fmt = (us) => us.toFixed(1);
console.log(`load: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${CONNECTIONS} connections, ${DURATION} s per target`);
console.log('| round | bare req/s | bare CPU µs/req | gateway req/s | ratio | main µs/req | workers µs/req | gateway p99 |');
console.log('|---|---|---|---|---|---|---|---|');
for (let round = 1; round <= ROUNDS; round++) {
  const b = await bare();
  const last = round === ROUNDS;
  const g = await gateway(last ? opt['cpu-prof'] : undefined, last ? opt.perf : undefined);
  const workers = g.perReq.slice(1).reduce((a, x) => a + x, 0);
  console.log(
    `| ${round} | ${Math.round(b.rps)} | ${fmt(b.perReq[0])} | ${Math.round(g.rps)} | ${(g.rps / b.rps).toFixed(2)} | ${fmt(g.perReq[0])} | ${fmt(workers)} | ${g.p99} ms |`,
  );
  if (b.bad + g.bad > 0) console.log(`  non-2xx or errors: bare ${b.bad}, gateway ${g.bad}`);
}
if (opt['cpu-prof']) console.log(`\nMain process, top self time (profiled round):\n${topSelf(opt['cpu-prof'])}`);
process.exit(0);
