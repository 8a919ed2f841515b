/**
 * One hop count for every kind of trigger (src/hops.ts): a chain that mixes
 * kinds (an event runs A, A's on-success destination runs B, B emits the
 * event again; a webhook aimed at one of this server's own routes, whose
 * function emits the webhook's event) stops at 16 hops like a chain of one
 * kind, and `switchyard.function.loop_stopped` is published. Each guard that
 * counted only its own kind let these run forever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { sleep, until } from '../helpers/until.js';

const ENV = { SWITCHYARD_TEST_HOOKS: '1', SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' };

let svc: RunningService;
let receiver: Receiver;

async function deploy(name: string, code: string, extra: Record<string, unknown> = {}) {
  const res = await svc.request('POST', '/api/functions', { name, code, ...extra });
  expect(res.status, res.text).toBe(201);
}

async function invocations(name: string) {
  const res = await svc.request('GET', `/api/functions/${name}/invocations?limit=1000`);
  expect(res.status, res.text).toBe(200);
  return res.json as Array<{ id: string; status: string; trigger: { type: string; depth?: number }; attempts: Array<{ outcome: string }> }>;
}

/** The loop_stopped events the receiver got for `fn`. */
const stopsOf = (fn: string) =>
  receiver.requests.filter((r) => r.url === '/stops').map((r) => JSON.parse(r.body).data).filter((d) => d.function === fn);

/** Waits until `count()` stops changing for a second (the chain ended), and returns it. */
async function settledCount(count: () => Promise<number>): Promise<number> {
  let last = -1;
  for (;;) {
    const now = await count();
    if (now === last) return now;
    last = now;
    await sleep(1000);
  }
}

beforeAll(async () => {
  svc = await startService({ env: ENV });
  receiver = await startReceiver();
  const hook = await svc.request('POST', '/api/webhooks', {
    name: 'stops',
    target_url: receiver.url + '/stops',
    method: 'POST',
    payload_template: { data: {} },
    events: ['switchyard.function.loop_stopped'],
  });
  expect(hook.status, hook.text).toBe(201);
});

afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
});

describe('one hop count across trigger kinds', () => {
  it('stops event -> destination -> emit -> event ... at 16 hops', async () => {
    await deploy('mix-b', "export const handler = async () => { emit('mix.ping', {}); return 'b'; };");
    await deploy('mix-a', "export const handler = async () => 'a';", {
      events: ['mix.ping'],
      async: { on_success: { type: 'function', name: 'mix-b' } },
    });
    expect((await svc.request('POST', '/api/events', { event: 'mix.ping', data: {} })).status).toBe(202);

    await until(() => stopsOf('mix-a').length > 0, 'the loop_stopped event', 60_000);
    const total = await settledCount(async () => (await invocations('mix-a')).length + (await invocations('mix-b')).length);
    const a = await invocations('mix-a');
    const b = await invocations('mix-b');
    // A at depths 0, 2, ..., 16 (by the event), B at 1, 3, ..., 15 (by A's record); A at 16 would hand B hop 17.
    expect(a.map((i) => i.trigger.depth ?? 0).sort((x, y) => x - y)).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16]);
    expect(b.map((i) => i.trigger.depth).sort((x, y) => Number(x) - Number(y))).toEqual([1, 3, 5, 7, 9, 11, 13, 15]);
    expect(total).toBe(17);
    expect(stopsOf('mix-a')[0]).toMatchObject({ destination: { type: 'function', name: 'mix-b' }, depth: 17, max_hops: 16 });
  }, 90_000);

  it("stops a webhook aimed at one of this server's routes whose function emits the webhook's event", async () => {
    await deploy('relay', "export const handler = async () => { emit('relay.ping', {}); return { statusCode: 200, body: { ok: true } }; };");
    const api = await svc.request('POST', '/api/apis', { name: 'relay', basePath: '/relay', routes: [{ method: 'POST', path: '/', function: 'relay' }] });
    expect(api.status, api.text).toBe(201);
    const hook = await svc.request('POST', '/api/webhooks', {
      name: 'relay',
      target_url: `${svc.url}/api/invoke/fn/${api.json.id}/relay`,
      method: 'POST',
      payload_template: { data: {} },
      events: ['relay.ping'],
    });
    expect(hook.status, hook.text).toBe(201);
    expect((await svc.request('POST', '/api/events', { event: 'relay.ping', data: {} })).status).toBe(202);

    await until(() => stopsOf('relay').length > 0, 'the loop_stopped event', 60_000);
    const deliveries = async () => (await svc.request('GET', `/api/webhooks/${hook.json.id}/deliveries?limit=100`)).json as Array<{ status: string }>;
    // Deliveries at depths 0 to 16: the run of the 17th emits hop 17, which is refused.
    expect(await settledCount(async () => (await deliveries()).length)).toBe(17);
    expect((await deliveries()).every((d) => d.status === 'succeeded')).toBe(true);
    expect(stopsOf('relay')[0]).toMatchObject({ event: 'relay.ping', depth: 17, max_hops: 16 });
  }, 90_000);

  it('sends the hop count with a webhook delivery that is part of a chain, and never a configured one', async () => {
    await deploy('chained', "export const handler = async () => { emit('chain.out', { n: 1 }); return 'sent'; };");
    const hook = await svc.request('POST', '/api/webhooks', {
      name: 'chain-out',
      target_url: receiver.url + '/chain-out',
      method: 'POST',
      headers: { 'Switchyard-Depth': '0' },
      payload_template: { data: {} },
      events: ['chain.out'],
    });
    expect(hook.status, hook.text).toBe(201);
    expect((await svc.request('POST', '/api/functions/chained/invoke', {}, { 'switchyard-depth': '5' })).status).toBe(200);
    const got = await until(() => receiver.requests.find((r) => r.url === '/chain-out'), 'the delivery');
    expect(got.headers['switchyard-depth']).toBe('6');
  });

  it('refuses a request past the bound with 508 loop_stopped, and a malformed hop count with 400', async () => {
    await deploy('plain', "export const handler = async () => ({ statusCode: 200, body: 'ok' });");
    const api = await svc.request('POST', '/api/apis', { name: 'plain', basePath: '/plain', routes: [{ method: 'GET', path: '/', function: 'plain' }] });
    const path = `/api/invoke/fn/${api.json.id}/plain`;
    expect((await svc.request('GET', path, undefined, { 'switchyard-depth': '16' })).status).toBe(200);
    const past = await svc.request('GET', path, undefined, { 'switchyard-depth': '17' });
    expect(past.status).toBe(508);
    expect(past.json).toMatchObject({ code: 'loop_stopped', details: { depth: 17, max_hops: 16 } });
    const bad = await svc.request('GET', path, undefined, { 'switchyard-depth': 'x' });
    expect(bad.status).toBe(400);
    expect(bad.json.details).toEqual({ field: 'Switchyard-Depth' });
    const invoke = await svc.request('POST', '/api/functions/plain/invoke', {}, { 'switchyard-depth': '17' });
    expect(invoke.status).toBe(508);
    const publish = await svc.request('POST', '/api/events', { event: 'x.y', data: {} }, { 'switchyard-depth': '16' });
    expect(publish.status).toBe(508);
    expect(publish.json.code).toBe('loop_stopped');
  });
});
