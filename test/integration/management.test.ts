/**
 * The management API over real HTTP against a real server on a temporary
 * SQLite file: every endpoint and every error docs/api.md and docs/errors.md name for them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';

const HELLO = `exports.handler = async () => ({ statusCode: 200, body: { hello: 'world' } });`;

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

describe('functions', () => {
  it('takes code above the request body limit (a bundle with its source map), and still refuses other bodies that large', async () => {
    // 1.5 MB: above the 1 MiB SWITCHYARD_BODY_LIMIT, as a bundle of zod with its inline source map is.
    const big = `${HELLO}\n//# ${'x'.repeat(1_500_000)}\n`;
    const created = await svc.request('POST', '/api/functions', { name: 'fn-big', code: big });
    expect(created.status, created.text.slice(0, 200)).toBe(201);
    const updated = await svc.request('PUT', '/api/functions/fn-big', { code: `${big} ` });
    expect(updated.status, updated.text.slice(0, 200)).toBe(200);
    const webhook = await svc.request('POST', '/api/webhooks', { name: 'too-big', target_url: 'https://example.com/', payload_template: { pad: 'x'.repeat(1_500_000) } });
    expect(webhook.status).toBe(413);
    expect((await svc.request('DELETE', '/api/functions/fn-big')).status).toBe(200);
  });

  it('creates a function and answers the documented shape without env values', async () => {
    const res = await svc.request('POST', '/api/functions', {
      name: 'fn-create',
      code: HELLO,
      env: { SECRET: 'hunter2', OTHER: 'x' },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      name: 'fn-create',
      runtime: 'javascript',
      env_keys: ['OTHER', 'SECRET'],
      timeout_ms: 10000,
      memory_mb: 128,
      version: 1,
    });
    expect(res.json.code_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(res.json.created_at).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(res.text).not.toContain('hunter2');
    expect(res.headers.get('x-request-id')).toBeTruthy();

    const got = await svc.request('GET', '/api/functions/fn-create');
    expect(got.status).toBe(200);
    expect(got.json.code).toBe(HELLO);
    expect(got.text).not.toContain('hunter2');

    const list = await svc.request('GET', '/api/functions');
    expect(list.status).toBe(200);
    const item = list.json.find((f: { name: string }) => f.name === 'fn-create');
    expect(item).toBeDefined();
    expect(item.code).toBeUndefined();
  });

  it('keeps handler and event_format, answers them, resets them with null, and names a bad value', async () => {
    const res = await svc.request('POST', '/api/functions', {
      name: 'fn-lambda',
      code: HELLO,
      handler: 'handler',
      event_format: 'aws-v2',
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ handler: 'handler', event_format: 'aws-v2' });
    const reset = await svc.request('PUT', '/api/functions/fn-lambda', { handler: null, event_format: null });
    expect(reset.json).toMatchObject({ handler: null, event_format: 'switchyard' });
    const plain = await svc.request('POST', '/api/functions', { name: 'fn-defaults', code: HELLO });
    expect(plain.json).toMatchObject({ handler: null, event_format: 'switchyard' });

    const badFormat = await svc.request('POST', '/api/functions', { name: 'fn-bad', code: HELLO, event_format: 'aws-v3' });
    expect(badFormat.status).toBe(400);
    expect(badFormat.json.error).toContain('event_format');
    const badHandler = await svc.request('POST', '/api/functions', { name: 'fn-bad', code: HELLO, handler: 'app.(x)' });
    expect(badHandler.status).toBe(400);
    expect(badHandler.json.error).toContain('handler');
  });

  it('refuses a duplicate name with 409', async () => {
    await svc.request('POST', '/api/functions', { name: 'fn-dup', code: HELLO });
    const res = await svc.request('POST', '/api/functions', { name: 'fn-dup', code: HELLO });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe('function_exists');
  });

  it.each([
    [{ code: HELLO }, 'name'],
    [{ name: '1bad', code: HELLO }, 'name'],
    [{ name: 'ok-name' }, 'code'],
    [{ name: 'ok-name', code: HELLO, timeout_ms: 900001 }, 'timeout_ms'],
    [{ name: 'ok-name', code: HELLO, memory_mb: 4 }, 'memory_mb'],
    [{ name: 'ok-name', code: HELLO, runtime: 'python' }, 'runtime'],
    [{ name: 'ok-name', code: HELLO, env: { A: 1 } }, 'env'],
    [{ name: 'ok-name', code: HELLO, timeoutMs: 5 }, 'timeoutMs'],
  ])('400 naming the field for %j', async (body, field) => {
    const res = await svc.request('POST', '/api/functions', body);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('invalid_request');
    expect(res.json.error).toContain(field);
  });

  it('400 with the line for a syntax error, and for a missing handler', async () => {
    const syntax = await svc.request('POST', '/api/functions', {
      name: 'fn-syntax',
      code: 'const a = 1;\nconst b = ;\nexports.handler = async () => 1;',
    });
    expect(syntax.status).toBe(400);
    expect(syntax.json.code).toBe('invalid_code');
    expect(syntax.json.details.line).toBe(2);
    expect(syntax.json.error).toContain('line 2');

    const missing = await svc.request('POST', '/api/functions', { name: 'fn-nohandler', code: 'exports.other = 1;' });
    expect(missing.status).toBe(400);
    expect(missing.json.code).toBe('invalid_code');
    expect(missing.json.error).toMatch(/handler/);
    expect((await svc.request('GET', '/api/functions/fn-nohandler')).status).toBe(404);
  });

  it('runs the top level with the function env at deploy', async () => {
    const code = `const greeting = process.env.GREETING.toUpperCase();\nexports.handler = async () => ({ statusCode: 200, body: { greeting } });`;
    const without = await svc.request('POST', '/api/functions', { name: 'fn-topenv', code });
    expect(without.status).toBe(400);
    expect(without.json.code).toBe('invalid_code');
    const withEnv = await svc.request('POST', '/api/functions', { name: 'fn-topenv', code, env: { GREETING: 'hi' } });
    expect(withEnv.status).toBe(201);
    const res = await svc.request('POST', '/api/functions/fn-topenv/invoke', {});
    expect(res.json.result.body).toEqual({ greeting: 'HI' });
  });

  it('400 for invalid JSON and a non-object body', async () => {
    const bad = await svc.request('POST', '/api/functions', '{"name":', { 'content-type': 'application/json' });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('invalid_request');
    const arr = await svc.request('POST', '/api/functions', [1, 2]);
    expect(arr.status).toBe(400);
  });

  it('updates partially, bumps the version, and null resets a default', async () => {
    await svc.request('POST', '/api/functions', { name: 'fn-upd', code: HELLO, timeout_ms: 5000, env: { A: 'a' } });
    const upd = await svc.request('PUT', '/api/functions/fn-upd', { timeout_ms: null, env: { B: 'b' } });
    expect(upd.status).toBe(200);
    expect(upd.json).toMatchObject({ version: 2, timeout_ms: 10000, env_keys: ['B'] });
    const code = `exports.handler = async () => ({ statusCode: 200, body: { v: 2 } });`;
    const upd2 = await svc.request('PUT', '/api/functions/fn-upd', { code });
    expect(upd2.json.version).toBe(3);
    expect((await svc.request('GET', '/api/functions/fn-upd')).json.code).toBe(code);
    const bad = await svc.request('PUT', '/api/functions/fn-upd', { code: 'exports.handler = (' });
    expect(bad.status).toBe(400);
    expect((await svc.request('GET', '/api/functions/fn-upd')).json.version).toBe(3);
    expect((await svc.request('PUT', '/api/functions/nope', { code })).status).toBe(404);
  });

  it('invokes with a defaulted event and returns status, result, logs', async () => {
    await svc.request('POST', '/api/functions', {
      name: 'fn-invoke',
      code: `exports.handler = async (event, ctx) => { console.log('method', event.httpMethod); return { statusCode: 201, body: { got: event.body, name: ctx.functionName } }; };`,
    });
    const res = await svc.request('POST', '/api/functions/fn-invoke/invoke', { body: { a: 1 } });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe(201);
    expect(res.json.error).toBeNull();
    expect(res.json.result).toEqual({ statusCode: 201, body: { got: { a: 1 }, name: 'fn-invoke' } });
    expect(res.json.logs.map((l: { message: string }) => l.message)).toContain('method POST');
    expect(typeof res.json.duration_ms).toBe('number');

    const logs = await svc.request('GET', '/api/functions/fn-invoke/logs');
    expect(logs.status).toBe(200);
    expect(logs.json.some((l: { message: string; level: string }) => l.message === 'method POST' && l.level === 'log')).toBe(true);
  });

  it('reports a thrown error from a manual invoke as 502 function_error', async () => {
    await svc.request('POST', '/api/functions', { name: 'fn-throws', code: `exports.handler = async () => { throw new Error('boom'); };` });
    const res = await svc.request('POST', '/api/functions/fn-throws/invoke', {});
    expect(res.status).toBe(200);
    expect(res.json.status).toBe(502);
    expect(res.json.error.code).toBe('function_error');
    expect(res.json.error.message).toContain('boom');
  });

  it('404 for an unknown function on every endpoint', async () => {
    for (const [m, p] of [
      ['GET', '/api/functions/ghost'],
      ['DELETE', '/api/functions/ghost'],
      ['GET', '/api/functions/ghost/logs'],
    ]) {
      const res = await svc.request(m, p);
      expect(res.status, `${m} ${p}`).toBe(404);
      expect(res.json.code).toBe('function_not_found');
    }
    const inv = await svc.request('POST', '/api/functions/ghost/invoke', {});
    expect(inv.status).toBe(404);
  });

  it('refuses to delete a function bound by a route (409 listing routes), then deletes', async () => {
    await svc.request('POST', '/api/functions', { name: 'fn-bound', code: HELLO });
    const api = await svc.request('POST', '/api/apis', {
      name: 'bound',
      basePath: '/bound',
      routes: [{ method: 'GET', path: '/', function: 'fn-bound' }],
    });
    const res = await svc.request('DELETE', '/api/functions/fn-bound');
    expect(res.status).toBe(409);
    expect(res.json.code).toBe('function_in_use');
    expect(res.json.details.routes[0].id).toBe(api.json.routes[0].id);
    await svc.request('DELETE', `/api/apis/${api.json.id}`);
    const del = await svc.request('DELETE', '/api/functions/fn-bound');
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ deleted: true, name: 'fn-bound' });
    expect((await svc.request('GET', '/api/functions/fn-bound')).status).toBe(404);
  });

  it('paginates with limit, after and a Link header', async () => {
    for (const n of ['pg-a', 'pg-b', 'pg-c']) await svc.request('POST', '/api/functions', { name: n, code: HELLO });
    const all = (await svc.request('GET', '/api/functions?limit=1000')).json.map((f: { name: string }) => f.name);
    const i = all.indexOf('pg-a');
    const first = await svc.request('GET', `/api/functions?limit=1&after=${all[i - 1] ?? ''}`);
    expect(first.json.map((f: { name: string }) => f.name)).toEqual(i === 0 ? [all[0]] : ['pg-a']);
    expect(first.headers.get('link')).toMatch(/rel="next"/);
    const next = await svc.request('GET', `/api/functions?limit=2&after=pg-a`);
    expect(next.json.map((f: { name: string }) => f.name)).toEqual(['pg-b', 'pg-c']);
    expect((await svc.request('GET', '/api/functions?limit=abc')).status).toBe(400);
  });

  it('reads limit as a whole number written plainly, 1 to 1000, and names it when it is not', async () => {
    expect((await svc.request('GET', '/api/functions?limit=1')).json).toHaveLength(1);
    expect((await svc.request('GET', '/api/functions/pg-a/logs?limit=1000')).status).toBe(200);
    for (const bad of ['0', '1001', '02', '1e2', '+5', '1.0', '%205', '0x10', '']) {
      for (const path of ['/api/functions', '/api/apis', '/api/webhooks', '/api/functions/pg-a/logs', '/api/functions/pg-a/invocations']) {
        const res = await svc.request('GET', `${path}?limit=${bad}`);
        expect(res.status, `${path}?limit=${bad}`).toBe(400);
        expect(res.json, `${path}?limit=${bad}`).toMatchObject({ code: 'invalid_request', details: { field: 'limit' } });
      }
    }
    expect((await svc.request('GET', '/api/functions/pg-a/versions/1')).json.version).toBe(1);
    for (const bad of ['01', '0', '1e0', 'one']) {
      const res = await svc.request('GET', `/api/functions/pg-a/versions/${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.json.details, bad).toEqual({ field: 'version' });
    }
  });
});

describe('apis and routes', () => {
  beforeAll(async () => {
    await svc.request('POST', '/api/functions', { name: 'api-fn', code: HELLO });
  });

  it('creates an API with ids, camelCase fields and an invokeUrl', async () => {
    const res = await svc.request('POST', '/api/apis', {
      name: 'Users',
      basePath: '/users',
      routes: [
        { method: 'GET', path: '/', function: 'api-fn' },
        { method: 'GET', path: '/:id', function: 'api-fn' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.json.id).toMatch(/^api_/);
    expect(res.json.routes[0].id).toMatch(/^rt_/);
    expect(res.json).toMatchObject({ name: 'Users', basePath: '/users' });
    expect(res.json.invokeUrl).toBe(`${svc.url}/api/invoke/fn/${res.json.id}/users`);
    expect(res.json.createdAt).toBeTruthy();
    expect(res.json.updatedAt).toBeTruthy();
    const got = await svc.request('GET', `/api/apis/${res.json.id}`);
    expect(got.json).toEqual(res.json);
    const list = await svc.request('GET', '/api/apis');
    expect(list.json.map((a: { id: string }) => a.id)).toContain(res.json.id);
  });

  it('400 unknown_function when a route names a missing function, nothing created', async () => {
    const before = (await svc.request('GET', '/api/apis')).json.length;
    const res = await svc.request('POST', '/api/apis', {
      name: 'x',
      basePath: '/x',
      routes: [{ method: 'GET', path: '/', function: 'nope' }],
    });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('unknown_function');
    expect(res.json.error).toContain('nope');
    expect((await svc.request('GET', '/api/apis')).json.length).toBe(before);
  });

  it('409 for the same method and path shape, allowed for another method or ANY', async () => {
    const res = await svc.request('POST', '/api/apis', {
      name: 'dup',
      basePath: '/dup',
      routes: [
        { method: 'GET', path: '/:id', function: 'api-fn' },
        { method: 'GET', path: '/:name', function: 'api-fn' },
      ],
    });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe('route_conflict');
    const ok = await svc.request('POST', '/api/apis', {
      name: 'dup2',
      basePath: '/dup2',
      routes: [
        { method: 'GET', path: '/:id', function: 'api-fn' },
        { method: 'DELETE', path: '/:id', function: 'api-fn' },
        { method: 'ANY', path: '/:id', function: 'api-fn' },
      ],
    });
    expect(ok.status).toBe(201);
    const add = await svc.request('POST', `/api/apis/${ok.json.id}/routes`, { method: 'GET', path: '/:other', function: 'api-fn' });
    expect(add.status).toBe(409);
  });

  it.each([
    [{ name: 'b', basePath: 'users', routes: [] }, 'basePath'],
    [{ name: 'b', basePath: '/users/', routes: [] }, 'basePath'],
    [{ name: 'b', basePath: '/u/:id', routes: [] }, 'basePath'],
    [{ name: 'b', basePath: '/u', routes: [{ method: 'FETCH', path: '/', function: 'api-fn' }] }, 'routes[0].method'],
    [{ name: 'b', basePath: '/u', routes: [{ method: 'GET', path: 'x', function: 'api-fn' }] }, 'routes[0].path'],
    [{ name: 'b', basePath: '/u', routes: [{ method: 'GET', path: '/*/x', function: 'api-fn' }] }, 'routes[0].path'],
    [{ name: 'b', basePath: '/u', routes: [{ method: 'GET', path: '/' }] }, 'routes[0].function'],
    [{ basePath: '/u', routes: [] }, 'name'],
    [{ name: 'b', basePath: '/u' }, 'routes'],
  ])('400 naming the field for %j', async (body, field) => {
    const res = await svc.request('POST', '/api/apis', body);
    expect(res.status).toBe(400);
    expect(res.json.error).toContain(field);
  });

  it('adds and deletes routes, updates partially, deletes the API', async () => {
    const api = (await svc.request('POST', '/api/apis', { name: 'r', basePath: '/r', routes: [] })).json;
    const route = await svc.request('POST', `/api/apis/${api.id}/routes`, { method: 'POST', path: '/items/*', function: 'api-fn' });
    expect(route.status).toBe(201);
    expect(route.json).toMatchObject({ method: 'POST', path: '/items/*', function: 'api-fn' });
    expect(route.json.id).toMatch(/^rt_/);
    const withRoute = (await svc.request('GET', `/api/apis/${api.id}`)).json;
    expect(withRoute.routes).toHaveLength(1);

    const upd = await svc.request('PUT', `/api/apis/${api.id}`, { name: 'renamed' });
    expect(upd.status).toBe(200);
    expect(upd.json).toMatchObject({ name: 'renamed', basePath: '/r' });
    expect(upd.json.routes).toHaveLength(1);

    const delRoute = await svc.request('DELETE', `/api/apis/${api.id}/routes/${route.json.id}`);
    expect(delRoute.json).toEqual({ deleted: true, id: route.json.id });
    expect((await svc.request('DELETE', `/api/apis/${api.id}/routes/${route.json.id}`)).status).toBe(404);
    expect((await svc.request('POST', `/api/apis/api_nope/routes`, { method: 'GET', path: '/', function: 'api-fn' })).status).toBe(404);

    const del = await svc.request('DELETE', `/api/apis/${api.id}`);
    expect(del.json).toEqual({ deleted: true, id: api.id });
    const gone = await svc.request('GET', `/api/apis/${api.id}`);
    expect(gone.status).toBe(404);
    expect(gone.json.code).toBe('api_not_found');
    expect((await svc.request('PUT', `/api/apis/${api.id}`, { name: 'x' })).status).toBe(404);
  });
});

describe('service endpoints', () => {
  it('healthz, readyz, metrics and the OpenAPI document', async () => {
    expect((await svc.request('GET', '/healthz')).json).toEqual({ status: 'ok', pid: svc.proc.pid });
    expect((await svc.request('GET', '/readyz')).status).toBe(200);
    const metrics = await svc.request('GET', '/metrics');
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(metrics.text).toContain('# TYPE switchyard_http_requests_total counter');
    const doc = await svc.request('GET', '/api/openapi.json');
    expect(doc.json.openapi).toBe('3.1.0');
    expect(Object.keys(doc.json.paths)).toEqual(
      expect.arrayContaining(['/api/functions', '/api/functions/{name}', '/api/apis', '/api/apis/{id}/routes']),
    );
    expect(doc.json.paths['/api/functions'].post.requestBody).toBeDefined();
  });

  it('unknown management path is a 404 in the error shape', async () => {
    const res = await svc.request('GET', '/api/nothing-here');
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('not_found');
  });
});

describe('wrong method on a management path', () => {
  it('is a 405 whose Allow header and details.allow list the methods the path takes', async () => {
    const api = await svc.request('POST', '/api/apis', { name: 'methods', basePath: '/methods', routes: [] });
    expect(api.status, api.text).toBe(201);
    const cases: [method: string, path: string, allow: string[]][] = [
      ['DELETE', '/api/functions', ['GET', 'HEAD', 'POST']],
      ['PATCH', `/api/apis/${api.json.id}`, ['GET', 'HEAD', 'PUT', 'DELETE']],
      ['POST', '/api/functions/fn-anything', ['GET', 'HEAD', 'PUT', 'DELETE']],
      ['GET', '/api/functions/fn-anything/invoke', ['POST']],
      ['PUT', '/api/webhooks?limit=1', ['GET', 'HEAD', 'POST']],
      ['GET', '/api/events', ['POST']],
      ['OPTIONS', '/api/apis', ['GET', 'HEAD', 'POST']],
      ['POST', '/healthz', ['GET', 'HEAD']],
    ];
    for (const [method, path, allow] of cases) {
      const res = await svc.request(method, path);
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(405);
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow.join(', '));
      expect(res.json, `${method} ${path}`).toMatchObject({ code: 'method_not_allowed', details: { allow } });
      expect(res.json.error).toContain(method);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
    // The refused DELETE and PATCH changed nothing.
    expect((await svc.request('GET', `/api/apis/${api.json.id}`)).json.name).toBe('methods');
  });

  it('is a 405 for every method an operation of the OpenAPI document does not list', async () => {
    const doc = await svc.request('GET', '/api/openapi.json');
    let checked = 0;
    for (const [path, operations] of Object.entries(doc.json.paths as Record<string, Record<string, unknown>>)) {
      const listed = Object.keys(operations).map((m) => m.toUpperCase());
      const allow = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => listed.includes(m) || (m === 'HEAD' && listed.includes('GET')));
      const concrete = path.replace(/\{[^}]+\}/g, 'x');
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !allow.includes(m))) {
        const res = await svc.request(method, concrete);
        expect(res.status, `${method} ${concrete}: ${res.text}`).toBe(405);
        expect(res.headers.get('allow'), `${method} ${concrete}`).toBe(allow.join(', '));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('unknown paths stay 404 not_found whatever the method', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      for (const path of ['/api/nothing-here', '/api/functions/a/b/c', '/API/functions']) {
        const res = await svc.request(method, path);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.json.code).toBe('not_found');
        expect(res.headers.get('allow')).toBeNull();
      }
    }
  });
});

describe('management bodies are JSON', () => {
  it('a body of another content type is a 415 unsupported_media_type naming the type, and stores nothing', async () => {
    const body = JSON.stringify({ name: 'fn-defaults', code: HELLO });
    for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await svc.request('POST', '/api/functions', body, { 'content-type': type });
      expect(res.status, `${type}: ${res.text}`).toBe(415);
      expect(res.json.code).toBe('unsupported_media_type');
      expect(res.json.error).toContain(JSON.stringify(type.split(';')[0]));
      expect(res.json.error).toContain('application/json');
    }
    expect((await svc.request('GET', '/api/functions/fn-plain')).status).toBe(404);
    const api = await svc.request('POST', '/api/apis', { name: 'typed', basePath: '/typed', routes: [] });
    const put = await svc.request('PUT', `/api/apis/${api.json.id}`, JSON.stringify({ name: 'renamed' }), { 'content-type': 'text/plain' });
    expect(put.status, put.text).toBe(415);
    expect((await svc.request('GET', `/api/apis/${api.json.id}`)).json.name).toBe('typed');
  });

  it('JSON with a charset parameter is accepted', async () => {
    const res = await svc.request('POST', '/api/functions', JSON.stringify({ name: 'fn-charset', code: HELLO }), {
      'content-type': 'application/json; charset=utf-8',
    });
    expect(res.status, res.text).toBe(201);
  });
});
