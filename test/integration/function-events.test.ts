/**
 * Functions subscribed to events over real HTTP: `POST /api/events` and a
 * function's `emit()` reach subscribed functions as well as webhooks, each as
 * an `event` invocation of the one pipeline; a function that emits the event
 * it subscribes to stops after 16 hops, its last run recorded as failed and
 * `switchyard.function.loop_stopped` published.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { sleep, until } from '../helpers/until.js';

const ENV = { SWITCHYARD_TEST_HOOKS: '1', SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' };
const ECHO = 'export const handler = async (event) => ({ got: event.detail });';

let svc: RunningService;
let receiver: Receiver;

async function deploy(name: string, code: string, extra: Record<string, unknown> = {}) {
  const res = await svc.request('POST', '/api/functions', { name, code, ...extra });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

async function invocations(name: string) {
  const res = await svc.request('GET', `/api/functions/${name}/invocations?limit=1000`);
  expect(res.status, res.text).toBe(200);
  return res.json as Array<{ id: string; status: string; trigger: Record<string, unknown>; event: any; result: any; attempts: any[]; error: string | null }>;
}

beforeAll(async () => {
  svc = await startService({ env: ENV });
  receiver = await startReceiver();
});

afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
});

describe('function event subscriptions', () => {
  it('an event reaches subscribed functions and webhooks alike, and the answer lists both', async () => {
    await deploy('on-order', ECHO, { events: ['order.created'] });
    await deploy('on-anything', ECHO, { events: ['*'] });
    await deploy('on-other', ECHO, { events: ['order.paid'] });
    await deploy('eb-order', ECHO, { events: ['order.created'], event_format: 'aws-v1' });
    const hook = await svc.request('POST', '/api/webhooks', {
      name: 'orders',
      target_url: receiver.url + '/orders',
      method: 'POST',
      payload_template: { data: {} },
      events: ['order.created'],
    });
    expect(hook.status).toBe(201);

    const res = await svc.request('POST', '/api/events', { event: 'order.created', data: { id: 42 } });
    expect(res.status).toBe(202);
    expect(res.json.event).toBe('order.created');
    expect(res.json.deliveries).toHaveLength(1);
    expect(res.json.functions.map((f: { name: string }) => f.name).sort()).toEqual(['eb-order', 'on-anything', 'on-order']);

    const reached = res.json.functions.find((f: { name: string }) => f.name === 'on-order');
    const done = await until(async () => {
      const inv = (await invocations('on-order')).find((i) => i.id === reached.invocation_id);
      return inv?.status === 'succeeded' ? inv : null;
    }, 'the subscribed function');
    expect(done.trigger).toEqual({ type: 'event', event: 'order.created', event_id: expect.any(String), depth: 0 });
    expect(done.event).toEqual({
      source: 'switchyard.event',
      'detail-type': 'order.created',
      id: done.trigger.event_id,
      time: expect.any(String),
      detail: { id: 42 },
    });
    expect(done.result).toEqual({ got: { id: 42 } });

    const [eb] = await invocations('eb-order');
    expect(eb.event).toEqual({
      version: '0',
      id: done.trigger.event_id,
      'detail-type': 'order.created',
      source: 'switchyard',
      account: '123456789012',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      region: 'us-east-1',
      resources: [],
      detail: { id: 42 },
    });
    await until(() => receiver.requests.find((r) => r.url === '/orders'), 'the webhook delivery');
    expect(await invocations('on-other')).toEqual([]);
  });

  it("a function's emit reaches subscribed functions", async () => {
    await deploy('emitter', "export const handler = async () => { emit('audit.entry', { by: 'emitter' }); return 'sent'; };");
    await deploy('auditor', ECHO, { events: ['audit.entry'] });
    expect((await svc.request('POST', '/api/functions/emitter/invoke', {})).status).toBe(200);
    const done = await until(async () => (await invocations('auditor')).find((i) => i.status === 'succeeded'), 'the auditor run');
    expect(done.result).toEqual({ got: { by: 'emitter' } });
    expect(done.trigger).toMatchObject({ type: 'event', event: 'audit.entry', depth: 1 });
  });

  it('refuses bad event names, naming the field', async () => {
    const res = await svc.request('POST', '/api/functions', { name: 'bad', code: ECHO, events: ['no spaces'] });
    expect(res.status).toBe(400);
    expect(res.json.details).toEqual({ field: 'events' });
  });

  it('stops a function that emits the event it subscribes to after 16 hops', async () => {
    const hook = await svc.request('POST', '/api/webhooks', {
      name: 'loops',
      target_url: receiver.url + '/loops',
      method: 'POST',
      payload_template: { data: {} },
      events: ['switchyard.function.loop_stopped'],
    });
    expect(hook.status).toBe(201);
    await deploy('looper', "export const handler = async (event) => { emit('ping', { n: (event.detail.n ?? 0) + 1 }); return event.detail.n ?? 0; };", {
      events: ['ping'],
    });
    expect((await svc.request('POST', '/api/events', { event: 'ping', data: { n: 0 } })).status).toBe(202);

    const stopped = await until(async () => (await invocations('looper')).find((i) => i.status === 'failed'), 'the stopped run', 30_000);
    expect(stopped.trigger.depth).toBe(16);
    expect(stopped.attempts).toHaveLength(1);
    expect(stopped.attempts[0].outcome).toBe('loop_stopped');
    expect(stopped.error).toContain('16 hops');

    const notice = await until(() => receiver.requests.find((r) => r.url === '/loops'), 'the loop_stopped event');
    expect(JSON.parse(notice.body).data).toMatchObject({
      function: 'looper',
      invocation_ids: [stopped.id],
      event: 'ping',
      depth: 17,
      max_hops: 16,
    });

    await sleep(500);
    const all = await invocations('looper');
    expect(all).toHaveLength(17);
    expect(all.filter((i) => i.status === 'succeeded')).toHaveLength(16);
    expect(all.map((i) => i.trigger.depth).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 17 }, (_, i) => i));
  });
});
