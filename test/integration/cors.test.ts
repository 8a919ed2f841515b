/**
 * CORS per API over real HTTP: the gateway answers preflights itself (no route
 * needed, no function run), adds the Access-Control-* headers and `Vary: Origin`
 * to every answer of the API to an allowed origin (errors included), refuses
 * what browsers refuse, and keeps the policy across a restart (SQLite, or
 * PostgreSQL with TEST_STORE=postgres).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';
import { rawRequest } from '../helpers/receiver.js';

const APP = 'https://app.example.com';
const OTHER = 'https://evil.example.net';

const FUNCTIONS: Record<string, string> = {
  // Sets its own CORS headers, which a configured API replaces.
  'cors-hello': `exports.handler = async () => ({ statusCode: 200, headers: { 'access-control-allow-origin': 'https://wrong.example', 'x-total': '3', vary: 'Accept' }, body: { ok: true } });`,
  'cors-options': `exports.handler = async () => ({ statusCode: 200, body: { route: 'options' } });`,
  'cors-throw': `exports.handler = async () => { throw new Error('kaputt'); };`,
};

const POLICY = {
  allowOrigins: [APP, 'http://localhost:5173'],
  allowMethods: ['GET', 'POST', 'DELETE'],
  allowHeaders: ['content-type', 'authorization'],
  exposeHeaders: ['x-total'],
  maxAge: 600,
  allowCredentials: true,
};

let svc: RunningService;
let apiId = '';
let plainId = '';
let openId = '';

const routes = [
  { method: 'GET', path: '/hello', function: 'cors-hello' },
  { method: 'OPTIONS', path: '/hello', function: 'cors-options' },
  { method: 'GET', path: '/boom', function: 'cors-throw' },
];

async function createApi(body: Record<string, unknown>): Promise<string> {
  const res = await svc.request('POST', '/api/apis', body);
  expect(res.status, res.text).toBe(201);
  return res.json.id;
}

const call = (id: string, method: string, path: string, headers: string[] = [], body?: Buffer) =>
  rawRequest(svc.url, method, `/api/invoke/fn/${id}${path}`, headers, body);

beforeAll(async () => {
  svc = await startService();
  for (const [name, code] of Object.entries(FUNCTIONS)) {
    const res = await svc.request('POST', '/api/functions', { name, code });
    expect(res.status, res.text).toBe(201);
  }
  apiId = await createApi({ name: 'cors-api', basePath: '/', routes, cors: POLICY });
  plainId = await createApi({ name: 'cors-none', basePath: '/', routes });
  openId = await createApi({ name: 'cors-open', basePath: '/', routes, cors: { allowOrigins: ['*'], allowMethods: ['*'], allowHeaders: ['*'] } });
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

describe('the policy through the management API', () => {
  it('answers it with every field filled', async () => {
    const res = await svc.request('GET', `/api/apis/${apiId}`);
    expect(res.json.cors).toEqual(POLICY);
    const open = await svc.request('GET', `/api/apis/${openId}`);
    expect(open.json.cors).toEqual({
      allowOrigins: ['*'],
      allowMethods: ['*'],
      allowHeaders: ['*'],
      exposeHeaders: [],
      maxAge: null,
      allowCredentials: false,
    });
    const plain = await svc.request('GET', `/api/apis/${plainId}`);
    expect(plain.json.cors).toBeNull();
  });

  it.each([
    [{ allowOrigins: ['*'], allowCredentials: true }, 'cors.allowCredentials'],
    [{ allowOrigins: ['https://app.example.com/path'] }, 'cors.allowOrigins[0]'],
    [{ allowOrigins: ['https://*.example.com'] }, 'cors.allowOrigins[0]'],
    [{ allowOrigins: [] }, 'cors.allowOrigins'],
    [{ allowOrigins: Array.from({ length: 101 }, (_, i) => `https://a${i}.example.com`) }, 'cors.allowOrigins'],
    [{ allowOrigins: [APP], maxAge: 86_401 }, 'cors.maxAge'],
    [{ allowOrigins: [APP], allowMethods: ['FETCH'] }, 'cors.allowMethods[0]'],
    [{ allowOrigins: [APP], allowHeaders: ['bad header'] }, 'cors.allowHeaders[0]'],
    [{ allowOrigins: [APP], exposeHeaders: ['x'.repeat(129)] }, 'cors.exposeHeaders[0]'],
    [{ allowOrigins: [APP], allowOrigin: [APP] }, 'cors.allowOrigin'],
  ])('refuses %j with a 400 naming the field', async (cors, field) => {
    const res = await svc.request('POST', '/api/apis', { name: 'cors-bad', basePath: '/', routes: [], cors });
    expect(res.status, res.text).toBe(400);
    expect(res.json.code).toBe('invalid_request');
    expect(res.json.details.field).toBe(field);
    const put = await svc.request('PUT', `/api/apis/${plainId}`, { cors });
    expect(put.status, put.text).toBe(400);
    expect(put.json.details.field).toBe(field);
  });

  it('keeps it on an update that leaves it out, and removes it with null', async () => {
    const id = await createApi({ name: 'cors-update', basePath: '/', routes, cors: { allowOrigins: [APP] } });
    const renamed = await svc.request('PUT', `/api/apis/${id}`, { name: 'cors-update-2' });
    expect(renamed.json.cors.allowOrigins).toEqual([APP]);
    const dry = await svc.request('PUT', `/api/apis/${id}?dry_run=true`, { cors: null });
    expect(dry.json.changes).toEqual(['cors']);
    const preflight = () => call(id, 'OPTIONS', '/hello', ['origin', APP, 'access-control-request-method', 'GET']);
    expect((await preflight()).status).toBe(204);
    const removed = await svc.request('PUT', `/api/apis/${id}`, { cors: null });
    expect(removed.json.cors).toBeNull();
    // Without a policy the OPTIONS route answers it, as any OPTIONS.
    const after = await preflight();
    expect(after.status).toBe(200);
    expect(after.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('preflights', () => {
  it('answers an allowed origin on any path with 204 and the allow headers, running no function', async () => {
    for (const path of ['/hello', '/no/such/route']) {
      const res = await call(apiId, 'OPTIONS', path, [
        'origin', APP,
        'access-control-request-method', 'DELETE',
        'access-control-request-headers', 'content-type',
      ]);
      expect(res.status).toBe(204);
      expect(res.body.length).toBe(0);
      expect(res.headers['access-control-allow-origin']).toBe(APP);
      expect(res.headers['access-control-allow-methods']).toBe('GET, POST, DELETE');
      expect(res.headers['access-control-allow-headers']).toBe('content-type, authorization');
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(res.headers['access-control-max-age']).toBe('600');
      expect(res.headers.vary).toBe('Origin');
    }
  });

  it('answers an origin not allowed without any Access-Control-Allow-* header', async () => {
    const res = await call(apiId, 'OPTIONS', '/hello', ['origin', OTHER, 'access-control-request-method', 'GET']);
    expect(res.status).toBe(204);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(res.headers.vary).toBe('Origin');
  });

  it('with wildcards, allows any origin and what the browser asks for', async () => {
    const res = await call(openId, 'OPTIONS', '/anything', [
      'origin', OTHER,
      'access-control-request-method', 'PATCH',
      'access-control-request-headers', 'x-custom, content-type',
    ]);
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toBe('PATCH');
    expect(res.headers['access-control-allow-headers']).toBe('x-custom, content-type');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers['access-control-max-age']).toBeUndefined();
  });

  it('leaves an OPTIONS without Access-Control-Request-Method to the route that binds it', async () => {
    const res = await call(apiId, 'OPTIONS', '/hello', ['origin', APP]);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString())).toEqual({ route: 'options' });
    expect(res.headers['access-control-allow-origin']).toBe(APP);
  });

  it('is not answered by an API without a policy', async () => {
    const res = await call(plainId, 'OPTIONS', '/boom', ['origin', APP, 'access-control-request-method', 'GET']);
    expect(res.status).toBe(405);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers.vary).toBeUndefined();
  });
});

describe('headers on answers', () => {
  const corsOf = (h: Record<string, unknown>) => ({
    origin: h['access-control-allow-origin'],
    credentials: h['access-control-allow-credentials'],
    expose: h['access-control-expose-headers'],
    vary: h.vary,
  });

  it("puts the policy's headers on a function's answer, replacing its own", async () => {
    const res = await call(apiId, 'GET', '/hello', ['origin', APP]);
    expect(res.status).toBe(200);
    expect(corsOf(res.headers)).toEqual({ origin: APP, credentials: 'true', expose: 'x-total', vary: 'Accept, Origin' });
    expect(res.headers['x-total']).toBe('3');
  });

  it('reflects an allowed origin whatever its case', async () => {
    const res = await call(apiId, 'GET', '/hello', ['origin', 'HTTPS://APP.example.com']);
    expect(res.headers['access-control-allow-origin']).toBe('HTTPS://APP.example.com');
  });

  it.each([
    ['GET', '/no/such/route', 404, 'no_route'],
    ['PUT', '/hello', 405, 'method_not_allowed'],
    ['GET', '/boom', 502, 'function_error'],
  ])('puts them on errors too: %s %s answers %d', async (method, path, status, code) => {
    const res = await call(apiId, method, path, ['origin', APP]);
    expect(res.status).toBe(status);
    expect(JSON.parse(res.body.toString()).code).toBe(code);
    expect(corsOf(res.headers)).toEqual({ origin: APP, credentials: 'true', expose: 'x-total', vary: 'Origin' });
    if (status === 405) expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  it('puts them on a body refused before the gateway runs (413, over the body limit)', async () => {
    const res = await call(apiId, 'POST', '/hello', ['origin', APP, 'content-type', 'text/plain'], Buffer.alloc(1024 * 1024 + 1, 120));
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body.toString()).code).toBe('payload_too_large');
    expect(corsOf(res.headers)).toEqual({ origin: APP, credentials: 'true', expose: 'x-total', vary: 'Origin' });
    // An origin the API does not allow, or an API without a policy, gets none.
    const other = await call(apiId, 'POST', '/hello', ['origin', OTHER], Buffer.alloc(1024 * 1024 + 1, 120));
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const plain = await call(plainId, 'POST', '/hello', ['origin', APP], Buffer.alloc(1024 * 1024 + 1, 120));
    expect(plain.status).toBe(413);
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('gives an origin not allowed no Access-Control-* header, and its own CORS headers are dropped', async () => {
    for (const path of ['/hello', '/no/such/route']) {
      const res = await call(apiId, 'GET', path, ['origin', OTHER]);
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
      expect(res.headers.vary).toMatch(/Origin$/);
    }
  });

  it('answers `*` for any origin without credentials', async () => {
    const res = await call(openId, 'GET', '/hello', ['origin', OTHER]);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('adds nothing to the answers of an API without a policy', async () => {
    const res = await call(plainId, 'GET', '/hello', ['origin', APP]);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://wrong.example');
    expect(res.headers.vary).toBe('Accept');
  });
});

describe('a REST API function (aws-v1)', () => {
  // The public endpoint of serverless/examples' aws-node-auth0-custom-authorizers-api, in its idiom:
  // a REST API's proxy integration passes the function's own CORS headers on ("Required for CORS support to work").
  const REST_PUBLIC = `module.exports.publicEndpoint = (event, context, callback) => callback(null, {
  statusCode: 200,
  headers: { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Credentials': true },
  body: JSON.stringify({ message: 'Hi from Public API' }),
});`;

  it('keeps the Access-Control-* headers it sets; the policy adds only the ones it left out', async () => {
    for (const [name, format] of [['cors-rest', 'aws-v1'], ['cors-http', 'aws-v2']]) {
      const res = await svc.request('POST', '/api/functions', { name, code: REST_PUBLIC, handler: 'publicEndpoint', event_format: format });
      expect(res.status, res.text).toBe(201);
    }
    const policy = { allowOrigins: ['*'], allowMethods: ['POST'], exposeHeaders: ['x-total'] };
    const rest = await createApi({ name: 'cors-rest', basePath: '/', routes: [{ method: 'POST', path: '/api/public', function: 'cors-rest' }], cors: policy });
    const http = await createApi({ name: 'cors-http', basePath: '/', routes: [{ method: 'POST', path: '/api/public', function: 'cors-http' }], cors: policy });
    for (const origin of [[], ['origin', APP]]) {
      const res = await call(rest, 'POST', '/api/public', origin);
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(res.headers['access-control-expose-headers']).toBe(origin.length ? 'x-total' : undefined);
    }
    // Written for an HTTP API, whose CORS configuration decides alone: the function's are replaced.
    const replaced = await call(http, 'POST', '/api/public', ['origin', APP]);
    expect(replaced.headers['access-control-allow-origin']).toBe('*');
    expect(replaced.headers['access-control-allow-credentials']).toBeUndefined();
    const none = await call(http, 'POST', '/api/public');
    expect(none.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('across a restart', () => {
  it('keeps the policy in the store', async () => {
    const dbUrl = svc.dbUrl;
    await svc.stop();
    svc = await startService({ dbUrl });
    const res = await svc.request('GET', `/api/apis/${apiId}`);
    expect(res.json.cors).toEqual(POLICY);
    const preflight = await call(apiId, 'OPTIONS', '/x', ['origin', APP, 'access-control-request-method', 'POST']);
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(APP);
  }, 60_000);
});
