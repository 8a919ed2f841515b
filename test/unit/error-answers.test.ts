/**
 * The gateway's own answers per API (src/gateway/error-answers.ts): a function's
 * failure in both formats with and without exposeErrors, API Gateway's wording of
 * every refusal reason, and, through a Gateway whose route has a refusing check,
 * the refusal answered in the API's format and counted in
 * switchyard_gateway_refusals_total. (No policy feature refuses yet over HTTP:
 * test/integration/error-answers.test.ts covers what does.)
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ChangeBus } from '../../src/changes.js';
import { MethodNotAllowedError, NoRouteError, PolicyRefusalError, REFUSAL_CODES, TooManyScrapesError, type RefusalReason } from '../../src/errors.js';
import { AWS_REFUSALS, awsErrorAnswer, failureAnswer, failureLogLine } from '../../src/gateway/error-answers.js';
import { Gateway, type InvokeRequest } from '../../src/gateway/gateway.js';
import { createMetrics, sampleOf } from '../../src/telemetry/metrics.js';
import type { FunctionRuntime } from '../../src/runtime/types.js';
import type { Store } from '../../src/store/store.js';
import { API_POLICY_DEFAULTS, type Api } from '../../src/types.js';

/** What the mocked check refuses with next (null: admits). */
let refusal: PolicyRefusalError | null = null;

vi.mock('../../src/gateway/policy/guards.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/gateway/policy/guards.js')>();
  return {
    ...original,
    compileGuards: () => [
      {
        check() {
          if (refusal) throw refusal;
        },
      },
    ],
  };
});

const MESSAGE = 'TypeError: order.total is not a function (shop.js, line 1, column 87)';

describe('failureAnswer', () => {
  it('hides the message in switchyard format, keeping status, code and request id', () => {
    const r = failureAnswer({ errorFormat: 'switchyard', exposeErrors: false }, 'switchyard', 'function_error', MESSAGE, 'req_1');
    expect(r.status).toBe(502);
    const body = JSON.parse(r.body as string);
    expect(body).toMatchObject({ code: 'function_error', requestId: 'req_1' });
    expect(body.error).toContain('req_1');
    expect(r.body).not.toContain('order.total');
    expect(r.body).not.toContain('line 1');
  });

  it.each([
    ['function_error', 502],
    ['function_timeout', 504],
    ['function_memory_limit', 502],
    ['function_crashed', 502],
    ['invalid_result', 502],
  ] as const)('shows it with exposeErrors: %s -> %d with {error, code, requestId}', (code, status) => {
    const r = failureAnswer({ errorFormat: 'switchyard', exposeErrors: true }, 'aws-v1', code, 'boom', 'req_9');
    expect(r.status).toBe(status);
    expect(r.headers).toEqual({ 'content-type': 'application/json; charset=utf-8' });
    expect(JSON.parse(r.body as string)).toEqual({ error: 'boom', code, requestId: 'req_9' });
  });

  it.each([
    ['aws-v1', 'function_error', 502, 'Internal server error'],
    ['aws-v1', 'function_crashed', 502, 'Internal server error'],
    ['aws-v1', 'invalid_result', 502, 'Internal server error'],
    ['aws-v1', 'function_timeout', 504, 'Endpoint request timed out'],
    ['aws-v2', 'function_error', 500, 'Internal Server Error'],
    ['aws-v2', 'function_memory_limit', 500, 'Internal Server Error'],
    ['aws-v2', 'function_timeout', 503, 'Service Unavailable'],
    ['switchyard', 'function_error', 500, 'Internal Server Error'],
    ['switchyard', 'function_timeout', 503, 'Service Unavailable'],
  ] as const)('aws format, %s function, %s -> %d %s', (style, code, status, message) => {
    const r = failureAnswer({ errorFormat: 'aws', exposeErrors: false }, style, code, MESSAGE, 'req_2');
    expect(r.status).toBe(status);
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.body as string)).toEqual({ message });
  });

  it('aws format with exposeErrors adds the message and code', () => {
    const r = failureAnswer({ errorFormat: 'aws', exposeErrors: true }, 'aws-v2', 'function_error', MESSAGE, 'req_3');
    expect(JSON.parse(r.body as string)).toEqual({ message: 'Internal Server Error', error: MESSAGE, code: 'function_error' });
  });

  it('logs the details at level error under the request id', () => {
    expect(failureLogLine('function_error', MESSAGE, 'req_4')).toMatchObject({
      level: 'error',
      requestId: 'req_4',
      message: `Invocation failed (function_error): ${MESSAGE}`,
    });
  });
});

describe('awsErrorAnswer', () => {
  it.each([
    ['unauthorized', 401, 'Unauthorized'],
    ['forbidden', 403, 'Forbidden'],
    ['throttled', 429, 'Too Many Requests'],
    ['quota_exceeded', 429, 'Limit Exceeded'],
    ['invalid_request', 400, 'Invalid request body'],
  ] as const)('%s -> %d {"message":"%s"}, the status of its Switchyard code', (reason, status, message) => {
    const r = awsErrorAnswer(new PolicyRefusalError(reason, 'our own wording'))!;
    expect(r.status).toBe(status);
    expect(new PolicyRefusalError(reason).status).toBe(status);
    expect(JSON.parse(r.body as string)).toEqual({ message });
  });

  it("words a validator's refusal of parameters alone as API Gateway's BAD_REQUEST_PARAMETERS, and one of the body as BAD_REQUEST_BODY", () => {
    const params = new PolicyRefusalError('invalid_request', undefined, {
      errors: [
        { where: 'querystring', path: 'limit', message: 'is required' },
        { where: 'header', path: 'x-tenant', message: 'is required' },
      ],
    });
    expect(JSON.parse(awsErrorAnswer(params)!.body as string)).toEqual({ message: 'Missing required request parameters: [limit, x-tenant]' });
    const body = new PolicyRefusalError('invalid_request', undefined, { errors: [{ where: 'body', path: '/qty', message: 'must be integer' }] });
    expect(awsErrorAnswer(body)).toMatchObject({ status: 400, body: JSON.stringify({ message: 'Invalid request body' }) });
  });

  it('covers every refusal reason', () => {
    expect(Object.keys(AWS_REFUSALS).sort()).toEqual(Object.keys(REFUSAL_CODES).sort());
  });

  it('keeps the headers a refusal carries', () => {
    const r = awsErrorAnswer(new PolicyRefusalError('throttled', undefined, undefined, { 'retry-after': '3' }))!;
    expect(r.headers).toEqual({ 'retry-after': '3', 'content-type': 'application/json' });
    const auth = awsErrorAnswer(new PolicyRefusalError('unauthorized', undefined, undefined, { 'www-authenticate': 'Bearer' }))!;
    expect(auth.headers['www-authenticate']).toBe('Bearer');
  });

  it('words no route and a wrong method as 404 Not Found, and leaves other errors to Switchyard', () => {
    for (const err of [new NoRouteError('GET', '/x'), new MethodNotAllowedError('DELETE', '/x', ['GET'])]) {
      const r = awsErrorAnswer(err)!;
      expect(r.status).toBe(404);
      expect(JSON.parse(r.body as string)).toEqual({ message: 'Not Found' });
      expect(r.headers.allow).toBeUndefined();
    }
    expect(awsErrorAnswer(new TooManyScrapesError(1))).toBeNull();
    expect(awsErrorAnswer(new Error('x'))).toBeNull();
  });
});

describe('a refusal through the gateway', () => {
  const api = (over: Partial<Api>): Api => ({
    id: 'api_1',
    name: 'shop',
    basePath: '/shop',
    routes: [{ id: 'r_1', method: 'GET', path: '/items/:id', function: 'items' }],
    cors: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    minimumCompressionSize: null,
    binaryMediaTypes: null,
    ...API_POLICY_DEFAULTS,
    ...over,
  });
  const request = (): InvokeRequest => ({
    method: 'GET',
    path: '/shop/items/7',
    rawQuery: '',
    rawHeaders: ['Origin', 'https://app.example.com'],
    body: null,
    sourceIp: '127.0.0.1',
    peerIp: '127.0.0.1',
    requestId: 'req_5',
    apiId: 'api_1',
    requestTimeEpoch: 0,
    httpVersion: '1.1',
    localPort: 8080,
  });

  let invoked = 0;
  const gatewayFor = (a: Api) => {
    const metrics = createMetrics({ defaultMetrics: false });
    const store = { getApi: async () => a, getFunction: async () => null } as unknown as Store;
    const runtime = {
      invoke: async () => {
        invoked++;
        throw new Error('the function must not run');
      },
    } as unknown as FunctionRuntime;
    const gateway = new Gateway({ store, runtime, changes: new ChangeBus({}), logSink: { push() {} }, metrics });
    return { gateway, metrics };
  };

  beforeEach(() => {
    invoked = 0;
  });

  it.each(Object.keys(REFUSAL_CODES) as RefusalReason[])('%s: thrown in switchyard format, counted by API, route and reason', async (reason) => {
    const { gateway, metrics } = gatewayFor(api({}));
    refusal = new PolicyRefusalError(reason);
    await expect(gateway.handle(request())).rejects.toBe(refusal);
    expect(await sampleOf(metrics.refusals, { api: 'api_1', route: 'GET /shop/items/:id', reason })).toBe(1);
    expect(await metrics.registry.metrics()).toContain(`switchyard_gateway_refusals_total{api="api_1",route="GET /shop/items/:id",reason="${reason}"} 1`);
    // The refusal is an answer of the route: counted with its labels, by its status (the invoke handler reports it).
    gateway.countFailure('api_1', refusal, performance.now());
    expect(await sampleOf(metrics.requests, { api: 'api_1', route: 'GET /shop/items/:id', status: String(refusal.status) })).toBe(1);
    expect(invoked).toBe(0);
  });

  it("answers API Gateway's body in aws format, with the refusal's and the CORS headers", async () => {
    const { gateway, metrics } = gatewayFor(
      api({ errorFormat: 'aws', cors: { allowOrigins: ['https://app.example.com'], allowMethods: ['GET'], allowHeaders: [], exposeHeaders: [], maxAge: null, allowCredentials: false } }),
    );
    refusal = new PolicyRefusalError('throttled', 'Over the rate limit of the route', undefined, { 'retry-after': '2' });
    const r = await gateway.handle(request());
    expect(r.status).toBe(429);
    expect(JSON.parse(r.body as string)).toEqual({ message: 'Too Many Requests' });
    expect(r.headers['retry-after']).toBe('2');
    expect(r.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(await sampleOf(metrics.refusals, { api: 'api_1', route: 'GET /shop/items/:id', reason: 'throttled' })).toBe(1);
  });

  it('counts nothing for an admitted request', async () => {
    const { gateway, metrics } = gatewayFor(api({}));
    refusal = null;
    const r = await gateway.handle(request());
    // The route's function is gone in this fake store: the gateway's own words, not a refusal.
    expect(JSON.parse(r.body as string)).toMatchObject({ code: 'function_error', error: "Function 'items' does not exist" });
    expect(await metrics.registry.metrics()).not.toContain('switchyard_gateway_refusals_total{');
  });
});
