// `node bench/compression.mjs`: what compressing a 56 KB invoke answer costs
// and saves. One gateway (--processes 1, temp SQLite) serves the same function
// (a 56 KB JSON answer, aws-v2) through two APIs: one without
// minimumCompressionSize, one with 1024. Rows, alternated for --rounds: the
// plain API, the compressing API asked for br, and for gzip. Bytes per answer
// are what autocannon read off the wire. A benchmark, not a test: compare the
// rows of one run.
//
// Options: --duration <s> (5)  --connections <n> (50)  --rounds <n> (2)
import autocannon from 'autocannon';
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

// Records of an orders list, as a list endpoint answers them: repetitive JSON, about 56 KB.
const CODE = `
const items = [];
for (let i = 0; items.length < 420; i++) {
  items.push({ id: 'ord_' + (100000 + i), customer: 'customer-' + (i % 37), total: (i * 7.31).toFixed(2), currency: 'EUR', status: i % 5 ? 'paid' : 'pending', createdAt: new Date(1700000000000 + i * 60000).toISOString() });
}
const body = JSON.stringify({ items });
exports.handler = async () => ({ statusCode: 200, headers: { 'content-type': 'application/json' }, body });
`;

async function measure(url, encoding) {
  const headers = encoding ? { 'accept-encoding': encoding } : {};
  const r = await autocannon({ url, connections: CONNECTIONS, pipelining: 1, duration: DURATION, headers });
  return { rps: r.requests.mean, p50: r.latency.p50, p99: r.latency.p99, bytes: r.throughput.total / Math.max(1, r.requests.total), bad: r.non2xx + r.errors };
}

const gw = await startHelloGateway({ processes: 1 });
try {
  await call(gw.base, 'POST', '/api/functions', { name: 'orders', code: CODE, event_format: 'aws-v2' }, [201]);
  const route = [{ method: 'GET', path: '/orders', function: 'orders' }];
  const plain = await call(gw.base, 'POST', '/api/apis', { name: 'plain', basePath: '/p', routes: route }, [201]);
  const zipped = await call(gw.base, 'POST', '/api/apis', { name: 'zipped', basePath: '/z', routes: route, minimumCompressionSize: 1024 }, [201]);
  const rows = [
    ['no minimumCompressionSize', `${gw.base}/api/invoke/fn/${plain.id}/p/orders`, 'gzip, br'],
    ['minimumCompressionSize 1024, br (quality 4)', `${gw.base}/api/invoke/fn/${zipped.id}/z/orders`, 'br'],
    ['minimumCompressionSize 1024, gzip (level 6)', `${gw.base}/api/invoke/fn/${zipped.id}/z/orders`, 'gzip'],
  ];
  for (const [, url, enc] of rows) for (let i = 0; i < 50; i++) await fetch(url, { headers: { 'accept-encoding': enc } }).then((r) => r.arrayBuffer());
  const results = rows.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [, url, enc]] of rows.entries()) results[i].push(await measure(url, enc));
  }
  console.log(`\nA 56 KB JSON invoke answer, autocannon ${CONNECTIONS} connections, ${DURATION} s x ${ROUNDS} rounds per row\n`);
  console.log('| | req/s | p50 ms | p99 ms | bytes per answer |');
  console.log('|---|---|---|---|---|');
  for (const [i, [name]] of rows.entries()) {
    const rs = results[i];
    const mean = (k) => rs.reduce((s, r) => s + r[k], 0) / rs.length;
    if (rs.some((r) => r.bad > 0)) throw new Error(`${name}: non-2xx answers or errors`);
    console.log(`| ${name} | ${Math.round(mean('rps'))} | ${mean('p50').toFixed(1)} | ${mean('p99').toFixed(1)} | ${Math.round(mean('bytes'))} |`);
  }
} finally {
  await gw.stop();
}
