// CPU time of processes read from /proc (Linux): what the hot-path scripts
// (hotpath-cpu.mjs, policy.mjs) count per request, since CPU per request
// moves far less than req/s when other work shares the cores.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_US = 1e6 / 100; // USER_HZ

/** utime + stime of a `/proc/.../stat` line, in µs (fields after the name, which may hold spaces). */
function statCpuUs(stat) {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_US;
}

/** utime + stime of one process, in µs. */
export function cpuUs(pid) {
  return statCpuUs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
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

/**
 * CPU of one process split by thread, in µs: `main` (the JavaScript thread, with its system
 * calls), `v8` (V8's helpers: parallel scavenges, concurrent marking, background compiles) and
 * `other` (libuv's pool, worker threads).
 */
export function threadCpuUs(pid) {
  const out = { main: 0, v8: 0, other: 0 };
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    out[t === String(pid) ? 'main' : name.startsWith('V8') ? 'v8' : 'other'] += statCpuUs(stat);
  }
  return out;
}
