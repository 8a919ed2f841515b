// `node bench/access-log.mjs`: what the access line (SWITCHYARD_ACCESS_LOG,
// issue 28 item 2) costs an invocation: the hello gateway (`--processes 1`,
// LOG_LEVEL=info, stdout to /dev/null) under a fixed load with the line on and
// off, rounds alternated, as CPU per request of the main process and its
// isolate workers (read from /proc) and req/s. Needs `npm run build`.
// `--before <cli.js>` adds a third variant in every round: another build's
// cli.js with the line on (an A/B of a change to the log's cost in one run).
//
// Options: --duration <s> (5)  --connections <n> (20)  --rounds <n> (2)  --before <path>
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { startHelloGateway } from './hello-gateway.mjs';
import { childrenOf, cpuUs } from './proc-cpu.mjs';

const { values: opt } = parseArgs({
  options: { duration: { type: 'string', default: '5' }, connections: { type: 'string', default: '20' }, rounds: { type: 'string', default: '2' }, before: { type: 'string' } },
});

async function measure(access, cli) {
  const g = await startHelloGateway({ ...(cli ? { cli } : {}), env: { LOG_LEVEL: 'info', SWITCHYARD_ACCESS_LOG: access } });
  try {
    const common = { url: g.url, connections: Number(opt.connections) };
    await autocannon({ ...common, duration: 1 });
    const pids = [g.child.pid, ...childrenOf(g.child.pid)];
    const before = pids.map(cpuUs);
    const r = await autocannon({ ...common, duration: Number(opt.duration) });
    const after = pids.map(cpuUs);
    const cpu = after.reduce((s, v, i) => s + v - before[i], 0);
    return { rps: r.requests.average, usPerReq: cpu / r.requests.total, non2xx: r.non2xx };
  } finally {
    await g.stop();
  }
}

const rows = [];
for (let round = 0; round < Number(opt.rounds); round++) {
  for (const access of ['1', '0']) rows.push({ round, build: 'this', SWITCHYARD_ACCESS_LOG: access, ...(await measure(access)) });
  if (opt.before) rows.push({ round, build: 'before', SWITCHYARD_ACCESS_LOG: '1', ...(await measure('1', opt.before)) });
}
console.table(rows.map((r) => ({ ...r, rps: Math.round(r.rps), usPerReq: Math.round(r.usPerReq) })));
