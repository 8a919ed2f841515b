// Background runs of functions against synchronous invokes of the same
// function, in the same run, on one real `node dist/cli.js` with a temporary
// SQLite file: N synchronous invokes (`POST /api/functions/<name>/invoke`, C at
// a time), then N asynchronous ones (`x-invocation-type: Event`, C at a time)
// timed from the first request until the last invocation succeeded (the drain:
// stored, claimed, run through the runtime, recorded). The ratio is the figure
// to compare (goal: async at least half of sync). Runnable alone after
// `npm run build`: node bench/functions.js [--n 2000] [--concurrency 50]
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from './nodes.js';
import { stopGracefully } from './processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'dist', 'cli.js');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const { values: opt } = parseArgs({
  options: { n: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '50' } },
});
const N = Number(opt.n);
const C = Number(opt.concurrency);

async function call(base, method, url, body, headers = {}) {
  const res = await fetch(base + url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${url} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

/** Runs `n` calls of `one`, `c` at a time; resolves with the wall time in ms. */
async function pool(n, c, one) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n) {
        const i = next++;
        await one(i);
      }
    }),
  );
  return performance.now() - started;
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-fn-'));
const port = await freePort();
const child = spawn(process.execPath, [CLI], {
  cwd: ROOT,
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${path.join(dir, 'bench.db')}`, LOG_LEVEL: 'warn', SWITCHYARD_PROCESSES: '1' },
  stdio: ['ignore', 'ignore', 'inherit'],
  detached: true,
});
const node = { child, group: true, label: 'bench node' };
const base = `http://127.0.0.1:${port}`;
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(base + '/readyz')).status === 200) break;
    } catch {
      // not listening yet
    }
    if (i > 300) throw new Error('the node did not start');
    await sleep(100);
  }
  await call(base, 'POST', '/api/functions', { name: 'bench', code: 'export const handler = async (event) => ({ n: event.n });' });

  await pool(200, C, (i) => call(base, 'POST', '/api/functions/bench/invoke', { n: i })); // warm-up
  const syncMs = await pool(N, C, (i) => call(base, 'POST', '/api/functions/bench/invoke', { n: i }));

  const asyncMs = await (async () => {
    const started = performance.now();
    await pool(N, C, (i) => call(base, 'POST', '/api/functions/bench/invoke', { n: i }, { 'x-invocation-type': 'Event' }));
    const acceptedMs = performance.now() - started;
    for (;;) {
      const pending = await call(base, 'GET', '/api/functions/bench/invocations?status=pending&limit=1');
      if (pending.length === 0) break;
      await sleep(20);
    }
    const failed = await call(base, 'GET', '/api/functions/bench/invocations?status=failed&limit=1');
    if (failed.length > 0) throw new Error(`an invocation failed: ${JSON.stringify(failed[0])}`);
    return { acceptedMs, drainedMs: performance.now() - started };
  })();

  const syncRate = (N / syncMs) * 1000;
  const asyncRate = (N / asyncMs.drainedMs) * 1000;
  console.log(`functions, SQLite, ${N} invocations, ${C} at a time:`);
  console.log(`  synchronous invoke:        ${syncRate.toFixed(0)}/s`);
  console.log(`  asynchronous, accepted:    ${((N / asyncMs.acceptedMs) * 1000).toFixed(0)}/s (202 answers)`);
  console.log(`  asynchronous, drained:     ${asyncRate.toFixed(0)}/s (stored, run and recorded)`);
  console.log(`  async / sync:              ${(asyncRate / syncRate).toFixed(2)}`);
} finally {
  await stopGracefully(node, 15_000);
  await rm(dir, { recursive: true, force: true });
}
