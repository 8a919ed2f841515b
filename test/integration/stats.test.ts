/**
 * The overview's data over real HTTP: `GET /api/stats` counts the requests of
 * each route (errors, percentiles), invocations by outcome (manual invokes
 * too), delivery attempts
 * and the newest failures; its `minutes` is checked; the deliveries stream
 * shows an attempt of a test-fired webhook to a local receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { openSse, type SseStream } from '../helpers/sse.js';

const KEY = 'stats-test-key';
const AUTH = { authorization: `Bearer ${KEY}` };

let svc: RunningService;
let receiver: Receiver;
let apiId: string;
const streams: SseStream[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
  const ok = await svc.request('POST', '/api/functions', { name: 'fine', code: 'exports.handler = async () => ({ statusCode: 200, body: {} });' }, AUTH);
  expect(ok.status, ok.text).toBe(201);
  const bad = await svc.request('POST', '/api/functions', { name: 'broken', code: "exports.handler = async () => { throw new Error('nope'); };" }, AUTH);
  expect(bad.status, bad.text).toBe(201);
  const api = await svc.request(
    'POST',
    '/api/apis',
    { name: 'stats', basePath: '/st', routes: [{ method: 'GET', path: '/fine', function: 'fine' }, { method: 'GET', path: '/broken/:id', function: 'broken' }] },
    AUTH,
  );
  expect(api.status, api.text).toBe(201);
  apiId = api.json.id;
}, 30_000);

afterAll(async () => {
  for (const s of streams) s.close();
  await svc?.stop();
  await receiver?.close();
});

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('GET /api/stats', () => {
  it("counts each route's requests, errors and latency, invocations by outcome, and lists the failures", async () => {
    for (let i = 0; i < 4; i++) expect((await svc.request('GET', `/api/invoke/fn/${apiId}/st/fine`)).status).toBe(200);
    const failed: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await svc.request('GET', `/api/invoke/fn/${apiId}/st/broken/${i}`);
      expect(res.status).toBeGreaterThanOrEqual(500);
      failed.push(res.headers.get('x-request-id')!);
    }

    const res = await svc.request('GET', '/api/stats?minutes=5', undefined, AUTH);
    expect(res.status, res.text).toBe(200);
    const stats = res.json;
    expect(stats.minutes).toBe(5);
    expect(stats.time).toHaveLength(5);
    expect(stats.time[4] - stats.time[0]).toBe(240);

    const fine = stats.routes.find((r: any) => r.api_id === apiId && r.path === '/st/fine');
    expect(fine).toMatchObject({ method: 'GET', total: { count: 4, errors: 0 } });
    expect(sum(fine.count)).toBe(4);
    expect(fine.count).toHaveLength(5);
    expect(fine.total.p50_ms).toBeGreaterThan(0);
    expect(fine.total.p99_ms).toBeGreaterThanOrEqual(fine.total.p50_ms);
    const broken = stats.routes.find((r: any) => r.api_id === apiId && r.path === '/st/broken/:id');
    expect(broken.total).toMatchObject({ count: 2, errors: 2 });
    expect(sum(broken.errors)).toBe(2);

    const outcome = (name: string) => stats.invocations.find((s: any) => s.outcome === name)?.total ?? 0;
    expect(outcome('ok')).toBe(4);
    expect(outcome('function_error')).toBe(2);
    const invocationFailures = stats.failures.filter((f: any) => f.source === 'invocation');
    expect(invocationFailures.map((f: any) => f.id).sort()).toEqual([...failed].sort());
    expect(invocationFailures[0]).toMatchObject({ function: 'broken', webhook_id: null, code: 'function_error' });
  });

  it('counts manual invokes (POST /api/functions/{name}/invoke) among invocations by outcome, and lists their failures', async () => {
    const read = async () => (await svc.request('GET', '/api/stats?minutes=5', undefined, AUTH)).json;
    const outcome = (stats: any, name: string) => stats.invocations.find((s: any) => s.outcome === name)?.total ?? 0;
    const before = await read();
    for (let i = 0; i < 3; i++) {
      const res = await svc.request('POST', '/api/functions/fine/invoke', {}, AUTH);
      expect(res.json.status, res.text).toBe(200);
    }
    const failed = await svc.request('POST', '/api/functions/broken/invoke', {}, AUTH);
    expect(failed.json.error.code, failed.text).toBe('function_error');
    const after = await read();
    expect(outcome(after, 'ok') - outcome(before, 'ok')).toBe(3);
    expect(outcome(after, 'function_error') - outcome(before, 'function_error')).toBe(1);
    const newFailures = after.failures.filter((f: any) => !before.failures.some((b: any) => b.id === f.id));
    expect(newFailures).toMatchObject([{ source: 'invocation', function: 'broken', code: 'function_error' }]);
  });

  it('refuses a window outside 1 to 1440 minutes, naming the field', async () => {
    for (const minutes of ['0', '1441', 'abc', '1.5']) {
      const res = await svc.request('GET', `/api/stats?minutes=${minutes}`, undefined, AUTH);
      expect(res.status, minutes).toBe(400);
      expect(res.json).toMatchObject({ code: 'invalid_request', details: { field: 'minutes' } });
    }
    expect((await svc.request('GET', '/api/stats')).status).toBe(401);
  });
});

describe('GET /api/deliveries/stream', () => {
  it("sends a test-fired webhook's attempt, with its outcome and status, and counts it in the stats", async () => {
    const created = await svc.request('POST', '/api/webhooks', { name: 'watched', target_url: `${receiver.url}/hook`, method: 'POST', payload_template: { hi: 1 } }, AUTH);
    expect(created.status, created.text).toBe(201);
    const webhookId = created.json.id;
    const stream = await openSse(`${svc.url}/api/deliveries/stream?webhook=${webhookId}`, AUTH);
    streams.push(stream);
    const other = await openSse(`${svc.url}/api/deliveries/stream?function=fine`, AUTH);
    streams.push(other);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);

    const fired = await svc.request('POST', `/api/webhooks/${webhookId}/test`, undefined, AUTH);
    expect(fired.status, fired.text).toBe(200);
    const event = await stream.waitFor('the attempt', (e) => e.event === 'attempt' && e.json.delivery_id === fired.json.id);
    expect(event.json).toMatchObject({ target: 'webhook', webhook_id: webhookId, function: null, attempt: 1, outcome: 'succeeded', status: 200 });
    expect(event.id).toBe(String(event.json.seq));

    // Resuming before that attempt replays it.
    const replay = await openSse(`${svc.url}/api/deliveries/stream?since=${event.json.seq - 1}`, AUTH);
    streams.push(replay);
    await replay.waitFor('the replayed attempt', (e) => e.event === 'attempt' && e.json.delivery_id === fired.json.id);
    // The other stream's filter names a function: the webhook's attempt is not on it.
    expect(other.events.some((e) => e.event === 'attempt')).toBe(false);

    const stats = (await svc.request('GET', '/api/stats?minutes=2', undefined, AUTH)).json;
    const succeeded = stats.deliveries.find((d: any) => d.target === 'webhook' && d.outcome === 'succeeded');
    expect(succeeded.total).toBeGreaterThanOrEqual(1);
  });
});
