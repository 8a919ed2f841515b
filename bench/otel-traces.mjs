// `node bench/otel-traces.mjs`: what tracing costs on the invoke path. One
// gateway (--processes 1, temp SQLite, the hello function) per setting:
// tracing off, on with parentbased_traceidratio at 10 %, on at 100 %, each
// exporting OTLP/protobuf to a local sink that answers every post at once
// (so the exporter's own work counts, no collector's). Rows alternate for
// --rounds; autocannon's mean req/s per row, and the CPU time per request of
// the gateway's processes (main and isolate workers, from /proc), which moves
// far less than req/s when other work shares the cores. A benchmark, not a
// test: compare the rows of one run.
//
// --baseline <path to another build's dist/cli.js> adds a first row: that
// build (the branch's base, say), to tell "off" from before tracing existed.
//
// --rate <req/s> --requests <n>: instead of as fast as it goes for --duration, each row serves a
// fixed number of requests at a fixed offered rate (autocannon's overallRate), so every row does
// the same work at the same concurrency and CPU per request is compared like for like (on two
// shared cores, CPU per request otherwise moves with the throughput each row reached). --zero adds
// a row traced at a ratio of 0: the SDK's cost on every request, with nothing sampled.
//
// --before <path to another build's dist/cli.js>: every traced row also runs on that build, next to
// this build's, so a change to the traced path is an A/B of the same run. Each row's CPU per
// request is also split: the serving process's JavaScript thread, its V8 helper threads (GC),
// and the isolate workers.
//
// Options: --duration <s> (5)  --connections <n> (50)  --rounds <n> (3)  --baseline <cli.js>
//          --rate <req/s>  --requests <n> (30000, with --rate)  --zero  --before <cli.js>
import autocannon from 'autocannon';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { startHelloGateway } from './hello-gateway.mjs';
import { childrenOf, cpuUs, threadCpuUs } from './proc-cpu.mjs';

const { values: opt } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    baseline: { type: 'string' },
    rate: { type: 'string' },
    requests: { type: 'string', default: '30000' },
    zero: { type: 'boolean', default: false },
    before: { type: 'string' },
  },
});
const RATE = opt.rate === undefined ? null : Number(opt.rate);
const REQUESTS = Number(opt.requests);
const DURATION = Number(opt.duration);
const CONNECTIONS = Number(opt.connections);
const ROUNDS = Number(opt.rounds);

for (const name of Object.keys(process.env)) if (name.startsWith('OTEL_')) delete process.env[name];

let posts = 0;
let bytes = 0;
const sink = http.createServer((req, res) => {
  posts++;
  req.on('data', (c) => (bytes += c.length));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/x-protobuf' });
    res.end();
  });
});
await new Promise((r) => sink.listen(0, '127.0.0.1', r));
const endpoint = `http://127.0.0.1:${sink.address().port}`;

const traced = [
  ...(opt.zero ? [['on, 0 % sampled', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }]] : []),
  ['on, 10 % sampled', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }],
  ['on, 100 % sampled', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }],
];
const settings = [
  ...(opt.baseline ? [['baseline build', {}, opt.baseline]] : []),
  ['tracing off', {}],
  ...traced.flatMap((row) => (opt.before ? [[`${row[0]} (before)`, row[1], opt.before], row] : [row])),
];

const gateways = [];
try {
  for (const [, env, cli] of settings) gateways.push(await startHelloGateway({ processes: 1, env, ...(cli ? { cli } : {}) }));
  const results = settings.map(() => []);
  for (const gw of gateways) await autocannon({ url: gw.url, connections: CONNECTIONS, duration: 1 });
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, gw] of gateways.entries()) {
      const workers = childrenOf(gw.child.pid);
      const pids = [gw.child.pid, ...workers];
      const cpu0 = pids.reduce((t, pid) => t + cpuUs(pid), 0);
      const threads0 = threadCpuUs(gw.child.pid);
      const workers0 = workers.reduce((t, pid) => t + cpuUs(pid), 0);
      const load = RATE === null ? { duration: DURATION } : { amount: REQUESTS, overallRate: RATE };
      const r = await autocannon({ url: gw.url, connections: CONNECTIONS, pipelining: 1, ...load });
      const cpu = pids.reduce((t, pid) => t + cpuUs(pid), 0) - cpu0;
      const threads = threadCpuUs(gw.child.pid);
      const n = Math.max(1, r.requests.total);
      if (r.non2xx + r.errors > 0) throw new Error(`${settings[i][0]}: non-2xx answers or errors`);
      results[i].push({
        rps: r.requests.mean,
        p99: r.latency.p99,
        us: cpu / n,
        mainUs: (threads.main - threads0.main) / n,
        v8Us: (threads.v8 - threads0.v8) / n,
        workersUs: (workers.reduce((t, pid) => t + cpuUs(pid), 0) - workers0) / n,
      });
    }
  }
  const mean = (rs, k) => rs.reduce((s, r) => s + r[k], 0) / rs.length;
  const median = (rs, k) => {
    const v = rs.map((r) => r[k]).sort((a, b) => a - b);
    return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  };
  const offRow = opt.baseline ? 1 : 0;
  const base = mean(results[offRow], 'rps');
  const baseUs = mean(results[offRow], 'us');
  const baseMedianUs = median(results[offRow], 'us');
  const how = RATE === null ? `${DURATION} s` : `${REQUESTS} requests offered at ${RATE}/s`;
  console.log(`\nGET /bench/hello, autocannon ${CONNECTIONS} connections, ${how} x ${ROUNDS} rounds per row (alternated)\n`);
  console.log('| | req/s (rounds) | mean | vs off | CPU µs per request, mean (rounds) | vs off | median | vs off | p99 ms |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const [i, [name]] of settings.entries()) {
    const rs = results[i];
    const m = mean(rs, 'rps');
    const vs = i === offRow ? '' : `${(((m - base) / base) * 100).toFixed(1)} %`;
    const us = mean(rs, 'us');
    const vsUs = i === offRow ? '' : `${(((us - baseUs) / baseUs) * 100).toFixed(1)} %`;
    const usRounds = RATE === null ? '' : ` (${rs.map((r) => Math.round(r.us)).join(', ')})`;
    const med = median(rs, 'us');
    const vsMed = i === offRow ? '' : `${(((med - baseMedianUs) / baseMedianUs) * 100).toFixed(1)} %`;
    console.log(`| ${name} | ${rs.map((r) => Math.round(r.rps)).join(', ')} | ${Math.round(m)} | ${vs} | ${Math.round(us)}${usRounds} | ${vsUs} | ${Math.round(med)} | ${vsMed} | ${mean(rs, 'p99').toFixed(1)} |`);
  }
  console.log('\nCPU µs per request by where it ran, medians of the rounds:\n');
  console.log('| | serving thread | V8 helper threads | isolate workers |');
  console.log('|---|---|---|---|');
  for (const [i, [name]] of settings.entries()) {
    const rs = results[i];
    console.log(`| ${name} | ${median(rs, 'mainUs').toFixed(1)} | ${median(rs, 'v8Us').toFixed(1)} | ${median(rs, 'workersUs').toFixed(1)} |`);
  }
  console.log(`\nthe sink got ${posts} OTLP posts, ${bytes} bytes`);
} finally {
  for (const gw of gateways) await gw.stop();
  sink.close();
}
