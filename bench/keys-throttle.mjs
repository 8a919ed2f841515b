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
import { startHelloGateway } from './hello-gateway.mjs';
import { call } from './nodes.js';
import { HIGH, meanOf, measure, readOptions, warm } from './policy-common.mjs';

const opt = readOptions({ duration: 5, connections: 50, rounds: 2 }, { rate: 200, 'overshoot-duration': 10 });
const CONNECTIONS = opt.connections;
const RATE = opt.rate;
const OVERSHOOT_S = opt['overshoot-duration'];

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
      { name: 'no policy', url: gw.url },
      { name: 'route rate limit', url: at(limited, 'limited') },
      { name: 'API key + usage plan (throttle, no quota)', url: at(keyedNoQuota, 'keyednoquota'), headers: { 'x-api-key': throttleKey } },
      { name: 'API key + usage plan (throttle, quota) + route rate limit', url: at(keyed, 'keyed'), headers: { 'x-api-key': fullKey } },
    ];
    await warm(rows);
    const results = rows.map(() => []);
    for (let round = 0; round < opt.rounds; round++) for (const [i, row] of rows.entries()) results[i].push(await measure(row, opt));
    console.log(`\nThe hello route, autocannon ${CONNECTIONS} connections, ${opt.duration} s x ${opt.rounds} rounds per row, --processes 1\n`);
    console.log('| | req/s | p50 ms | p99 ms | cost |');
    console.log('|---|---|---|---|---|');
    const means = rows.map((row, i) => meanOf(row.name, results[i]));
    for (const [i, { name }] of rows.entries()) {
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
