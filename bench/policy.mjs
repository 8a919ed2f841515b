// `node bench/policy.mjs`: issue 23's two policy goals, measured in one run.
// One gateway (--processes 1, temp SQLite) serves the example hello function
// at POST /hello of three APIs, and every row POSTs the same 2 KB JSON order:
//   (a) no policy;
//   (b) all of the first goal's checks on the route: a JWT authorizer (RS256,
//       keys from a local JWKS server, fetched once and kept), an API key on a
//       usage plan (a throttle, no quota), a route rate limit, and validation
//       of the body against its model. Every limit is far above what the
//       machine can send, so nothing is refused;
//   (c) a TOKEN function authorizer whose answer is kept (resultTtlSeconds 300).
// Before measuring, each guarded row is shown to refuse a request that lacks
// what it checks (so a row cannot measure an open route by mistake). Rounds
// alternate the rows, each round starting one row later, so no row always
// runs first on a warming or loaded machine. The cost of (b) and (c) is their
// throughput below (a)'s; the goals (b at most 15 %, c at most 10 %) are
// printed PASS or FAIL. A benchmark, not a test: it exits 0 whatever the
// figures (non-zero only when it could not measure).
//
// Options: --duration <s> (5)  --connections <n> (50)  --rounds <n> (3)
//          --warmup <s> (2): an unmeasured load of each row first (a short
//          run showed the first row measured at half its later rate)
import os from 'node:os';
import { startHelloGateway } from './hello-gateway.mjs';
import { call } from './nodes.js';
import {
  GATE_CODE,
  gateAuthorizer,
  HIGH,
  jwtAuthorizer,
  meanOf,
  measure,
  ORDER_BODY,
  ORDER_SCHEMA,
  readOptions,
  startJwks,
  warm,
} from './policy-common.mjs';

const opt = readOptions({ duration: 5, connections: 50, rounds: 3 }, { warmup: 2 });
/** The issue's goals: the most of (a)'s throughput each row may cost. */
const GOALS = [
  { row: 1, limit: 15, what: 'JWT + API key with usage plan + rate limit + 2 KB body validation' },
  { row: 2, limit: 10, what: 'cached function authorizer' },
];
const loadAtStart = os.loadavg()[0];

const jwks = await startJwks();
const gw = await startHelloGateway({ processes: 1 });
try {
  await call(gw.base, 'POST', '/api/functions', { name: 'gate', code: GATE_CODE }, [201]);
  const api = async (name, route, extra = {}) =>
    (await call(gw.base, 'POST', '/api/apis', { name, basePath: `/${name}`, routes: [{ method: 'POST', path: '/hello', function: 'hello', ...route }], ...extra }, [201])).id;
  const open = await api('open', {});
  const guarded = await api(
    'guarded',
    { authorizer: 'idp', apiKeyRequired: true, throttle: HIGH, request: { body: ORDER_SCHEMA } },
    { authorizers: [jwtAuthorizer('idp', jwks.jwksUrl)] },
  );
  const fnAuth = await api('fnauth', { authorizer: 'gate' }, { authorizers: [gateAuthorizer('gate', 'gate')] });
  const plan = await call(gw.base, 'POST', '/api/usage-plans', { name: 'bench', apiIds: [guarded], throttle: HIGH, quota: null }, [201]);
  const key = (await call(gw.base, 'POST', '/api/api-keys', { name: 'bench', usagePlanId: plan.id }, [201])).value;

  const json = { 'content-type': 'application/json' };
  const post = (name, id, path, headers = {}) => ({ name, url: `${gw.base}/api/invoke/fn/${id}/${path}/hello`, method: 'POST', body: ORDER_BODY, headers: { ...json, ...headers } });
  const full = { authorization: `Bearer ${jwks.token}`, 'x-api-key': key };
  const rows = [
    post('(a) no policy', open, 'open'),
    post('(b) JWT + API key (plan: throttle, no quota) + route rate limit + body model', guarded, 'guarded', full),
    post('(c) function authorizer (TOKEN, answer kept 300 s)', fnAuth, 'fnauth', { authorization: 'allow' }),
  ];

  // Each guarded row refuses what it should: without this a typo in a field name would measure an open route.
  const refusals = [
    ['(b) without a token', { ...rows[1], headers: { ...json, 'x-api-key': key } }, 401],
    ['(b) without an API key', { ...rows[1], headers: { ...json, authorization: full.authorization } }, 403],
    ['(b) with a body its model refuses', { ...rows[1], body: JSON.stringify({ orderId: 'x' }) }, 400],
    ['(c) with a token the authorizer denies', { ...rows[2], headers: { ...json, authorization: 'deny' } }, 403],
  ];
  for (const [what, { url, method, body, headers }, status] of refusals) {
    const res = await fetch(url, { method, body, headers });
    const text = await res.text();
    if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${text.slice(0, 300)}`);
  }
  await warm(rows);
  for (const row of rows) await measure(row, { connections: opt.connections, duration: opt.warmup });

  const results = rows.map(() => []);
  for (let round = 0; round < opt.rounds; round++) {
    for (let k = 0; k < rows.length; k++) {
      const i = (round + k) % rows.length;
      results[i].push(await measure(rows[i], opt));
    }
  }

  const means = rows.map((row, i) => meanOf(row.name, results[i]));
  const cost = (rps, base) => ((base - rps) / base) * 100;
  // Each round's cost against the same round's (a): the spread says how far the mean can be trusted on this machine.
  const spread = (i) => {
    const per = results[i].map((r, round) => cost(r.rps, results[0][round].rps));
    return `${Math.min(...per).toFixed(1)} to ${Math.max(...per).toFixed(1)} %`;
  };
  console.log(
    `\nPOST of a ${Buffer.byteLength(ORDER_BODY)} B JSON body to hello, --processes 1, SQLite, autocannon ${opt.connections} connections, ` +
      `${opt.warmup} s warm-up then ${opt.duration} s x ${opt.rounds} rounds per row; ${os.availableParallelism()} cores, load average ${loadAtStart.toFixed(1)} at start, ` +
      `Node ${process.versions.node}, ${new Date().toISOString()}\n`,
  );
  console.log('| | req/s | p50 ms | p99 ms | cost vs (a) | per round |');
  console.log('|---|---|---|---|---|---|');
  for (const [i, { name }] of rows.entries()) {
    const m = means[i];
    const pct = i === 0 ? '' : `${cost(m.rps, means[0].rps).toFixed(1)} %`;
    console.log(`| ${name} | ${Math.round(m.rps)} | ${m.p50.toFixed(1)} | ${m.p99.toFixed(1)} | ${pct} | ${i === 0 ? '' : spread(i)} |`);
  }
  console.log('');
  for (const goal of GOALS) {
    const c = cost(means[goal.row].rps, means[0].rps);
    console.log(`${c <= goal.limit ? 'PASS' : 'FAIL'} goal: ${goal.what} costs ${c.toFixed(1)} % (at most ${goal.limit} %)`);
  }
} finally {
  await gw.stop();
  jwks.close();
}
