/**
 * Error answers per API over real HTTP (docs/securing-apis.md, "Error answers"):
 * by default a failing function's message and source position never reach the
 * caller, who gets a generic answer with the code and the request id, and the
 * details are in the function's logs under that request id; `exposeErrors: true`
 * shows them; `errorFormat: aws` answers as API Gateway does, 502/504 for aws-v1
 * (REST API) functions and 500/503 for the others (HTTP API), 404 for no route,
 * a throttle's 429 and a missing API key's 403 in API Gateway's words; every
 * refusal is counted in switchyard_gateway_refusals_total.
 * SQLite, or PostgreSQL with TEST_STORE=postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

type Format = 'switchyard' | 'aws-v1' | 'aws-v2';

// Calls what is not a function: the runtime names it with the file, line and column.
const THROWS = `exports.handler = async (event) => { const order = {}; return order.total(); };`;
const HANGS = `exports.handler = () => new Promise(() => {});`;

const FUNCTIONS: Record<string, { format: Format; code: string; timeout_ms?: number }> = {
  'ea-throw': { format: 'switchyard', code: THROWS },
  'ea-v1-throw': { format: 'aws-v1', code: THROWS },
  'ea-v2-throw': { format: 'aws-v2', code: THROWS },
  'ea-v1-slow': { format: 'aws-v1', code: HANGS, timeout_ms: 300 },
  'ea-v2-slow': { format: 'aws-v2', code: HANGS, timeout_ms: 300 },
  // API Gateway's "Malformed Lambda proxy response": no statusCode.
  'ea-v1-malformed': { format: 'aws-v1', code: `exports.handler = async () => ({ hello: 'world' });` },
  'ea-ok': { format: 'switchyard', code: `exports.handler = async () => ({ statusCode: 200, body: { ok: true } });` },
};

// A bucket of one that refills once in 1000 s: the second call of a test is refused.
const ONE_CALL = { rateLimit: 0.001, burstLimit: 1 };

const routes = [
  { method: 'GET', path: '/throw', function: 'ea-throw' },
  { method: 'GET', path: '/v1/throw', function: 'ea-v1-throw' },
  { method: 'GET', path: '/v2/throw', function: 'ea-v2-throw' },
  { method: 'GET', path: '/v1/slow', function: 'ea-v1-slow' },
  { method: 'GET', path: '/v2/slow', function: 'ea-v2-slow' },
  { method: 'GET', path: '/v1/malformed', function: 'ea-v1-malformed' },
  { method: 'GET', path: '/ok', function: 'ea-ok' },
  { method: 'GET', path: '/limited', function: 'ea-ok', throttle: ONE_CALL },
  { method: 'GET', path: '/keyed', function: 'ea-ok', apiKeyRequired: true },
];

let svc: RunningService;
const ids = { hidden: '', exposed: '', aws: '', awsExposed: '', awsCors: '' };

async function createApi(body: Record<string, unknown>): Promise<string> {
  const res = await svc.request('POST', '/api/apis', { basePath: '/', routes, ...body });
  expect(res.status, res.text).toBe(201);
  return res.json.id;
}

async function call(api: string, path: string, method = 'GET', headers: string[] = []) {
  const res = await rawRequest(svc.url, method, `/api/invoke/fn/${api}${path}`, headers);
  const text = res.body.toString();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

/** The function's stored log lines of one request, once the log sink has written them. */
async function logsOf(fn: string, requestId: string): Promise<Array<{ level: string; message: string; request_id: string }>> {
  return until(async () => {
    const res = await svc.request('GET', `/api/functions/${fn}/logs?limit=1000`);
    expect(res.status).toBe(200);
    const lines = (res.json as Array<{ level: string; message: string; request_id: string }>).filter((l) => l.request_id === requestId);
    return lines.length > 0 ? lines : null;
  }, `log lines of ${fn} for ${requestId}`);
}

beforeAll(async () => {
  svc = await startService();
  for (const [name, f] of Object.entries(FUNCTIONS)) {
    const res = await svc.request('POST', '/api/functions', { name, code: f.code, event_format: f.format, ...(f.timeout_ms ? { timeout_ms: f.timeout_ms } : {}) });
    expect(res.status, res.text).toBe(201);
  }
  ids.hidden = await createApi({ name: 'ea-hidden' });
  ids.exposed = await createApi({ name: 'ea-exposed', exposeErrors: true });
  ids.aws = await createApi({ name: 'ea-aws', errorFormat: 'aws' });
  ids.awsExposed = await createApi({ name: 'ea-aws-exposed', errorFormat: 'aws', exposeErrors: true });
  ids.awsCors = await createApi({ name: 'ea-aws-cors', errorFormat: 'aws', cors: { allowOrigins: ['https://app.example.com'] } });
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

describe('by default (exposeErrors false)', () => {
  it("answers a thrown error without its message or position, and logs them under the answer's request id", async () => {
    const res = await call(ids.hidden, '/throw');
    expect(res.status).toBe(502);
    const requestId = res.headers['x-request-id'] as string;
    expect(requestId).toBeTruthy();
    expect(res.json).toEqual({ error: expect.any(String), code: 'function_error', requestId });
    expect(res.json.error).toContain(requestId);
    expect(res.text).not.toContain('is not a function');
    expect(res.text).not.toContain('order.total');
    expect(res.text).not.toMatch(/line \d+|column \d+/);

    const lines = await logsOf('ea-throw', requestId);
    const failure = lines.find((l) => l.level === 'error');
    expect(failure?.message).toContain('function_error');
    expect(failure?.message).toContain('order.total is not a function');
    expect(failure?.message).toMatch(/line 1, column \d+/);
  });

  it('hides an invalid result the same way and logs why it was invalid', async () => {
    const res = await call(ids.hidden, '/v1/malformed');
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ code: 'invalid_result', requestId: res.headers['x-request-id'] });
    expect(res.json.error).not.toContain('statusCode');
    const lines = await logsOf('ea-v1-malformed', res.headers['x-request-id'] as string);
    expect(lines.find((l) => l.level === 'error')?.message).toContain('statusCode');
  });

  it('hides a timeout\'s wording, keeps its status and code, and logs it', async () => {
    const res = await call(ids.hidden, '/v1/slow');
    expect(res.status).toBe(504);
    expect(res.json).toMatchObject({ code: 'function_timeout', requestId: res.headers['x-request-id'] });
    expect(res.json.error).not.toContain('300 ms');
    const lines = await logsOf('ea-v1-slow', res.headers['x-request-id'] as string);
    expect(lines.find((l) => l.level === 'error')?.message).toContain('function_timeout');
  });

  it('is what the API answers when asked', async () => {
    const res = await svc.request('GET', `/api/apis/${ids.hidden}`);
    expect(res.json).toMatchObject({ errorFormat: 'switchyard', exposeErrors: false });
  });
});

describe('exposeErrors true', () => {
  it("answers the function's message and position", async () => {
    const res = await call(ids.exposed, '/throw');
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ code: 'function_error', requestId: res.headers['x-request-id'] });
    expect(res.json.error).toContain('order.total is not a function');
    expect(res.json.error).toMatch(/line 1, column \d+/);
    // Logged all the same.
    const lines = await logsOf('ea-throw', res.headers['x-request-id'] as string);
    expect(lines.some((l) => l.level === 'error' && l.message.includes('order.total is not a function'))).toBe(true);
  });

  it('follows a change of the API at once', async () => {
    const api = await createApi({ name: 'ea-toggle' });
    expect((await call(api, '/throw')).text).not.toContain('is not a function');
    const put = await svc.request('PUT', `/api/apis/${api}`, { exposeErrors: true });
    expect(put.status, put.text).toBe(200);
    expect((await call(api, '/throw')).json.error).toContain('order.total is not a function');
  });
});

describe("errorFormat aws: API Gateway's answers", () => {
  it('a failing aws-v1 function is a REST API 502 Internal server error', async () => {
    const res = await call(ids.aws, '/v1/throw');
    expect(res.status).toBe(502);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json).toEqual({ message: 'Internal server error' });
    expect(res.headers['x-request-id']).toBeTruthy();
    const lines = await logsOf('ea-v1-throw', res.headers['x-request-id'] as string);
    expect(lines.some((l) => l.level === 'error' && l.message.includes('order.total is not a function'))).toBe(true);
  });

  it('a failing aws-v2 or switchyard function is an HTTP API 500 Internal Server Error', async () => {
    for (const path of ['/v2/throw', '/throw']) {
      const res = await call(ids.aws, path);
      expect(res.status, path).toBe(500);
      expect(res.json).toEqual({ message: 'Internal Server Error' });
    }
  });

  it('a malformed aws-v1 result is a 502 Internal server error', async () => {
    const res = await call(ids.aws, '/v1/malformed');
    expect(res.status).toBe(502);
    expect(res.json).toEqual({ message: 'Internal server error' });
  });

  it('a timeout is a REST 504 Endpoint request timed out, an HTTP API 503 Service Unavailable', async () => {
    const v1 = await call(ids.aws, '/v1/slow');
    expect(v1.status).toBe(504);
    expect(v1.json).toEqual({ message: 'Endpoint request timed out' });
    const v2 = await call(ids.aws, '/v2/slow');
    expect(v2.status).toBe(503);
    expect(v2.json).toEqual({ message: 'Service Unavailable' });
  });

  it('no route, and a route without the method, are 404 Not Found', async () => {
    const none = await call(ids.aws, '/nowhere');
    expect(none.status).toBe(404);
    expect(none.json).toEqual({ message: 'Not Found' });
    expect(none.headers['x-request-id']).toBeTruthy();
    const method = await call(ids.aws, '/ok', 'DELETE');
    expect(method.status).toBe(404);
    expect(method.json).toEqual({ message: 'Not Found' });
    // The same misses in Switchyard's format keep their codes.
    expect((await call(ids.hidden, '/nowhere')).json.code).toBe('no_route');
    expect((await call(ids.hidden, '/ok', 'DELETE')).status).toBe(405);
  });

  it('keeps the CORS headers on its answers', async () => {
    const origin = ['origin', 'https://app.example.com'];
    const miss = await call(ids.awsCors, '/nowhere', 'GET', origin);
    expect(miss.status).toBe(404);
    expect(miss.json).toEqual({ message: 'Not Found' });
    expect(miss.headers['access-control-allow-origin']).toBe('https://app.example.com');
    const failed = await call(ids.awsCors, '/v2/throw', 'GET', origin);
    expect(failed.status).toBe(500);
    expect(failed.headers['access-control-allow-origin']).toBe('https://app.example.com');
  });

  it('with exposeErrors adds the message and code beside AWS\'s wording', async () => {
    const res = await call(ids.awsExposed, '/v1/throw');
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ message: 'Internal server error', code: 'function_error' });
    expect(res.json.error).toContain('order.total is not a function');
  });

  it("answers a throttle's 429 Too Many Requests with Retry-After, and a missing API key 403 Forbidden", async () => {
    expect((await call(ids.aws, '/limited')).status).toBe(200);
    const throttled = await call(ids.aws, '/limited');
    expect(throttled.status).toBe(429);
    expect(throttled.json).toEqual({ message: 'Too Many Requests' });
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect(throttled.headers['x-request-id']).toBeTruthy();
    const keyless = await call(ids.aws, '/keyed');
    expect(keyless.status).toBe(403);
    expect(keyless.json).toEqual({ message: 'Forbidden' });
    // Switchyard's format keeps the codes.
    expect((await call(ids.hidden, '/limited')).status).toBe(200);
    const own = await call(ids.hidden, '/limited');
    expect(own.status).toBe(429);
    expect(own.json).toMatchObject({ code: 'throttled' });
    expect((await call(ids.hidden, '/keyed')).json).toMatchObject({ code: 'invocation_forbidden' });
  });

  it('leaves successful answers alone', async () => {
    const res = await call(ids.aws, '/ok');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true });
  });
});

describe('switchyard_gateway_refusals_total', () => {
  it('counts each refusal by API, route and reason, in either format', async () => {
    const api = await createApi({ name: 'ea-counted', errorFormat: 'aws' });
    expect((await call(api, '/limited')).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await call(api, '/limited')).status).toBe(429);
    expect((await call(api, '/keyed')).status).toBe(403);
    // Served answers and misses are not refusals.
    expect((await call(api, '/ok')).status).toBe(200);
    expect((await call(api, '/nowhere')).status).toBe(404);
    const metrics = await svc.request('GET', '/metrics');
    expect(metrics.status).toBe(200);
    const series = metrics.text.split('\n').filter((l) => l.startsWith(`switchyard_gateway_refusals_total{api="${api}"`));
    expect(series.sort()).toEqual([
      `switchyard_gateway_refusals_total{api="${api}",route="GET /keyed",reason="forbidden"} 1`,
      `switchyard_gateway_refusals_total{api="${api}",route="GET /limited",reason="throttled"} 2`,
    ]);
    expect(metrics.text).toContain('# TYPE switchyard_gateway_refusals_total counter');
  });
});
