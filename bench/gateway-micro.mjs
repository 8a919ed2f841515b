// Micro-benchmark of Gateway.handle() alone: route match, event building, JSON
// serialisation and result mapping, with a runtime that answers at once (no
// worker, no isolate, no HTTP). It isolates what the gateway itself costs per
// request, per event format. Not a test. Needs `npm run build` first.
//   node bench/gateway-micro.mjs [seconds per format=3] [rounds=3]
// The gateway counts into per-minute statistics as the server's does;
// BENCH_STATS=0 leaves them out, to measure what they cost in the same session.
import { createMetrics } from '../dist/telemetry/metrics.js';
import { Gateway } from '../dist/gateway/gateway.js';
import { StatsCollector } from '../dist/stats/collector.js';

const seconds = Number(process.argv[2] ?? 3);
const rounds = Number(process.argv[3] ?? 3);

const api = {
  id: 'api_bench',
  name: 'bench',
  basePath: '/bench',
  authorizers: [],
  defaultAuthorizer: null,
  errorFormat: 'switchyard',
  exposeErrors: false,
  throttle: null,
  cors: null,
  minimumCompressionSize: null,
  binaryMediaTypes: null,
  routes: [
    { id: 'rt_1', method: 'GET', path: '/hello', function: 'fn-switchyard' },
    { id: 'rt_2', method: 'GET', path: '/users/:id', function: 'fn-switchyard' },
    { id: 'rt_3', method: 'GET', path: '/v1/users/:id', function: 'fn-aws-v1' },
    { id: 'rt_4', method: 'GET', path: '/v2/users/:id', function: 'fn-aws-v2' },
  ],
  createdAt: '',
  updatedAt: '',
};
const fn = (name, eventFormat) => ({
  name, runtime: 'javascript', code: '', compiled: '', env: {}, timeoutMs: 10000, memoryMb: 128,
  handler: null, eventFormat, version: 1, codeSha256: '', createdAt: '', updatedAt: '',
});
const functions = { 'fn-switchyard': fn('fn-switchyard', 'switchyard'), 'fn-aws-v1': fn('fn-aws-v1', 'aws-v1'), 'fn-aws-v2': fn('fn-aws-v2', 'aws-v2') };
const store = { getApi: async () => api, getFunction: async (name) => functions[name] ?? null };
const results = {
  switchyard: { statusCode: 200, body: { hello: 'world' } },
  'aws-v1': { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{"hello":"world"}' },
  'aws-v2': { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"hello":"world"}' },
};
let eventBytes = 0;
const runtime = {
  invoke: async (f, eventJson) => {
    eventBytes = eventJson.length;
    return { ok: true, result: results[f.eventFormat ?? 'switchyard'], logs: [], durationMs: 0 };
  },
};
const stats = process.env.BENCH_STATS === '0' ? null : new StatsCollector({ clock: { now: () => Date.now(), onJump: () => () => {} } });
const gateway = new Gateway({ store, runtime, changes: { subscribe() {} }, logSink: { push() {} }, metrics: createMetrics(), stats });

const rawHeaders = [
  'Host', 'localhost:3000', 'User-Agent', 'autocannon/7', 'Accept', '*/*',
  'Accept-Encoding', 'gzip, deflate', 'Connection', 'keep-alive',
];
function request(path, seq) {
  return {
    method: 'GET', path, rawQuery: 'page=2&limit=10', rawHeaders, body: null, sourceIp: '127.0.0.1',
    requestId: `req_${seq}`, apiId: 'api_bench', requestTimeEpoch: Date.now(), httpVersion: '1.1', localPort: 3000,
  };
}

async function run(path, ms) {
  let n = 0;
  const until = performance.now() + ms;
  const start = performance.now();
  while (performance.now() < until) {
    for (let i = 0; i < 1000; i++) {
      const res = await gateway.handle(request(path, n++));
      if (res.status !== 200) throw new Error(`status ${res.status}`);
    }
  }
  return (performance.now() - start) / n;
}

const targets = [
  ['switchyard, static route', '/bench/hello'],
  ['switchyard, /users/:id', '/bench/users/42'],
  ['aws-v1, /v1/users/:id', '/bench/v1/users/42'],
  ['aws-v2, /v2/users/:id', '/bench/v2/users/42'],
];
await run('/bench/hello', 500); // warm up
for (let r = 1; r <= rounds; r++) {
  for (const [label, path] of targets) {
    const perCall = await run(path, seconds * 1000);
    console.log(`round ${r}  ${label.padEnd(26)} ${(perCall * 1000).toFixed(2).padStart(7)} µs/request  (event ${eventBytes} bytes)`);
  }
}
