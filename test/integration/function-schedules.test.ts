/**
 * Function schedules over real HTTP with the hand-moved test clock: each slot
 * is one `schedule` invocation (the webhook slot claim, catch-up and DST rules),
 * the event is Switchyard's or EventBridge's scheduled event by event format,
 * and three server processes on one database fire each slot once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHoldingReceiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { sleep, until } from '../helpers/until.js';

const ENV = { SWITCHYARD_TEST_HOOKS: '1', SWITCHYARD_WORKERS: '1' };
const ECHO = 'export const handler = async (event) => ({ got: event.detail });';

let svc: RunningService;

async function setClock(iso: string, on: RunningService = svc) {
  const res = await on.request('PUT', '/api/_test/clock', { now: iso });
  expect(res.status).toBe(200);
}

async function invocations(name: string, on: RunningService = svc) {
  const res = await on.request('GET', `/api/functions/${name}/invocations?limit=1000`);
  expect(res.status, res.text).toBe(200);
  return res.json as Array<{ id: string; status: string; trigger: Record<string, unknown>; event: any; result: any; attempts: unknown[] }>;
}

async function slots(name: string, on: RunningService = svc): Promise<string[]> {
  return (await invocations(name, on)).map((i) => i.trigger.scheduled_for as string).sort();
}

beforeAll(async () => {
  svc = await startService({ env: ENV });
});

afterAll(async () => {
  await svc?.stop();
});

describe('function schedules', () => {
  it('runs a weekday 09:00 New York schedule once per slot, not on the weekend, across the DST change', async () => {
    // Friday 2026-03-06 08:00 EST; US clocks go forward on Sunday 2026-03-08.
    await setClock('2026-03-06T13:00:00.000Z');
    const created = await svc.request('POST', '/api/functions', {
      name: 'weekday',
      code: ECHO,
      schedules: [{ cron: '0 9 * * 1-5', timezone: 'America/New_York', payload: { report: 'daily' } }],
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.schedules).toEqual([{ cron: '0 9 * * 1-5', timezone: 'America/New_York', payload: { report: 'daily' } }]);

    await setClock('2026-03-06T13:59:59.000Z');
    await sleep(300);
    expect(await slots('weekday')).toEqual([]);

    await setClock('2026-03-06T14:00:00.000Z'); // Friday 09:00 EST
    await until(async () => (await slots('weekday')).length === 1, 'the Friday slot');
    const [friday] = await invocations('weekday');
    expect(friday.trigger).toEqual({
      type: 'schedule',
      cron: '0 9 * * 1-5',
      timezone: 'America/New_York',
      scheduled_for: '2026-03-06T14:00:00.000Z',
      schedule: 1,
    });
    expect(friday.event).toEqual({
      source: 'switchyard.schedule',
      'detail-type': 'Scheduled Event',
      time: '2026-03-06T14:00:00.000Z',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      detail: { report: 'daily' },
      trigger: friday.trigger,
    });
    const ran = await until(async () => (await invocations('weekday')).find((i) => i.status === 'succeeded'), 'the run');
    expect(ran.result).toEqual({ got: { report: 'daily' } });

    // The weekend, hour by hour at 09:00 local: nothing.
    for (const at of ['2026-03-07T14:00:00.000Z', '2026-03-08T13:00:00.000Z', '2026-03-08T14:00:00.000Z']) {
      await setClock(at);
      await sleep(250);
    }
    expect(await slots('weekday')).toEqual(['2026-03-06T14:00:00.000Z']);

    // Monday 09:00 is now EDT: 13:00 UTC, an hour earlier in UTC than on Friday.
    await setClock('2026-03-09T12:59:59.000Z');
    await sleep(250);
    await setClock('2026-03-09T13:00:00.000Z');
    await until(async () => (await slots('weekday')).length === 2, 'the Monday slot');
    // Time standing still at the slot fires nothing more.
    await setClock('2026-03-09T13:00:30.000Z');
    await sleep(250);
    expect(await slots('weekday')).toEqual(['2026-03-06T14:00:00.000Z', '2026-03-09T13:00:00.000Z']);
  });

  it('collapses slots missed while nothing ran into the latest one (the webhooks catch-up rule)', async () => {
    await setClock('2026-04-01T00:00:30.000Z');
    expect((await svc.request('POST', '/api/functions', { name: 'minutely', code: ECHO, schedules: [{ cron: '* * * * *' }] })).status).toBe(201);
    await setClock('2026-04-01T00:10:10.000Z');
    await until(async () => (await slots('minutely')).length === 1, 'the catch-up slot');
    await sleep(250);
    expect(await slots('minutely')).toEqual(['2026-04-01T00:10:00.000Z']);
  });

  it("prewarms: the first slot's run is served by an isolate built before the slot", async () => {
    await setClock('2026-05-04T10:00:20.000Z');
    // Date.now() in the isolate is the real clock; the hand-moved one only drives the scheduler.
    const created = await svc.request('POST', '/api/functions', {
      name: 'prewarmed',
      code: 'const bootedAt = Date.now(); export const handler = async () => ({ bootedAt });',
      schedules: [{ cron: '* * * * *', timezone: 'UTC' }],
    });
    expect(created.status, created.text).toBe(201);
    await setClock('2026-05-04T10:00:57.000Z'); // within the 15 s lead of 10:01
    await sleep(2000); // room for the worker to build the isolate (real time; the test clock stands still)
    const beforeSlot = Date.now();
    await setClock('2026-05-04T10:01:00.000Z');
    const ran = await until(async () => (await invocations('prewarmed')).find((i) => i.status === 'succeeded'), 'the first slot');
    expect(ran.trigger.scheduled_for).toBe('2026-05-04T10:01:00.000Z');
    // Built (top level run) before the slot was reached: without prewarm it would be built by this run.
    expect(ran.result.bootedAt).toBeLessThan(beforeSlot);
  });

  it("gives aws-v2 functions EventBridge's scheduled event", async () => {
    await setClock('2026-05-01T11:59:00.000Z');
    const res = await svc.request('POST', '/api/functions', {
      name: 'eb',
      code: ECHO,
      event_format: 'aws-v2',
      schedules: [{ cron: '0 * * * *' }, { cron: '0 12 * * *', timezone: 'Europe/Berlin', payload: { n: 2 } }],
    });
    expect(res.status, res.text).toBe(201);
    await setClock('2026-05-01T12:00:00.000Z');
    const [hourly] = await until(async () => {
      const list = await invocations('eb');
      return list.length === 1 ? list : null;
    }, 'the hourly slot');
    expect(hourly.event).toEqual({
      version: '0',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '123456789012',
      time: '2026-05-01T12:00:00Z',
      region: 'us-east-1',
      resources: ['arn:aws:events:us-east-1:123456789012:rule/eb-schedule-1'],
      detail: {},
    });
    // 12:00 in Berlin (CEST) is 10:00 UTC: the next day's.
    await setClock('2026-05-02T10:00:00.000Z');
    await until(async () => (await invocations('eb')).some((i) => i.trigger.schedule === 2), 'the Berlin slot');
    const berlin = (await invocations('eb')).find((i) => i.trigger.schedule === 2)!;
    expect(berlin.event).toMatchObject({ resources: ['arn:aws:events:us-east-1:123456789012:rule/eb-schedule-2'], detail: { n: 2 } });
  });

  it('stops firing when its schedules are removed', async () => {
    await setClock('2026-06-01T00:00:30.000Z');
    expect((await svc.request('POST', '/api/functions', { name: 'stopper', code: ECHO, schedules: [{ cron: '* * * * *' }] })).status).toBe(201);
    expect((await svc.request('PUT', '/api/functions/stopper', { schedules: null })).json.schedules).toEqual([]);
    await setClock('2026-06-01T00:05:00.000Z');
    await sleep(300);
    expect(await slots('stopper')).toEqual([]);
  });

  it('refuses a bad cron, a bad time zone and too many schedules, naming the field', async () => {
    const badCron = await svc.request('POST', '/api/functions', { name: 'bad', code: ECHO, schedules: [{ cron: '61 * * * *' }] });
    expect(badCron.status).toBe(400);
    expect(badCron.json.details).toEqual({ field: 'schedules[0].cron' });
    const badZone = await svc.request('POST', '/api/functions', {
      name: 'bad',
      code: ECHO,
      schedules: [{ cron: '* * * * *' }, { cron: '* * * * *', timezone: 'Mars/Base' }],
    });
    expect(badZone.status).toBe(400);
    expect(badZone.json.details).toEqual({ field: 'schedules[1].timezone' });
    const many = await svc.request('POST', '/api/functions', {
      name: 'bad',
      code: ECHO,
      schedules: Array.from({ length: 21 }, () => ({ cron: '* * * * *' })),
    });
    expect(many.status).toBe(400);
    expect((await svc.request('GET', '/api/functions/bad')).status).toBe(404);
  });
});

// Three servers started and driven slot by slot: on a loaded 2-core machine more than vitest's default 30 s.
describe('three processes on one database', () => {
  it('fire each slot of a function schedule exactly once', async () => {
    const a = await startService({ env: ENV });
    const [b, c] = await Promise.all([startService({ env: ENV, dbUrl: a.dbUrl }), startService({ env: ENV, dbUrl: a.dbUrl })]);
    try {
      const start = '2026-07-01T10:00:30.000Z';
      for (const node of [a, b, c]) await setClock(start, node);
      for (let i = 0; i < 5; i++) {
        const res = await a.request('POST', '/api/functions', { name: `tick${i}`, code: ECHO, schedules: [{ cron: '* * * * *' }] });
        expect(res.status).toBe(201);
      }
      for (let minute = 1; minute <= 3; minute++) {
        const at = new Date(Date.parse(start) + minute * 60_000).toISOString();
        // All nodes reach the slot at the same moment.
        await Promise.all([setClock(at, a), setClock(at, b), setClock(at, c)]);
        for (let i = 0; i < 5; i++) {
          await until(async () => (await slots(`tick${i}`, a)).length === minute, `slot ${minute} of tick${i}`);
        }
      }
      await sleep(500);
      for (let i = 0; i < 5; i++) {
        expect(await slots(`tick${i}`, b)).toEqual([
          '2026-07-01T10:01:00.000Z',
          '2026-07-01T10:02:00.000Z',
          '2026-07-01T10:03:00.000Z',
        ]);
      }
    } finally {
      await Promise.all([a.stop(), b.stop(), c.stop()]);
    }
  }, 90_000);

  it('run a weekday 09:00 New York schedule once per slot across the DST change, not on the weekend', async () => {
    const a = await startService({ env: ENV });
    const [b, c] = await Promise.all([startService({ env: ENV, dbUrl: a.dbUrl }), startService({ env: ENV, dbUrl: a.dbUrl })]);
    const all = (at: string) => Promise.all([a, b, c].map((node) => setClock(at, node)));
    try {
      await all('2026-03-06T13:00:00.000Z'); // Friday 08:00 EST
      const created = await b.request('POST', '/api/functions', {
        name: 'weekday3',
        code: ECHO,
        schedules: [{ cron: '0 9 * * 1-5', timezone: 'America/New_York' }],
      });
      expect(created.status, created.text).toBe(201);
      // Friday 09:00 EST, the weekend at 09:00 local (EST, then EDT from Sunday), Monday 09:00 EDT.
      for (const at of ['2026-03-06T14:00:00.000Z', '2026-03-07T14:00:00.000Z', '2026-03-08T13:00:00.000Z', '2026-03-08T14:00:00.000Z', '2026-03-09T13:00:00.000Z']) {
        await all(at);
        await sleep(300);
      }
      await until(async () => (await slots('weekday3', c)).length === 2, 'the Friday and Monday slots');
      await sleep(500);
      expect(await slots('weekday3', a)).toEqual(['2026-03-06T14:00:00.000Z', '2026-03-09T13:00:00.000Z']);
    } finally {
      await Promise.all([a.stop(), b.stop(), c.stop()]);
    }
  }, 90_000);
});

describe('a node killed mid-run', () => {
  it('loses nothing: the scheduled run is taken over by the next process on the database', async () => {
    const target = await startHoldingReceiver();
    const env = { ...ENV, SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' };
    const a = await startService({ env });
    let b: RunningService | undefined;
    try {
      await setClock('2026-08-01T10:00:30.000Z', a);
      const code = `export const handler = async (event) => {
        const res = await fetch('${target.url}/run/' + event.id);
        return { status: res.status, slot: event.time };
      };`;
      expect((await a.request('POST', '/api/functions', { name: 'held', code, schedules: [{ cron: '* * * * *' }] })).status).toBe(201);
      await setClock('2026-08-01T10:01:00.000Z', a);
      // The run is in the middle of its fetch when the node dies.
      await until(() => target.requests.length === 1, 'the run on the first node');
      const [slotRun] = await invocations('held', a);
      expect(slotRun).toMatchObject({ status: 'pending', attempts: [] });
      await a.stop('SIGKILL');

      target.release();
      b = await startService({ env, dbUrl: a.dbUrl });
      const done = await until(async () => {
        const inv = (await invocations('held', b)).find((i) => i.id === slotRun.id);
        return inv?.status === 'succeeded' ? inv : null;
      }, 'the run taken over');
      expect(done.result).toEqual({ status: 200, slot: '2026-08-01T10:01:00.000Z' });
      expect(done.attempts).toHaveLength(1);
      // At least once: the same event ran twice, the second time to completion.
      expect(target.requests.filter((r) => r.url === `/run/${slotRun.event.id}`)).toHaveLength(2);
      const ofSlot = (await invocations('held', b)).filter((i) => i.trigger.scheduled_for === '2026-08-01T10:01:00.000Z');
      expect(ofSlot).toHaveLength(1);
    } finally {
      await a.stop('SIGKILL');
      await b?.stop();
      await target.close();
    }
  });
});
