// CPU time of processes read from /proc (Linux): what the hot-path scripts
// (hotpath-cpu.mjs, policy.mjs) count per request, since CPU per request
// moves far less than req/s when other work shares the cores.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_US = 1e6 / 100; // USER_HZ

/** utime + stime of one process, in µs. */
export function cpuUs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_US;
}

/** The direct children of `pid` (a gateway's isolate workers). */
export function childrenOf(pid) {
  const out = [];
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    const text = readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim();
    if (text) out.push(...text.split(' ').map(Number));
  }
  return out;
}

/** `pid` and every process below it, breadth first; processes gone meanwhile are skipped. */
export function processTree(pid) {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      out.push(...childrenOf(out[i]));
    } catch {
      /* gone */
    }
  }
  return out;
}
