/**
 * `?dry_run=true` on the management writes, over real HTTP: the full checks
 * run (function code compiled in a worker), the answer says what would
 * change, and nothing is written: a GET afterwards shows no change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';

const CODE = `exports.handler = async () => ({ statusCode: 200, body: 'v1' });`;

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
  expect((await svc.request('POST', '/api/functions', { name: 'dry', code: CODE, env: { KEY: 'secret' } })).status).toBe(201);
});
afterAll(async () => {
  await svc?.stop();
});

describe('functions', () => {
  it('POST validates and compiles without creating', async () => {
    const ok = await svc.request('POST', '/api/functions?dry_run=true', { name: 'dry-new', code: CODE, timeout_ms: 500 });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json).toEqual({ dry_run: true, action: 'create', changes: ['code', 'timeout_ms'] });
    expect((await svc.request('GET', '/api/functions/dry-new')).status).toBe(404);

    const broken = await svc.request('POST', '/api/functions?dry_run=true', { name: 'dry-new', code: 'exports.handler = ;' });
    expect(broken.status).toBe(400);
    expect(broken.json.code).toBe('invalid_code');
    const throws = await svc.request('POST', '/api/functions?dry_run=true', { name: 'dry-new', code: 'throw new Error("top level")' });
    expect(throws.status).toBe(400);
    const exists = await svc.request('POST', '/api/functions?dry_run=true', { name: 'dry', code: CODE });
    expect(exists.status).toBe(409);
    const badField = await svc.request('POST', '/api/functions?dry_run=true', { name: 'dry-new', code: CODE, timeout_ms: 0 });
    expect(badField.status).toBe(400);
  });

  it('PUT names the fields that would change, env values included, and writes nothing', async () => {
    const before = (await svc.request('GET', '/api/functions/dry')).json;
    const same = await svc.request('PUT', '/api/functions/dry?dry_run=true', { code: CODE, env: { KEY: 'secret' } });
    expect(same.json).toEqual({ dry_run: true, action: 'none', changes: [] });
    const changed = await svc.request('PUT', '/api/functions/dry?dry_run=true', {
      code: CODE.replace('v1', 'v2'),
      env: { KEY: 'other' },
      memory_mb: 64,
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json).toEqual({ dry_run: true, action: 'update', changes: ['code', 'env', 'memory_mb'] });
    const broken = await svc.request('PUT', '/api/functions/dry?dry_run=true', { code: 'exports.handler = ;' });
    expect(broken.status).toBe(400);
    const after = (await svc.request('GET', '/api/functions/dry')).json;
    expect(after).toEqual(before);
    expect((await svc.request('PUT', '/api/functions/missing?dry_run=true', { memory_mb: 64 })).status).toBe(404);
  });
});

describe('APIs and routes', () => {
  it('POST, PUT and route POST check paths and references without writing', async () => {
    const ok = await svc.request('POST', '/api/apis?dry_run=true', {
      name: 'dry-api',
      basePath: '/dry',
      routes: [{ method: 'GET', path: '/items/{id}', function: 'dry' }],
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json).toEqual({ dry_run: true, action: 'create', changes: ['name', 'basePath', 'routes'] });
    expect((await svc.request('GET', '/api/apis')).json).toEqual([]);

    const unknown = await svc.request('POST', '/api/apis?dry_run=true', {
      name: 'dry-api',
      basePath: '/dry',
      routes: [{ method: 'GET', path: '/x', function: 'nobody' }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.code).toBe('unknown_function');
    const clash = await svc.request('POST', '/api/apis?dry_run=true', {
      name: 'dry-api',
      basePath: '/dry',
      routes: [
        { method: 'GET', path: '/x/:a', function: 'dry' },
        { method: 'GET', path: '/x/{b}', function: 'dry' },
      ],
    });
    expect(clash.status).toBe(409);
    const badPath = await svc.request('POST', '/api/apis?dry_run=true', { name: 'a', basePath: '/dry/:x', routes: [] });
    expect(badPath.status).toBe(400);

    const api = (await svc.request('POST', '/api/apis', { name: 'dry-api', basePath: '/dry', routes: [{ method: 'GET', path: '/a', function: 'dry' }] })).json;
    const put = await svc.request('PUT', `/api/apis/${api.id}?dry_run=true`, {
      basePath: '/dry',
      routes: [
        { method: 'GET', path: '/a', function: 'dry' },
        { method: 'POST', path: '/a', function: 'dry' },
      ],
    });
    expect(put.json).toEqual({ dry_run: true, action: 'update', changes: ['routes'] });
    const unchanged = await svc.request('PUT', `/api/apis/${api.id}?dry_run=true`, { basePath: '/dry', routes: [{ method: 'GET', path: '/a', function: 'dry' }] });
    expect(unchanged.json).toEqual({ dry_run: true, action: 'none', changes: [] });
    const route = await svc.request('POST', `/api/apis/${api.id}/routes?dry_run=true`, { method: 'GET', path: '/b', function: 'dry' });
    expect(route.json).toEqual({ dry_run: true, action: 'create', changes: ['method', 'path', 'function'] });
    const routeClash = await svc.request('POST', `/api/apis/${api.id}/routes?dry_run=true`, { method: 'GET', path: '/a', function: 'dry' });
    expect(routeClash.status).toBe(409);
    const after = (await svc.request('GET', `/api/apis/${api.id}`)).json;
    expect(after.routes.map((r: { method: string; path: string }) => `${r.method} ${r.path}`)).toEqual(['GET /a']);
  });
});

describe('webhooks', () => {
  it('POST validates without creating; PUT compares write-only headers and secret', async () => {
    const body = {
      name: 'dry-hook',
      target_url: 'https://example.com/hook',
      method: 'POST',
      headers: { authorization: 'Bearer one' },
      payload_template: { a: 1 },
      secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0',
    };
    const ok = await svc.request('POST', '/api/webhooks?dry_run=true', body);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.action).toBe('create');
    expect((await svc.request('GET', '/api/webhooks')).json).toEqual([]);
    const badCron = await svc.request('POST', '/api/webhooks?dry_run=true', { ...body, cron: 'every minute' });
    expect(badCron.status).toBe(400);

    const hook = (await svc.request('POST', '/api/webhooks', body)).json;
    const same = await svc.request('PUT', `/api/webhooks/${hook.id}?dry_run=true`, { headers: body.headers, secret: body.secret });
    expect(same.json).toEqual({ dry_run: true, action: 'none', changes: [] });
    const changed = await svc.request('PUT', `/api/webhooks/${hook.id}?dry_run=true`, {
      headers: { authorization: 'Bearer two' },
      secret: 'generate',
      cron: '*/5 * * * *',
    });
    expect(changed.json).toEqual({ dry_run: true, action: 'update', changes: ['cron', 'headers', 'secret'] });
    const after = (await svc.request('GET', `/api/webhooks/${hook.id}`)).json;
    expect(after.cron).toBeNull();
    expect(after.updated_at).toBe(hook.updated_at);
  });
});

describe('every dry run', () => {
  it('answers JSON with Content-Type application/json, as generated clients need to parse it', async () => {
    expect((await svc.request('POST', '/api/functions', { name: 'dry-ct', code: CODE })).status).toBe(201);
    const api = (await svc.request('POST', '/api/apis', { name: 'dry-ct', basePath: '/ct', routes: [{ method: 'GET', path: '/a', function: 'dry-ct' }] })).json;
    const hook = (await svc.request('POST', '/api/webhooks', { name: 'dry-ct', target_url: 'https://example.com/', method: 'POST', payload_template: {} })).json;
    const writes: Array<[string, string, unknown?]> = [
      ['POST', '/api/functions', { name: 'dry-ct2', code: CODE }],
      ['PUT', '/api/functions/dry-ct', { memory_mb: 64 }],
      ['DELETE', '/api/functions/nobody-bound'],
      ['POST', '/api/apis', { name: 'x', basePath: '/x', routes: [] }],
      ['PUT', `/api/apis/${api.id}`, { name: 'y' }],
      ['DELETE', `/api/apis/${api.id}`],
      ['POST', `/api/apis/${api.id}/routes`, { method: 'GET', path: '/b', function: 'dry-ct' }],
      ['DELETE', `/api/apis/${api.id}/routes/${api.routes[0].id}`],
      ['POST', '/api/webhooks', { name: 'w', target_url: 'https://example.com/', method: 'POST', payload_template: {} }],
      ['PUT', `/api/webhooks/${hook.id}`, { enabled: false }],
      ['DELETE', `/api/webhooks/${hook.id}`],
    ];
    expect((await svc.request('POST', '/api/functions', { name: 'nobody-bound', code: CODE })).status).toBe(201);
    for (const [method, path, body] of writes) {
      const res = await svc.request(method, `${path}?dry_run=true`, body);
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(200);
      expect(res.headers.get('content-type'), `${method} ${path}`).toBe('application/json; charset=utf-8');
      expect(res.json.dry_run, `${method} ${path}`).toBe(true);
    }
  });
});

describe('DELETE', () => {
  it('answers what the delete would (404, 409 while in use) and deletes nothing', async () => {
    expect((await svc.request('POST', '/api/functions', { name: 'dry-del', code: CODE })).status).toBe(201);
    const api = (await svc.request('POST', '/api/apis', { name: 'dry-del', basePath: '/del', routes: [{ method: 'GET', path: '/a', function: 'dry-del' }] })).json;
    const hook = (
      await svc.request('POST', '/api/webhooks', {
        name: 'dry-del',
        target_url: 'https://example.com/',
        method: 'POST',
        payload_template: {},
        mock_endpoint: { api_id: api.id, path: '/a' },
      })
    ).json;

    const inUse = await svc.request('DELETE', '/api/functions/dry-del?dry_run=true');
    expect(inUse.status).toBe(409);
    expect(inUse.json.code).toBe('function_in_use');
    expect((await svc.request('DELETE', '/api/functions/nobody?dry_run=true')).status).toBe(404);
    const apiInUse = await svc.request('DELETE', `/api/apis/${api.id}?dry_run=true`);
    expect(apiInUse.status).toBe(409);
    expect(apiInUse.json.code).toBe('api_in_use');

    const route = await svc.request('DELETE', `/api/apis/${api.id}/routes/${api.routes[0].id}?dry_run=true`);
    expect(route.json).toEqual({ dry_run: true, action: 'delete', changes: [] });
    expect((await svc.request('DELETE', `/api/apis/${api.id}/routes/rt_nope?dry_run=true`)).status).toBe(404);
    const webhook = await svc.request('DELETE', `/api/webhooks/${hook.id}?dry_run=true`);
    expect(webhook.json).toEqual({ dry_run: true, action: 'delete', changes: [] });

    expect((await svc.request('GET', `/api/webhooks/${hook.id}`)).status).toBe(200);
    expect((await svc.request('GET', `/api/apis/${api.id}`)).json.routes).toHaveLength(1);
    expect((await svc.request('GET', '/api/functions/dry-del')).status).toBe(200);
  });
});
