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
import autocannon from 'autocannon';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { startHelloGateway } from './hello-gateway.mjs';
import { call } from './nodes.js';

const { values: opt } = parseArgs({
  options: {
    duration: { type: 'string', default: '3' },
    connections: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '1' },
  },
});
const DURATION = Number(opt.duration);
const CONNECTIONS = Number(opt.connections);
const ROUNDS = Number(opt.rounds);

const HELLO = `exports.handler = async () => ({ statusCode: 200, body: 'hello' });`;
const GATE = `exports.handler = (event, context, callback) => callback(null, {
  principalId: 'bench',
  policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: event.authorizationToken === 'allow' ? 'Allow' : 'Deny', Resource: event.methodArn }] },
  context: { tier: 'gold' },
});`;

// The key server: the JWKS of one RS256 key, on loopback.
const { privateKey, publicKey } = await generateKeyPair('RS256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'bench-1', alg: 'RS256', use: 'sig' };
const jwksServer = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ keys: [jwk] }));
});
await new Promise((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
const jwksUrl = `http://127.0.0.1:${jwksServer.address().port}/jwks.json`;
const token = await new SignJWT({ sub: 'bench', scope: 'hello' })
  .setProtectedHeader({ alg: 'RS256', kid: 'bench-1' })
  .setIssuer('https://issuer.bench/')
  .setAudience('bench')
  .setIssuedAt()
  .setExpirationTime('2h')
  .sign(privateKey);

async function measure(url, headers) {
  const r = await autocannon({ url, connections: CONNECTIONS, pipelining: 1, duration: DURATION, headers });
  return { rps: r.requests.mean, p50: r.latency.p50, p99: r.latency.p99, bad: r.non2xx + r.errors };
}

// The JWKS server is on loopback: the gateway may fetch from it only when private targets are allowed.
process.env.SWITCHYARD_ALLOW_PRIVATE_TARGETS = '1';
const gw = await startHelloGateway({ processes: 1 });
try {
  await call(gw.base, 'POST', '/api/functions', { name: 'auth-hello', code: HELLO, event_format: 'aws-v2' }, [201]);
  await call(gw.base, 'POST', '/api/functions', { name: 'gate', code: GATE }, [201]);
  const routes = [{ method: 'GET', path: '/hello', function: 'auth-hello' }];
  const open = await call(gw.base, 'POST', '/api/apis', { name: 'open', basePath: '/', routes }, [201]);
  const jwt = await call(gw.base, 'POST', '/api/apis', {
    name: 'jwt',
    basePath: '/',
    routes,
    authorizers: [{ name: 'idp', type: 'jwt', issuer: 'https://issuer.bench/', audience: ['bench'], jwksUrl }],
    defaultAuthorizer: 'idp',
  }, [201]);
  const fn = await call(gw.base, 'POST', '/api/apis', {
    name: 'fn',
    basePath: '/',
    routes,
    authorizers: [{ name: 'gate', type: 'function', function: 'gate', payloadFormatVersion: '1.0', kind: 'TOKEN', resultTtlSeconds: 300 }],
    defaultAuthorizer: 'gate',
  }, [201]);
  const rows = [
    ['no policy', `${gw.base}/api/invoke/fn/${open.id}/hello`, {}],
    ['JWT authorizer (RS256, JWKS kept)', `${gw.base}/api/invoke/fn/${jwt.id}/hello`, { authorization: `Bearer ${token}` }],
    ['function authorizer (TOKEN, answer kept)', `${gw.base}/api/invoke/fn/${fn.id}/hello`, { authorization: 'allow' }],
  ];
  for (const [name, url, headers] of rows) {
    for (let i = 0; i < 50; i++) {
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${name}: warm-up answered ${res.status}`);
    }
  }
  const results = rows.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [, url, headers]] of rows.entries()) results[i].push(await measure(url, headers));
  }
  console.log(`\nThe hello route, autocannon ${CONNECTIONS} connections, ${DURATION} s x ${ROUNDS} rounds per row\n`);
  console.log('| | req/s | vs no policy | p50 ms | p99 ms |');
  console.log('|---|---|---|---|---|');
  const mean = (rs, k) => rs.reduce((s, r) => s + r[k], 0) / rs.length;
  const base = mean(results[0], 'rps');
  for (const [i, [name]] of rows.entries()) {
    const rs = results[i];
    if (rs.some((r) => r.bad > 0)) throw new Error(`${name}: non-2xx answers or errors`);
    const rps = mean(rs, 'rps');
    console.log(`| ${name} | ${Math.round(rps)} | ${(((rps - base) / base) * 100).toFixed(1)} % | ${mean(rs, 'p50').toFixed(1)} | ${mean(rs, 'p99').toFixed(1)} |`);
  }
} finally {
  await gw.stop();
  jwksServer.close();
}
