/**
 * The scheduler against a real SQLite store and a ManualClock: one delivery
 * per slot, none early, none twice across two processes' worth of schedulers
 * on one database file, catch-up to the latest missed slot only.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { HEALTH_FIELDS } from '../helpers/webhook-fixture.js';
import { ManualClock } from '../../src/clock.js';
import { Scheduler, firstFire } from '../../src/scheduler/scheduler.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/store.js';
import type { Delivery } from '../../src/deliveries/types.js';
import type { NewWebhook, Webhook } from '../../src/webhooks/types.js';
import { backends, removeTempDatabases } from '../helpers/store-backends.js';

const MIN = 60_000;
const START = Date.parse('2026-01-05T10:00:30Z');
const iso = (ms: number) => new Date(ms).toISOString();
const quietLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

function webhookFields(clock: ManualClock, over: Partial<NewWebhook> = {}): NewWebhook {
  const cron = over.cron === undefined ? '* * * * *' : over.cron;
  const timezone = over.timezone ?? 'UTC';
  const enabled = over.enabled ?? true;
  return {
    name: 'tick',
    targetUrl: 'https://example.com/hook',
    method: 'POST',
    headers: {},
    payloadTemplate: { at: '{{timestamp}}' },
    cron,
    timezone,
    mockEndpoint: null,
    events: [],
    enabled,
    secret: null,
    retry: { maxAttempts: 8, scheduleS: null },
    timeoutMs: 15000,
    nextFireAt: firstFire(cron, timezone, enabled, clock.now()),
    ...HEALTH_FIELDS,
    ...over,
  };
}

async function scheduledFor(store: Store, webhookId: string): Promise<string[]> {
  const list = await store.listDeliveries(webhookId, { limit: 1000 });
  return list.map((d) => d.scheduledFor!).sort();
}

describe('firstFire', () => {
  it('is the first slot after now, or null when disabled or without cron', () => {
    expect(firstFire('*/15 * * * *', 'UTC', true, START)).toBe('2026-01-05T10:15:00.000Z');
    expect(firstFire('0 9 * * *', 'Asia/Kolkata', true, START)).toBe('2026-01-06T03:30:00.000Z');
    expect(firstFire('*/15 * * * *', 'UTC', false, START)).toBeNull();
    expect(firstFire(null, 'UTC', true, START)).toBeNull();
  });
  it('refuses an invalid cron', () => {
    expect(() => firstFire('0 0 31 2 *', 'UTC', true, START)).toThrow(/^cron: never fires/);
  });
});

for (const backend of backends()) {
  describe(`scheduler on ${backend.name}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });
    afterAll(() => removeTempDatabases());

    async function setup(url?: string, batch?: number) {
      const clock = new ManualClock(START);
      const store = url ? await openStore(url) : await backend.open();
      const claimed: Delivery[] = [];
      const lateness: number[] = [];
      const due: Webhook[] = [];
      const scheduler = new Scheduler({
        store,
        clock,
        log: quietLog,
        onClaimed: (d) => claimed.push(d),
        onDue: (w) => due.push(w),
        lateness: { observe: (s) => lateness.push(s) },
        batch,
        // Every batch gets its turn of the event loop, however fast the database.
        claimSliceMs: 0,
      });
      cleanups.push(async () => {
        await scheduler.stop();
        await store.close();
      });
      return { clock, store, scheduler, claimed, lateness, due };
    }

    it('fires an every-minute webhook once per slot, never early', async () => {
      const { clock, store, scheduler, claimed, lateness } = await setup();
      const hook = await store.createWebhook(webhookFields(clock));
      expect(hook.nextFireAt).toBe('2026-01-05T10:01:00.000Z');

      expect(await scheduler.tick()).toBe(0); // 10:00:30, before the first slot
      clock.advance(29_000);
      expect(await scheduler.tick()).toBe(0); // 10:00:59
      for (let i = 1; i <= 10; i++) {
        clock.set(START - 30_000 + i * MIN + 2_000); // 2 s after slot i
        expect(await scheduler.tick()).toBe(1);
        expect(await scheduler.tick()).toBe(0); // the same slot is not fired again
      }
      const expected = Array.from({ length: 10 }, (_, i) => iso(START - 30_000 + (i + 1) * MIN));
      expect(await scheduledFor(store, hook.id)).toEqual(expected);
      expect(claimed.map((d) => d.scheduledFor)).toEqual(expected);
      expect(claimed.every((d) => d.trigger === 'schedule' && d.status === 'pending' && d.webhookId === hook.id)).toBe(true);
      expect(lateness).toEqual(Array(10).fill(2));
      expect((await store.getWebhook(hook.id))!.nextFireAt).toBe('2026-01-05T10:11:00.000Z');
    });

    it('hands each due webhook, as its claim read it, to onDue (the engine keeps it for the first attempt)', async () => {
      const { clock, store, scheduler, due } = await setup();
      const hook = await store.createWebhook(webhookFields(clock));
      clock.advance(MIN);
      expect(await scheduler.tick()).toBe(1);
      expect(due.map((w) => [w.id, w.targetUrl])).toEqual([[hook.id, hook.targetUrl]]);
    });

    it('catch-up: after a 10-minute jump only the latest missed slot fires', async () => {
      const { clock, store, scheduler, claimed } = await setup();
      const hook = await store.createWebhook(webhookFields(clock));
      clock.advance(10 * MIN); // 10:10:30; slots 10:01 .. 10:10 were missed
      expect(await scheduler.tick()).toBe(1);
      expect(await scheduledFor(store, hook.id)).toEqual(['2026-01-05T10:10:00.000Z']);
      expect(claimed[0]!.nextAttemptAt).toBe(iso(clock.now()));
      expect((await store.getWebhook(hook.id))!.nextFireAt).toBe('2026-01-05T10:11:00.000Z');
    });

    it('a disabled webhook does not fire', async () => {
      const { clock, store, scheduler } = await setup();
      const off = await store.createWebhook(webhookFields(clock, { enabled: false }));
      const on = await store.createWebhook(webhookFields(clock));
      expect(off.nextFireAt).toBeNull();
      clock.advance(5 * MIN);
      expect(await scheduler.tick()).toBe(1);
      // Disabled after being scheduled: its stored slot is ignored too.
      await store.updateWebhook(on.id, { enabled: false });
      clock.advance(5 * MIN);
      expect(await scheduler.tick()).toBe(0);
      expect(await scheduledFor(store, off.id)).toEqual([]);
      expect(await scheduledFor(store, on.id)).toHaveLength(1);
    });

    it('two schedulers on two connections to one database fire each slot exactly once', async () => {
      const url = await backend.freshUrl();
      const a = await setup(url);
      const b = await setup(url);
      const hooks = [];
      for (let i = 0; i < 6; i++) {
        hooks.push(await a.store.createWebhook(webhookFields(a.clock, { cron: i % 2 ? '*/2 * * * *' : '* * * * *' })));
      }
      let fired = 0;
      for (let i = 1; i <= 10; i++) {
        a.clock.set(START + i * MIN);
        b.clock.set(START + i * MIN);
        const [x, y] = await Promise.all([a.scheduler.tick(), b.scheduler.tick(), b.scheduler.tick(), a.scheduler.tick()]);
        fired += x! + y!;
      }
      // 3 every-minute webhooks x 10 slots + 3 every-2-minutes x 5 slots.
      expect(fired).toBe(45);
      expect(a.claimed.length + b.claimed.length).toBe(45);
      for (const [i, hook] of hooks.entries()) {
        const slots = await scheduledFor(a.store, hook.id);
        expect(new Set(slots).size).toBe(slots.length);
        expect(slots).toHaveLength(i % 2 ? 5 : 10);
      }
    });

    it('a burst larger than one claim: 1,000 webhooks due at one instant, two schedulers, one delivery each', async () => {
      const url = await backend.freshUrl();
      const a = await setup(url, 64);
      const b = await setup(url, 64);
      const hooks: string[] = [];
      for (let i = 0; i < 1000; i += 50) {
        const created = await Promise.all(Array.from({ length: 50 }, () => a.store.createWebhook(webhookFields(a.clock))));
        hooks.push(...created.map((h) => h.id));
      }
      // Every webhook's first slot is 10:01; both schedulers claim it at 10:01:05, batch after batch.
      a.clock.set(START + 35_000);
      b.clock.set(START + 35_000);
      // The event loop gets turns while a burst is claimed (deliveries go out meanwhile):
      // a callback queued now runs before the last batch is claimed.
      let claimedAtFirstTurn = -1;
      setImmediate(() => (claimedAtFirstTurn = a.claimed.length + b.claimed.length));
      const [x, y] = await Promise.all([a.scheduler.tick(), b.scheduler.tick()]);
      expect(x! + y!).toBe(1000);
      expect(claimedAtFirstTurn).toBeGreaterThanOrEqual(0);
      expect(claimedAtFirstTurn).toBeLessThan(1000);

      const deliveries = [...a.claimed, ...b.claimed];
      expect(new Set(deliveries.map((d) => d.webhookId))).toEqual(new Set(hooks));
      expect(deliveries.every((d) => d.scheduledFor === '2026-01-05T10:01:00.000Z')).toBe(true);
      for (const id of hooks) {
        expect(await scheduledFor(a.store, id)).toEqual(['2026-01-05T10:01:00.000Z']);
        expect((await a.store.getWebhook(id))!.nextFireAt).toBe('2026-01-05T10:02:00.000Z');
      }
      // Nothing left due: another round fires nothing.
      expect(await a.scheduler.tick()).toBe(0);
      expect(await b.scheduler.tick()).toBe(0);
    });

    it('moves past a slot the store says was already fired instead of retrying it forever', async () => {
      const { clock, store, scheduler } = await setup();
      const hook = await store.createWebhook(webhookFields(clock));
      clock.advance(MIN);
      expect(await scheduler.tick()).toBe(1);
      // As after a clock set back: the stored next slot is one that already has its delivery.
      await store.updateWebhook(hook.id, { nextFireAt: '2026-01-05T10:01:00.000Z' });
      expect(await scheduler.tick()).toBe(0);
      expect((await store.getWebhook(hook.id))!.nextFireAt).toBe('2026-01-05T10:02:00.000Z');
      expect(await scheduledFor(store, hook.id)).toEqual(['2026-01-05T10:01:00.000Z']);
    });

    it('runs on its own: start() fires when the clock jumps, stop() ends the loop', async () => {
      const { clock, store, scheduler, claimed } = await setup();
      const hook = await store.createWebhook(webhookFields(clock));
      scheduler.start();
      clock.advance(MIN);
      await vi.waitFor(() => expect(claimed).toHaveLength(1), { timeout: 5000, interval: 20 });
      expect(claimed[0]!.scheduledFor).toBe('2026-01-05T10:01:00.000Z');
      await scheduler.stop();
      clock.advance(MIN);
      await scheduler.tick(); // a direct tick still works after stop
      expect(await scheduledFor(store, hook.id)).toHaveLength(2);
    });

    it('wake() picks up a webhook created after start', async () => {
      const { clock, store, scheduler, claimed } = await setup();
      scheduler.start();
      // Created with a slot already due (as after a long pause): the next tick fires it.
      await store.createWebhook({ ...webhookFields(clock), nextFireAt: iso(START - 30_000) });
      scheduler.wake();
      await vi.waitFor(() => expect(claimed).toHaveLength(1), { timeout: 5000, interval: 20 });
      expect(claimed[0]!.scheduledFor).toBe('2026-01-05T10:00:00.000Z');
    });

    it('hands the functions due within the prewarm lead to prewarm before their slot, once, and no others', async () => {
      const { clock, store } = await setup();
      const fnFields = (name: string, cron: string, fire: string) => ({
        name,
        runtime: 'javascript' as const,
        code: 'export const handler = () => 1;',
        compiled: 'exports.handler = () => 1;',
        handler: null,
        eventFormat: 'switchyard' as const,
        env: {},
        timeoutMs: 1000,
        memoryMb: 64,
        codeSha256: 'a'.repeat(64),
        schedules: [{ cron, timezone: 'UTC', payload: null }],
        scheduleFires: [fire],
      });
      await store.createFunction(fnFields('soon', '* * * * *', '2026-01-05T10:01:00.000Z'));
      await store.createFunction(fnFields('later', '*/5 * * * *', '2026-01-05T10:05:00.000Z'));
      const warmed: Array<{ at: string; names: string[] }> = [];
      const claimed: Delivery[] = [];
      const scheduler = new Scheduler({
        store,
        clock,
        log: quietLog,
        onClaimed: (d) => claimed.push(d),
        functionSlot: () => ({ event: {}, detail: {} }),
        prewarm: { limit: 100, aheadMs: 5000, warm: (names) => warmed.push({ at: iso(clock.now()), names }) },
      });
      cleanups.push(() => scheduler.stop());
      scheduler.start();
      // 10:00:30: the first slot is 30 s away, past the lead.
      await scheduler.tick();
      await new Promise((r) => setTimeout(r, 50));
      expect(warmed).toEqual([]);
      clock.set(Date.parse('2026-01-05T10:00:56Z'));
      await vi.waitFor(() => expect(warmed).toHaveLength(1), { timeout: 5000, interval: 20 });
      expect(warmed[0]).toEqual({ at: '2026-01-05T10:00:56.000Z', names: ['soon'] });
      expect(claimed).toEqual([]); // before the slot
      clock.set(Date.parse('2026-01-05T10:01:00Z'));
      await vi.waitFor(() => expect(claimed).toHaveLength(1), { timeout: 5000, interval: 20 });
      // Another round within the same lead hands nothing again; 'later' is minutes away.
      clock.set(Date.parse('2026-01-05T10:01:01Z'));
      await new Promise((r) => setTimeout(r, 100));
      expect(warmed).toHaveLength(1);
      clock.set(Date.parse('2026-01-05T10:01:56Z'));
      await vi.waitFor(() => expect(warmed).toHaveLength(2), { timeout: 5000, interval: 20 });
      expect(warmed[1]!.names).toEqual(['soon']);
      // The clock set back (as by hand): the slots ahead are handed again, not taken as done.
      clock.set(Date.parse('2026-01-05T10:01:00Z'));
      await new Promise((r) => setTimeout(r, 100));
      clock.set(Date.parse('2026-01-05T10:01:57Z'));
      await vi.waitFor(() => expect(warmed).toHaveLength(3), { timeout: 5000, interval: 20 });
      expect(warmed[2]).toEqual({ at: '2026-01-05T10:01:57.000Z', names: ['soon'] });
    });

    it('keeps running when the store fails, and logs it', async () => {
      const { clock, store } = await setup();
      await store.createWebhook(webhookFields(clock));
      const errors: unknown[] = [];
      // Only what a failing tick touches.
      const failing = {
        claimDueSlots: () => Promise.reject(new Error('database is locked')),
        nextFireAt: () => store.nextFireAt(),
      } as unknown as Store;
      const scheduler = new Scheduler({
        store: failing,
        clock,
        onClaimed: () => undefined,
        log: { ...quietLog, error: (obj: object) => errors.push(obj) },
      });
      scheduler.start();
      await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0), { timeout: 5000, interval: 20 });
      clock.advance(MIN);
      await vi.waitFor(() => expect(errors.length).toBeGreaterThan(1), { timeout: 5000, interval: 20 });
      await scheduler.stop();
    });
  });
}
