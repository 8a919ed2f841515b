/**
 * Throttles over real HTTP: an API's bucket (all its routes together) and a
 * route's own, token buckets kept in the store. Past the burst the gateway
 * answers 429 with Retry-After and the function does not run; the bucket
 * refills at its rate (the service's clock, moved by hand: SWITCHYARD_TEST_HOOKS).
 * SQLite, or PostgreSQL with TEST_STORE=postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';

let svc: RunningService;
let apiId = '';
let routeOnlyId = '';

const call = (id: string, path: string, method = 'GET') => fetch(`${svc.url}/api/invoke/fn/${id}${path}`, { method });

async function statuses(id: string, path: string, n: number): Promise<number[]> {
  const out: number[] = [];
  // One after the other: the order of admissions is what the test reads.
  for (let i = 0; i < n; i++) {
    const res = await call(id, path);
    await res.arrayBuffer();
    out.push(res.status);
  }
  return out;
}

const advance = (ms: number) => svc.request('PUT', '/api/_test/clock', { advance_ms: ms });

beforeAll(async () => {
  svc = await startService({ env: { SWITCHYARD_TEST_HOOKS: '1' } });
  const fn = await svc.request('POST', '/api/functions', { name: 'throttled-hello', code: `exports.handler = async () => ({ statusCode: 200, body: 'hi' });` });
  expect(fn.status, fn.text).toBe(201);
  const api = await svc.request('POST', '/api/apis', {
    name: 'throttled',
    basePath: '/',
    throttle: { rateLimit: 1, burstLimit: 3 },
    routes: [
      { method: 'GET', path: '/a', function: 'throttled-hello' },
      { method: 'GET', path: '/b', function: 'throttled-hello' },
    ],
  });
  expect(api.status, api.text).toBe(201);
  apiId = api.json.id;
  const routeOnly = await svc.request('POST', '/api/apis', {
    name: 'route-throttled',
    basePath: '/',
    routes: [
      { method: 'GET', path: '/slow', function: 'throttled-hello', throttle: { rateLimit: 0.5, burstLimit: 2 } },
      { method: 'GET', path: '/free', function: 'throttled-hello' },
    ],
  });
  expect(routeOnly.status, routeOnly.text).toBe(201);
  routeOnlyId = routeOnly.json.id;
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

describe('throttle settings through the management API', () => {
  it('shows the API and route throttles, null and absent when unset', async () => {
    const api = await svc.request('GET', `/api/apis/${apiId}`);
    expect(api.json.throttle).toEqual({ rateLimit: 1, burstLimit: 3 });
    expect(api.json.routes[0].throttle).toBeUndefined();
    const other = await svc.request('GET', `/api/apis/${routeOnlyId}`);
    expect(other.json.throttle).toBeNull();
    expect(other.json.routes[0].throttle).toEqual({ rateLimit: 0.5, burstLimit: 2 });
  });

  it('refuses bounds it cannot keep, naming the field', async () => {
    for (const throttle of [{ rateLimit: 0, burstLimit: 1 }, { rateLimit: 1, burstLimit: 0 }, { rateLimit: 1 }, { rateLimit: 1, burstLimit: 1.5 }]) {
      const res = await svc.request('PUT', `/api/apis/${apiId}`, { throttle });
      expect(res.status, res.text).toBe(400);
      expect(res.text).toContain('throttle');
    }
  });
});

describe('an API throttle', () => {
  it('admits the burst across its routes, then answers 429 with Retry-After, then refills at its rate', async () => {
    // One bucket for the API: /a and /b draw from it together.
    expect([...(await statuses(apiId, '/a', 2)), ...(await statuses(apiId, '/b', 1))]).toEqual([200, 200, 200]);
    const refused = await call(apiId, '/b');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { code: string }).code).toBe('throttled');
    expect(await statuses(apiId, '/a', 1)).toEqual([429]);
    // A second at 1 per second brings one token back, not more.
    expect((await advance(1000)).status).toBe(200);
    expect(await statuses(apiId, '/a', 2)).toEqual([200, 429]);
  });
});

describe('a route throttle', () => {
  it('limits its route only, with Retry-After to its next token', async () => {
    expect(await statuses(routeOnlyId, '/slow', 3)).toEqual([200, 200, 429]);
    const refused = await call(routeOnlyId, '/slow');
    expect(refused.status).toBe(429);
    // 0.5 per second: the next token is 2 s away.
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(await statuses(routeOnlyId, '/free', 5)).toEqual([200, 200, 200, 200, 200]);
  });

  it('a changed throttle applies at once, keeping the tokens already spent', async () => {
    const api = await svc.request('GET', `/api/apis/${routeOnlyId}`);
    const routes = api.json.routes.map((r: Record<string, unknown>) => ({ method: r.method, path: r.path, function: r.function }));
    routes[1].throttle = { rateLimit: 1, burstLimit: 1 };
    const res = await svc.request('PUT', `/api/apis/${routeOnlyId}`, { routes });
    expect(res.status, res.text).toBe(200);
    expect(await statuses(routeOnlyId, '/free', 2)).toEqual([200, 429]);
    // /slow lost its throttle with the new routes.
    expect(await statuses(routeOnlyId, '/slow', 3)).toEqual([200, 200, 200]);
  });
});
