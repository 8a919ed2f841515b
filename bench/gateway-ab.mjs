// `node bench/gateway-ab.mjs <other dist/>`: Gateway.handle() of another build (a copy of dist/ from
// before a change, e.g. `git archive <base> | tar -x -C /tmp/base && (cd /tmp/base && npm run build)`)
// against this one's, in one process, alternating rounds, in CPU time per request (process.cpuUsage):
// far steadier than wall time on a shared machine. A runtime that answers at once, one route, the
// per-minute statistics on, as in the server. Needs `npm run build`.
import path from 'node:path';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const other = path.resolve(process.argv[2] ?? '');
if (!process.argv[2] || !existsSync(path.join(other, 'gateway', 'gateway.js'))) {
  console.error('usage: node bench/gateway-ab.mjs <another build\'s dist/>');
  process.exit(2);
}
const at = (dir, file) => import(pathToFileURL(path.join(dir, file)).href);
const metricsOf = async (dir) => (existsSync(path.join(dir, 'telemetry', 'metrics.js')) ? at(dir, 'telemetry/metrics.js') : at(dir, 'metrics.js'));
const load = async (dir) => ({ G: (await at(dir, 'gateway/gateway.js')).Gateway, M: (await metricsOf(dir)).createMetrics, S: (await at(dir, 'stats/collector.js')).StatsCollector });
const base = await load(other);
const mine = await load(new URL('../dist', import.meta.url).pathname);
const api = { id: 'api_bench', name: 'bench', basePath: '/bench', authorizers: [], defaultAuthorizer: null, errorFormat: 'switchyard', exposeErrors: false, throttle: null, cors: null, minimumCompressionSize: null, binaryMediaTypes: null,
  routes: [{ id: 'rt_2', method: 'GET', path: '/users/:id', function: 'fn' }], createdAt: '', updatedAt: '' };
const fn = { name: 'fn', runtime: 'javascript', code: '', compiled: '', env: {}, timeoutMs: 10000, memoryMb: 128, handler: null, eventFormat: 'switchyard', version: 1, codeSha256: '', createdAt: '', updatedAt: '' };
const store = { getApi: async () => api, getFunction: async () => fn };
const runtime = { invoke: async () => ({ ok: true, result: { statusCode: 200, body: { hello: 'world' } }, logs: [], durationMs: 0 }) };
const rawHeaders = ['Host', 'localhost:3000', 'User-Agent', 'autocannon/7', 'Accept', '*/*'];
// createMetrics() took a clock-offset function before it took a deps object: both read `{}` as defaults.
const make = (x, defaults) => new x.G({ store, runtime, changes: { subscribe() {} }, logSink: { push() {} }, metrics: x === base ? x.M() : x.M({ defaultMetrics: defaults }), stats: new x.S({ clock: { now: () => Date.now(), onJump: () => () => {} } }) });
const gateways = { other: make(base), this: make(mine, true), 'this, no default metrics': make(mine, false) };
async function run(g, n) {
  const t = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const res = await g.handle({ method: 'GET', path: '/bench/users/42', rawQuery: '', rawHeaders, body: null, sourceIp: '127.0.0.1', requestId: `r${i}`, apiId: 'api_bench', requestTimeEpoch: 0, httpVersion: '1.1', localPort: 3000 });
    if (res.status !== 200) throw new Error(String(res.status));
  }
  const d = process.cpuUsage(t);
  return (d.user + d.system) / n;
}
for (const g of Object.values(gateways)) await run(g, 50000);
const results = Object.fromEntries(Object.keys(gateways).map((k) => [k, []]));
for (let r = 0; r < 8; r++) for (const [k, g] of Object.entries(gateways)) results[k].push(await run(g, 100000));
for (const [k, v] of Object.entries(results)) {
  v.sort((a, b) => a - b);
  console.log(`${k.padEnd(26)} median ${v[4].toFixed(2)} µs CPU/request  (min ${v[0].toFixed(2)}, max ${v[7].toFixed(2)})`);
}
