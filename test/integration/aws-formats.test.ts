/**
 * Functions written for API Gateway, deployed with `event_format` `aws-v1`
 * (REST proxy integration) or `aws-v2` (HTTP API / function URL payload 2.0),
 * called over real HTTP: they get AWS's events and their results are read by
 * AWS's rules. Also API Gateway's `{id}` / `{proxy+}` route syntax, the manual
 * invoke and the webhook mock endpoint for these formats.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';

const FUNCTIONS: Record<string, { format: 'aws-v1' | 'aws-v2' | 'switchyard'; code: string }> = {
  // The most common line of published handlers: the body arrives as a string.
  'v1-orders': {
    format: 'aws-v1',
    code: `exports.handler = async (event) => {
      const order = JSON.parse(event.body);
      return {
        statusCode: 201,
        headers: { 'Content-Type': 'application/json', 'X-Order': String(order.id) },
        multiValueHeaders: { 'Set-Cookie': ['a=1', 'b=2'] },
        body: JSON.stringify({ received: order, bodyType: typeof event.body }),
      };
    };`,
  },
  'v1-echo': {
    format: 'aws-v1',
    code: `exports.handler = async (event) => ({ statusCode: 200, body: JSON.stringify(event) });`,
  },
  'v1-binary': {
    format: 'aws-v1',
    code: `exports.handler = async (event) => {
      if (!event.isBase64Encoded || event.headers['Content-Type'] !== 'image/png') return { statusCode: 400, body: 'expected base64 and the header as sent' };
      const bytes = atob(event.body);
      let reversed = '';
      for (let i = bytes.length - 1; i >= 0; i--) reversed += bytes[i];
      return { statusCode: 200, isBase64Encoded: true, headers: { 'Content-Type': 'image/x-test' }, body: btoa(reversed) };
    };`,
  },
  'v1-malformed': {
    format: 'aws-v1',
    code: `exports.handler = async () => ({ hello: 'world' });`,
  },
  'v1-object-body': {
    format: 'aws-v1',
    code: `exports.handler = async () => ({ statusCode: 200, body: { hello: 'world' } });`,
  },
  'v1-report': {
    format: 'aws-v1',
    code: `exports.handler = async (event) => ({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ total: 3, stage: event.requestContext.stage }),
    });`,
  },
  'v2-orders': {
    format: 'aws-v2',
    code: `exports.handler = async (event) => ({ received: JSON.parse(event.body), cookies: event.cookies ?? null, routeKey: event.routeKey });`,
  },
  'v2-echo': {
    format: 'aws-v2',
    code: `exports.handler = async (event) => ({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });`,
  },
  'v2-login': {
    format: 'aws-v2',
    code: `exports.handler = async () => ({
      statusCode: 200,
      headers: { 'Content-Type': 'text/plain' },
      cookies: ['session=abc; Path=/; HttpOnly', 'theme=dark; Max-Age=60'],
      body: 'welcome',
    });`,
  },
  'v2-binary': {
    format: 'aws-v2',
    code: `exports.handler = async (event) => ({ version: event.version, length: atob(event.body).length, isBase64Encoded: event.isBase64Encoded });`,
  },
  'v2-text': {
    format: 'aws-v2',
    code: `exports.handler = async (event) => (event.version === '2.0' ? 'Hello, world!' : 'not a 2.0 event');`,
  },
  'sy-echo': {
    format: 'switchyard',
    code: `exports.handler = async (event) => ({ statusCode: 200, body: event });`,
  },
};

let svc: RunningService;
let receiver: Receiver;
const apiIds: Record<string, string> = {};

async function createApi(key: string, basePath: string, routes: Array<[string, string, string]>) {
  const res = await svc.request('POST', '/api/apis', {
    name: key,
    basePath,
    routes: routes.map(([method, path, fn]) => ({ method, path, function: fn })),
    // The tests read why a result was refused, which only an API that exposes errors answers.
    exposeErrors: true,
  });
  expect(res.status, res.text).toBe(201);
  apiIds[key] = res.json.id;
  return res.json;
}

const url = (key: string, rest: string) => `/api/invoke/fn/${apiIds[key]}${rest}`;

beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startService({ env: { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
  for (const [name, { format, code }] of Object.entries(FUNCTIONS)) {
    const res = await svc.request('POST', '/api/functions', { name, code, event_format: format });
    expect(res.status, `${name}: ${res.text}`).toBe(201);
  }
  await createApi('v1', '/v1', [
    ['POST', '/orders', 'v1-orders'],
    ['GET', '/items/:id', 'v1-echo'],
    ['GET', '/things/{thingId}', 'v1-echo'],
    ['POST', '/binary', 'v1-binary'],
    ['GET', '/malformed', 'v1-malformed'],
    ['GET', '/object-body', 'v1-object-body'],
    ['GET', '/report', 'v1-report'],
    ['ANY', '/{proxy+}', 'v1-echo'],
  ]);
  await createApi('v2', '/v2', [
    ['POST', '/orders', 'v2-orders'],
    ['GET', '/items/{id}', 'v2-echo'],
    ['GET', '/login', 'v2-login'],
    ['POST', '/binary', 'v2-binary'],
    ['GET', '/text', 'v2-text'],
    ['ANY', '/files/*', 'v2-echo'],
  ]);
  await createApi('sy', '/s', [
    ['GET', '/items/{id}', 'sy-echo'],
    ['ANY', '/{proxy+}', 'sy-echo'],
  ]);
}, 60000);

afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
});

describe('aws-v1 (REST API proxy integration)', () => {
  it('a handler doing JSON.parse(event.body) works; its string body, headers and multiValueHeaders are the response', async () => {
    const res = await svc.request('POST', url('v1', '/v1/orders'), { id: 7, item: 'tea' });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ received: { id: 7, item: 'tea' }, bodyType: 'string' });
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-order')).toBe('7');
    // Kept to the API's invoke path (docs/functions.md, "Headers Switchyard changes").
    expect(res.headers.getSetCookie()).toEqual([`a=1; Path=${url('v1', '/v1')}`, `b=2; Path=${url('v1', '/v1')}`]);
  });

  it('keeps header names as the client sent them, with multiValueHeaders and X-Forwarded-*', async () => {
    const res = await rawRequest(svc.url, 'GET', url('v1', '/v1/items/42?tag=a&tag=b'), [
      'X-Custom-Header', 'One',
      'x-custom-header', 'Two',
      'User-Agent', 'curl/8.5.0',
    ]);
    expect(res.status).toBe(200);
    const event = JSON.parse(res.body.toString());
    const port = new URL(svc.url).port;
    expect(event.headers).toMatchObject({
      'X-Custom-Header': 'Two',
      'User-Agent': 'curl/8.5.0',
      'X-Forwarded-For': '127.0.0.1',
      'X-Forwarded-Port': port,
      'X-Forwarded-Proto': 'http',
    });
    expect(event.headers['x-custom-header']).toBeUndefined();
    expect(event.multiValueHeaders['X-Custom-Header']).toEqual(['One', 'Two']);
    expect(event.queryStringParameters).toEqual({ tag: 'b' });
    expect(event.multiValueQueryStringParameters).toEqual({ tag: ['a', 'b'] });
    expect(event).toMatchObject({
      resource: '/v1/items/{id}',
      path: '/v1/items/42',
      httpMethod: 'GET',
      pathParameters: { id: '42' },
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
    });
    expect(event.requestContext).toMatchObject({
      accountId: '123456789012',
      apiId: apiIds.v1,
      resourcePath: '/v1/items/{id}',
      httpMethod: 'GET',
      path: `/api/invoke/fn/${apiIds.v1}/v1/items/42`,
      stage: '$default',
      protocol: 'HTTP/1.1',
      domainName: new URL(svc.url).host,
      requestId: res.headers['x-request-id'],
      identity: { sourceIp: '127.0.0.1', userAgent: 'curl/8.5.0', caller: null, user: null },
    });
    expect(event.requestContext.requestTime).toMatch(/^\d\d\/[A-Z][a-z]{2}\/\d{4}:\d\d:\d\d:\d\d \+0000$/);
  });

  it('a {name} route gives pathParameters by that name', async () => {
    const res = await svc.request('GET', url('v1', '/v1/things/t-1'));
    expect(res.json).toMatchObject({ resource: '/v1/things/{thingId}', pathParameters: { thingId: 't-1' }, stageVariables: null });
  });

  it('a {proxy+} route gives the rest in pathParameters.proxy', async () => {
    const res = await svc.request('DELETE', url('v1', '/v1/deep/a/b%20c'));
    expect(res.json).toMatchObject({
      resource: '/v1/{proxy+}',
      httpMethod: 'DELETE',
      path: '/v1/deep/a/b%20c',
      pathParameters: { proxy: 'deep/a/b c' },
      stageVariables: null,
    });
    expect(res.json.pathParameters['*']).toBeUndefined();
  });

  it('a JSON body arrives as the string sent, byte for byte', async () => {
    const sent = '{ "b": 1,\n  "a": [2] }';
    const res = await rawRequest(svc.url, 'PUT', url('v1', '/v1/raw'), ['Content-Type', 'application/json'], sent);
    expect(JSON.parse(res.body.toString())).toMatchObject({ body: sent, isBase64Encoded: false });
  });

  it('a binary body arrives base64 with isBase64Encoded; a base64 result with isBase64Encoded goes out as bytes', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe]);
    const res = await rawRequest(svc.url, 'POST', url('v1', '/v1/binary'), ['Content-Type', 'image/png'], bytes);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/x-test');
    expect(res.body).toEqual(Buffer.from([...bytes].reverse()));
  });

  it('a result without statusCode is 502 invalid_result, as API Gateway answers "Malformed Lambda proxy response"', async () => {
    const res = await svc.request('GET', url('v1', '/v1/malformed'));
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ code: 'invalid_result', requestId: res.headers.get('x-request-id') });
    expect(res.json.error).toContain('statusCode');
  });

  it('a body that is not a string is 502 invalid_result', async () => {
    const res = await svc.request('GET', url('v1', '/v1/object-body'));
    expect(res.status).toBe(502);
    expect(res.json.code).toBe('invalid_result');
    expect(res.json.error).toContain('body must be a string');
  });
});

describe('aws-v2 (payload format 2.0)', () => {
  it('a handler doing JSON.parse(event.body) and returning a plain object answers 200 with that object as JSON', async () => {
    const res = await svc.request('POST', url('v2', '/v2/orders'), { id: 9 }, { cookie: 'session=xyz; theme=light' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.json).toEqual({ received: { id: 9 }, cookies: ['session=xyz', 'theme=light'], routeKey: 'POST /v2/orders' });
  });

  it("a plain string result is 200 with the string as JSON, as 2.0 infers it", async () => {
    const res = await svc.request('GET', url('v2', '/v2/text'));
    expect(res.status).toBe(200);
    expect(res.text).toBe('"Hello, world!"');
  });

  it('cookies in the result become one set-cookie header each', async () => {
    const res = await svc.request('GET', url('v2', '/v2/login'));
    expect(res.status).toBe(200);
    expect(res.text).toBe('welcome');
    expect(res.headers.getSetCookie()).toEqual([`session=abc; HttpOnly; Path=${url('v2', '/v2')}`, `theme=dark; Max-Age=60; Path=${url('v2', '/v2')}`]);
  });

  it('the event is 2.0: version, routeKey in {id} syntax, rawPath, rawQueryString, lower-case comma-joined headers, requestContext.http', async () => {
    const res = await rawRequest(svc.url, 'GET', url('v2', '/v2/items/5?a=1&a=2'), [
      'X-Mixed-Case', 'one',
      'x-mixed-case', 'two',
      'Cookie', 'k=v',
      'User-Agent', 'agent/1',
    ]);
    expect(res.status).toBe(200);
    const event = JSON.parse(res.body.toString());
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'GET /v2/items/{id}',
      rawPath: '/v2/items/5',
      rawQueryString: 'a=1&a=2',
      cookies: ['k=v'],
      queryStringParameters: { a: '1,2' },
      pathParameters: { id: '5' },
      isBase64Encoded: false,
    });
    expect(event.headers).toMatchObject({ 'x-mixed-case': 'one,two', 'user-agent': 'agent/1', 'x-forwarded-for': '127.0.0.1' });
    expect(event.headers.cookie).toBeUndefined();
    expect(event).not.toHaveProperty('body');
    expect(event.requestContext).toMatchObject({
      accountId: '123456789012',
      apiId: apiIds.v2,
      domainName: new URL(svc.url).host,
      routeKey: 'GET /v2/items/{id}',
      stage: '$default',
      requestId: res.headers['x-request-id'],
      http: { method: 'GET', path: '/v2/items/5', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'agent/1' },
    });
  });

  it('a * route is {proxy+} to the function', async () => {
    const res = await svc.request('GET', url('v2', '/v2/files/a/b.txt'));
    expect(res.json).toMatchObject({ routeKey: 'ANY /v2/files/{proxy+}', pathParameters: { proxy: 'a/b.txt' } });
  });

  it('a binary body arrives base64 with isBase64Encoded', async () => {
    const res = await rawRequest(svc.url, 'POST', url('v2', '/v2/binary'), ['Content-Type', 'application/octet-stream'], Buffer.from([0xff, 0xfe, 0x00, 0x01]));
    expect(JSON.parse(res.body.toString())).toEqual({ version: '2.0', length: 4, isBase64Encoded: true });
  });
});

describe("API Gateway's {id} and {proxy+} in route paths", () => {
  it('are stored and answered as written', async () => {
    const api = await svc.request('GET', `/api/apis/${apiIds.sy}`);
    expect(api.json.routes.map((r: { path: string }) => r.path)).toEqual(['/items/{id}', '/{proxy+}']);
  });

  it('give the switchyard event the same parameters as :id and *, plus proxy for {proxy+}', async () => {
    const item = await svc.request('GET', url('sy', '/s/items/3'));
    expect(item.json).toMatchObject({ resource: '/s/items/{id}', pathParameters: { id: '3' } });
    const rest = await svc.request('GET', url('sy', '/s/a/b'));
    expect(rest.json.pathParameters).toEqual({ '*': 'a/b', proxy: 'a/b' });
  });

  it('conflict with their colon and star twins (409 route_conflict)', async () => {
    const same = await svc.request('POST', `/api/apis/${apiIds.sy}/routes`, { method: 'GET', path: '/items/:id', function: 'sy-echo' });
    expect(same.status).toBe(409);
    expect(same.json.code).toBe('route_conflict');
    const star = await svc.request('POST', `/api/apis/${apiIds.sy}/routes`, { method: 'ANY', path: '/*', function: 'sy-echo' });
    expect(star.status).toBe(409);
  });

  it('are refused with a 400 naming the path when malformed', async () => {
    const res = await svc.request('POST', `/api/apis/${apiIds.sy}/routes`, { method: 'GET', path: '/{proxy+}/x', function: 'sy-echo' });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe("path: path parameter '{proxy+}' is greedy and only allowed as the last segment");
  });
});

describe('the manual invoke', () => {
  it('completes the event in the function own format: 2.0 for aws-v2', async () => {
    const res = await svc.request('POST', '/api/functions/v2-echo/invoke', { rawPath: '/try', body: { a: 1 } });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe(200);
    const event = JSON.parse(res.json.result.body);
    expect(event).toMatchObject({ version: '2.0', routeKey: '$default', rawPath: '/try', body: '{"a":1}', isBase64Encoded: false });
    expect(event.requestContext).toMatchObject({ stage: '$default', http: { method: 'POST', path: '/try' } });
  });

  it('completes a REST event for aws-v1, and reports a malformed result as invalid_result', async () => {
    const echo = await svc.request('POST', '/api/functions/v1-echo/invoke', { headers: { 'X-Case': 'Kept' } });
    const event = JSON.parse(echo.json.result.body);
    expect(event).toMatchObject({ httpMethod: 'POST', path: '/', headers: { 'X-Case': 'Kept' }, body: null, stageVariables: null });
    const bad = await svc.request('POST', '/api/functions/v1-malformed/invoke', {});
    expect(bad.json).toMatchObject({ status: 502, error: { code: 'invalid_result' } });
    expect(bad.json.error.message).toContain('statusCode');
  });
});

describe('the webhook mock endpoint', () => {
  it('reads an aws-v1 function answer (a JSON string body) as data', async () => {
    const hook = await svc.request('POST', '/api/webhooks', {
      name: 'aws report',
      target_url: receiver.url,
      method: 'POST',
      payload_template: { source: 'tests' },
      mock_endpoint: { api_id: apiIds.v1, path: '/v1/report' },
    });
    expect(hook.status, hook.text).toBe(201);
    const before = receiver.requests.length;
    const fired = await svc.request('POST', `/api/webhooks/${hook.json.id}/test`);
    expect(fired.json.status).toBe('succeeded');
    expect(JSON.parse(receiver.requests[before].body)).toEqual({ source: 'tests', data: { total: 3, stage: '$default' } });
  });
});
