/**
 * The invocation endpoint end to end over real HTTP: route matching, the
 * event a function receives, how its result becomes the response, body
 * limits, request ids and metrics. Functions and APIs are created through the
 * management API of a real server on a temporary SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';
import { rawRequest } from '../helpers/receiver.js';

const ECHO = `exports.handler = async (event) => ({ statusCode: 200, body: event });`;

const RESULT_FUNCTIONS: Record<string, string> = {
  'r-object': `exports.handler = async () => ({ statusCode: 201, body: { a: 1, list: [1, 2] } });`,
  'r-csv': `exports.handler = async () => ({ statusCode: 200, headers: { 'Content-Type': 'text/csv', 'X-Custom': 'yes' }, body: 'a,b\\n1,2' });`,
  'r-text': `exports.handler = async () => ({ statusCode: 200, body: 'just words' });`,
  'r-nostatus': `exports.handler = async () => ({ hello: 'x', n: 2 });`,
  'r-array': `exports.handler = async () => [1, 'two'];`,
  'r-undefined': `exports.handler = async () => { };`,
  'r-700': `exports.handler = async () => ({ statusCode: 700, body: 'x' });`,
  'r-binary': `exports.handler = async () => {
    let s = '';
    for (let i = 0; i < 256; i++) s += String.fromCharCode(i);
    return { statusCode: 200, isBase64Encoded: true, headers: { 'content-type': 'image/png' }, body: btoa(s) };
  };`,
  'r-throw': `exports.handler = async () => { throw new Error('kaputt'); };`,
  'r-size': `exports.handler = async (event) => ({ statusCode: 200, body: { length: typeof event.body === 'string' ? event.body.length : -1 } });`,
};

let svc: RunningService;
/** API id -> route path -> route id */
const ids: Record<string, { id: string; routes: Record<string, string> }> = {};

async function createApi(key: string, basePath: string, routes: Array<[string, string, string]>) {
  const res = await svc.request('POST', '/api/apis', {
    name: key,
    basePath,
    routes: routes.map(([method, path, fn]) => ({ method, path, function: fn })),
    // The tests read a failing function's message, which only an API that exposes errors answers.
    exposeErrors: true,
  });
  expect(res.status, res.text).toBe(201);
  const byPath: Record<string, string> = {};
  for (const r of res.json.routes) byPath[`${r.method} ${r.path}`] = r.id;
  ids[key] = { id: res.json.id, routes: byPath };
}

const inv = (key: string, rest: string) => `/api/invoke/fn/${ids[key].id}${rest}`;

beforeAll(async () => {
  svc = await startService();
  const fns: Record<string, string> = { echo: ECHO, 'metric-fn': ECHO, ...RESULT_FUNCTIONS };
  for (const [name, code] of Object.entries(fns)) {
    const res = await svc.request('POST', '/api/functions', { name, code });
    expect(res.status, `${name}: ${res.text}`).toBe(201);
  }
  await createApi('match', '/m', [
    ['GET', '/users/me', 'echo'],
    ['GET', '/users/:id', 'echo'],
    ['ANY', '/users/:id', 'echo'],
    ['GET', '/users/*', 'echo'],
    ['PUT', '/items/:id', 'echo'],
    ['DELETE', '/items/:id', 'echo'],
    ['GET', '/files/*', 'echo'],
    ['GET', '/', 'echo'],
  ]);
  await createApi('events', '/', [
    ['GET', '/users/:id', 'echo'],
    ['ANY', '/echo', 'echo'],
    ['GET', '/', 'echo'],
  ]);
  await createApi('results', '/r', [
    ...Object.keys(RESULT_FUNCTIONS).map((name): [string, string, string] => ['ANY', `/${name.slice(2)}`, name]),
  ]);
  await createApi('metrics', '/', [['GET', '/users/:id', 'metric-fn']]);
}, 60000);

afterAll(async () => {
  await svc?.stop();
});

describe('route matching', () => {
  it('prefers static over :param over *, segment by segment', async () => {
    const m = ids.match;
    const stat = await svc.request('GET', inv('match', '/m/users/me'));
    expect(stat.status).toBe(200);
    expect(stat.json.resource).toBe('/m/users/me');
    expect(stat.json.requestContext.routeId).toBe(m.routes['GET /users/me']);
    expect(stat.json.pathParameters).toBeNull();

    const param = await svc.request('GET', inv('match', '/m/users/42'));
    expect(param.json.resource).toBe('/m/users/:id');
    expect(param.json.requestContext.routeId).toBe(m.routes['GET /users/:id']);
    expect(param.json.pathParameters).toEqual({ id: '42' });

    const star = await svc.request('GET', inv('match', '/m/users/42/posts/7'));
    expect(star.json.resource).toBe('/m/users/*');
    expect(star.json.requestContext.routeId).toBe(m.routes['GET /users/*']);
    expect(star.json.pathParameters).toEqual({ '*': '42/posts/7' });
  });

  it('lets a specific method beat ANY on the same path, and ANY take the others', async () => {
    const m = ids.match;
    const get = await svc.request('GET', inv('match', '/m/users/7'));
    expect(get.json.requestContext.routeId).toBe(m.routes['GET /users/:id']);
    for (const method of ['POST', 'PATCH', 'DELETE', 'OPTIONS']) {
      const res = await svc.request(method, inv('match', '/m/users/7'));
      expect(res.status, method).toBe(200);
      expect(res.json.requestContext.routeId, method).toBe(m.routes['ANY /users/:id']);
      expect(res.json.httpMethod).toBe(method);
    }
  });

  it('gives the greedy * value, possibly empty, in pathParameters["*"]', async () => {
    const deep = await svc.request('GET', inv('match', '/m/files/a/b/c.txt'));
    expect(deep.status).toBe(200);
    expect(deep.json.pathParameters).toEqual({ '*': 'a/b/c.txt' });
    const empty = await svc.request('GET', inv('match', '/m/files'));
    expect(empty.status).toBe(200);
    expect(empty.json.resource).toBe('/m/files/*');
    expect(empty.json.pathParameters).toEqual({ '*': '' });
  });

  it('ignores a trailing slash', async () => {
    const res = await svc.request('GET', inv('match', '/m/users/42/'));
    expect(res.status).toBe(200);
    expect(res.json.requestContext.routeId).toBe(ids.match.routes['GET /users/:id']);
    expect(res.json.pathParameters).toEqual({ id: '42' });
    const root = await svc.request('GET', inv('match', '/m/'));
    expect(root.status).toBe(200);
    expect(root.json.requestContext.routeId).toBe(ids.match.routes['GET /']);
  });

  it('404 api_not_found for an unknown API', async () => {
    const res = await svc.request('GET', '/api/invoke/fn/api_doesnotexist/m/users/1');
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('api_not_found');
    expect(typeof res.json.error).toBe('string');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('404 when no route path matches', async () => {
    for (const path of ['/m/nothing', '/m/items', '/elsewhere/users/1', '/m/items/1/extra']) {
      const res = await svc.request('GET', inv('match', path));
      expect(res.status, path).toBe(404);
      expect(res.json.code, path).toBe('no_route');
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('405 with Allow listing the methods that would match', async () => {
    const res = await svc.request('GET', inv('match', '/m/items/5'));
    expect(res.status).toBe(405);
    expect(res.json.code).toBe('method_not_allowed');
    const allow = (res.headers.get('allow') ?? '').split(/,\s*/).sort();
    expect(allow).toEqual(['DELETE', 'PUT']);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const put = await svc.request('PUT', inv('match', '/m/items/5'), { x: 1 });
    expect(put.status).toBe(200);
  });

  it('answers HEAD through the GET route: same status and headers, no body', async () => {
    const get = await svc.request('GET', inv('results', '/r/csv'));
    const head = await rawRequest(svc.url, 'HEAD', inv('results', '/r/csv'));
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe(get.headers.get('content-type'));
    expect(head.headers['x-custom']).toBe('yes');
    expect(head.headers['x-request-id']).toBeTruthy();
    expect(head.body.length).toBe(0);

    // The function still sees the real method.
    const echoHead = await rawRequest(svc.url, 'HEAD', inv('events', '/users/3'));
    expect(echoHead.status).toBe(200);
    expect(echoHead.body.length).toBe(0);
  });
});

describe('the event a function receives', () => {
  it('has method, path, resource, path parameters and requestContext', async () => {
    const res = await svc.request('GET', inv('events', '/users/42'));
    expect(res.status).toBe(200);
    const ev = res.json;
    expect(ev.httpMethod).toBe('GET');
    expect(ev.path).toBe('/users/42');
    expect(ev.resource).toBe('/users/:id');
    expect(ev.pathParameters).toEqual({ id: '42' });
    expect(ev.queryStringParameters).toBeNull();
    expect(ev.body).toBeNull();
    expect(ev.isBase64Encoded).toBe(false);
    expect(ev.requestContext.requestId).toBe(res.headers.get('x-request-id'));
    expect(ev.requestContext.apiId).toBe(ids.events.id);
    expect(ev.requestContext.routeId).toBe(ids.events.routes['GET /users/:id']);
    expect(ev.requestContext.httpMethod).toBe('GET');
    expect(typeof ev.requestContext.sourceIp).toBe('string');
    expect(typeof ev.requestContext.requestTimeEpoch).toBe('number');
  });

  it('has null pathParameters on a route without parameters', async () => {
    const res = await svc.request('GET', inv('events', '/'));
    expect(res.status).toBe(200);
    expect(res.json.pathParameters).toBeNull();
    expect(res.json.path).toBe('/');
  });

  it('lower-cases header names and joins repeated ones with ", "', async () => {
    const res = await rawRequest(svc.url, 'GET', inv('events', '/users/1'), [
      'X-Custom-Thing', 'Hello',
      'X-Repeat', 'one',
      'X-Repeat', 'two',
    ]);
    expect(res.status).toBe(200);
    const ev = JSON.parse(res.body.toString());
    expect(ev.headers['x-custom-thing']).toBe('Hello');
    expect(ev.headers['X-Custom-Thing']).toBeUndefined();
    expect(ev.headers['x-repeat']).toBe('one, two');
    expect(ev.multiValueHeaders['x-repeat']).toEqual(['one', 'two']);
    expect(ev.multiValueHeaders['x-custom-thing']).toEqual(['Hello']);
  });

  it('parses the query: last value wins, all values in multiValue', async () => {
    const res = await svc.request('GET', inv('events', '/users/1?a=1&a=2&b=x%20y&c=hello+world'));
    expect(res.json.queryStringParameters).toEqual({ a: '2', b: 'x y', c: 'hello world' });
    expect(res.json.multiValueQueryStringParameters).toEqual({ a: ['1', '2'], b: ['x y'], c: ['hello world'] });
  });

  it('parses a JSON body when the content type is JSON', async () => {
    const res = await svc.request('POST', inv('events', '/echo'), { name: 'Ada', nested: { n: [1, 2] } });
    expect(res.status).toBe(200);
    expect(res.json.body).toEqual({ name: 'Ada', nested: { n: [1, 2] } });
    expect(res.json.isBase64Encoded).toBe(false);
    const vendor = await svc.request('POST', inv('events', '/echo'), '{"x":1}', {
      'content-type': 'application/vnd.api+json; charset=utf-8',
    });
    expect(vendor.json.body).toEqual({ x: 1 });
  });

  it('passes text bodies, and JSON that does not parse, as strings', async () => {
    const text = await svc.request('POST', inv('events', '/echo'), 'plain words', { 'content-type': 'text/plain' });
    expect(text.json.body).toBe('plain words');
    const bad = await svc.request('POST', inv('events', '/echo'), '{"broken":', { 'content-type': 'application/json' });
    expect(bad.status).toBe(200);
    expect(bad.json.body).toBe('{"broken":');
    // JSON text without a JSON content type stays text.
    const untyped = await rawRequest(svc.url, 'POST', inv('events', '/echo'), [], '{"a":1}');
    expect(JSON.parse(untyped.body.toString()).body).toBe('{"a":1}');
  });

  it('sends bytes that are not UTF-8 as base64 with isBase64Encoded', async () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x41]);
    const res = await svc.request('POST', inv('events', '/echo'), new Uint8Array(bytes), {
      'content-type': 'application/octet-stream',
    });
    expect(res.status).toBe(200);
    expect(res.json.isBase64Encoded).toBe(true);
    expect(Buffer.from(res.json.body, 'base64').equals(bytes)).toBe(true);
  });

  it('gives null for an empty body', async () => {
    const res = await svc.request('POST', inv('events', '/echo'), '', { 'content-type': 'application/json' });
    expect(res.status).toBe(200);
    expect(res.json.body).toBeNull();
    expect(res.json.isBase64Encoded).toBe(false);
  });
});

describe('result mapping', () => {
  it('sends an object body as JSON with its status', async () => {
    const res = await svc.request('GET', inv('results', '/r/object'));
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.json).toEqual({ a: 1, list: [1, 2] });
  });

  it('sends a string body as is with the function content type and custom headers', async () => {
    const res = await svc.request('GET', inv('results', '/r/csv'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('x-custom')).toBe('yes');
    expect(res.text).toBe('a,b\n1,2');
    const text = await svc.request('GET', inv('results', '/r/text'));
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(text.text).toBe('just words');
  });

  it('sends a result without statusCode as a 200 JSON body', async () => {
    const res = await svc.request('GET', inv('results', '/r/nostatus'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.json).toEqual({ hello: 'x', n: 2 });
    const arr = await svc.request('GET', inv('results', '/r/array'));
    expect(arr.status).toBe(200);
    expect(arr.json).toEqual([1, 'two']);
  });

  it('answers 204 with no body when the handler returns undefined', async () => {
    const res = await svc.request('GET', inv('results', '/r/undefined'));
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
  });

  it('answers 502 for a statusCode outside 100-599', async () => {
    const res = await svc.request('GET', inv('results', '/r/700'));
    expect(res.status).toBe(502);
    expect(typeof res.json.error).toBe('string');
    expect(res.json.code).toBeTruthy();
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('decodes an isBase64Encoded result into the exact bytes', async () => {
    const res = await fetch(svc.url + inv('results', '/r/binary'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const got = Buffer.from(await res.arrayBuffer());
    expect(got.length).toBe(256);
    for (let i = 0; i < 256; i++) expect(got[i]).toBe(i);
  });

  it('answers 502 function_error with the request id when the handler throws', async () => {
    const res = await svc.request('GET', inv('results', '/r/throw'));
    expect(res.status).toBe(502);
    expect(res.json.code).toBe('function_error');
    expect(res.json.error).toContain('kaputt');
    expect(res.json.requestId).toBe(res.headers.get('x-request-id'));
  });
});

describe('request ids', () => {
  it('puts x-request-id on every kind of response', async () => {
    const answers = await Promise.all([
      svc.request('GET', inv('events', '/users/1')),
      svc.request('GET', inv('match', '/m/nothing')),
      svc.request('GET', inv('match', '/m/items/1')),
      svc.request('GET', inv('results', '/r/700')),
      svc.request('GET', inv('results', '/r/undefined')),
      svc.request('GET', '/api/invoke/fn/api_nope/x'),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 404, 405, 502, 204, 404]);
    const seen = new Set<string>();
    for (const a of answers) {
      const id = a.headers.get('x-request-id');
      expect(id).toBeTruthy();
      seen.add(id!);
    }
    expect(seen.size).toBe(answers.length);
  });
});

describe('body limit', () => {
  it('refuses a body over the default 1 MiB with 413 payload_too_large', async () => {
    const big = 'x'.repeat(1024 * 1024 + 1);
    const res = await svc.request('POST', inv('results', '/r/size'), big, { 'content-type': 'text/plain' });
    expect(res.status).toBe(413);
    expect(res.json.code).toBe('payload_too_large');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('honours SWITCHYARD_BODY_LIMIT: 413 above it, 200 at it', async () => {
    const small = await startService({ env: { SWITCHYARD_BODY_LIMIT: '2048' } });
    try {
      expect((await small.request('POST', '/api/functions', { name: 'size', code: RESULT_FUNCTIONS['r-size'] })).status).toBe(201);
      const api = await small.request('POST', '/api/apis', {
        name: 'limit',
        basePath: '/',
        routes: [{ method: 'POST', path: '/', function: 'size' }],
      });
      const url = `/api/invoke/fn/${api.json.id}/`;
      const ok = await small.request('POST', url, 'y'.repeat(2048), { 'content-type': 'text/plain' });
      expect(ok.status).toBe(200);
      expect(ok.json).toEqual({ length: 2048 });
      const over = await small.request('POST', url, 'y'.repeat(2049), { 'content-type': 'text/plain' });
      expect(over.status).toBe(413);
      expect(over.json.code).toBe('payload_too_large');
    } finally {
      await small.stop();
    }
  }, 30000);
});

describe('metrics', () => {
  it('counts invocation requests by API, route and status, and invocations by function', async () => {
    for (const id of ['1', '2', '3']) {
      expect((await svc.request('GET', inv('metrics', `/users/${id}`))).status).toBe(200);
    }
    const res = await svc.request('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const apiId = ids.metrics.id;
    expect(res.text).toContain(`switchyard_http_requests_total{api="${apiId}",route="GET /users/:id",status="200"} 3`);
    expect(res.text).toMatch(/switchyard_function_invocations_total\{function="metric-fn",outcome="ok"\} 3\b/);
    expect(res.text).toMatch(/switchyard_function_invocations_total\{function="r-throw",[^}]*\} [1-9]/);
  });
});
