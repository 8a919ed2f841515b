// `node bench/policy-micro.mjs [seconds per row and round=0.25] [rounds=40]`: what issue 23's
// policy checks cost the serving process per request, timed in one process
// with no HTTP, no worker and no isolate (Gateway.handle with a runtime that
// answers at once, and an in-memory store for keys and token buckets). The
// same POST of the 2 KB order body goes to the hello route of an API without
// policy and of one with every check of the first goal (JWT authorizer,
// API key on a usage plan, route rate limit, body model), then of one with
// each check alone. CPU per request in one process moves far less between
// runs than req/s on a shared machine: this is the figure to watch when
// changing a check; bench/policy.mjs measures the goal itself end to end.
// Not a test. Needs `npm run build` first.
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { createMetrics } from '../dist/telemetry/metrics.js';
import { Gateway } from '../dist/gateway/gateway.js';
import { KeyDirectory } from '../dist/gateway/policy/api-keys.js';
import { KeyUseCounter } from '../dist/gateway/policy/key-usage.js';
import { Throttles } from '../dist/gateway/policy/throttle.js';
import { hashSecret } from '../dist/keys/secrets.js';
import { StatsCollector } from '../dist/stats/collector.js';
import { HIGH, JWT_AUDIENCE, JWT_ISSUER, ORDER_BODY, ORDER_SCHEMA } from './policy-common.mjs';

const seconds = Number(process.argv[2] ?? 0.25);
const rounds = Number(process.argv[3] ?? 40);

const { privateKey, publicKey } = await generateKeyPair('RS256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'micro-1', alg: 'RS256', use: 'sig' };
const token = await new SignJWT({ sub: 'bench', scope: 'hello' })
  .setProtectedHeader({ alg: 'RS256', kid: 'micro-1' })
  .setIssuer(JWT_ISSUER)
  .setAudience(JWT_AUDIENCE)
  .setIssuedAt()
  .setExpirationTime('2h')
  .sign(privateKey);
const authorizers = [
  { name: 'idp', type: 'jwt', issuer: JWT_ISSUER, audience: [JWT_AUDIENCE], keys: { keys: [jwk] } },
  // bench/policy.mjs's row (c): a TOKEN authorizer whose answer is kept.
  { name: 'gate', type: 'function', function: 'gate', payloadFormatVersion: '1.0', kind: 'TOKEN', identitySources: ['$request.header.X-Gate-Token'], resultTtlSeconds: 300, enableSimpleResponses: false },
];

const now = new Date().toISOString();
const routeOf = (id, policy) => ({ id, method: 'POST', path: '/hello', function: 'hello', ...policy });
const apis = {
  open: routeOf('rt_open', {}),
  all: routeOf('rt_all', { authorizer: 'idp', apiKeyRequired: true, throttle: HIGH, request: { body: ORDER_SCHEMA } }),
  jwt: routeOf('rt_jwt', { authorizer: 'idp' }),
  key: routeOf('rt_key', { apiKeyRequired: true }),
  rate: routeOf('rt_rate', { throttle: HIGH }),
  model: routeOf('rt_model', { request: { body: ORDER_SCHEMA } }),
  fnauth: routeOf('rt_fnauth', { authorizer: 'gate' }),
};
const apiOf = (name) => ({
  id: `api_${name}`, name, basePath: '', routes: [apis[name]], cors: null, minimumCompressionSize: null, binaryMediaTypes: null,
  errorFormat: 'switchyard', exposeErrors: false, throttle: null, authorizers, defaultAuthorizer: null, createdAt: now, updatedAt: now,
});
const secret = 'sy_micro_0123456789abcdef0123456789abcdef';
const plan = { id: 'plan_1', name: 'bench', apiIds: Object.keys(apis).map((n) => `api_${n}`), throttle: HIGH, quota: null, createdAt: now, updatedAt: now };
const key = { id: 'key_1', name: 'bench', prefix: 'sy_micro', enabled: true, usagePlanId: plan.id, createdAt: now, updatedAt: now };
const hello = {
  name: 'hello', runtime: 'javascript', code: '', compiled: '', env: {}, timeoutMs: 10000, memoryMb: 128,
  handler: null, eventFormat: 'switchyard', version: 1, codeSha256: '', createdAt: now, updatedAt: now,
};
const keyHash = hashSecret(secret);
const store = {
  getApi: async (id) => (apis[id.slice(4)] ? apiOf(id.slice(4)) : null),
  getFunction: async (name) => (name === 'hello' || name === 'gate' ? { ...hello, name } : null),
  apiKeyByHash: async (hash) => (hash === keyHash ? { key, plan } : null),
  takeTokens: async (_bucket, _throttle, want) => ({ taken: want, retryAfterMs: 0 }),
  countKeyUse: async () => true,
  addKeyUses: async () => {},
};
const clock = { now: () => Date.now(), onJump: () => () => {} };
const changes = { subscribe() {} };
const throttles = new Throttles({ limits: store, clock });
const allow = (event) => ({
  principalId: 'bench',
  policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: JSON.parse(event).methodArn }] },
  context: { tier: 'gold' },
});
const eventBytes = {};
const runtime = {
  invoke: async (fn, event, requestId) => (requestId.startsWith('req_') && fn.name === 'hello' && (eventBytes[currentRow] = event.length), { ok: true, result: fn.name === 'gate' ? allow(event) : { statusCode: 200, body: { hello: 'world' } }, logs: [], durationMs: 0 }),
};
const gateway = new Gateway({
  store, runtime, changes, logSink: { push() {} }, metrics: createMetrics(),
  stats: new StatsCollector({ clock }),
  policy: {
    clock, throttles,
    apiKeys: { directory: new KeyDirectory({ store, changes }), throttles, limits: store, uses: new KeyUseCounter({ limits: store }), clock },
  },
});

const body = Buffer.from(ORDER_BODY);
// Every row sends the same request: what differs is the route's policy alone.
const rawHeaders = [
  'host', 'localhost:3000', 'user-agent', 'autocannon/8', 'content-type', 'application/json',
  'content-length', String(body.length), 'authorization', `Bearer ${token}`, 'x-api-key', secret, 'x-gate-token', 'allow',
];
let seq = 0;
const request = (name) => ({
  method: 'POST', path: '/hello', rawQuery: '', rawHeaders, body, sourceIp: '127.0.0.1',
  requestId: `req_${seq++}`, apiId: `api_${name}`, requestTimeEpoch: Date.now(), httpVersion: '1.1', localPort: 3000,
});

let currentRow = '';
async function run(name, ms) {
  currentRow = name;
  let n = 0;
  const start = performance.now();
  const until = start + ms;
  while (performance.now() < until) {
    for (let i = 0; i < 500; i++, n++) {
      const res = await gateway.handle(request(name));
      if (res.status !== 200) throw new Error(`${name}: status ${res.status}: ${JSON.stringify(res.body)}`);
    }
  }
  return ((performance.now() - start) * 1000) / n;
}

const names = process.env.ROWS ? process.env.ROWS.split(',') : Object.keys(apis);
for (const name of names) await run(name, 300); // compile, warm the JIT and every cache
const totals = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < rounds; r++) {
  // Each round starts one row later, so no row always runs first.
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + r) % names.length];
    totals[name].push(await run(name, seconds * 1000));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(totals.open);
console.log(`Gateway.handle, POST of ${body.length} B to hello, ${rounds} rounds of ${seconds} s per row, Node ${process.version}; median µs per request`);
console.log('| route | µs/request | above no policy | event bytes |');
console.log('|---|---|---|---|');
for (const name of names) {
  const us = median(totals[name]);
  console.log(`| ${name} | ${us.toFixed(2)} | ${name === 'open' ? '' : `${us >= base ? '+' : ''}${(us - base).toFixed(2)} µs`} | ${eventBytes[name]} |`);
}
process.exit(0);
