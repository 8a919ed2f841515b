// `node bench/transformations.mjs`: what a webhook transformation costs a
// delivery. One real Switchyard (`node dist/cli.js`, SQLite, one process) and
// a receiver in this process; two webhooks that differ only in that one has a
// transformation (it rewrites the payload, adds a header and changes the URL).
// For each, --events (2000) events are published (20 at a time) and timed from
// the first publish to the last arrival at the receiver; each round runs
// --rounds (3) times, alternating, and the best is kept. Also the transformation's
// own run time as the try-it endpoint reports it (warm isolate, --tries runs).
// A benchmark, not a test: prints the figures. Needs `npm run build` first.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { call, freePort } from './nodes.js';
import { stopGracefully } from './processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: opt } = parseArgs({
  options: { events: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '3' }, tries: { type: 'string', default: '200' } },
});
const EVENTS = Number(opt.events);
const ROUNDS = Number(opt.rounds);
const TRIES = Number(opt.tries);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const CODE = `function handler(webhook) {
  webhook.url = webhook.url.replace('/plain', '/shaped');
  webhook.headers['x-region'] = webhook.payload.data.region ?? 'eu';
  webhook.payload = { order: webhook.payload.data, kind: webhook.eventType, total: webhook.payload.data.items.reduce((s, i) => s + i.price, 0) };
  return webhook;
}`;

const counts = new Map();
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const key = req.url.split('?')[0];
    counts.set(key, (counts.get(key) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const target = `http://127.0.0.1:${receiver.address().port}`;

const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-transform-'));
const port = await freePort();
const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite')}`, LOG_LEVEL: 'warn', SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1', SWITCHYARD_PROCESSES: '1' };
for (const name of ['SWITCHYARD_ADMIN_KEY', 'SWITCHYARD_DEMO', 'SWITCHYARD_TEST_HOOKS']) delete env[name];
const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'cli.js')], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
const node = { child, group: true, label: 'switchyard' };
const base = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${base}/readyz`)).status === 200) break;
  } catch {
    // not listening yet
  }
  if (i > 300) throw new Error('the server did not start');
  await sleep(100);
}

try {
  const hook = (name, transformation) => ({
    name,
    target_url: `${target}/plain/${name}`,
    method: 'POST',
    payload_template: { event: '{{event}}', data: {} },
    events: [`bench.${name}`],
    ...(transformation ? { transformation } : {}),
  });
  await call(base, 'POST', '/api/webhooks', hook('without'));
  await call(base, 'POST', '/api/webhooks', hook('with', CODE));
  const data = { id: 1, region: 'us', items: [{ price: 3 }, { price: 4 }, { price: 5 }] };

  async function round(name) {
    const path = name === 'with' ? `/shaped/${name}` : `/plain/${name}`;
    const before = counts.get(path) ?? 0;
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < EVENTS) {
          next++;
          await call(base, 'POST', '/api/events', { event: `bench.${name}`, data });
        }
      }),
    );
    while ((counts.get(path) ?? 0) - before < EVENTS) await sleep(5);
    return performance.now() - started;
  }

  // Warm both: isolates, connections, the statement cache.
  await round('without');
  await round('with');
  const best = { without: Infinity, with: Infinity };
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of ['without', 'with']) best[name] = Math.min(best[name], await round(name));
  }

  const runs = [];
  for (let i = 0; i < TRIES; i++) {
    const res = await call(base, 'POST', '/api/transformation-test', {
      transformation: CODE,
      request: { url: `${target}/plain/x`, payload: { event: 'bench.with', data } },
      event_type: 'bench.with',
    });
    runs.push(res.duration_ms);
  }
  runs.sort((a, b) => a - b);
  const pct = (p) => runs[Math.min(runs.length - 1, Math.floor((p / 100) * runs.length))];

  const rate = (ms) => Math.round(EVENTS / (ms / 1000));
  console.log(`machine: ${os.availableParallelism()} cores, Node ${process.versions.node}; ${EVENTS} events per round, best of ${ROUNDS}`);
  console.log(`without a transformation: ${Math.round(best.without)} ms, ${rate(best.without)} deliveries/s`);
  console.log(`with a transformation:    ${Math.round(best.with)} ms, ${rate(best.with)} deliveries/s (${((best.with / best.without - 1) * 100).toFixed(1)} % longer)`);
  console.log(`one run in the worker's warm isolate, as the try-it endpoint times it (main process to worker and back, output checked): p50 ${pct(50).toFixed(2)} ms, p99 ${pct(99).toFixed(2)} ms over ${TRIES}`);
} finally {
  await stopGracefully(node, 15_000);
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
