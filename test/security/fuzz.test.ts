/**
 * Fuzzes every operation the running server lists in `/api/openapi.json`
 * (sent with the admin key) with random and malformed input: wrong types,
 * missing and unknown fields, deep nesting, invalid UTF-8, strings near and
 * over the body limit, `__proto__`/`constructor` keys, empty bodies, wrong
 * content types, odd path and query values. Asserts that no answer is a 5xx,
 * that every refusal has the `{error, code}` shape (or API Gateway's `{message}`
 * from the invocations of an API whose `errorFormat` is `aws`) and an x-request-id, and
 * that a refusal stored nothing: the function, API (with routes) and webhook
 * listings are the same before and after every 4xx.
 *
 * The seed is printed; rerun a failure with FUZZ_SEED=<seed>. FUZZ_CASES sets
 * the cases per operation (default 100).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { exactRequest, type WireAnswer } from '../helpers/wire.js';
import { chance, fieldValues, percentEncode, fromSchema, nestedText, pick, randomJson, randomString, seededRng, type Rng } from './fuzz-values.js';

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const CASES_PER_OPERATION = Number(process.env.FUZZ_CASES ?? 100);
const KEY = 'fuzz-admin-key';
const AUTH = { authorization: `Bearer ${KEY}` };
const BODY_LIMIT = 1024 * 1024;
const FUNCTION_FAILURES = ['function_error', 'function_timeout', 'function_memory_limit', 'function_crashed', 'invalid_result'];
/** The same failures as API Gateway words them, for an API whose errorFormat an earlier case set to `aws`. */
const AWS_FUNCTION_FAILURES = ['Internal server error', 'Internal Server Error', 'Endpoint request timed out', 'Service Unavailable'];
const BASE_CODE = 'exports.handler = async () => ({ statusCode: 200, body: { base: true } });';

interface Operation {
  method: string;
  path: string;
  params: string[];
  query: string[];
  bodySchema: any;
}

interface Baseline {
  functionName: string;
  apiId: string;
  routeId: string;
  webhookId: string;
  deliveryId: string;
}

let svc: RunningService;
let receiver: Receiver;
const base: Baseline = { functionName: 'base', apiId: '', routeId: '', webhookId: '', deliveryId: '' };

const admin = (method: string, path: string, body?: unknown) => svc.request(method, path, body, AUTH);

/** Recreates whatever an accepted request removed, so later cases keep valid ids to aim at. */
async function ensureBaseline(): Promise<void> {
  if ((await admin('GET', `/api/functions/${base.functionName}`)).status === 404) {
    const fn = await admin('POST', '/api/functions', { name: base.functionName, code: BASE_CODE });
    expect(fn.status, fn.text).toBe(201);
  }
  let api = await admin('GET', `/api/apis/${base.apiId || 'none'}`);
  if (api.status === 404) {
    api = await admin('POST', '/api/apis', { name: 'fuzz', basePath: '/fz', routes: [] });
    expect(api.status, api.text).toBe(201);
    base.apiId = api.json.id;
  }
  if (api.json.routes.length === 0) {
    const route = await admin('POST', `/api/apis/${base.apiId}/routes`, { method: 'GET', path: '/base', function: base.functionName });
    expect(route.status, route.text).toBe(201);
    base.routeId = route.json.id;
  } else {
    base.routeId = api.json.routes[0].id;
  }
  if ((await admin('GET', `/api/webhooks/${base.webhookId || 'none'}`)).status === 404) {
    const hook = await admin('POST', '/api/webhooks', {
      name: 'fuzz',
      target_url: `${receiver.url}/hook`,
      method: 'POST',
      payload_template: { event: '{{event}}' },
      mock_endpoint: { api_id: base.apiId, path: '/fz/base' },
      events: ['order.created'],
    });
    expect(hook.status, hook.text).toBe(201);
    base.webhookId = hook.json.id;
    const fired = await admin('POST', `/api/webhooks/${base.webhookId}/test`);
    expect(fired.status, fired.text).toBe(200);
    base.deliveryId = fired.json.id;
  }
}

/** What a refusal must leave untouched. */
async function snapshot(): Promise<string> {
  const [functions, apis, webhooks] = await Promise.all([
    admin('GET', '/api/functions?limit=1000'),
    admin('GET', '/api/apis?limit=1000'),
    admin('GET', '/api/webhooks?limit=1000'),
  ]);
  for (const list of [functions, apis, webhooks]) expect(list.status, list.text).toBe(200);
  // A webhook's health counts its deliveries, which the engine moves on by itself
  // (a delivery accepted earlier finishing): not something a request stored.
  const settings = webhooks.json.map(({ health: _health, ...webhook }: Record<string, unknown>) => webhook);
  return JSON.stringify({ functions: functions.json, apis: apis.json, webhooks: settings });
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    if (!path.startsWith('/api/')) continue;
    for (const [method, op] of Object.entries(methods)) {
      // A path item also holds `parameters`, `summary`, ...: only its operations are requests to send.
      if (!HTTP_METHODS.has(method)) continue;
      // A stream that is accepted never ends, so a request cannot wait for its answer here; streams.test.ts covers their refusals.
      if (Object.values(op.responses ?? {}).some((r: any) => r?.content?.['text/event-stream'])) continue;
      const parameters: { name: string; in: string }[] = op.parameters ?? [];
      ops.push({
        method: method.toUpperCase(),
        path,
        params: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        bodySchema: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return ops;
}

/** A valid id for the parameter where the path makes it clear which one, else something odd. */
function paramValue(rng: Rng, op: Operation, name: string): string {
  if (chance(rng, 0.5)) {
    if (name === 'name') return base.functionName;
    if (name === 'routeId') return base.routeId;
    if (name === 'apiId') return base.apiId;
    if (op.path.startsWith('/api/apis/')) return base.apiId;
    if (op.path.startsWith('/api/webhooks/')) return base.webhookId;
    if (op.path.startsWith('/api/deliveries/')) return base.deliveryId;
  }
  const odd = pick(rng, [
    () => percentEncode(randomString(rng)),
    () => pick(rng, ['..', '%2e%2e', '.', '%2F', '%00', '%', '%zz', '%E0%A4%A', '__proto__', 'constructor', 'api_', 'wh_x', 'dlv_x']),
    () => 'x'.repeat(pick(rng, [99, 100, 101, 150, 5000])),
    () => percentEncode(pick(rng, [base.apiId, base.webhookId, base.deliveryId, base.routeId, base.functionName]) + randomString(rng, 3)),
  ]);
  return odd() || 'x';
}

function queryText(rng: Rng, op: Operation): string {
  if (!chance(rng, 0.4)) return '';
  const pairs: string[] = [];
  for (const name of op.query) {
    if (chance(rng, 0.6)) {
      pairs.push(`${name}=${percentEncode(String(pick(rng, ['1', '0', '-1', 'abc', '1000', '1001', '99999', '1e3', '', randomString(rng)])))}`);
    }
  }
  if (chance(rng, 0.3)) pairs.push(pick(rng, ['__proto__[x]=1', 'constructor=1', 'extra=1', 'limit=1&limit=2', '%zz=1', '=']));
  return pairs.length ? `?${pairs.join('&')}` : '';
}

interface Body {
  what: string;
  headers: Record<string, string>;
  bytes?: Buffer;
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** Mutates a schema-shaped body one way, or replaces it with something malformed. */
function bodyFor(rng: Rng, op: Operation, fields: Record<string, () => unknown[]>): Body {
  const shaped = (): Record<string, unknown> => {
    const v = fromSchema(rng, op.bodySchema ?? { type: 'object', properties: {} }, fields);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  };
  const json = (what: string, value: unknown): Body => ({ what, headers: JSON_TYPE, bytes: Buffer.from(JSON.stringify(value)) });
  const keys = (v: Record<string, unknown>) => Object.keys(v);
  const mutations: [number, () => Body][] = [
    [4, () => json('schema-shaped', shaped())],
    [2, () => {
      const v = shaped();
      const k = keys(v);
      if (k.length) delete v[pick(rng, k)];
      return json('a field missing', v);
    }],
    [1, () => json('an unknown field', { ...shaped(), [randomString(rng, 8) || 'extra']: randomJson(rng) })],
    [2, () => {
      const v = shaped();
      const k = keys(v);
      if (k.length) v[pick(rng, k)] = randomJson(rng);
      return json('a field of the wrong type', v);
    }],
    [1, () => {
      const text = JSON.stringify(shaped());
      const hostile = pick(rng, ['"__proto__":{"isAdmin":true}', '"constructor":{"prototype":{"isAdmin":true}}', '"__proto__":null']);
      return { what: 'a prototype key', headers: JSON_TYPE, bytes: Buffer.from(text === '{}' ? `{${hostile}}` : `{${hostile},${text.slice(1)}`) };
    }],
    [2, () => {
      const v = shaped();
      const k = keys(v);
      const field = k.length ? pick(rng, k) : 'x';
      const depth = pick(rng, [99, 101, 10000, 50000]);
      const text = JSON.stringify({ ...v, [field]: '@@DEEP@@' }).replace('"@@DEEP@@"', nestedText(rng, depth));
      return { what: `nesting ${depth} deep`, headers: JSON_TYPE, bytes: Buffer.from(text) };
    }],
    [1, () => {
      const v = shaped();
      const k = keys(v);
      const field = k.length ? pick(rng, k) : 'x';
      const size = BODY_LIMIT + pick(rng, [-2000, -200, 100, 5000]);
      v[field] = 'x'.repeat(Math.max(0, size));
      return json(`a ${size}-character string`, v);
    }],
    [1, () => {
      const text = Buffer.from(JSON.stringify({ ...shaped(), name: 'AAAA' }));
      const at = text.indexOf('AAAA');
      if (at >= 0) Buffer.from(pick(rng, [[0xff, 0xfe, 0xfd, 0xfc], [0xc3, 0x28, 0x41, 0x41], [0xed, 0xa0, 0x80, 0x41]])).copy(text, at);
      return { what: 'invalid UTF-8', headers: JSON_TYPE, bytes: text };
    }],
    [1, () => json('random JSON', randomJson(rng))],
    [1, () => ({ what: 'an empty JSON body', headers: JSON_TYPE, bytes: Buffer.alloc(0) })],
    [1, () => ({ what: 'no body', headers: {} })],
    [1, () => ({
      what: 'a wrong content type',
      headers: { 'content-type': pick(rng, ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/jsonx', 'application/xml', '']) },
      bytes: Buffer.from(JSON.stringify(shaped())),
    })],
    [1, () => ({ what: 'garbage bytes', headers: JSON_TYPE, bytes: Buffer.from(Array.from({ length: 1 + Math.floor(rng() * 64) }, () => Math.floor(rng() * 256))) })],
    [1, () => ({ what: 'truncated JSON', headers: JSON_TYPE, bytes: Buffer.from(JSON.stringify(shaped()).slice(0, -1 - Math.floor(rng() * 5))) })],
  ];
  const total = mutations.reduce((sum, [w]) => sum + w, 0);
  let r = rng() * total;
  for (const [weight, make] of mutations) {
    r -= weight;
    if (r < 0) return make();
  }
  return mutations[0][1]();
}

async function send(method: string, target: string, body: Body): Promise<WireAnswer> {
  const headers: Record<string, string> = { ...AUTH, ...body.headers };
  if (headers['content-type'] === '') delete headers['content-type'];
  try {
    return await exactRequest(svc.url, method, target, headers, body.bytes);
  } catch (err) {
    // The server may refuse before reading a large body (413 over the limit, 414 for a path segment
    // the router refuses) and close: the client, still writing, sees the connection go, not the answer.
    // What was stored is still checked by the caller.
    if (body.bytes && body.bytes.length > BODY_LIMIT / 2 && /EPIPE|ECONNRESET|socket hang up/.test(String(err))) {
      return { status: 413, headers: { 'x-request-id': 'closed-early' }, text: '', json: { error: 'closed', code: 'payload_too_large' } };
    }
    throw err;
  }
}

beforeAll(async () => {
  receiver = await startReceiver(() => ({ status: 204, body: '' }));
  svc = await startService({
    // The manual clock keeps schedules and retries still, so only requests change what is stored.
    env: { SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1', SWITCHYARD_TEST_HOOKS: '1' },
  });
  await ensureBaseline();
}, 30000);

afterAll(async () => {
  await Promise.all([svc?.stop(), receiver?.close()]);
});

describe('fuzzing every operation of the OpenAPI document', () => {
  it('never answers 5xx, answers every refusal in our shape, and a refusal stores nothing', async () => {
    console.log(`fuzz seed: ${SEED} (rerun with FUZZ_SEED=${SEED})`);
    const rng = seededRng(SEED);
    const doc = await admin('GET', '/api/openapi.json');
    expect(doc.status).toBe(200);
    const operations = operationsOf(doc.json);
    expect(operations.length).toBeGreaterThanOrEqual(24);
    // The public invocation endpoint is not in the document; it takes the same bodies.
    for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
      operations.push({ method, path: '/api/invoke/fn/{apiId}/fz/base', params: ['apiId'], query: ['page', 'limit'], bodySchema: undefined });
    }

    const fields = fieldValues(rng, { receiverUrl: receiver.url, apiId: base.apiId, functionName: base.functionName });
    const statuses = new Map<number, number>();
    let before = await snapshot();
    let sent = 0;
    for (let round = 0; round < CASES_PER_OPERATION; round++) {
      for (const op of operations) {
        const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => paramValue(rng, op, name));
        const target = path + queryText(rng, op);
        const body: Body = op.method === 'GET' || op.method === 'DELETE' ? (chance(rng, 0.1) ? bodyFor(rng, op, fields) : { what: 'no body', headers: {} }) : bodyFor(rng, op, fields);
        const what = `seed ${SEED}, case ${sent}: ${op.method} ${target.slice(0, 200)} with ${body.what}`;
        const res = await send(op.method, target, body).catch((err: Error) => {
          throw new Error(`${what}: ${err.message}`);
        });
        sent++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        // An earlier case may have set the API's errorFormat to `aws`: its invocations then answer in API Gateway's
        // {message} shape, which is right only when the API asks for it.
        const invokedApi = op.path.startsWith('/api/invoke/') ? /^\/api\/invoke\/fn\/([^/?]+)/.exec(target)?.[1] : undefined;
        const awsShaped = invokedApi !== undefined && typeof res.json?.message === 'string' && res.json?.code === undefined;
        if (awsShaped) {
          const api = await admin('GET', `/api/apis/${invokedApi}`);
          expect(api.json?.errorFormat, `${what}: API Gateway's shape from an API that did not ask for it`).toBe('aws');
        }
        // An invocation may answer 5xx for what the function did (a timeout set by an earlier case); nothing else may.
        const functionFailure =
          invokedApi !== undefined && (FUNCTION_FAILURES.includes(res.json?.code) || (awsShaped && AWS_FUNCTION_FAILURES.includes(res.json.message)));
        if (!functionFailure) expect(res.status, `${what} -> ${res.text.slice(0, 300)}`).toBeLessThan(500);
        if (res.status >= 400) {
          expect(res.headers['x-request-id'], `${what}: x-request-id`).toBeTruthy();
          if (op.method !== 'HEAD' && !awsShaped) {
            expect(typeof res.json?.error, `${what}: shape of ${res.text.slice(0, 200)}`).toBe('string');
            expect(res.json.code, `${what}: shape`).toMatch(/^[a-z_]+$/);
          }
          expect(await snapshot(), `${what}: a refused request changed what is stored`).toBe(before);
        } else {
          await ensureBaseline();
          before = await snapshot();
        }
      }
    }
    console.log(`fuzz: ${sent} requests; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  }, 120_000);
});
