/**
 * API keys and usage plans over real HTTP, on SQLite or PostgreSQL
 * (TEST_STORE=postgres): the secret answered once, then only its prefix;
 * routes with apiKeyRequired refuse a missing, unknown, disabled or revoked
 * key and a key whose plan does not cover the API with 403 (as API Gateway);
 * a quota admits exactly its limit under concurrent requests, also across two
 * nodes of two processes each on one database; usage per UTC day readable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flushedOutput, startService, tempDbUrl, type RunningService } from '../helpers/service.js';

let svc: RunningService;
let apiId = '';
let otherApiId = '';

const HELLO = `exports.handler = async (event) => ({ statusCode: 200, body: JSON.stringify({ keyId: event.requestContext.identity.apiKeyId, key: event.requestContext.identity.apiKey }) });`;

/** A fresh connection per call, so that with several processes calls land on each of them. */
const call = (base: string, id: string, path: string, key?: string) =>
  fetch(`${base}/api/invoke/fn/${id}${path}`, { headers: { connection: 'close', ...(key === undefined ? {} : { 'x-api-key': key }) } });

async function statusOf(base: string, id: string, path: string, key?: string): Promise<number> {
  const res = await call(base, id, path, key);
  await res.arrayBuffer();
  return res.status;
}

async function createApi(s: RunningService, name: string): Promise<string> {
  const fn = await s.request('POST', '/api/functions', { name: `${name}-fn`, code: HELLO, event_format: 'aws-v1' });
  expect(fn.status, fn.text).toBe(201);
  const api = await s.request('POST', '/api/apis', {
    name,
    basePath: '/',
    routes: [
      { method: 'GET', path: '/private', function: `${name}-fn`, apiKeyRequired: true },
      { method: 'GET', path: '/public', function: `${name}-fn` },
    ],
  });
  expect(api.status, api.text).toBe(201);
  return api.json.id;
}

async function plan(s: RunningService, body: Record<string, unknown>): Promise<string> {
  const res = await s.request('POST', '/api/usage-plans', body);
  expect(res.status, res.text).toBe(201);
  return res.json.id;
}

async function key(s: RunningService, body: Record<string, unknown>): Promise<{ id: string; value: string; prefix: string }> {
  const res = await s.request('POST', '/api/api-keys', body);
  expect(res.status, res.text).toBe(201);
  return res.json;
}

beforeAll(async () => {
  svc = await startService();
  apiId = await createApi(svc, 'keyed');
  otherApiId = await createApi(svc, 'other');
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

describe('keys and plans through the management API', () => {
  it('answers the secret once, then only its prefix', async () => {
    const planId = await plan(svc, { name: 'basic', apiIds: [apiId] });
    const created = await key(svc, { name: 'partner', usagePlanId: planId });
    expect(created.value).toMatch(/^sy_[A-Za-z0-9_-]{32}$/);
    expect(created.value.startsWith(created.prefix)).toBe(true);
    expect(created.prefix.length).toBeLessThan(created.value.length);
    const one = await svc.request('GET', `/api/api-keys/${created.id}`);
    expect(one.json).toMatchObject({ id: created.id, name: 'partner', prefix: created.prefix, enabled: true, usagePlanId: planId });
    expect(one.json.value).toBeUndefined();
    const list = await svc.request('GET', '/api/api-keys');
    expect(list.text).not.toContain(created.value);
    expect(list.json.map((k: { id: string }) => k.id)).toContain(created.id);
    expect(await flushedOutput(svc)).not.toContain(created.value);
  });

  it('refuses an unknown plan, unknown APIs and bounds it cannot keep, naming the field', async () => {
    const unknownPlan = await svc.request('POST', '/api/api-keys', { name: 'x', usagePlanId: 'up_missing' });
    expect(unknownPlan.status).toBe(400);
    expect(unknownPlan.json.details.field).toBe('usagePlanId');
    const unknownApi = await svc.request('POST', '/api/usage-plans', { name: 'x', apiIds: [apiId, 'api_missing'] });
    expect(unknownApi.status).toBe(400);
    expect(unknownApi.json.details.field).toBe('apiIds[1]');
    for (const body of [
      { name: 'x', apiIds: [], quota: { limit: 0, period: 'DAY' } },
      { name: 'x', apiIds: [], quota: { limit: 5, period: 'YEAR' } },
      { name: 'x', apiIds: [], throttle: { rateLimit: -1, burstLimit: 1 } },
      { name: '', apiIds: [] },
      { name: 'x'.repeat(201), apiIds: [] },
    ]) {
      const res = await svc.request('POST', '/api/usage-plans', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('keeps a plan with keys on it, and lets it go once they have moved', async () => {
    const planId = await plan(svc, { name: 'held', apiIds: [apiId] });
    const k = await key(svc, { name: 'holder', usagePlanId: planId });
    const refused = await svc.request('DELETE', `/api/usage-plans/${planId}`);
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe('usage_plan_in_use');
    expect((await svc.request('PATCH', `/api/api-keys/${k.id}`, { usagePlanId: null })).json.usagePlanId).toBeNull();
    expect((await svc.request('DELETE', `/api/usage-plans/${planId}`)).status).toBe(200);
    expect((await svc.request('GET', `/api/usage-plans/${planId}`)).status).toBe(404);
  });
});

describe('a route with apiKeyRequired', () => {
  it('refuses a missing or unknown key with 403, and admits a key whose plan covers the API', async () => {
    const planId = await plan(svc, { name: 'covering', apiIds: [apiId] });
    const k = await key(svc, { name: 'caller', usagePlanId: planId });
    expect(await statusOf(svc.url, apiId, '/private')).toBe(403);
    expect(await statusOf(svc.url, apiId, '/private', 'sy_not-a-key')).toBe(403);
    const refused = await call(svc.url, apiId, '/private');
    expect(((await refused.json()) as { code: string }).code).toBe('invocation_forbidden');
    expect(await statusOf(svc.url, apiId, '/public')).toBe(200);
    const ok = await call(svc.url, apiId, '/private', k.value);
    expect(ok.status).toBe(200);
    // aws-v1: requestContext.identity carries the key as API Gateway passes it.
    expect(await ok.json()).toEqual({ keyId: k.id, key: k.value });
    // The plan does not cover the other API.
    expect(await statusOf(svc.url, otherApiId, '/private', k.value)).toBe(403);
    expect(await statusOf(svc.url, otherApiId, '/public', k.value)).toBe(200);
  });

  it('refuses a key with no plan', async () => {
    const k = await key(svc, { name: 'planless' });
    expect(await statusOf(svc.url, apiId, '/private', k.value)).toBe(403);
  });

  it('refuses a disabled key right after the write answers, and admits it again when enabled', async () => {
    const planId = await plan(svc, { name: 'toggle', apiIds: [apiId] });
    const k = await key(svc, { name: 'toggled', usagePlanId: planId });
    expect(await statusOf(svc.url, apiId, '/private', k.value)).toBe(200);
    expect((await svc.request('PUT', `/api/api-keys/${k.id}`, { enabled: false })).json.enabled).toBe(false);
    expect(await statusOf(svc.url, apiId, '/private', k.value)).toBe(403);
    expect((await svc.request('PATCH', `/api/api-keys/${k.id}`, { enabled: true })).status).toBe(200);
    expect(await statusOf(svc.url, apiId, '/private', k.value)).toBe(200);
  });

  it('refuses a revoked key', async () => {
    const planId = await plan(svc, { name: 'revoke', apiIds: [apiId] });
    const k = await key(svc, { name: 'revoked', usagePlanId: planId });
    expect(await statusOf(svc.url, apiId, '/private', k.value)).toBe(200);
    expect((await svc.request('DELETE', `/api/api-keys/${k.id}`)).status).toBe(200);
    expect(await statusOf(svc.url, apiId, '/private', k.value)).toBe(403);
    expect((await svc.request('GET', `/api/api-keys/${k.id}`)).status).toBe(404);
  });

  it('covers a new API as soon as the plan is updated', async () => {
    const planId = await plan(svc, { name: 'grow', apiIds: [apiId] });
    const k = await key(svc, { name: 'grower', usagePlanId: planId });
    expect(await statusOf(svc.url, otherApiId, '/private', k.value)).toBe(403);
    expect((await svc.request('PUT', `/api/usage-plans/${planId}`, { apiIds: [apiId, otherApiId] })).status).toBe(200);
    expect(await statusOf(svc.url, otherApiId, '/private', k.value)).toBe(200);
  });

  it('throttles per key with the plan throttle', async () => {
    const planId = await plan(svc, { name: 'slow', apiIds: [apiId], throttle: { rateLimit: 0.01, burstLimit: 2 } });
    const a = await key(svc, { name: 'slow-a', usagePlanId: planId });
    const b = await key(svc, { name: 'slow-b', usagePlanId: planId });
    expect([await statusOf(svc.url, apiId, '/private', a.value), await statusOf(svc.url, apiId, '/private', a.value)]).toEqual([200, 200]);
    const refused = await call(svc.url, apiId, '/private', a.value);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { code: string }).code).toBe('throttled');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Each key has its own bucket.
    expect(await statusOf(svc.url, apiId, '/private', b.value)).toBe(200);
  });

  it('admits exactly the quota of concurrent requests, with Retry-After to the period end, and counts them per day', async () => {
    const planId = await plan(svc, { name: 'quota', apiIds: [apiId], quota: { limit: 15, period: 'MONTH' } });
    const k = await key(svc, { name: 'quota', usagePlanId: planId });
    const answers = await Promise.all(Array.from({ length: 35 }, () => call(svc.url, apiId, '/private', k.value)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(15);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    const refused = answers.find((a) => a.status === 429)!;
    expect(((await refused.json()) as { code: string }).code).toBe('quota_exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    await Promise.all(answers.map((a) => a.arrayBuffer().catch(() => undefined)));
    const today = new Date().toISOString().slice(0, 10);
    const usage = await svc.request('GET', `/api/api-keys/${k.id}/usage?from=${today}&to=${today}`);
    expect(usage.status, usage.text).toBe(200);
    expect(usage.json).toEqual({ id: k.id, from: today, to: today, days: [{ day: today, used: 15 }] });
    const bad = await svc.request('GET', `/api/api-keys/${k.id}/usage?from=2026-13-01`);
    expect(bad.status).toBe(400);
    expect(bad.json.details.field).toBe('from');
  });
});

describe('usage of a key whose plan has no quota', () => {
  it('counts every admitted request in the day\'s usage (written in batches: within a second or so)', async () => {
    const planId = await plan(svc, { name: 'unmetered', apiIds: [apiId] });
    const k = await key(svc, { name: 'unmetered', usagePlanId: planId });
    const statuses = await Promise.all(Array.from({ length: 7 }, () => statusOf(svc.url, apiId, '/private', k.value)));
    expect(statuses).toEqual(Array(7).fill(200));
    const today = new Date().toISOString().slice(0, 10);
    const used = async () => (await svc.request('GET', `/api/api-keys/${k.id}/usage?from=${today}&to=${today}`)).json.days;
    await expect.poll(used, { timeout: 10_000 }).toEqual([{ day: today, used: 7 }]);
  });
});

describe('across two nodes of two processes each on one database', () => {
  let nodes: RunningService[] = [];

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  });

  it('a quota of 100 admits exactly 100', async () => {
    const dbUrl = tempDbUrl();
    const env = { SWITCHYARD_PROCESSES: '2' };
    nodes = [await startService({ dbUrl, env })];
    nodes.push(await startService({ dbUrl, env }));
    const [a, b] = nodes as [RunningService, RunningService];
    const id = await createApi(a, 'cluster');
    const planId = await plan(a, { name: 'hundred', apiIds: [id], quota: { limit: 100, period: 'DAY' } });
    const k = await key(a, { name: 'cluster', usagePlanId: planId });
    // The other node learns of the API and the key through the database's change feed.
    await expect.poll(() => statusOf(b.url, id, '/private', k.value), { timeout: 10_000 }).toBe(200);
    const statuses = await Promise.all(Array.from({ length: 130 }, (_, i) => statusOf(i % 2 === 0 ? a.url : b.url, id, '/private', k.value)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(99);
    expect(statuses.filter((s) => s === 429)).toHaveLength(31);
    const usage = await b.request('GET', `/api/api-keys/${k.id}/usage`);
    expect(usage.json.days.reduce((n: number, d: { used: number }) => n + d.used, 0)).toBe(100);
  }, 120_000);
});
