/**
 * Idempotency-Key and event ids over real HTTP: repeats answer the first
 * answer with `Idempotent-Replayed: true` and make nothing new (counted at a
 * real receiver and in the stored deliveries and invocations), another body is
 * 409, the window ends on the hand-moved test clock, and identical publishes in
 * parallel across two nodes of two processes each make one event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killLeftoverClis, runCliToEnd } from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, tempDbUrl, type HttpAnswer, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const ENV = { SWITCHYARD_TEST_HOOKS: '1', SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' };
const KEY = 'idempotency-key';
const REPLAYED = 'idempotent-replayed';

let svc: RunningService;
let receiver: Receiver;
const others: RunningService[] = [];

const arrived = (path: string) => receiver.requests.filter((r) => r.url === path);

async function webhook(on: RunningService, name: string, events: string[]) {
  const res = await on.request('POST', '/api/webhooks', {
    name,
    target_url: `${receiver.url}/${name}`,
    method: 'POST',
    payload_template: { n: '{{data.n}}' },
    events,
    retry: { max_attempts: 1 },
  });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string };
}

const publish = (body: unknown, key?: string, on: RunningService = svc) =>
  on.request('POST', '/api/events', body, key === undefined ? {} : { [KEY]: key });

async function deliveriesOf(id: string, on: RunningService = svc): Promise<Array<{ id: string }>> {
  const res = await on.request('GET', `/api/webhooks/${id}/deliveries?limit=100`);
  expect(res.status).toBe(200);
  return res.json;
}

/** A later publish reaching the receiver shows that whatever the repeats would have sent had its chance to arrive. */
async function drained(name: string, event: string) {
  const before = arrived(`/${name}`).length;
  expect((await publish({ event, data: { n: 'sentinel' } })).status).toBe(202);
  await until(() => arrived(`/${name}`).length > before, `the sentinel of ${name}`);
}

const expectReplayOf = (again: HttpAnswer, first: HttpAnswer) => {
  expect(again.status, again.text).toBe(first.status);
  expect(again.json).toEqual(first.json);
  expect(again.headers.get(REPLAYED)).toBe('true');
  expect(first.headers.get(REPLAYED)).toBeNull();
};

beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startService({ env: ENV });
});

afterAll(async () => {
  killLeftoverClis();
  for (const s of [svc, ...others]) await s?.stop().catch(() => undefined);
  await receiver?.close();
});

describe('Idempotency-Key on POST /api/events', () => {
  it('answers a repeat with the first answer, the replay header, and no second delivery', async () => {
    const hook = await webhook(svc, 'orders', ['order.created']);
    const first = await publish({ event: 'order.created', data: { n: 1 } }, 'order-1');
    expect(first.status, first.text).toBe(202);
    expect(first.json.id).toMatch(/^evt_/);
    expect(first.json.deliveries).toHaveLength(1);
    // Another key order is the same body (canonical JSON).
    const again = await publish({ data: { n: 1 }, event: 'order.created' }, 'order-1');
    expectReplayOf(again, first);
    await drained('orders', 'order.created');
    expect(arrived('/orders').filter((r) => JSON.parse(r.body).n === 1)).toHaveLength(1);
    expect((await deliveriesOf(hook.id)).map((d) => d.id)).toEqual(expect.arrayContaining(first.json.deliveries));
    expect(await deliveriesOf(hook.id)).toHaveLength(2); // the first and the sentinel
  });

  it('refuses the key with another body: 409 idempotency_key_reused naming the header', async () => {
    expect((await publish({ event: 'order.created', data: { n: 2 } }, 'order-2')).status).toBe(202);
    const other = await publish({ event: 'order.created', data: { n: 3 } }, 'order-2');
    expect(other.status).toBe(409);
    expect(other.json).toMatchObject({ code: 'idempotency_key_reused', details: { field: 'Idempotency-Key' } });
    expect(other.json.error).toContain('Idempotency-Key');
  });

  it('forgets a key at the end of the window (test clock), not before', async () => {
    const first = await publish({ event: 'window.test', data: null }, 'window-1');
    expect(first.status).toBe(202);
    await svc.request('PUT', '/api/_test/clock', { advance_ms: 86_400_000 - 60_000 });
    expectReplayOf(await publish({ event: 'window.test', data: null }, 'window-1'), first);
    await svc.request('PUT', '/api/_test/clock', { advance_ms: 60_000 });
    const after = await publish({ event: 'window.test', data: null }, 'window-1');
    expect(after.status).toBe(202);
    expect(after.headers.get(REPLAYED)).toBeNull();
    expect(after.json.id).not.toBe(first.json.id);
  });

  it('refuses keys that are not 1 to 255 printable ASCII characters with a 400 naming the header', async () => {
    for (const bad of ['x'.repeat(256), 'tab\there']) {
      const res = await publish({ event: 'order.created' }, bad);
      expect(res.status, bad).toBe(400);
      expect(res.json).toMatchObject({ code: 'invalid_request', details: { field: 'Idempotency-Key' } });
    }
    expect((await publish({ event: 'order.created' }, 'x'.repeat(255))).status).toBe(202);
  });
});

describe("an event's own id", () => {
  it('makes a repeat of the id a replay, with or without a key, and another body a 409 naming id', async () => {
    const hook = await webhook(svc, 'owned', ['owned.event']);
    const first = await publish({ id: 'msg-0001', event: 'owned.event', data: { n: 'own' } });
    expect(first.status, first.text).toBe(202);
    expect(first.json.id).toBe('msg-0001');
    expectReplayOf(await publish({ id: 'msg-0001', event: 'owned.event', data: { n: 'own' } }), first);
    expectReplayOf(await publish({ id: 'msg-0001', event: 'owned.event', data: { n: 'own' } }, 'fresh-key'), first);
    const other = await publish({ id: 'msg-0001', event: 'owned.event', data: { n: 'changed' } });
    expect(other.status).toBe(409);
    expect(other.json).toMatchObject({ code: 'idempotency_key_reused', details: { field: 'id' } });
    await drained('owned', 'owned.event');
    expect(arrived('/owned').filter((r) => JSON.parse(r.body).n === 'own')).toHaveLength(1);
    expect(await deliveriesOf(hook.id)).toHaveLength(2);
  });
});

describe('Idempotency-Key on test-fire and background invokes', () => {
  it('test-fires once per key', async () => {
    const hook = await webhook(svc, 'fired', []);
    const first = await svc.request('POST', `/api/webhooks/${hook.id}/test`, undefined, { [KEY]: 'fire-1' });
    expect(first.status, first.text).toBe(200);
    expectReplayOf(await svc.request('POST', `/api/webhooks/${hook.id}/test`, undefined, { [KEY]: 'fire-1' }), first);
    expect(arrived('/fired')).toHaveLength(1);
    // The scope is the webhook's: the same key on another webhook fires that one.
    const second = await webhook(svc, 'fired2', []);
    expect((await svc.request('POST', `/api/webhooks/${second.id}/test`, undefined, { [KEY]: 'fire-1' })).headers.get(REPLAYED)).toBeNull();
  });

  it('queues one background invocation per key, and replays a 4xx as it was', async () => {
    const EVENT = { 'x-invocation-type': 'Event' };
    const missing = await svc.request('POST', '/api/functions/later/invoke', { tag: 'a' }, { ...EVENT, [KEY]: 'inv-1' });
    expect(missing.status).toBe(404);
    const code = 'export const handler = async (event) => ({ tag: event.tag });';
    expect((await svc.request('POST', '/api/functions', { name: 'later', code })).status).toBe(201);
    // A 4xx is the key's answer for the window, as Stripe's keys are: the same request would fail again.
    expectReplayOf(await svc.request('POST', '/api/functions/later/invoke', { tag: 'a' }, { ...EVENT, [KEY]: 'inv-1' }), missing);
    const first = await svc.request('POST', '/api/functions/later/invoke', { tag: 'b' }, { ...EVENT, [KEY]: 'inv-2' });
    expect(first.status, first.text).toBe(202);
    expectReplayOf(await svc.request('POST', '/api/functions/later/invoke', { tag: 'b' }, { ...EVENT, [KEY]: 'inv-2' }), first);
    const list = await svc.request('GET', '/api/functions/later/invocations');
    expect(list.status, list.text).toBe(200);
    expect((list.json as Array<{ id: string }>).map((i) => i.id)).toEqual([first.json.invocation_id]);
  });
});

describe('switchyard events publish --idempotency-key', () => {
  it('publishes once and marks the repeat as a replay', async () => {
    const hook = await webhook(svc, 'clipub', ['cli.published']);
    const args = ['events', 'publish', 'cli.published', '--data', '{"n":"cli"}', '--idempotency-key', 'cli-1', '--json'];
    const first = await runCliToEnd(args, { SWITCHYARD_URL: svc.url }, 30_000);
    expect(first.code, first.stderr).toBe(0);
    const again = await runCliToEnd(args, { SWITCHYARD_URL: svc.url }, 30_000);
    expect(again.code, again.stderr).toBe(0);
    const [a, b] = [JSON.parse(first.stdout), JSON.parse(again.stdout)];
    expect(a.replayed).toBe(false);
    expect(b).toEqual({ ...a, replayed: true });
    expect(a.deliveries).toHaveLength(1);
    const plain = await runCliToEnd(['events', 'publish', 'cli.published', '--id', 'cli-own', '--data', '{"n":"own"}'], { SWITCHYARD_URL: svc.url }, 30_000);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toBe('cli-own\n');
    expect(plain.stderr).toContain('1 webhook delivery');
    expect(await deliveriesOf(hook.id)).toHaveLength(2);
  });
});

describe('identical publishes in parallel over two nodes of two processes each', () => {
  const N = 1000;
  it(`makes one event and one delivery per webhook out of ${N}`, async () => {
    const dbUrl = tempDbUrl();
    const env = { ...ENV, SWITCHYARD_TEST_HOOKS: '0', SWITCHYARD_PROCESSES: '2' };
    const a = await startService({ env, dbUrl, startTimeoutMs: 60_000 });
    others.push(a);
    const b = await startService({ env, dbUrl, startTimeoutMs: 60_000 });
    others.push(b);
    const hooks = [await webhook(a, 'race1', ['race.event']), await webhook(a, 'race2', ['race.event'])];
    const body = { event: 'race.event', data: { n: 'race' } };
    const answers = await Promise.all(Array.from({ length: N }, (_, i) => publish(body, 'race-key', i % 2 ? a : b)));
    // Each answer is the first one, its replay, or (while the first still runs) 409 in progress.
    const firsts = answers.filter((r) => r.status === 202 && r.headers.get(REPLAYED) === null);
    expect(firsts).toHaveLength(1);
    for (const r of answers) {
      if (r.status === 202) expect(r.json).toEqual(firsts[0].json);
      else expect(r.json.code, r.text).toBe('idempotency_key_in_progress');
    }
    for (const hook of hooks) expect(await deliveriesOf(hook.id, a)).toHaveLength(1);
    await until(() => arrived('/race1').length === 1 && arrived('/race2').length === 1, 'the two deliveries');
    // Another key's publish arriving at both shows nothing more was on its way.
    expect((await publish({ event: 'race.event', data: { n: 'after' } }, 'other', a)).status).toBe(202);
    await until(() => arrived('/race1').length === 2 && arrived('/race2').length === 2, 'the sentinel deliveries');
  }, 120_000);
});
