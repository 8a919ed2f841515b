// `node bench/process-model.mjs`: where isolates run (--isolates in-process vs
// workers), measured as CPU per hello request of every process of the gateway
// added up (the primary, its server processes, their worker processes: utime +
// stime from /proc before and after a fixed number of requests), against bare
// node:http with the same number of processes in the same run, in interleaved
// rounds; plus req/s (throughput ratio to bare) and the idle RSS of each
// gateway's whole process tree. A benchmark, not a test: figures move with
// other load on the machine; compare within a round.
//
// Options: --requests <n> (50000)  --connections <n> (50)  --rounds <n> (3)
//          --processes <n> (2)  --variants <list> (bare,workers,in-process; also workers-nosnap, and any
//          of them with `-async`: SWITCHYARD_SYNC_CALLS=0, the synchronous fast path off, for an A/B of it)
//          --before <cli.js>: another build (a copy of dist/ from before a change), as the variant
//          `before` (in-process isolates, like `in-process`), for an A/B of two builds
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startHelloGateway } from './hello-gateway.mjs';
import { cpuUs, processTree } from './proc-cpu.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: opt } = parseArgs({
  options: {
    requests: { type: 'string', default: '50000' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    processes: { type: 'string', default: '2' },
    variants: { type: 'string', default: 'bare,workers,in-process' },
    before: { type: 'string' },
  },
});
const N = Number(opt.requests);
const CONNECTIONS = Number(opt.connections);
const PROCESSES = Number(opt.processes);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const cpuOf = (pids) => pids.reduce((sum, p) => { try { return sum + cpuUs(p); } catch { return sum; } }, 0);
function rssMb(pids) {
  let kb = 0;
  for (const p of pids) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))[1]);
    } catch {
      /* gone */
    }
  }
  return Math.round(kb / 1024);
}

async function startBare() {
  const child = fork(path.join(ROOT, 'bench', 'bare-server.js'), ['--processes', String(PROCESSES)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise((resolve) => child.once('message', (m) => resolve(m.port)));
  return { pid: child.pid, url: `http://127.0.0.1:${port}/`, stop: async () => child.kill('SIGTERM') };
}

async function start(variant) {
  if (variant === 'bare') return startBare();
  if (variant === 'before') {
    if (!opt.before) throw new Error('the variant before needs --before <path to the other build\'s cli.js>');
    const g = await startHelloGateway({ processes: PROCESSES, cli: path.resolve(opt.before), env: { SWITCHYARD_ISOLATES: 'in-process' } });
    return { pid: g.child.pid, url: g.url, stop: g.stop };
  }
  // `workers-nosnap`: worker processes, the server processes started with --no-node-snapshot as in-process ones are
  // (so that what the flag costs is told apart from where the isolates run).
  const async = variant.endsWith('-async');
  const [isolates, nosnap] = (async ? variant.slice(0, -'-async'.length) : variant).split('-nosnap');
  const nodeArgs = nosnap !== undefined ? ['--no-node-snapshot'] : [];
  const env = { SWITCHYARD_ISOLATES: isolates, ...(async ? { SWITCHYARD_SYNC_CALLS: '0' } : {}) };
  const g = await startHelloGateway({ processes: PROCESSES, nodeArgs, env });
  return { pid: g.child.pid, url: g.url, stop: g.stop };
}

async function measure(variant) {
  const s = await start(variant);
  try {
    // Idle: started, hello deployed and called a few times through each process (startHelloGateway).
    await sleep(2000);
    const idle = rssMb(processTree(s.pid));
    await autocannon({ url: s.url, connections: CONNECTIONS, amount: 5000 });
    const pids = processTree(s.pid);
    const beforeEach = new Map(pids.map((p) => [p, cpuOf([p])]));
    const before = [...beforeEach.values()].reduce((a, b) => a + b, 0);
    const r = await autocannon({ url: s.url, connections: CONNECTIONS, amount: N });
    await sleep(300);
    const after = new Map(pids.map((p) => [p, cpuOf([p])]));
    const used = [...after.values()].reduce((a, b) => a + b, 0) - before; // a worker restarted meanwhile would be missed: check non2xx
    // Per process, µs per request: the primary first, then what it forked and theirs.
    const split = pids.map((p) => ((after.get(p) - (beforeEach.get(p) ?? 0)) / N).toFixed(1)).join('+');
    return { variant, split, processes: pids.length, cpuUsPerReq: used / N, rps: r.requests.total / r.duration, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, idleRssMb: idle };
  } finally {
    await s.stop();
  }
}

const variants = opt.variants.split(',');
console.log(`${N} hello requests at ${CONNECTIONS} connections, ${PROCESSES} server process(es), node ${process.version}`);
for (let round = 1; round <= Number(opt.rounds); round++) {
  const rows = [];
  for (const v of variants) rows.push(await measure(v));
  const bare = rows.find((r) => r.variant === 'bare');
  for (const r of rows) {
    const ratio = bare ? ` ratio ${(r.rps / bare.rps).toFixed(2)}, CPU x${(r.cpuUsPerReq / bare.cpuUsPerReq).toFixed(2)} bare` : '';
    console.log(
      `round ${round}: ${r.variant.padEnd(16)} ${r.cpuUsPerReq.toFixed(1).padStart(6)} µs/req (${r.split})  ${Math.round(r.rps).toString().padStart(6)} req/s  p99 ${r.p99} ms  ` +
        `idle RSS ${r.idleRssMb} MB (${r.processes} processes)  non2xx ${r.non2xx} errors ${r.errors}${ratio}`,
    );
  }
}
process.exit(0);
