// `node bench/validation.mjs`: what request validation of a 2 KB JSON body
// costs. One gateway (--processes 1, temp SQLite) serves the example hello
// function at POST /hello of two APIs: one without a request model, one whose
// route has a body schema (an order: customer, address, 20 items, each with
// formats, patterns and bounds) the body passes. Rows alternate for --rounds,
// each POSTing the same 2 KB body. Then, in this process, the check alone
// (dist/gateway/policy/validation.js, the same model) timed over many calls.
// A benchmark, not a test: compare the rows of one run.
//
// Options: --duration <s> (5)  --connections <n> (50)  --rounds <n> (2)
import autocannon from 'autocannon';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { startHelloGateway } from './hello-gateway.mjs';
import { call } from './nodes.js';

const { values: opt } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '2' },
  },
});
const DURATION = Number(opt.duration);
const CONNECTIONS = Number(opt.connections);
const ROUNDS = Number(opt.rounds);

const SCHEMA = {
  type: 'object',
  required: ['orderId', 'customer', 'items'],
  additionalProperties: false,
  properties: {
    orderId: { type: 'string', pattern: '^ord_[0-9]{6}$' },
    placedAt: { type: 'string', format: 'date-time' },
    customer: {
      type: 'object',
      required: ['email', 'name'],
      properties: {
        email: { type: 'string', format: 'email' },
        name: { type: 'string', minLength: 1, maxLength: 100 },
        address: {
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' }, postcode: { type: 'string', maxLength: 10 }, country: { type: 'string', minLength: 2, maxLength: 2 } },
        },
      },
    },
    items: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: {
        type: 'object',
        required: ['sku', 'quantity', 'price'],
        additionalProperties: false,
        properties: {
          sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' },
          quantity: { type: 'integer', minimum: 1, maximum: 99 },
          price: { type: 'number', minimum: 0 },
          note: { type: 'string', maxLength: 200 },
        },
      },
    },
  },
};

const items = Array.from({ length: 20 }, (_, i) => ({ sku: `ABC-${String(1000 + i)}`, quantity: 1 + (i % 5), price: 9.99 + i, note: 'gift wrap, please; thank you' }));
const BODY = JSON.stringify({
  orderId: 'ord_123456',
  placedAt: '2026-11-27T12:00:00Z',
  customer: { email: 'ada@example.com', name: 'Ada Lovelace', address: { street: '12 St James Square', city: 'London', postcode: 'SW1Y 4JH', country: 'GB' } },
  items,
});

async function measure(url) {
  const r = await autocannon({ url, method: 'POST', body: BODY, headers: { 'content-type': 'application/json' }, connections: CONNECTIONS, pipelining: 1, duration: DURATION });
  return { rps: r.requests.mean, p50: r.latency.p50, p99: r.latency.p99, bad: r.non2xx + r.errors };
}

/** The check alone, in this process: µs per call with the body above. */
async function checkAlone() {
  const { compileRequestValidation } = await import('../dist/gateway/policy/validation.js');
  const guard = compileRequestValidation({}, { id: 'rt', method: 'POST', path: '/hello', function: 'hello', request: { body: SCHEMA } });
  const request = { req: { rawQuery: '', rawHeaders: ['content-type', 'application/json'], body: Buffer.from(BODY) } };
  for (let i = 0; i < 2000; i++) guard.check(request);
  const n = 20_000;
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) guard.check(request);
  return Number(process.hrtime.bigint() - started) / 1000 / n;
}

const gw = await startHelloGateway({ processes: 1 });
try {
  const code = await readFile(new URL('../examples/functions/hello.js', import.meta.url), 'utf8');
  await call(gw.base, 'POST', '/api/functions', { name: 'hello-post', code }, [201]);
  const plain = await call(gw.base, 'POST', '/api/apis', { name: 'plain', basePath: '/p', routes: [{ method: 'POST', path: '/hello', function: 'hello-post' }] }, [201]);
  const checked = await call(
    gw.base,
    'POST',
    '/api/apis',
    { name: 'checked', basePath: '/v', routes: [{ method: 'POST', path: '/hello', function: 'hello-post', request: { body: SCHEMA } }] },
    [201],
  );
  const rows = [
    ['no request model', `${gw.base}/api/invoke/fn/${plain.id}/p/hello`],
    ['body schema (2 KB body, 20 items)', `${gw.base}/api/invoke/fn/${checked.id}/v/hello`],
  ];
  for (const [, url] of rows) {
    for (let i = 0; i < 50; i++) {
      const res = await fetch(url, { method: 'POST', body: BODY, headers: { 'content-type': 'application/json' } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    }
  }
  const results = rows.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [, url]] of rows.entries()) results[i].push(await measure(url));
  }
  console.log(`\nPOST of a ${Buffer.byteLength(BODY)} B JSON body to hello, autocannon ${CONNECTIONS} connections, ${DURATION} s x ${ROUNDS} rounds per row\n`);
  console.log('| | req/s | p50 ms | p99 ms |');
  console.log('|---|---|---|---|');
  for (const [i, [name]] of rows.entries()) {
    const rs = results[i];
    const mean = (k) => rs.reduce((s, r) => s + r[k], 0) / rs.length;
    if (rs.some((r) => r.bad > 0)) throw new Error(`${name}: non-2xx answers or errors`);
    console.log(`| ${name} | ${Math.round(mean('rps'))} | ${mean('p50').toFixed(1)} | ${mean('p99').toFixed(1)} |`);
  }
} finally {
  await gw.stop();
}
console.log(`\nThe check alone (parse and validate the body, one process): ${(await checkAlone()).toFixed(1)} µs per request`);
