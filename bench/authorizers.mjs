// `node bench/authorizers.mjs`: what a route's authorizer costs. One gateway
// (--processes 1, temp SQLite) serves the same hello function (aws-v2) through
// three APIs: one without policy, one whose default authorizer is a JWT
// authorizer with its keys from a local JWKS server (fetched once, then kept:
// the row measures the signature and claim checks), and one with a TOKEN
// function authorizer whose answer is kept (resultTtlSeconds 300: the row
// measures the cached path, as the goal states it). Rows alternate for
// --rounds. A benchmark, not a test: compare the rows of one run.
//
// Options: --duration <s> (3)  --connections <n> (20)  --rounds <n> (1)
import { startHelloGateway } from './hello-gateway.mjs';
import { call } from './nodes.js';
import { GATE_CODE, gateAuthorizer, jwtAuthorizer, meanOf, measure, readOptions, startJwks, warm } from './policy-common.mjs';

const opt = readOptions({ duration: 3, connections: 20, rounds: 1 });

const HELLO = `exports.handler = async () => ({ statusCode: 200, body: 'hello' });`;

const jwks = await startJwks();
const gw = await startHelloGateway({ processes: 1 });
try {
  await call(gw.base, 'POST', '/api/functions', { name: 'auth-hello', code: HELLO, event_format: 'aws-v2' }, [201]);
  await call(gw.base, 'POST', '/api/functions', { name: 'gate', code: GATE_CODE }, [201]);
  const routes = [{ method: 'GET', path: '/hello', function: 'auth-hello' }];
  const open = await call(gw.base, 'POST', '/api/apis', { name: 'open', basePath: '/', routes }, [201]);
  const jwt = await call(gw.base, 'POST', '/api/apis', {
    name: 'jwt',
    basePath: '/',
    routes,
    authorizers: [jwtAuthorizer('idp', jwks.jwksUrl)],
    defaultAuthorizer: 'idp',
  }, [201]);
  const fn = await call(gw.base, 'POST', '/api/apis', {
    name: 'fn',
    basePath: '/',
    routes,
    authorizers: [gateAuthorizer('gate', 'gate')],
    defaultAuthorizer: 'gate',
  }, [201]);
  const rows = [
    { name: 'no policy', url: `${gw.base}/api/invoke/fn/${open.id}/hello` },
    { name: 'JWT authorizer (RS256, JWKS kept)', url: `${gw.base}/api/invoke/fn/${jwt.id}/hello`, headers: { authorization: `Bearer ${jwks.token}` } },
    { name: 'function authorizer (TOKEN, answer kept)', url: `${gw.base}/api/invoke/fn/${fn.id}/hello`, headers: { authorization: 'allow' } },
  ];
  await warm(rows);
  const results = rows.map(() => []);
  for (let round = 0; round < opt.rounds; round++) {
    for (const [i, row] of rows.entries()) results[i].push(await measure(row, opt));
  }
  console.log(`\nThe hello route, autocannon ${opt.connections} connections, ${opt.duration} s x ${opt.rounds} rounds per row\n`);
  console.log('| | req/s | vs no policy | p50 ms | p99 ms |');
  console.log('|---|---|---|---|---|');
  const means = rows.map((row, i) => meanOf(row.name, results[i]));
  const base = means[0].rps;
  for (const [i, { name }] of rows.entries()) {
    const m = means[i];
    console.log(`| ${name} | ${Math.round(m.rps)} | ${(((m.rps - base) / base) * 100).toFixed(1)} % | ${m.p50.toFixed(1)} | ${m.p99.toFixed(1)} |`);
  }
} finally {
  await gw.stop();
  jwks.close();
}
