// `node bench/keys-throttle.mjs`: what an API key with a usage plan and a
// route rate limit cost the hello route, and how far a rate limit shared by
// two server processes lets through more than it allows. A benchmark, not a
// test: compare the rows of one run.
//
// 1. Cost: one gateway (--processes 1, temp SQLite) serves the example hello
//    function through one API per row: no policy; a route throttle; a route
//    with apiKeyRequired and a key whose usage plan has a throttle and no
//    quota; the same plus a daily quota and the route's own throttle. Every
//    limit is far above what this machine can send, so nothing is refused.
//    Rounds alternate the rows.
// 2. Overshoot: a gateway with --processes 2 and a route throttled at
//    --rate per second with a burst of 1, hammered for --overshoot-duration s;
//    admitted (200) against allowed (burst + rate x the seconds from the first
//    request to the last answer).
//
// Options: --duration <s> (5)  --connections <n> (50)  --rounds <n> (2)
//          --rate <n> (200)  --overshoot-duration <s> (10)
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { startHelloGateway } from './hello-gateway.mjs';
import { call } from './nodes.js';

const { values: opt } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '2' },
    rate: { type: 'string', default: '200' },
    'overshoot-duration': { type: 'string', default: '10' },
  },
});
const DURATION = Number(opt.duration);
const CONNECTIONS = Number(opt.connections);
const ROUNDS = Number(opt.rounds);
const RATE = Number(opt.rate);
const OVERSHOOT_S = Number(opt['overshoot-duration']);
const HIGH = { rateLimit: 1_000_000, burstLimit: 1_000_000 };

async function measure(url, headers) {
  const r = await autocannon({ url, connections: CONNECTIONS, pipelining: 1, duration: DURATION, headers });
  return { rps: r.requests.mean, p50: r.latency.p50, p99: r.latency.p99, bad: r.non2xx + r.errors };
}

async function cost() {
  const gw = await startHelloGateway({ processes: 1 });
  try {
    // One API per row, so each row's policy is all the route has.
    const api = async (name, route) =>
      (await call(gw.base, 'POST', '/api/apis', { name, basePath: `/${name}`, routes: [{ method: 'GET', path: '/hello', function: 'hello', ...route }] }, [201])).id;
    const limited = await api('limited', { throttle: HIGH });
    const keyedNoQuota = await api('keyednoquota', { apiKeyRequired: true });
    const keyed = await api('keyed', { apiKeyRequired: true, throttle: HIGH });
    const keyOn = async (name, apiIds, quota) => {
      const plan = await call(gw.base, 'POST', '/api/usage-plans', { name, apiIds, throttle: HIGH, quota }, [201]);
      return (await call(gw.base, 'POST', '/api/api-keys', { name, usagePlanId: plan.id }, [201])).value;
    };
    const throttleKey = await keyOn('throttle-only', [keyedNoQuota], null);
    const fullKey = await keyOn('bench', [keyed], { limit: 1_000_000_000, period: 'DAY' });
    const at = (id, name) => `${gw.base}/api/invoke/fn/${id}/${name}/hello`;
    const rows = [
      ['no policy', gw.url, {}],
      ['route rate limit', at(limited, 'limited'), {}],
      ['API key + usage plan (throttle, no quota)', at(keyedNoQuota, 'keyednoquota'), { 'x-api-key': throttleKey }],
      ['API key + usage plan (throttle, quota) + route rate limit', at(keyed, 'keyed'), { 'x-api-key': fullKey }],
    ];
    for (const [, url, headers] of rows) for (let i = 0; i < 50; i++) await fetch(url, { headers }).then((r) => r.text());
    const results = rows.map(() => []);
    for (let round = 0; round < ROUNDS; round++) for (const [i, [, url, headers]] of rows.entries()) results[i].push(await measure(url, headers));
    console.log(`\nThe hello route, autocannon ${CONNECTIONS} connections, ${DURATION} s x ${ROUNDS} rounds per row, --processes 1\n`);
    console.log('| | req/s | p50 ms | p99 ms | cost |');
    console.log('|---|---|---|---|---|');
    const means = rows.map((_, i) => {
      const rs = results[i];
      if (rs.some((r) => r.bad > 0)) throw new Error(`${rows[i][0]}: non-2xx answers or errors`);
      const mean = (k) => rs.reduce((s, r) => s + r[k], 0) / rs.length;
      return { rps: mean('rps'), p50: mean('p50'), p99: mean('p99') };
    });
    for (const [i, [name]] of rows.entries()) {
      const m = means[i];
      const pct = i === 0 ? '' : `${(((means[0].rps - m.rps) / means[0].rps) * 100).toFixed(1)} %`;
      console.log(`| ${name} | ${Math.round(m.rps)} | ${m.p50.toFixed(1)} | ${m.p99.toFixed(1)} | ${pct} |`);
    }
  } finally {
    await gw.stop();
  }
}

async function overshoot() {
  const gw = await startHelloGateway({ processes: 2 });
  try {
    const api = await call(gw.base, 'POST', '/api/apis', {
      name: 'limited',
      basePath: '/limited',
      routes: [{ method: 'GET', path: '/hello', function: 'hello', throttle: { rateLimit: RATE, burstLimit: 1 } }],
    }, [201]);
    const url = `${gw.base}/api/invoke/fn/${api.id}/limited/hello`;
    // Both processes load the API before the bucket's clock matters: answers of this warm-up are not counted.
    for (let i = 0; i < 20; i++) await fetch(url, { headers: { connection: 'close' } }).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 2000));
    let first = 0;
    let last = 0;
    let admitted = 0;
    let refused = 0;
    const instance = autocannon({ url, connections: CONNECTIONS, pipelining: 1, duration: OVERSHOOT_S });
    instance.on('response', (_client, status) => {
      const now = performance.now();
      if (first === 0) first = now;
      last = now;
      if (status === 200) admitted++;
      else if (status === 429) refused++;
    });
    const started = performance.now();
    const result = await instance;
    // The bucket is full (the burst) at the start; it refills at the rate from the first request to the last answer.
    const seconds = (last - Math.min(first, started)) / 1000;
    const allowed = 1 + RATE * seconds;
    console.log(`\nRate limit ${RATE}/s, burst 1, --processes 2, autocannon ${CONNECTIONS} connections for ${OVERSHOOT_S} s\n`);
    console.log('| requests | admitted (200) | refused (429) | other | seconds | allowed | over |');
    console.log('|---|---|---|---|---|---|---|');
    const other = result.requests.total - admitted - refused;
    console.log(`| ${result.requests.total} | ${admitted} | ${refused} | ${other} | ${seconds.toFixed(2)} | ${Math.floor(allowed)} | ${(((admitted - allowed) / allowed) * 100).toFixed(2)} % |`);
  } finally {
    await gw.stop();
  }
}

await cost();
await overshoot();
