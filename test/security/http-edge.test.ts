/**
 * The HTTP edge over real HTTP: refusals raised before any route runs (router,
 * HTTP parser, body parser) come in the `{error, code}` shape with an
 * `x-request-id`; JSON nested deeper than the bound is a 400 on every entry
 * point, management and invocation alike, and nothing is stored; dot
 * segments in any spelling are refused in basePaths and route paths.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/json-limits.js';
import { startService, type RunningService } from '../helpers/service.js';
import { exactRequest, sendBytes, type WireAnswer } from '../helpers/wire.js';

const ECHO = `exports.handler = async (event) => ({ statusCode: 200, body: { type: typeof event.body, isArray: Array.isArray(event.body) } });`;

let svc: RunningService;
let apiId = '';
let webhookId = '';

/** `depth` nested arrays around `inner`, as JSON text. */
const nested = (depth: number, inner = '') => '['.repeat(depth) + inner + ']'.repeat(depth);

function expectShaped(res: { status: number; json: any; headers: WireAnswer['headers'] | Headers }, status: number, code: string, what: string) {
  expect(res.status, `${what}: ${JSON.stringify(res.json)}`).toBe(status);
  expect(res.json, what).toMatchObject({ code });
  expect(typeof res.json.error, what).toBe('string');
  const id = res.headers instanceof Headers ? res.headers.get('x-request-id') : res.headers['x-request-id'];
  expect(id, `${what}: x-request-id`).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
}

async function listings() {
  const [functions, apis, webhooks] = await Promise.all([
    svc.request('GET', '/api/functions'),
    svc.request('GET', '/api/apis'),
    svc.request('GET', '/api/webhooks'),
  ]);
  return { functions: functions.json, apis: apis.json, webhooks: webhooks.json };
}

beforeAll(async () => {
  svc = await startService();
  const fn = await svc.request('POST', '/api/functions', { name: 'echo', code: ECHO });
  expect(fn.status, fn.text).toBe(201);
  const api = await svc.request('POST', '/api/apis', {
    name: 'edge',
    basePath: '/edge',
    routes: [{ method: 'ANY', path: '/*', function: 'echo' }],
  });
  expect(api.status, api.text).toBe(201);
  apiId = api.json.id;
  const hook = await svc.request('POST', '/api/webhooks', {
    name: 'hook',
    target_url: 'https://example.com/hook',
    method: 'POST',
    payload_template: { a: 1 },
    enabled: false,
  });
  expect(hook.status, hook.text).toBe(201);
  webhookId = hook.json.id;
}, 30000);

afterAll(async () => {
  await svc?.stop();
});

describe('refusals before any route runs', () => {
  it('an over-long path parameter is a 414 uri_too_long in our shape, echoing the caller`s request id', async () => {
    const res = await exactRequest(svc.url, 'GET', `/api/functions/${'a'.repeat(300)}`, { 'x-request-id': 'mine-414' });
    expectShaped(res, 414, 'uri_too_long', '414');
    expect(res.headers['x-request-id']).toBe('mine-414');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('a malformed percent-escape in the path is a 400 invalid_request in our shape', async () => {
    for (const target of ['/api/functions/%E0%A4%A', '/api/apis/%zz', '/nothing/%']) {
      expectShaped(await exactRequest(svc.url, 'GET', target), 400, 'invalid_request', target);
    }
  });

  it('requests the HTTP parser refuses get our shape, an x-request-id and a closed connection', async () => {
    const cases: [string, string, number, string][] = [
      ['a space in a header name', 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n', 400, 'invalid_request'],
      ['a content-length that is not a number', 'POST /api/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}', 400, 'invalid_request'],
      ['two different content-lengths', 'POST /api/events HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', 400, 'invalid_request'],
      ['a relative request target', 'GET api/functions HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'invalid_request'],
      ['a bad chunk size', 'POST /api/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n', 400, 'invalid_request'],
      ['headers over the size limit', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`, 431, 'headers_too_large'],
      ['the same on the invocation path', `GET /api/invoke/fn/x/y HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n`, 400, 'invalid_request'],
    ];
    for (const [what, bytes, status, code] of cases) {
      const res = await sendBytes(svc.url, bytes);
      expectShaped(res, status, code, what);
      expect(res.headers.connection, what).toBe('close');
    }
  });

  it('a refusal of trailing garbage is never written after an answer already on its way (one answer per request)', async () => {
    // Bytes after a request without a length read as a next request, which the parser refuses; the answer
    // to the first request may still be in flight then, and a second one written after it corrupts the stream.
    const garbage = JSON.stringify({ name: 'x'.repeat(5000) });
    for (let i = 0; i < 30; i++) {
      const res = await sendBytes(svc.url, `GET /api/functions/${'a'.repeat(150)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n${garbage}`);
      expect(res.status).toBe(414);
      expect(res.raw.match(/HTTP\/1\.1 \d{3}/g), `attempt ${i}: ${res.raw.slice(0, 400)}`).toHaveLength(1);
    }
  });

  it('body parser refusals name the problem: empty, malformed, invalid UTF-8, __proto__, wrong media type, too large', async () => {
    const json = { 'content-type': 'application/json' };
    const cases: [string, Record<string, string>, Buffer | string, number, string, RegExp][] = [
      ['empty JSON body', json, '', 400, 'invalid_request', /empty/],
      ['malformed JSON', json, '{"event":', 400, 'invalid_request', /not valid JSON/],
      ['invalid UTF-8', json, Buffer.from([0x7b, 0x22, 0x65, 0x76, 0x65, 0x6e, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 400, 'invalid_request', /UTF-8/],
      ['a __proto__ key', json, '{"event":"a.b","data":{"__proto__":{"polluted":true}}}', 400, 'invalid_request', /__proto__/],
      ['constructor.prototype', json, '{"event":"a.b","data":{"constructor":{"prototype":{"polluted":true}}}}', 400, 'invalid_request', /constructor/],
      ['XML', { 'content-type': 'application/xml' }, '<event/>', 415, 'unsupported_media_type', /JSON/],
      ['over the body limit', json, JSON.stringify({ event: 'a.b', data: 'x'.repeat(1024 * 1024 + 10) }), 413, 'payload_too_large', /limit/],
    ];
    for (const [what, headers, body, status, code, message] of cases) {
      const res = await exactRequest(svc.url, 'POST', '/api/events', headers, body);
      expectShaped(res, status, code, what);
      expect(res.json.error, what).toMatch(message);
    }
  });
});

describe('JSON nested deeper than the bound', () => {
  const tooDeep = nested(10_000);

  it('is a 400 naming the limit on every entry point, and nothing is stored', async () => {
    const before = await listings();
    const entries: [string, string, string][] = [
      ['POST', '/api/functions', `{"name":"deep","code":"exports.handler=()=>1","env":${tooDeep}}`],
      ['PUT', '/api/functions/echo', `{"env":${tooDeep}}`],
      ['POST', '/api/functions/echo/invoke', `{"body":${tooDeep}}`],
      ['POST', '/api/apis', `{"name":"deep","basePath":"/deep","routes":${tooDeep}}`],
      ['PUT', `/api/apis/${apiId}`, `{"routes":${tooDeep}}`],
      ['POST', `/api/apis/${apiId}/routes`, `{"method":"GET","path":"/deep","function":${tooDeep}}`],
      ['POST', '/api/webhooks', `{"name":"deep","target_url":"https://example.com/d","method":"POST","payload_template":{"a":${tooDeep}}}`],
      ['PUT', `/api/webhooks/${webhookId}`, `{"payload_template":{"a":${tooDeep}}}`],
      ['POST', '/api/events', `{"event":"order.created","data":${tooDeep}}`],
      ['POST', `/api/invoke/fn/${apiId}/edge/x`, tooDeep],
      ['PUT', `/api/invoke/fn/${apiId}/edge/x`, `{"a":${tooDeep}}`],
    ];
    for (const [method, path, body] of entries) {
      const res = await exactRequest(svc.url, method, path, { 'content-type': 'application/json' }, body);
      const what = `${method} ${path}`;
      expectShaped(res, 400, 'invalid_request', what);
      expect(res.json.error, what).toContain(String(MAX_JSON_DEPTH));
      expect(res.json.details, what).toEqual({ field: 'body', max_depth: MAX_JSON_DEPTH });
    }
    expect(await listings()).toEqual(before);
  });

  it('is accepted at the bound, and a text body of brackets is just text for the function', async () => {
    const atBound = await svc.request('POST', '/api/events', `{"event":"order.created","data":${nested(MAX_JSON_DEPTH - 1)}}`, {
      'content-type': 'application/json',
    });
    expect(atBound.status, atBound.text).toBe(202);
    const invoked = await svc.request('POST', `/api/invoke/fn/${apiId}/edge/x`, nested(MAX_JSON_DEPTH), {
      'content-type': 'application/json',
    });
    expect(invoked.status, invoked.text).toBe(200);
    expect(invoked.json).toEqual({ type: 'object', isArray: true });
    const text = await svc.request('POST', `/api/invoke/fn/${apiId}/edge/x`, tooDeep, { 'content-type': 'text/plain' });
    expect(text.status, text.text).toBe(200);
    expect(text.json).toEqual({ type: 'string', isArray: false });
  });
});

describe('dot segments', () => {
  it('are refused in basePaths and route paths in any spelling, naming the field; nothing is stored', async () => {
    const before = await listings();
    const cases: [string, string, unknown, string][] = [
      ['POST', '/api/apis', { name: 'd', basePath: '/%2e%2e', routes: [] }, 'basePath'],
      ['POST', '/api/apis', { name: 'd', basePath: '/v1/.%2E', routes: [] }, 'basePath'],
      ['POST', '/api/apis', { name: 'd', basePath: '/%2E', routes: [] }, 'basePath'],
      ['POST', '/api/apis', { name: 'd', basePath: '/ok', routes: [{ method: 'GET', path: '/a/%2e%2e/b', function: 'echo' }] }, 'routes[0].path'],
      ['PUT', `/api/apis/${apiId}`, { basePath: '/edge/%2e' }, 'basePath'],
      ['PUT', `/api/apis/${apiId}`, { routes: [{ method: 'GET', path: '/%2E%2e', function: 'echo' }] }, 'routes[0].path'],
      ['POST', `/api/apis/${apiId}/routes`, { method: 'GET', path: '/x/%2e', function: 'echo' }, 'path'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await svc.request(method, path, body);
      const what = `${method} ${path} ${JSON.stringify(body)}`;
      expectShaped(res, 400, 'invalid_request', what);
      expect(res.json.details, what).toEqual({ field });
      expect(res.json.error, what).toMatch(new RegExp(`^${field.replace(/[[\]]/g, '\\$&')}: `));
    }
    expect(await listings()).toEqual(before);
  });
});
