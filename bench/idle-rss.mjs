// `node bench/idle-rss.mjs`: idle RSS of a node at default settings with
// `--processes 2` (the hello gateway of hello-gateway.mjs, warmed, then 3 s
// idle): the primary (src/cluster.ts) and each process below it, read from
// /proc (Linux). `--before <cli.js>` measures another build too, in
// alternate rounds. Needs `npm run build`.
//
// Options: --rounds <n> (2)  --before <path>  --processes <n> (2)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startHelloGateway } from './hello-gateway.mjs';
import { childrenOf } from './proc-cpu.mjs';

const { values: opt } = parseArgs({ options: { rounds: { type: 'string', default: '2' }, before: { type: 'string' }, processes: { type: 'string', default: '2' } } });
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const tree = (pid) => [pid, ...childrenOf(pid).flatMap(tree)];

const rows = [];
for (let round = 0; round < Number(opt.rounds); round++) {
  for (const [build, cli] of [['this', undefined], ...(opt.before ? [['before', opt.before]] : [])]) {
    const g = await startHelloGateway({ processes: Number(opt.processes), ...(cli ? { cli } : {}) });
    try {
      await new Promise((r) => setTimeout(r, 3000));
      const primary = g.child.pid;
      const below = tree(primary).slice(1);
      rows.push({ round, build, primaryMb: Math.round(rssMb(primary)), belowMb: Math.round(below.reduce((s, p) => s + rssMb(p), 0)), processesBelow: below.length, totalMb: Math.round(rssMb(primary) + below.reduce((s, p) => s + rssMb(p), 0)) });
    } finally {
      await g.stop();
    }
  }
}
console.table(rows);
