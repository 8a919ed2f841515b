/**
 * Request validation over real HTTP: a route's `request` model (a JSON Schema
 * for its body, required query strings and headers) is checked by the gateway
 * before the function runs; what fails is a 400 `request_invalid` naming what
 * failed, and the function's invocation count does not move. Schemas are
 * checked when written (400 naming the field). SQLite, or PostgreSQL with
 * TEST_STORE=postgres; the model survives a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';
import { waitFor } from '../helpers/receiver.js';

const PET_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    price: { type: 'number', minimum: 0 },
    email: { type: 'string', format: 'email' },
    tags: { type: 'array', items: { $ref: '#/$defs/tag' } },
  },
  required: ['name', 'price'],
  additionalProperties: false,
  $defs: { tag: { type: 'string', maxLength: 20 } },
};

/** A SAM-style model: draft-04, as API Gateway's models are written. */
const SAM_MODEL = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'Order',
  type: 'object',
  properties: {
    quantity: { type: 'integer', minimum: 1, maximum: 10, exclusiveMaximum: true },
    sku: { type: 'string' },
  },
  required: ['quantity', 'sku'],
};

let svc: RunningService;
let apiId = '';

const routes = [
  { method: 'POST', path: '/pets', function: 'rv-echo', request: { body: PET_SCHEMA } },
  { method: 'GET', path: '/pets', function: 'rv-echo', request: { querystrings: { limit: true, page: false }, headers: { 'X-Tenant': true } } },
  { method: 'POST', path: '/orders', function: 'rv-order', request: { body: SAM_MODEL, querystrings: { store: true } } },
  { method: 'GET', path: '/open', function: 'rv-echo' },
  { method: 'GET', path: '/probe/rv-echo', function: 'rv-echo' },
  { method: 'GET', path: '/probe/rv-order', function: 'rv-order' },
];

const invoke = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  svc.request(method, `/api/invoke/fn/${apiId}${path}`, body, headers);

/**
 * Whether a function ran for a request: each run logs its request id. Logs are
 * written after the answer, so a later run of the same function (a probe
 * route without a model) is awaited first: once its line is in, any earlier
 * run's line is too.
 */
async function ran(fn: string, answer: { headers: Headers }): Promise<boolean> {
  const requestId = answer.headers.get('x-request-id');
  expect(requestId).toBeTruthy();
  const probe = await invoke('GET', `/probe/${fn}`);
  expect(probe.status, probe.text).toBe(200);
  const probeId = probe.headers.get('x-request-id');
  const lines = await waitFor(async () => {
    const res = await svc.request('GET', `/api/functions/${fn}/logs?limit=1000`);
    const text = JSON.stringify(res.json);
    return text.includes(`ran ${probeId}`) ? text : '';
  });
  return lines.includes(`ran ${requestId}`);
}

beforeAll(async () => {
  svc = await startService();
  for (const name of ['rv-echo', 'rv-order']) {
    const code =
      `exports.handler = async (event) => { console.log('ran ' + event.requestContext.requestId); ` +
      `return { statusCode: 200, body: { ran: '${name}', body: event.body, query: event.queryStringParameters } }; };`;
    const res = await svc.request('POST', '/api/functions', { name, code });
    expect(res.status, res.text).toBe(201);
  }
  const res = await svc.request('POST', '/api/apis', { name: 'rv', basePath: '/', routes });
  expect(res.status, res.text).toBe(201);
  apiId = res.json.id;
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

describe('the model through the management API', () => {
  it('shows each route its model as written, and none on a route without', async () => {
    const res = await svc.request('GET', `/api/apis/${apiId}`);
    const byKey = Object.fromEntries(res.json.routes.map((r: any) => [`${r.method} ${r.path}`, r]));
    expect(byKey['POST /pets'].request).toEqual({ body: PET_SCHEMA });
    expect(byKey['GET /pets'].request).toEqual({ querystrings: { limit: true, page: false }, headers: { 'X-Tenant': true } });
    expect(byKey['POST /orders'].request.body).toEqual(SAM_MODEL);
    expect(byKey['GET /open'].request).toBeUndefined();
  });

  it.each([
    [{ body: { type: 'objekt' } }, 'routes[0].request.body'],
    [{ body: { type: 'object', properties: { a: { type: 'string', formatt: 'email' } } } }, 'routes[0].request.body'],
    [{ body: { type: 'string', format: 'no-such-format' } }, 'routes[0].request.body'],
    [{ body: { $ref: 'https://schemas.example.com/pet.json' } }, 'routes[0].request.body'],
    [{ body: { $schema: 'http://json-schema.org/draft-03/schema#', type: 'object' } }, 'routes[0].request.body'],
    [{ body: { type: 'object', description: 'x'.repeat(70_000) } }, 'routes[0].request.body'],
    [{ body: nested(40) }, 'routes[0].request.body'],
    [{ body: 'object' }, 'routes[0].request.body'],
    [{ headers: { 'bad header': true } }, 'routes[0].request.headers'],
    [{ querystrings: { limit: 'yes' } }, 'routes[0].request.querystrings.limit'],
    [{ bodySchema: {} }, 'routes[0].request.bodySchema'],
  ])('refuses the model %# with a 400 naming the field', async (request, field) => {
    const route = { method: 'POST', path: '/x', function: 'rv-echo', request };
    const res = await svc.request('POST', '/api/apis', { name: 'rv-bad', basePath: '/', routes: [route] });
    expect(res.status, res.text).toBe(400);
    expect(res.json.code).toBe('invalid_request');
    expect(res.json.details.field).toBe(field);
    const put = await svc.request('PUT', `/api/apis/${apiId}`, { routes: [route] });
    expect(put.status, put.text).toBe(400);
    expect(put.json.details.field).toBe(field);
    const add = await svc.request('POST', `/api/apis/${apiId}/routes`, route);
    expect(add.status, add.text).toBe(400);
    expect(add.json.details.field).toBe(field.replace(/^routes\[0\]\./, ''));
  });

  it('names the route at fault among several, and in a dry run too', async () => {
    const bad = [routes[3], { method: 'PUT', path: '/y', function: 'rv-echo', request: { body: { type: 'nope' } } }];
    const dry = await svc.request('POST', '/api/apis?dry_run=true', { name: 'rv-bad', basePath: '/', routes: bad });
    expect(dry.status, dry.text).toBe(400);
    expect(dry.json.details.field).toBe('routes[1].request.body');
  });

  it('counts a change of model as a change of routes in a dry run', async () => {
    const changed = routes.map((r, i) => (i === 0 ? { ...r, request: { body: { type: 'object' } } } : r));
    const dry = await svc.request('PUT', `/api/apis/${apiId}?dry_run=true`, { routes: changed });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.json.changes).toEqual(['routes']);
    const same = await svc.request('PUT', `/api/apis/${apiId}?dry_run=true`, { routes });
    expect(same.json.changes).toEqual([]);
  });
});

describe('a body schema', () => {
  it('lets a valid body through to the function', async () => {
    const res = await invoke('POST', '/pets', { name: 'Rex', price: 12.5, email: 'rex@example.com', tags: ['dog'] });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ ran: 'rv-echo', body: { name: 'Rex', price: 12.5 } });
    expect(await ran('rv-echo', res)).toBe(true);
  });

  it.each([
    ['a wrong type', { name: 'Rex', price: 'cheap' }, '/price', /price.*must be number/],
    ['a missing property', { price: 3 }, '/name', /name.*is required/],
    ['a property not allowed', { name: 'Rex', price: 1, colour: 'red' }, '/colour', /colour/],
    ['a bad format', { name: 'Rex', price: 1, email: 'not-an-address' }, '/email', /email.*must match format "email"/],
    ['a failing $ref', { name: 'Rex', price: 1, tags: ['x'.repeat(21)] }, '/tags/0', /tags\/0/],
  ])('refuses %s with a 400 naming the property; the function does not run', async (_what, body, path, message) => {
    const res = await invoke('POST', '/pets', body);
    expect(res.status, res.text).toBe(400);
    expect(res.json.code).toBe('request_invalid');
    expect(res.json.error).toMatch(message);
    expect(res.json.details.errors).toEqual([expect.objectContaining({ where: 'body', path })]);
    expect(await ran('rv-echo', res)).toBe(false);
  });

  it.each([
    ['text that is not JSON', 'name=Rex&price=1', { 'content-type': 'application/x-www-form-urlencoded' }, /not valid JSON/],
    ['broken JSON', '{"name": "Rex",', { 'content-type': 'application/json' }, /not valid JSON/],
    ['no body at all', undefined, {}, /body is required/],
  ])('refuses %s with a 400; the function does not run', async (_what, body, headers, message) => {
    const res = await invoke('POST', '/pets', body, headers);
    expect(res.status, res.text).toBe(400);
    expect(res.json.code).toBe('request_invalid');
    expect(res.json.error).toMatch(message);
    expect(res.json.details.errors[0].where).toBe('body');
    expect(await ran('rv-echo', res)).toBe(false);
  });

  it('takes a draft-04 model written as SAM writes them', async () => {
    const ok = await invoke('POST', '/orders?store=berlin', { quantity: 3, sku: 'A-1' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.ran).toBe('rv-order');
    // draft-04's boolean exclusiveMaximum: 10 itself is out.
    const bad = await invoke('POST', '/orders?store=berlin', { quantity: 10, sku: 'A-1' });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.json.details.errors[0]).toMatchObject({ where: 'body', path: '/quantity' });
    expect(await ran('rv-order', bad)).toBe(false);
  });
});

describe('required query strings and headers', () => {
  it('lets a request with them through', async () => {
    const res = await invoke('GET', '/pets?limit=10', undefined, { 'x-tenant': 'acme' });
    expect(res.status, res.text).toBe(200);
    expect(res.json.query).toEqual({ limit: '10' });
  });

  it.each([
    ['the query string missing', '/pets', { 'x-tenant': 'acme' }, [{ where: 'querystring', path: 'limit' }]],
    ['the query string blank', '/pets?limit=', { 'x-tenant': 'acme' }, [{ where: 'querystring', path: 'limit' }]],
    ['the header missing', '/pets?limit=10', {}, [{ where: 'header', path: 'x-tenant' }]],
    ['both missing', '/pets?page=2', {}, [{ where: 'querystring', path: 'limit' }, { where: 'header', path: 'x-tenant' }]],
  ])('refuses a request with %s: 400 naming it, the function does not run', async (_what, path, headers, failed) => {
    const res = await invoke('GET', path, undefined, headers);
    expect(res.status, res.text).toBe(400);
    expect(res.json.code).toBe('request_invalid');
    expect(res.json.details.errors).toEqual(failed.map((f) => expect.objectContaining(f)));
    for (const f of failed) expect(res.json.error).toContain(`'${f.path}'`);
    expect(await ran('rv-echo', res)).toBe(false);
  });

  it('checks parameters before the body', async () => {
    const res = await invoke('POST', '/orders', { quantity: 'many' });
    expect(res.status, res.text).toBe(400);
    expect(res.json.details.errors).toEqual([expect.objectContaining({ where: 'querystring', path: 'store' })]);
  });

  it('leaves a route without a model alone', async () => {
    const res = await invoke('GET', '/open');
    expect(res.status, res.text).toBe(200);
  });
});

describe('a change of model', () => {
  it('applies at once, and survives a restart', async () => {
    const changed = routes.map((r, i) => (i === 3 ? { ...r, request: { querystrings: { q: true } } } : r));
    const put = await svc.request('PUT', `/api/apis/${apiId}`, { routes: changed });
    expect(put.status, put.text).toBe(200);
    expect((await invoke('GET', '/open')).status).toBe(400);
    await svc.stop();
    svc = await startService({ dbUrl: svc.dbUrl });
    expect((await invoke('GET', '/open')).status).toBe(400);
    expect((await invoke('GET', '/open?q=1')).status).toBe(200);
    const bad = await invoke('POST', '/pets', { name: 'Rex' });
    expect(bad.status).toBe(400);
    expect(bad.json.details.errors[0].path).toBe('/price');
  }, 60_000);
});

function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}
