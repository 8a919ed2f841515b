// `node bench/event-filters.mjs`: what payload filters cost at fan-out. A
// benchmark, not a test: it prints what it measured and PASS or FAIL for the
// goal, and exits 0 whatever the figures. Needs `npm run build` first.
//
// In process, on the real EventBus (dist/webhooks/events.js) over a real SQLite
// store (a temp file each): two databases, each with --webhooks (1,000) webhooks
// subscribed to `order.created`, one where every webhook holds a filter (each its
// own: a threshold, a pattern, an any-element list and a header), one where none
// does. The same events are published to both, the sides taking turns publish
// by publish (so the growth of the deliveries table and a busy moment of the
// machine weigh on both alike), --publishes (40) per round, --rounds (6)
// rounds; throughput is deliveries made per second, the median round of each. The filters are written so that every event matches
// every one of them: both sides make the same deliveries, and the difference is
// the filters' evaluation alone (the worst case: a filter that rejects an event
// saves the delivery's insert, which costs far more than the check). A third
// side, where half the filters reject, is printed for information, and a
// fourth, `padded`: no filters, but rows as wide as the filtered ones (the
// template padded by the filter's length), which tells the cost of storing a
// filter in the webhook's row from the cost of evaluating it.
//
// Goal (issue 26): filters cost at most 10 % of publish throughput.
//
// Options: --webhooks 1000  --publishes 40  --rounds 6  --json <file>
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { openStore } from '../dist/store/index.js';
import { systemClock } from '../dist/clock.js';
import { EventBus } from '../dist/webhooks/events.js';

const { values: opt } = parseArgs({
  options: {
    webhooks: { type: 'string', default: '1000' },
    publishes: { type: 'string', default: '40' },
    rounds: { type: 'string', default: '6' },
    json: { type: 'string' },
  },
});
const WEBHOOKS = Number(opt.webhooks);
const PUBLISHES = Number(opt.publishes);
const ROUNDS = Number(opt.rounds);
const log = { debug() {}, info() {}, warn() {}, error() {} };
const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-filters-'));

function webhook(i, filter, pad = false) {
  return {
    name: `hook-${i}`,
    targetUrl: `https://example.com/hook/${i}`,
    method: 'POST',
    headers: {},
    payloadTemplate: pad ? { event: '{{event}}', data: '{{data}}', pad: 'x'.repeat(PAD) } : { event: '{{event}}', data: '{{data}}' },
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
    filter,
  };
}

/** Webhook i's filter: its own threshold and list; `rejectHalf`: odd ones want a region the events never have. */
const filterOf = (i, rejectHalf) => ({
  data: {
    amount: { $gte: i % 100 },
    region: { $regex: rejectHalf && i % 2 === 1 ? '^ap-' : '^eu-' },
    'items.$.sku': { $in: [`SKU-${i}`, 'SKU-7', 'SKU-9'] },
    status: { $neq: 'cancelled' },
  },
  headers: { 'x-source': 'checkout' },
});

async function side(name, filterFor, pad = false) {
  const store = await openStore(`sqlite:${path.join(dir, `${name}.db`)}`);
  for (let i = 0; i < WEBHOOKS; i++) await store.createWebhook(webhook(i, filterFor(i), pad));
  const bus = new EventBus({ store, clock: systemClock, wake() {}, log });
  return { name, store, bus, rounds: [] };
}

const event = (n) => ({
  id: n,
  amount: 250,
  region: 'eu-west-1',
  status: 'paid',
  customer: { id: `cus_${n}`, tier: 'premium' },
  items: [
    { sku: 'SKU-1', qty: 1 },
    { sku: 'SKU-9', qty: 2 },
  ],
});
const HEADERS = { 'x-source': 'checkout', 'x-request-id': 'bench' };

/** One publish on one side, its wall and CPU time added to the side's current round. */
async function publishOnce(s, n) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const published = await s.bus.publish('order.created', event(n), 0, { headers: HEADERS });
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const r = s.rounds.at(-1);
  r.deliveries += published.deliveries.length;
  r.ms += ms;
  r.cpuMs += (used.user + used.system) / 1000;
  r.userMs += used.user / 1000;
}

function closeRound(s) {
  const r = s.rounds.at(-1);
  Object.assign(r, { perSecond: (r.deliveries / r.ms) * 1000, publishesPerSecond: (PUBLISHES / r.ms) * 1000, perCpuSecond: (r.deliveries / r.cpuMs) * 1000 });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round1 = (n) => Math.round(n * 10) / 10;

const plain = await side('plain', () => null);
// No filters, but each row as wide as a filtered one (its template padded by the filter's length): what the
// wider webhook rows cost the same publishes, apart from evaluating anything.
const PAD = JSON.stringify(filterOf(999, false)).length;
const padded = await side('padded', () => null, true);
const filtered = await side('filtered', (i) => filterOf(i, false));
const half = await side('half', (i) => filterOf(i, true));
// One warm-up publish each (compiles the filters, warms SQLite's page cache), not counted.
for (const s of [plain, padded, filtered, half]) await s.bus.publish('order.created', event(0), 0, { headers: HEADERS });
for (let r = 0; r < ROUNDS; r++) {
  for (const s of [plain, padded, filtered, half]) s.rounds.push({ deliveries: 0, ms: 0, cpuMs: 0, userMs: 0 });
  // The sides take turns publish by publish (who goes first alternating), so a busy moment of a shared
  // machine weighs on all of them alike rather than on whichever round it fell in.
  for (let i = 0; i < PUBLISHES; i++) {
    const n = 1 + r * PUBLISHES + i;
    for (const s of i % 2 === 0 ? [plain, padded, filtered, half] : [half, filtered, padded, plain]) await publishOnce(s, n);
  }
  for (const s of [plain, padded, filtered, half]) closeRound(s);
}

const results = { machine: `${os.availableParallelism()} cores, Node ${process.versions.node}`, webhooks: WEBHOOKS, publishes: PUBLISHES, rounds: ROUNDS };
for (const s of [plain, padded, filtered, half]) {
  const perSecond = median(s.rounds.map((x) => x.perSecond));
  const publishes = median(s.rounds.map((x) => x.publishesPerSecond));
  const perCpuSecond = median(s.rounds.map((x) => x.perCpuSecond));
  const cpuMsPerPublish = median(s.rounds.map((x) => x.cpuMs / PUBLISHES));
  const userMsPerPublish = median(s.rounds.map((x) => x.userMs / PUBLISHES));
  results[s.name] = {
    deliveriesPerSecond: round1(perSecond),
    publishesPerSecond: round1(publishes),
    deliveriesPerCpuSecond: round1(perCpuSecond),
    cpuMsPerPublish: round1(cpuMsPerPublish),
    userMsPerPublish: round1(userMsPerPublish),
    deliveriesPerPublish: s.rounds[0].deliveries / PUBLISHES,
  };
  console.log(
    `${s.name.padEnd(9)} ${round1(publishes)} publishes/s, ${round1(perSecond)} deliveries/s wall; ${round1(cpuMsPerPublish)} ms CPU per publish (${round1(userMsPerPublish)} user), ` +
      `${round1(perCpuSecond)} deliveries per CPU second (${s.rounds[0].deliveries / PUBLISHES} deliveries per publish; wall rounds: ${s.rounds.map((x) => Math.round(x.perSecond)).join(', ')})`,
  );
}
// Two figures: wall-clock throughput (what a publisher sees; on a shared machine it swings with the disk and the
// neighbours), and throughput per CPU second of this process (what the filters themselves cost: the goal's figure).
const wallCost = 1 - results.filtered.deliveriesPerSecond / results.plain.deliveriesPerSecond;
const cpuCost = 1 - results.filtered.deliveriesPerCpuSecond / results.plain.deliveriesPerCpuSecond;
results.filterCostWall = round1(wallCost * 100);
results.filterCostCpu = round1(cpuCost * 100);
const rowCost = 1 - results.padded.deliveriesPerCpuSecond / results.plain.deliveriesPerCpuSecond;
results.widerRowsCostCpu = round1(rowCost * 100);
console.log(`rows as wide without filters cost ${round1(rowCost * 100)} % per CPU second: the rest, ${round1((cpuCost - rowCost) * 100)} %, is evaluating the filters`);
console.log(`filters cost ${round1(cpuCost * 100)} % of publish throughput per CPU second, ${round1(wallCost * 100)} % of wall-clock throughput (${WEBHOOKS} webhooks each holding a filter that matches, against ${WEBHOOKS} without)`);
console.log(`${cpuCost <= 0.1 ? 'PASS' : 'FAIL'} goal: filters at fan-out cost at most 10 % of publish throughput (per CPU second)`);
if (opt.json) writeFileSync(opt.json, JSON.stringify(results, null, 2));
for (const s of [plain, padded, filtered, half]) await s.store.close();
rmSync(dir, { recursive: true, force: true });
