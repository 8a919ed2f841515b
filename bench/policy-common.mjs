// What the gateway policy benchmarks (authorizers.mjs, keys-throttle.mjs,
// validation.mjs, policy.mjs) share: their options, one autocannon row, the
// warm-up, means over rounds, a local JWKS server with a token it signs, the
// cached TOKEN authorizer function, and the 2 KB order body with its schema.
// Kept here so every script measures a row, and builds each policy, the same
// way: their figures are compared with one another in bench/README.md.
import autocannon from 'autocannon';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import http from 'node:http';
import { cpuUs } from './proc-cpu.mjs';
import { parseArgs } from 'node:util';

/**
 * --duration, --connections, --rounds (and any `extra` numeric options) with
 * their defaults, as numbers; a value that is not a whole number >= 1 stops
 * the script with a message naming the option.
 */
export function readOptions(defaults, extra = {}) {
  const all = { ...defaults, ...extra };
  const options = Object.fromEntries(Object.entries(all).map(([name, value]) => [name, { type: 'string', default: String(value) }]));
  const { values } = parseArgs({ options });
  return Object.fromEntries(
    Object.keys(all).map((name) => {
      const n = Number(values[name]);
      if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number >= 1, got "${values[name]}"`);
      return [name, n];
    }),
  );
}

/** A limit far above what one machine sends: nothing is ever refused, so a row measures the check, not refusals. */
export const HIGH = { rateLimit: 1_000_000, burstLimit: 1_000_000 };

/**
 * One row for `duration` s: mean req/s, p50/p99 in ms, and how many answers
 * were not 2xx or failed; with `pids`, also `cpu`: the CPU those processes
 * spent per request (µs, /proc), the steadier figure on a shared machine.
 */
export async function measure({ url, method = 'GET', body, headers = {} }, { connections, duration }, pids = null) {
  const before = pids?.map(cpuUs);
  const r = await autocannon({ url, method, body, headers, connections, pipelining: 1, duration });
  const cpu = pids === null ? null : pids.reduce((sum, pid, i) => sum + cpuUs(pid) - before[i], 0) / r.requests.total;
  return { rps: r.requests.mean, p50: r.latency.p50, p99: r.latency.p99, bad: r.non2xx + r.errors, cpu };
}

/** 50 requests per row before any measurement (isolates, compiled checks, the JWKS and authorizer caches); any non-200 stops the run. */
export async function warm(rows) {
  for (const { name, url, method = 'GET', body, headers = {} } of rows) {
    for (let i = 0; i < 50; i++) {
      const res = await fetch(url, { method, body, headers });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${name}: warm-up answered ${res.status}: ${text.slice(0, 300)}`);
    }
  }
}

/** Means of one row's rounds; a row that saw any non-2xx answer or error stops the run (it would measure refusals). */
export function meanOf(name, results) {
  if (results.some((r) => r.bad > 0)) throw new Error(`${name}: non-2xx answers or errors`);
  const mean = (k) => results.reduce((s, r) => s + r[k], 0) / results.length;
  return { rps: mean('rps'), p50: mean('p50'), p99: mean('p99'), cpu: results[0].cpu === null ? null : mean('cpu') };
}

/** The issuer and audience the token carries and a JWT authorizer of the benchmarks checks. */
export const JWT_ISSUER = 'https://issuer.bench/';
export const JWT_AUDIENCE = 'bench';

/**
 * A JWKS of one RS256 key on loopback and a token signed with it (valid for
 * 2 h). The gateway fetches from loopback only with
 * SWITCHYARD_ALLOW_PRIVATE_TARGETS=1, which this sets for the gateways the
 * script starts afterwards. `{ jwksUrl, token, close }`.
 */
export async function startJwks() {
  process.env.SWITCHYARD_ALLOW_PRIVATE_TARGETS = '1';
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench-1', alg: 'RS256', use: 'sig' };
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const token = await new SignJWT({ sub: 'bench', scope: 'hello' })
    .setProtectedHeader({ alg: 'RS256', kid: 'bench-1' })
    .setIssuer(JWT_ISSUER)
    .setAudience(JWT_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(privateKey);
  return { jwksUrl: `http://127.0.0.1:${server.address().port}/jwks.json`, token, close: () => server.close() };
}

/** A JWT authorizer on the JWKS above, as an API's `authorizers` entry. */
export const jwtAuthorizer = (name, jwksUrl) => ({ name, type: 'jwt', issuer: JWT_ISSUER, audience: [JWT_AUDIENCE], jwksUrl });

/** A TOKEN authorizer function in the AWS blueprint's idiom: Allow for the token `allow`, with a context. */
export const GATE_CODE = `exports.handler = (event, context, callback) => callback(null, {
  principalId: 'bench',
  policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: event.authorizationToken === 'allow' ? 'Allow' : 'Deny', Resource: event.methodArn }] },
  context: { tier: 'gold' },
});`;

/** The function authorizer entry for GATE_CODE: TOKEN, payload 1.0, its answer kept 300 s (the goal's "cached"). */
export const gateAuthorizer = (name, fn) => ({ name, type: 'function', function: fn, payloadFormatVersion: '1.0', kind: 'TOKEN', resultTtlSeconds: 300 });

/**
 * The request model of the validation goal: an order (`orderId` with a
 * pattern, `placedAt` date-time, a customer with an email, items with SKU
 * patterns and bounds, no additional properties).
 */
export const ORDER_SCHEMA = {
  type: 'object',
  required: ['orderId', 'customer', 'items'],
  additionalProperties: false,
  properties: {
    orderId: { type: 'string', pattern: '^ord_[0-9]{6}$' },
    placedAt: { type: 'string', format: 'date-time' },
    customer: {
      type: 'object',
      required: ['email', 'name'],
      properties: {
        email: { type: 'string', format: 'email' },
        name: { type: 'string', minLength: 1, maxLength: 100 },
        address: {
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' }, postcode: { type: 'string', maxLength: 10 }, country: { type: 'string', minLength: 2, maxLength: 2 } },
        },
      },
    },
    items: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: {
        type: 'object',
        required: ['sku', 'quantity', 'price'],
        additionalProperties: false,
        properties: {
          sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' },
          quantity: { type: 'integer', minimum: 1, maximum: 99 },
          price: { type: 'number', minimum: 0 },
          note: { type: 'string', maxLength: 200 },
        },
      },
    },
  },
};

const items = Array.from({ length: 20 }, (_, i) => ({ sku: `ABC-${String(1000 + i)}`, quantity: 1 + (i % 5), price: 9.99 + i, note: 'gift wrap, please; thank you' }));
/** An order of 20 items that ORDER_SCHEMA admits: 2,072 bytes of JSON. */
export const ORDER_BODY = JSON.stringify({
  orderId: 'ord_123456',
  placedAt: '2026-11-27T12:00:00Z',
  customer: { email: 'ada@example.com', name: 'Ada Lovelace', address: { street: '12 St James Square', city: 'London', postcode: 'SW1Y 4JH', country: 'GB' } },
  items,
});
