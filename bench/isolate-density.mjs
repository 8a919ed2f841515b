// What one warm hello isolate costs in a runtime worker process: the worker's
// RSS (VmRSS, /proc) before and after N distinct hello functions were each
// invoked once (so each holds one idle warm isolate), delta / N. Also what
// prewarming them costs (runtime.prewarm, no handler run), in a second
// worker of the same run, interleaved round by round so the machine's noise
// hits both alike. Not a test; needs `npm run build` first:
//   node bench/isolate-density.mjs [--isolates 300] [--rounds 3]
// Reports KB per isolate per round and the median; the goals (issue 27):
// at most 1.2 MB a warm hello isolate, 2,000 warm functions in 4 GB.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: opt } = parseArgs({
  options: { isolates: { type: 'string', default: '300' }, rounds: { type: 'string', default: '3' } },
});
const N = Number(opt.isolates);
const ROUNDS = Number(opt.rounds);
const dist = (p) => import(new URL(`../dist/${p}`, import.meta.url).href);
const { createRuntime } = await dist('runtime/pool.js');
const { compileSource } = await dist('runtime/compile.js');

const HELLO = `export const handler = async () => ({ statusCode: 200, body: 'hello' });`;
const compiled = (await compileSource(HELLO, 'javascript', 'hello')).compiled;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function rssKb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]);
}

/** RSS after the worker settled: the lowest of a few reads (a GC may be under way). */
async function settledRss(pid) {
  let low = Infinity;
  for (let i = 0; i < 5; i++) {
    await sleep(200);
    low = Math.min(low, rssKb(pid));
  }
  return low;
}

const fns = (tag, round) =>
  Array.from({ length: N }, (_, i) => ({ name: `${tag}-${round}-${i}`, version: 1, compiled, env: {}, timeoutMs: 5000, memoryMb: 128, handler: null }));

async function measure(kind, round) {
  const rt = createRuntime({ workers: 1, allowPrivateTargets: false, warmIsolates: N + 10 });
  try {
    // One function first, so the worker's own start-up (caches, the bootstrap's code) is not counted.
    const [first] = fns(`${kind}-warmup`, round);
    await rt.invoke(first, '{}', 'r');
    const pid = rt.stats().workers[0].pid;
    const before = await settledRss(pid);
    const list = fns(kind, round);
    if (kind === 'invoked') {
      for (let i = 0; i < list.length; i += 50) await Promise.all(list.slice(i, i + 50).map((f) => rt.invoke(f, '{}', 'r')));
    } else {
      for (const f of list) rt.prewarm(f);
      // The last one answering warm means the worker handled every prewarm frame before it.
      await rt.invoke(list[list.length - 1], '{}', 'r');
      await sleep(1000);
    }
    const after = await settledRss(pid);
    return (after - before) / N;
  } finally {
    await rt.close(1000);
  }
}

const results = { invoked: [], prewarmed: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const kind of round % 2 === 0 ? ['invoked', 'prewarmed'] : ['prewarmed', 'invoked']) {
    const kb = await measure(kind, round);
    results[kind].push(kb);
    console.log(`round ${round + 1} ${kind}: ${Math.round(kb)} KB RSS per warm hello isolate (${N} isolates)`);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const kind of Object.keys(results)) {
  const kb = median(results[kind]);
  console.log(`${kind}: median ${Math.round(kb)} KB an isolate; 2,000 warm = ${((kb * 2000) / 1024 / 1024).toFixed(2)} GB`);
}
