// `node bench/app-fanout.mjs`: what publishing to one application costs when
// there are many. A benchmark, not a test: it prints what it measured and PASS
// or FAIL for the goal, and exits 0 whatever the figures. Needs `npm run build`.
//
// In process, on the real EventBus (dist/webhooks/events.js) over a real SQLite
// store (a temp file each): `one` holds 1 application with 5 webhooks
// subscribed to `order.created`; `many` holds --apps (10,000) applications with
// 5 each (50,000 webhooks, all subscribed to the same event) plus 5 global
// webhooks. Each publish goes to one application (`many`: a different one each
// time) and makes 5 deliveries; `many (global)` publishes without an
// application on the many database, reaching its 5 global webhooks only. The
// sides take turns publish by publish, --publishes (200) per round, --rounds (5)
// rounds; the figure is publishes per second, the median round of each side.
//
// Goal (issue 29): fan-out to one application among 10,000 costs no more than
// with one application (an index seek, not a scan): within 10 %.
//
// With --postgres <url> the two databases are schemas of that PostgreSQL
// database (made and dropped by the bench) instead of SQLite files.
//
// Options: --apps 10000  --publishes 200  --rounds 5  --postgres <url>  --json <file>
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { openStore } from '../dist/store/index.js';
import { systemClock } from '../dist/clock.js';
import { ApplicationService } from '../dist/applications/service.js';
import { EventBus } from '../dist/webhooks/events.js';

const { values: opt } = parseArgs({
  options: {
    apps: { type: 'string', default: '10000' },
    publishes: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '5' },
    json: { type: 'string' },
    postgres: { type: 'string' },
  },
});
const APPS = Number(opt.apps);
const PUBLISHES = Number(opt.publishes);
const ROUNDS = Number(opt.rounds);
const PER_APP = 5;
const log = { debug() {}, info() {}, warn() {}, error() {} };
const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-apps-'));
const schemas = [];
function storeUrl(name) {
  if (opt.postgres === undefined) return `sqlite:${path.join(dir, `${name}.db`)}`;
  const schema = `bench_fanout_${name}_${process.pid}`;
  schemas.push(schema);
  const url = new URL(opt.postgres);
  url.searchParams.set('schema', schema);
  return url.toString();
}

const webhook = (i, applicationId) => ({
  name: `hook-${i}`,
  targetUrl: `https://example.com/hook/${i}`,
  method: 'POST',
  headers: {},
  payloadTemplate: {},
  cron: null,
  timezone: 'UTC',
  mockEndpoint: null,
  events: ['order.created'],
  enabled: true,
  secret: null,
  retry: { maxAttempts: 8, scheduleS: null },
  timeoutMs: 5000,
  nextFireAt: null,
  pausedAt: null,
  disabledReason: null,
  breaker: { enabled: true, minAttempts: 20, failureRatio: 0.5, windowS: 60 },
  rateLimit: null,
  autoDisable: { afterS: 432_000, minSpanS: 43_200 },
  filter: null,
  applicationId,
});
async function database(name, apps) {
  const started = performance.now();
  const store = await openStore(storeUrl(name));
  // Through the service, as the API creates them: the store's row gains fields the bench need not know.
  const applications = new ApplicationService({ store, clock: systemClock });
  const ids = [];
  let n = 0;
  for (let a = 0; a < apps; a++) {
    const app = await applications.create({ name: `customer ${a}`, uid: `cus_${a}` });
    ids.push(app.id);
    for (let k = 0; k < PER_APP; k++) await store.createWebhook(webhook(n++, app.id));
  }
  for (let k = 0; k < PER_APP; k++) await store.createWebhook(webhook(n++, null));
  const bus = new EventBus({ store, clock: systemClock, wake() {}, log, applications });
  console.log(`${name}: ${apps} application(s), ${n} webhooks written in ${Math.round(performance.now() - started)} ms`);
  return { store, bus, ids };
}

const one = await database('one', 1);
const many = await database('many', APPS);
const sides = [
  { name: 'one application', db: one, target: () => one.ids[0], rounds: [] },
  { name: `one of ${APPS} applications`, db: many, target: (n) => many.ids[(n * 7919) % many.ids.length], rounds: [] },
  { name: `no application, beside ${APPS}`, db: many, target: () => undefined, rounds: [] },
];

async function publishOnce(s, n) {
  const application = s.target(n);
  const started = performance.now();
  const published = await s.db.bus.publish('order.created', { n }, 0, application === undefined ? {} : { application });
  const ms = performance.now() - started;
  if (published.deliveries.length !== PER_APP) throw new Error(`${s.name}: ${published.deliveries.length} deliveries, expected ${PER_APP}`);
  const r = s.rounds.at(-1);
  r.ms += ms;
  r.samples.push(ms);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const round2 = (n) => Math.round(n * 100) / 100;

for (const s of sides) await publishOnce({ ...s, rounds: [{ ms: 0, samples: [] }] }, 0);
for (let r = 0; r < ROUNDS; r++) {
  for (const s of sides) s.rounds.push({ ms: 0, samples: [] });
  for (let i = 0; i < PUBLISHES; i++) {
    const order = (i + r) % 2 === 0 ? sides : [...sides].reverse();
    for (const s of order) await publishOnce(s, r * PUBLISHES + i + 1);
  }
}

const rows = sides.map((s) => {
  const perSecond = median(s.rounds.map((r) => (PUBLISHES / r.ms) * 1000));
  const all = s.rounds.flatMap((r) => r.samples);
  return { side: s.name, publishesPerSecond: Math.round(perSecond), p50Ms: round2(pct(all, 50)), p99Ms: round2(pct(all, 99)) };
});
console.log('\n| Publish to | publishes/s (median round) | p50 ms | p99 ms |\n|---|---|---|---|');
for (const r of rows) console.log(`| ${r.side} | ${r.publishesPerSecond} | ${r.p50Ms} | ${r.p99Ms} |`);
const ratio = rows[1].publishesPerSecond / rows[0].publishesPerSecond;
console.log(`\none of ${APPS} / one: ${round2(ratio)} of the throughput; goal >= 0.90: ${ratio >= 0.9 ? 'PASS' : 'FAIL'}`);

// The fan-out's read alone (the subscribers of the event in the scope), without the deliveries'
// inserts: what the index decides. The inserts' cost differs by where they land (below).
async function readMicros(db, target) {
  const n = PUBLISHES * ROUNDS;
  const started = performance.now();
  for (let i = 0; i < n; i++) await db.store.subscribersOf('order.created', target(i) ?? null);
  return round2(((performance.now() - started) / n) * 1000);
}
const reads = [];
for (const s of sides) reads.push({ side: s.name, readUs: await readMicros(s.db, s.target) });
console.log('\n| Subscription read of | µs per publish |\n|---|---|');
for (const r of reads) console.log(`| ${r.side} | ${r.readUs} |`);
if (opt.json) writeFileSync(opt.json, JSON.stringify({ apps: APPS, publishes: PUBLISHES, rounds: ROUNDS, rows, ratio, reads }, null, 2));
for (const db of [one, many]) await db.store.close();
rmSync(dir, { recursive: true, force: true });
if (schemas.length > 0) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: opt.postgres });
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}
