/**
 * Applications over real HTTP, with real webhook receivers: an event published
 * to one application reaches only that application's subscribed webhooks (never
 * another's, never a global one), one published without an application only
 * the global webhooks; webhooks name their application by id or uid, unknown
 * ones are refused naming the field; lists filter by application; the
 * endpoint and events-per-second limits hold (the rate on the hand-moved
 * clock); deleting an application deletes its webhooks and their deliveries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const KEY = 'applications-test-admin-key';
const AUTH = { authorization: `Bearer ${KEY}` };

let svc: RunningService;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startService({ env: { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1', SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_TEST_HOOKS: '1' } });
});

afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
});

const admin = (method: string, path: string, body?: unknown) => svc.request(method, path, body, AUTH);

async function application(body: Record<string, unknown>): Promise<{ id: string; uid: string | null }> {
  const res = await admin('POST', '/api/applications', body);
  expect(res.status, res.text).toBe(201);
  return res.json;
}

async function webhook(name: string, events: string[], applicationId?: string): Promise<{ id: string; application_id: string | null }> {
  const res = await admin('POST', '/api/webhooks', {
    name,
    target_url: `${receiver.url}/${name}`,
    method: 'POST',
    payload_template: { n: '{{data.n}}' },
    events,
    retry: { max_attempts: 1 },
    ...(applicationId === undefined ? {} : { application_id: applicationId }),
  });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

const arrived = (name: string) => receiver.requests.filter((r) => r.url === `/${name}`).map((r) => (JSON.parse(r.body) as { n: number }).n);

describe('publishing to an application', () => {
  let acme: { id: string }, globex: { id: string };
  let a1: { id: string }, a2: { id: string }, b1: { id: string }, g1: { id: string };

  beforeAll(async () => {
    acme = await application({ name: 'Acme', uid: 'acme', metadata: { plan: 'pro' } });
    globex = await application({ name: 'Globex' });
    a1 = await webhook('a1', ['order.created'], 'acme');
    a2 = await webhook('a2', ['*'], acme.id);
    b1 = await webhook('b1', ['order.created', '*'], globex.id);
    g1 = await webhook('g1', ['order.created']);
  });

  it('names its owner by id or uid, and shows it', async () => {
    expect((await admin('GET', `/api/webhooks/${a1.id}`)).json.application_id).toBe(acme.id);
    expect((await admin('GET', `/api/webhooks/${g1.id}`)).json.application_id).toBeNull();
    expect((await admin('GET', '/api/applications/acme')).json).toMatchObject({ id: acme.id, uid: 'acme', name: 'Acme', metadata: { plan: 'pro' } });
  });

  it("reaches only that application's subscribed webhooks, by uid or id", async () => {
    const res = await admin('POST', '/api/events', { event: 'order.created', data: { n: 1 }, application: 'acme' });
    expect(res.status, res.text).toBe(202);
    expect(res.json.application_id).toBe(acme.id);
    expect(res.json.webhooks.matched.sort()).toEqual([a1.id, a2.id].sort());
    const other = await admin('POST', '/api/events', { event: 'order.created', data: { n: 2 }, application: globex.id });
    expect(other.json.webhooks.matched).toEqual([b1.id]);
    await until(() => arrived('a1').length === 1 && arrived('a2').length === 1 && arrived('b1').length === 1, 'the deliveries');
    expect(arrived('a1')).toEqual([1]);
    expect(arrived('a2')).toEqual([1]);
    expect(arrived('b1')).toEqual([2]);
    expect(arrived('g1')).toEqual([]);
  });

  it('without an application reaches only the global webhooks', async () => {
    const res = await admin('POST', '/api/events', { event: 'order.created', data: { n: 3 } });
    expect(res.status).toBe(202);
    expect(res.json.webhooks.matched).toEqual([g1.id]);
    expect(res.json.application_id).toBeUndefined();
    await until(() => arrived('g1').length === 1, 'the global delivery');
    expect(arrived('a1')).toEqual([1]);
    expect(arrived('b1')).toEqual([2]);
  });

  it("a function's emit(name, data, {application}) reaches only that application's webhooks; a bad option throws in the function", async () => {
    const code =
      "export const handler = async (event) => { emit('order.created', { n: 10 }, { application: 'acme' }); emit('order.created', { n: 11 }); " +
      "try { emit('order.created', {}, { application: 7 }); } catch (e) { return e.message; } return 'no throw'; };";
    expect((await admin('POST', '/api/functions', { name: 'app-emitter', code })).status).toBe(201);
    const run = await admin('POST', '/api/functions/app-emitter/invoke', {});
    expect(run.status, run.text).toBe(200);
    expect(JSON.stringify(run.json)).toMatch(/options\.application must be an application id or uid/);
    await until(() => arrived('a1').includes(10) && arrived('g1').includes(11), 'the emitted deliveries');
    expect(arrived('a1')).not.toContain(11);
    expect(arrived('g1')).not.toContain(10);
    expect(arrived('b1')).not.toContain(10);
  });

  it('refuses an unknown application naming the field, and creates nothing', async () => {
    const res = await admin('POST', '/api/events', { event: 'order.created', data: { n: 4 }, application: 'nobody' });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ code: 'application_not_found', details: { field: 'application' } });
    const hook = await admin('POST', '/api/webhooks', { name: 'x', target_url: `${receiver.url}/x`, method: 'POST', payload_template: {}, application_id: 'app_nope' });
    expect(hook.status).toBe(404);
    expect(hook.json).toMatchObject({ code: 'application_not_found', details: { field: 'application_id' } });
  });

  it('filters the webhook list by application', async () => {
    const list = await admin('GET', '/api/webhooks?application=acme&limit=100');
    expect(list.status).toBe(200);
    expect((list.json as Array<{ id: string }>).map((w) => w.id).sort()).toEqual([a1.id, a2.id].sort());
    expect((await admin('GET', `/api/webhooks?application=${globex.id}`)).json.map((w: { id: string }) => w.id)).toEqual([b1.id]);
    expect((await admin('GET', '/api/webhooks?application=nobody')).status).toBe(404);
  });

  it("lists recovery jobs of one application's webhooks", async () => {
    const since = '2020-01-01T00:00:00.000Z';
    const ofA = await admin('POST', `/api/webhooks/${a1.id}/recover`, { since, statuses: ['succeeded'] });
    expect(ofA.status, ofA.text).toBe(202);
    const ofB = await admin('POST', `/api/webhooks/${b1.id}/recover`, { since, statuses: ['succeeded'] });
    expect(ofB.status).toBe(202);
    const listed = await admin('GET', '/api/recoveries?application=acme');
    expect((listed.json as Array<{ id: string }>).map((r) => r.id)).toEqual([ofA.json.id]);
    expect((await admin('GET', `/api/recoveries?application=acme&webhook_id=${b1.id}`)).json).toEqual([]);
  });

  it("bulk-retries one application's webhooks only, and refuses a webhook of another", async () => {
    const since = '2020-01-01T00:00:00.000Z';
    const statuses = ['succeeded', 'failed'];
    const count = async (body: Record<string, unknown>) => {
      const res = await admin('POST', '/api/recoveries?dry_run=true', { since, statuses, ...body });
      expect(res.status, res.text).toBe(200);
      return res.json.count as number;
    };
    const ofAcme = await count({ application: 'acme' });
    expect(ofAcme).toBeGreaterThan(0);
    expect(ofAcme).toBe(await count({ webhook_ids: [a1.id, a2.id] }));
    expect(await count({})).toBeGreaterThan(ofAcme);
    expect(await count({ application: acme.id, webhook_ids: [a1.id] })).toBe(await count({ webhook_ids: [a1.id] }));
    const empty = await application({ name: 'Nobody home' });
    expect(await count({ application: empty.id })).toBe(0);
    const foreign = await admin('POST', '/api/recoveries', { since, statuses, application: 'acme', webhook_ids: [b1.id] });
    expect(foreign.status).toBe(400);
    expect(foreign.json).toMatchObject({ details: { field: 'webhook_ids[0]' } });
    const unknown = await admin('POST', '/api/recoveries', { since, application: 'nobody' });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ code: 'application_not_found', details: { field: 'application' } });
    const job = await admin('POST', '/api/recoveries', { since, statuses, application: 'acme' });
    expect(job.status, job.text).toBe(202);
    expect(job.json.total).toBe(ofAcme);
  });

  it('moves a webhook between scopes when its application_id changes', async () => {
    const moved = await webhook('moved', ['order.shipped']);
    expect((await admin('PUT', `/api/webhooks/${moved.id}`, { application_id: 'acme' })).json.application_id).toBe(acme.id);
    expect((await admin('POST', '/api/events', { event: 'order.shipped', data: { n: 5 } })).json.webhooks.matched).toEqual([]);
    const toAcme = await admin('POST', '/api/events', { event: 'order.shipped', data: { n: 5 }, application: 'acme' });
    expect(toAcme.json.webhooks.matched).toContain(moved.id);
    expect((await admin('PUT', `/api/webhooks/${moved.id}`, { application_id: null })).json.application_id).toBeNull();
    expect((await admin('POST', '/api/events', { event: 'order.shipped', data: { n: 6 } })).json.webhooks.matched).toEqual([moved.id]);
  });
});

describe('applications as a resource', () => {
  it('lists, updates and refuses a taken uid', async () => {
    const one = await application({ name: 'One', uid: 'one' });
    await application({ name: 'Two', uid: 'two' });
    const taken = await admin('PATCH', `/api/applications/${one.id}`, { uid: 'two' });
    expect(taken.status).toBe(409);
    expect(taken.json.code).toBe('application_exists');
    const renamed = await admin('PATCH', '/api/applications/one', { name: 'One Inc', limits: { max_endpoints: 3 } });
    expect(renamed.json).toMatchObject({ name: 'One Inc', uid: 'one', limits: { max_endpoints: 3, events_per_second: null } });
    const page = await admin('GET', '/api/applications?limit=1');
    expect(page.json).toHaveLength(1);
    expect(page.headers.get('link')).toMatch(/after=app_/);
    expect((await admin('POST', '/api/applications', { name: 'Bad', uid: 'app_x' })).status).toBe(400);
  });

  it('holds max_endpoints with 422, on create and on a move into it', async () => {
    const small = await application({ name: 'Small', limits: { max_endpoints: 1 } });
    await webhook('small-1', ['e.x'], small.id);
    const second = await admin('POST', '/api/webhooks', { name: 'small-2', target_url: `${receiver.url}/s2`, method: 'POST', payload_template: {}, application_id: small.id });
    expect(second.status).toBe(422);
    expect(second.json).toMatchObject({ code: 'application_limit_reached', details: { field: 'application_id', max: 1 } });
    const global = await webhook('small-3', ['e.x']);
    expect((await admin('PUT', `/api/webhooks/${global.id}`, { application_id: small.id })).status).toBe(422);
  });

  it('holds events_per_second for the cluster (on the hand-moved clock)', async () => {
    const slow = await application({ name: 'Slow', limits: { events_per_second: 1 } });
    const first = await admin('POST', '/api/events', { event: 'e.y', application: slow.id });
    expect(first.status).toBe(202);
    const second = await admin('POST', '/api/events', { event: 'e.y', application: slow.id });
    expect(second.status).toBe(429);
    expect(second.json.code).toBe('application_rate_limited');
    expect(second.headers.get('retry-after')).toBe('1');
    // Others are not slowed by it.
    expect((await admin('POST', '/api/events', { event: 'e.y' })).status).toBe(202);
    await admin('PUT', '/api/_test/clock', { advance_ms: 1_100 });
    expect((await admin('POST', '/api/events', { event: 'e.y', application: slow.id })).status).toBe(202);
  });

  it('deleting one deletes its webhooks and their deliveries, and nothing of the others', async () => {
    const doomed = await application({ name: 'Doomed', uid: 'doomed' });
    const kept = await application({ name: 'Kept' });
    const d1 = await webhook('d1', ['gone.soon'], doomed.id);
    const k1 = await webhook('k1', ['gone.soon'], kept.id);
    const published = await admin('POST', '/api/events', { event: 'gone.soon', data: { n: 7 }, application: 'doomed' });
    const [deliveryId] = published.json.deliveries as string[];
    await until(async () => (await admin('GET', `/api/deliveries/${deliveryId}`)).json.status === 'succeeded', 'the delivery');
    await admin('POST', '/api/events', { event: 'gone.soon', data: { n: 8 }, application: kept.id });
    const del = await admin('DELETE', '/api/applications/doomed');
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ deleted: true, id: doomed.id });
    expect((await admin('GET', `/api/applications/${doomed.id}`)).status).toBe(404);
    expect((await admin('GET', `/api/webhooks/${d1.id}`)).status).toBe(404);
    expect((await admin('GET', `/api/deliveries/${deliveryId}`)).status).toBe(404);
    expect((await admin('GET', `/api/webhooks/${k1.id}`)).status).toBe(200);
    expect((await admin('GET', `/api/webhooks/${k1.id}/deliveries`)).json).toHaveLength(1);
    expect((await admin('POST', '/api/events', { event: 'gone.soon', application: 'doomed' })).status).toBe(404);
  });
});
