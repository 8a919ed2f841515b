/**
 * The access line (SWITCHYARD_ACCESS_LOG, on by default): a real server's
 * stdout carries one JSON line per invocation and per management request, with
 * the route template, status, duration, the failure's code, the `requestId`
 * answered in X-Request-Id (one field name for every line), the caller's trace
 * id and a query whose credentials are redacted (SWITCHYARD_LOG_REDACT_QUERY).
 * Turned off, only answers of 500 and above get a line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flushedOutput, startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let on: RunningService;
let off: RunningService;
const apiOf = new Map<RunningService, string>();

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

const ECHO = `exports.handler = async (e) => { console.log('echo ran'); return { statusCode: 200, body: { ok: true } }; };`;
const BROKEN = `exports.handler = async () => { throw new Error('kaputt'); };`;

type Line = Record<string, unknown>;

beforeAll(async () => {
  [on, off] = await Promise.all([
    startService({ env: { LOG_FORMAT: 'json' } }),
    startService({ env: { LOG_FORMAT: 'json', SWITCHYARD_ACCESS_LOG: '0', SWITCHYARD_LOG_REDACT_QUERY: '*' } }),
  ]);
  for (const svc of [on, off]) {
    for (const [name, code] of [['echo', ECHO], ['broken', BROKEN]]) {
      expect((await svc.request('POST', '/api/functions', { name, code })).status).toBe(201);
    }
    const api = await svc.request('POST', '/api/apis', {
      name: 'shop',
      basePath: '/shop',
      routes: [
        { method: 'GET', path: '/users/:id', function: 'echo' },
        { method: 'POST', path: '/broken', function: 'broken' },
      ],
    });
    expect(api.status, api.text).toBe(201);
    apiOf.set(svc, api.json.id);
  }
}, 120_000);

afterAll(async () => {
  await Promise.all([on?.stop(), off?.stop()]);
});

function jsonLines(svc: RunningService): Line[] {
  return svc.output
    .join('')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
}

/** The one access line of the request that answered with this id. */
async function accessLine(svc: RunningService, requestId: string | null): Promise<Line> {
  expect(requestId).toBeTruthy();
  return until(() => {
    const mine = jsonLines(svc).filter((l) => l.type === 'access' && l.requestId === requestId);
    return mine.length === 1 ? mine[0] : null;
  }, `the access line of ${requestId}`);
}

describe('access lines', () => {
  it("an invocation's line names its route, function, status, duration, request id and trace id, its query redacted", async () => {
    const res = await on.request('GET', `/api/invoke/fn/${apiOf.get(on)}/shop/users/42?token=abc123&color=red&API_KEY=k9`, undefined, {
      traceparent: TRACEPARENT,
      'x-request-id': 'req-access-1',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('req-access-1');
    const line = await accessLine(on, 'req-access-1');
    expect(line).toMatchObject({
      level: 30,
      msg: 'request',
      method: 'GET',
      route: 'GET /shop/users/:id',
      status: 200,
      requestId: 'req-access-1',
      trace_id: TRACE_ID,
      api: apiOf.get(on),
      function: 'echo',
    });
    expect(typeof line.ms).toBe('number');
    expect(line).not.toHaveProperty('errorCode');
    expect(line.url).toBe(`/api/invoke/fn/${apiOf.get(on)}/shop/users/42?token=[redacted]&color=red&API_KEY=[redacted]`);
    expect(JSON.stringify(jsonLines(on))).not.toContain('abc123');
    // The function's console line carries the same field with the same id.
    const fnLine = await until(() => jsonLines(on).find((l) => l.source === 'function' && l.requestId === 'req-access-1') ?? null, 'the console line');
    expect(fnLine.msg).toBe('echo ran');
  });

  it("a failed invocation's line is a warn carrying the answer's error code", async () => {
    const res = await on.request('POST', `/api/invoke/fn/${apiOf.get(on)}/shop/broken`, { a: 1 });
    expect(res.status).toBeGreaterThanOrEqual(500);
    const line = await accessLine(on, res.headers.get('x-request-id'));
    expect(line).toMatchObject({ level: 40, route: 'POST /shop/broken', function: 'broken', status: res.status, errorCode: res.json.code });
    expect(res.json.code).toBe('function_error');
    // No route: the gateway's own refusal, without a route to name.
    const miss = await on.request('GET', `/api/invoke/fn/${apiOf.get(on)}/shop/nowhere`);
    expect(miss.status).toBe(404);
    const missLine = await accessLine(on, miss.headers.get('x-request-id'));
    expect(missLine).toMatchObject({ level: 30, status: 404, errorCode: miss.json.code, api: apiOf.get(on) });
    expect(missLine).not.toHaveProperty('route');
  });

  it("a management request's line names the Fastify route and uses the same requestId field", async () => {
    const res = await on.request('GET', '/api/functions/echo?access_token=s3cr3t&verbose=1', undefined, { traceparent: TRACEPARENT });
    expect(res.status, res.text).toBe(200);
    const line = await accessLine(on, res.headers.get('x-request-id'));
    expect(line).toMatchObject({ level: 30, method: 'GET', route: '/api/functions/:name', status: 200, trace_id: TRACE_ID });
    expect(line.url).toBe('/api/functions/echo?access_token=[redacted]&verbose=1');
    const missing = await on.request('GET', '/api/functions/nope');
    expect(missing.status).toBe(404);
    expect(await accessLine(on, missing.headers.get('x-request-id'))).toMatchObject({ status: 404, errorCode: missing.json.code });
    // One field name: Fastify's default `reqId` is gone from every line.
    expect(await flushedOutput(on)).not.toContain('"reqId"');
  });

  it('a traceparent that is not W3C gives no trace id', async () => {
    const res = await on.request('GET', `/api/invoke/fn/${apiOf.get(on)}/shop/users/1`, undefined, { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` });
    expect(res.status).toBe(200);
    expect(await accessLine(on, res.headers.get('x-request-id'))).not.toHaveProperty('trace_id');
  });
});

describe('SWITCHYARD_ACCESS_LOG=0', () => {
  it('writes no line for answered requests, and still a warn line with the code for a 5xx (every query value redacted by *)', async () => {
    const ok = await off.request('GET', `/api/invoke/fn/${apiOf.get(off)}/shop/users/7?color=blue`);
    expect(ok.status).toBe(200);
    const listed = await off.request('GET', '/api/functions');
    expect(listed.status).toBe(200);
    const failed = await off.request('POST', `/api/invoke/fn/${apiOf.get(off)}/shop/broken?color=green&n=2`, {});
    expect(failed.status).toBeGreaterThanOrEqual(500);
    const line = await accessLine(off, failed.headers.get('x-request-id'));
    expect(line).toMatchObject({ level: 40, status: failed.status, errorCode: 'function_error' });
    expect(line.url).toBe(`/api/invoke/fn/${apiOf.get(off)}/shop/broken?color=[redacted]&n=[redacted]`);
    const ids = new Set([ok.headers.get('x-request-id'), listed.headers.get('x-request-id')]);
    expect(jsonLines(off).filter((l) => l.type === 'access' && ids.has(l.requestId as string))).toEqual([]);
  });
});
