// `node bench/event-schema.mjs` (after `npm run build`): what checking an
// event against its catalogued schema costs, for a 10 KB payload (an order
// with 42 lines, each with a SKU pattern, bounds and an email). First in this
// process: the EventValidator of dist/events/validation.js with its compiled
// validator cached (as every process keeps it), each call timed on its own,
// p50 and p99 over 50,000 calls; beside it the same call for a name with no
// catalogue entry (one cached lookup). Then, unless --no-http, POST
// /api/events through one server (--processes 1, SQLite) for a catalogued
// (mode reject, the payload valid) and an uncatalogued name, no subscribers,
// rows alternating for --rounds. A benchmark, not a test.
//
// Options: --duration <s> (5)  --connections <n> (20)  --rounds <n> (2)  --no-http
import { ChangeBus } from '../dist/changes.js';
import { EventValidator } from '../dist/events/validation.js';
import { startHelloGateway } from './hello-gateway.mjs';
import { call } from './nodes.js';
import { meanOf, measure, readOptions } from './policy-common.mjs';

const opt = readOptions({ duration: 5, connections: 20, rounds: 2 });
const http = !process.argv.includes('--no-http');

const SCHEMA = {
  type: 'object',
  required: ['orderId', 'customer', 'lines'],
  additionalProperties: false,
  properties: {
    orderId: { type: 'string', pattern: '^ord_[0-9a-z]{12}$' },
    placedAt: { type: 'string', format: 'date-time' },
    customer: {
      type: 'object',
      required: ['id', 'email'],
      properties: { id: { type: 'string' }, email: { type: 'string', format: 'email' }, name: { type: 'string', maxLength: 200 } },
    },
    lines: {
      type: 'array',
      maxItems: 500,
      items: {
        type: 'object',
        required: ['sku', 'qty', 'price'],
        additionalProperties: false,
        properties: {
          sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{5}$' },
          qty: { type: 'integer', minimum: 1, maximum: 1000 },
          price: { type: 'number', minimum: 0 },
          note: { type: 'string', maxLength: 500 },
          contact: { type: 'string', format: 'email' },
        },
      },
    },
  },
};

const line = (i) => ({
  sku: `ABC-${String(10000 + i)}`,
  qty: (i % 9) + 1,
  price: 12.5 + i,
  note: 'Leave at the door; ring twice. '.repeat(5),
  contact: `buyer${i}@example.com`,
});
const DATA = {
  orderId: 'ord_0123456789ab',
  placedAt: '2026-12-02T08:00:00Z',
  customer: { id: 'cus_1', email: 'ada@example.com', name: 'Ada Lovelace' },
  lines: Array.from({ length: 42 }, (_, i) => line(i)),
};
const BYTES = Buffer.byteLength(JSON.stringify(DATA));

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function inProcess() {
  const type = {
    name: 'bench.order',
    description: '',
    mode: 'reject',
    deprecated: false,
    project: null,
    versions: [{ version: 1, schema: SCHEMA, examples: [], createdAt: new Date().toISOString() }],
    createdAt: '',
    updatedAt: '',
  };
  const store = {
    getEventType: async (name) => (name === type.name ? type : null),
    recordEventViolation: async () => undefined,
  };
  const validator = new EventValidator({ store, changes: new ChangeBus(), log: console });
  const rows = [];
  for (const [label, name] of [
    [`catalogued, mode reject, ${BYTES} B payload (valid)`, 'bench.order'],
    ['no catalogue entry (same payload)', 'bench.other'],
  ]) {
    for (let i = 0; i < 5000; i++) await validator.check(name, DATA, 'publish');
    const n = 50_000;
    const times = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const t = process.hrtime.bigint();
      await validator.check(name, DATA, 'publish');
      times[i] = Number(process.hrtime.bigint() - t) / 1000;
    }
    times.sort();
    rows.push({ label, p50: percentile(times, 50), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / n });
  }
  console.log(`\nIn-process check (EventValidator.check, compiled validator cached), 50,000 calls each\n`);
  console.log('| | p50 µs | p99 µs | mean µs |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.label} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.mean.toFixed(1)} |`);
}

async function overHttp() {
  const gw = await startHelloGateway({ processes: 1 });
  try {
    await call(gw.base, 'POST', '/api/event-types', { name: 'bench.order', schema: SCHEMA, mode: 'reject' }, [201]);
    const post = (name, event) => ({
      name,
      url: `${gw.base}/api/events`,
      method: 'POST',
      body: JSON.stringify({ event, data: DATA }),
      headers: { 'content-type': 'application/json' },
    });
    const rows = [post('uncatalogued event', 'bench.other'), post('catalogued, mode reject (valid)', 'bench.order')];
    // 50 publishes per row first (the compiled validator, connections); each must be accepted.
    for (const { name, url, method, body, headers } of rows) {
      for (let i = 0; i < 50; i++) {
        const res = await fetch(url, { method, body, headers });
        if (res.status !== 202) throw new Error(`${name}: warm-up answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        await res.arrayBuffer().catch(() => undefined);
      }
    }
    const results = rows.map(() => []);
    for (let round = 0; round < opt.rounds; round++) {
      for (const [i, row] of rows.entries()) results[i].push(await measure(row, opt));
    }
    console.log(`\nPOST /api/events with a ${BYTES} B payload, no subscribers, autocannon ${opt.connections} connections, ${opt.duration} s x ${opt.rounds} rounds per row\n`);
    console.log('| | req/s | p50 ms | p99 ms |');
    console.log('|---|---|---|---|');
    for (const [i, { name }] of rows.entries()) {
      const m = meanOf(name, results[i]);
      console.log(`| ${name} | ${Math.round(m.rps)} | ${m.p50.toFixed(1)} | ${m.p99.toFixed(1)} |`);
    }
  } finally {
    await gw.stop();
  }
}

await inProcess();
if (http) await overHttp();
