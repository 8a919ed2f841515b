/**
 * Function targets of the delivery engine, with the manual clock: retries on
 * FUNCTION_RETRY_SCHEDULE_S, attempts recorded, the finished hook, a fair share
 * per function, a lease stretched over a long function, and the store's
 * trigger rows (subscriptions, schedules) kept with the function.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Store } from '../../src/store/store.js';
import { DeliveryEngine } from '../../src/deliveries/engine.js';
import { FUNCTION_RETRY_SCHEDULE_S, FunctionTarget, type FunctionRun, type PreparedFunctionRun } from '../../src/functions/target.js';
import type { Delivery } from '../../src/deliveries/types.js';
import { backends, removeTempDatabases } from '../helpers/store-backends.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterAll(() => removeTempDatabases());

async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, what: string, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(20);
  }
}

for (const backend of backends()) {
  describe(`function targets on ${backend.name}`, () => {
    let store: Store;
    let clock: ManualClock;
    let engines: DeliveryEngine[];
    let finished: Delivery[];

    beforeEach(async () => {
      clock = new ManualClock(Date.parse('2026-03-01T12:00:00.000Z'));
      store = await backend.open({ now: () => new Date(clock.now()) });
      engines = [];
      finished = [];
    });

    afterEach(async () => {
      for (const e of engines) await e.stop(1000);
      await store.close();
    });

    function fn(name: string, extra: Record<string, unknown> = {}) {
      return store.createFunction({
        name,
        runtime: 'javascript',
        code: 'export const handler = () => 1;',
        compiled: 'exports.handler = () => 1;',
        handler: null,
        eventFormat: 'switchyard',
        env: {},
        timeoutMs: 1000,
        memoryMb: 64,
        codeSha256: 'a'.repeat(64),
        ...extra,
      });
    }

    function engine(prepare: (d: Delivery) => Promise<PreparedFunctionRun | null>, extra: { perTarget?: number; leaseMs?: number } = {}) {
      const e = new DeliveryEngine({
        store,
        clock,
        owner: 'owner-a',
        targets: { function: new FunctionTarget({ runner: { prepare }, clock }) },
        log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
        pollMs: 50,
        ...extra,
      });
      const finish = ({ delivery }: { delivery: Delivery }) => void finished.push(delivery);
      e.events.on('delivery:failed', finish);
      e.events.on('delivery:succeeded', finish);
      e.start();
      engines.push(e);
      return e;
    }

    const ok = (requestId: string, result: unknown = 'done'): FunctionRun => ({ outcome: 'ok', error: null, result, durationMs: 3, requestId });
    const boom = (requestId: string): FunctionRun => ({ outcome: 'function_error', error: 'Error: boom', result: null, durationMs: 2, requestId });

    async function enqueue(functionName: string): Promise<Delivery> {
      return store.createDelivery({
        functionName,
        trigger: 'async',
        triggerDetail: { type: 'async' },
        scheduledFor: null,
        event: null,
        eventData: { n: 1 },
        nextAttemptAt: new Date(clock.now()).toISOString(),
      });
    }

    it('fails twice then succeeds: retried after 60 s and 120 s, every attempt recorded, finished once', async () => {
      await fn('flaky');
      let runs = 0;
      engine(async (d) => ({
        retries: 2,
        timeoutMs: 1000,
        run: async () => (++runs <= 2 ? boom(d.id) : ok(d.id, { n: runs })),
      }));
      const d = await enqueue('flaky');
      const afterOne = await waitFor(async () => {
        const cur = await store.getDelivery(d.id);
        return cur?.attempts.length === 1 ? cur : null;
      }, 'attempt 1');
      expect(afterOne.status).toBe('pending');
      expect(Date.parse(afterOne.nextAttemptAt!) - clock.now()).toBe(FUNCTION_RETRY_SCHEDULE_S[0] * 1000);

      clock.advance(59_000);
      await pause(200);
      expect(runs).toBe(1);
      clock.advance(1_000);
      const afterTwo = await waitFor(async () => {
        const cur = await store.getDelivery(d.id);
        return cur?.attempts.length === 2 ? cur : null;
      }, 'attempt 2');
      expect(Date.parse(afterTwo.nextAttemptAt!) - clock.now()).toBe(FUNCTION_RETRY_SCHEDULE_S[1] * 1000);
      clock.advance(120_000);
      const done = await waitFor(async () => {
        const cur = await store.getDelivery(d.id);
        return cur?.status === 'succeeded' ? cur : null;
      }, 'success');
      expect(done.result).toEqual({ n: 3 });
      expect(done.attempts.map((a) => [a.attempt, a.outcome, a.error, a.requestId])).toEqual([
        [1, 'function_error', 'Error: boom', d.id],
        [2, 'function_error', 'Error: boom', d.id],
        [3, 'ok', null, d.id],
      ]);
      expect(done.functionName).toBe('flaky');
      expect(done.webhookId).toBeNull();
      expect(done.target).toBe('fn:flaky');
      await waitFor(async () => finished.length === 1, 'finished hook');
      expect(finished.map((f) => [f.id, f.status])).toEqual([[d.id, 'succeeded']]);
    });

    it('with retries 0 a failure is final and reported once', async () => {
      await fn('once');
      engine(async (d) => ({ retries: 0, timeoutMs: 1000, run: async () => boom(d.id) }));
      const d = await enqueue('once');
      const failed = await waitFor(async () => {
        const cur = await store.getDelivery(d.id);
        return cur?.status === 'failed' ? cur : null;
      }, 'failure');
      expect(failed.attempts).toHaveLength(1);
      expect(failed.error).toBe('Error: boom');
      await waitFor(async () => finished.length === 1, 'finished hook');
    });

    it('gives each function a bounded share: a hung function holds its share, another still runs', async () => {
      await fn('hung');
      await fn('quick');
      const release: Array<() => void> = [];
      let quickRuns = 0;
      engine(
        async (d) => ({
          retries: 0,
          timeoutMs: 1000,
          run: () =>
            d.functionName === 'hung'
              ? new Promise<FunctionRun>((resolve) => release.push(() => resolve(ok(d.id))))
              : (quickRuns++, Promise.resolve(ok(d.id))),
        }),
        { perTarget: 2 },
      );
      for (let i = 0; i < 6; i++) await enqueue('hung');
      await waitFor(async () => release.length === 2, 'the hung share');
      const quick = await enqueue('quick');
      await waitFor(async () => (await store.getDelivery(quick.id))?.status === 'succeeded', 'quick one');
      expect(release).toHaveLength(2);
      expect(quickRuns).toBe(1);
      for (const r of release.splice(0)) r();
      await waitFor(async () => release.length > 0, 'the next of the hung ones');
      for (const r of release.splice(0)) r();
    });

    it('stretches the lease over a function whose timeout outlasts it', async () => {
      await fn('slow');
      let stolen: Delivery | null | undefined;
      engine(
        async (d) => ({
          retries: 0,
          timeoutMs: 600_000,
          run: async () => {
            // Two minutes on, past a plain 90 s lease: another owner must still find it held.
            stolen = await store.leaseDelivery(d.id, 'owner-b', new Date(clock.now() + 120_000).toISOString(), 1000);
            return ok(d.id);
          },
        }),
        { leaseMs: 90_000 },
      );
      const d = await enqueue('slow');
      await waitFor(async () => (await store.getDelivery(d.id))?.status === 'succeeded', 'slow one');
      expect(stolen).toBeNull();
    });

    it('claims a function schedule slot once, moving it on, and creates its invocation with the planned event', async () => {
      await fn('cronned', {
        schedules: [{ cron: '* * * * *', timezone: 'UTC', payload: null }],
        scheduleFires: ['2026-03-01T12:01:00.000Z'],
      });
      expect(await store.nextFunctionFireAt()).toBe('2026-03-01T12:01:00.000Z');
      const seen: string[] = [];
      const plan = (s: { functionName: string; nextFireAt: string; position: number }) => {
        seen.push(`${s.functionName}@${s.nextFireAt}#${s.position}`);
        return { slot: s.nextFireAt, next: '2026-03-01T12:02:00.000Z', event: { hello: 1 }, detail: { cron: '* * * * *' } };
      };
      expect((await store.claimDueFunctionSlots('2026-03-01T12:00:59.000Z', 10, plan)).claimed).toBe(0);
      const first = await store.claimDueFunctionSlots('2026-03-01T12:01:00.000Z', 10, plan);
      expect(first.claimed).toBe(1);
      expect(first.deliveries).toHaveLength(1);
      expect(first.deliveries[0]).toMatchObject({
        functionName: 'cronned',
        target: 'fn:cronned',
        trigger: 'schedule',
        scheduledFor: '2026-03-01T12:01:00.000Z',
        eventData: { hello: 1 },
        triggerDetail: { type: 'schedule', cron: '* * * * *' },
        status: 'pending',
      });
      expect(seen).toEqual(['cronned@2026-03-01T12:01:00.000Z#0']);
      // Moved on: nothing due until the next slot.
      expect((await store.claimDueFunctionSlots('2026-03-01T12:01:30.000Z', 10, plan)).claimed).toBe(0);
      expect(await store.nextFunctionFireAt()).toBe('2026-03-01T12:02:00.000Z');
      // A plan that points at the slot already fired inserts nothing: the (schedule, slot) key refuses it.
      const again = await store.claimDueFunctionSlots('2026-03-01T12:02:00.000Z', 10, () => ({
        slot: '2026-03-01T12:01:00.000Z',
        next: '2026-03-01T12:03:00.000Z',
        event: null,
        detail: {},
      }));
      expect(again.deliveries).toEqual([]);
      expect(again.alreadyFired).toHaveLength(1);
    });

    it('claims a batch of function schedules in one go: new slots inserted, a slot fired before named, all moved on', async () => {
      const everyMinute = { cron: '* * * * *', timezone: 'UTC', payload: null };
      await fn('batched', { schedules: [everyMinute, everyMinute, everyMinute], scheduleFires: Array(3).fill('2026-03-01T12:01:00.000Z') });
      const plan = (s: { id: string; position: number }) => ({
        slot: '2026-03-01T12:01:00.000Z',
        next: '2026-03-01T12:02:00.000Z',
        event: { position: s.position },
        detail: { position: s.position },
      });
      const first = await store.claimDueFunctionSlots('2026-03-01T12:01:00.000Z', 1, plan);
      expect(first.deliveries).toHaveLength(1);
      const firedBefore = first.deliveries[0]!.scheduleId!;
      // A minute on, all three are due; the plan names slot 12:01 for each, which one has fired already.
      const ids: string[] = [];
      const claim = await store.claimDueFunctionSlots('2026-03-01T12:02:00.000Z', 10, (s) => {
        ids.push(s.id);
        return { ...plan(s), next: '2026-03-01T12:03:00.000Z' };
      });
      expect(claim.claimed).toBe(3);
      expect(ids).toContain(firedBefore);
      expect(claim.alreadyFired).toEqual([firedBefore]);
      expect(claim.deliveries.map((d) => d.scheduleId).sort()).toEqual(ids.filter((id) => id !== firedBefore).sort());
      for (const d of claim.deliveries) {
        expect(d).toMatchObject({ functionName: 'batched', target: 'fn:batched', trigger: 'schedule', status: 'pending' });
        expect(d.scheduledFor).toBe('2026-03-01T12:01:00.000Z');
        expect(d.eventData).toEqual({ position: (d.triggerDetail as { position: number }).position });
        expect(await store.getDelivery(d.id)).toEqual(d);
      }
      expect(await store.nextFunctionFireAt()).toBe('2026-03-01T12:03:00.000Z');
    });

    it('keeps subscriptions and schedules with the function, and lists its invocations newest first by status', async () => {
      await fn('sub', {
        events: ['order.created', '*'],
        schedules: [{ cron: '0 9 * * 1-5', timezone: 'America/New_York', payload: { a: 1 } }],
        scheduleFires: ['2026-03-02T14:00:00.000Z'],
      });
      const got = await store.getFunction('sub');
      expect(got).toMatchObject({
        events: ['order.created', '*'],
        schedules: [{ cron: '0 9 * * 1-5', timezone: 'America/New_York', payload: { a: 1 } }],
        async: { retries: 2, onSuccess: null, onFailure: null },
      });
      const updated = await store.updateFunction('sub', { async: { retries: 4, onSuccess: { type: 'function', name: 'sub' }, onFailure: null } });
      expect(updated?.async.retries).toBe(4);
      expect(updated?.events).toEqual(['order.created', '*']);

      const a = await enqueue('sub');
      const b = await enqueue('sub');
      expect((await store.listFunctionDeliveries('sub', null, { limit: 10 })).map((d) => d.id)).toEqual([b.id, a.id]);
      expect((await store.listFunctionDeliveries('sub', 'pending', { limit: 10, after: b.id })).map((d) => d.id)).toEqual([a.id]);
      expect(await store.listFunctionDeliveries('sub', 'failed', { limit: 10 })).toEqual([]);

      await expect(enqueue('ghost')).rejects.toMatchObject({ code: 'function_not_found' });
      // A function's invocations go with it.
      expect(await store.deleteFunction('sub')).toBe(true);
      expect(await store.getDelivery(a.id)).toBeNull();
    });
  });
}

describe('migration 8 on SQLite (deliveries rebuilt for two kinds of target)', () => {
  it('keeps existing deliveries and their attempts, now with the webhook as their target', async () => {
    const { default: Database } = await import('better-sqlite3');
    const { migrateSqlite } = await import('../../src/store/sqlite/migrate.js');
    const { SQLITE_MIGRATIONS } = await import('../../src/store/migrations/sqlite.js');
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    migrateSqlite(db, SQLITE_MIGRATIONS.filter((m) => m.version <= 7));
    const t = '2026-01-01T00:00:00.000Z';
    db.prepare(`INSERT INTO webhooks (id, name, target_url, method, max_attempts, timeout_ms, created_at, updated_at)
      VALUES ('wh_1', 'w', 'https://example.com', 'POST', 8, 1000, ?, ?)`).run(t, t);
    db.prepare(`INSERT INTO deliveries (id, webhook_id, trigger, status, next_attempt_at, created_at)
      VALUES ('dlv_1', 'wh_1', 'event', 'pending', ?, ?)`).run(t, t);
    db.prepare(`INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, response_status, error)
      VALUES ('dlv_1', 1, ?, 5, 503, 'busy')`).run(t);
    expect(migrateSqlite(db, SQLITE_MIGRATIONS.filter((m) => m.version <= 8))).toEqual([8]);
    expect(db.prepare('SELECT id, target, webhook_id, function_name FROM deliveries').all()).toEqual([
      { id: 'dlv_1', target: 'wh_1', webhook_id: 'wh_1', function_name: null },
    ]);
    expect(db.prepare('SELECT delivery_id, attempt, error FROM delivery_attempts').all()).toEqual([
      { delivery_id: 'dlv_1', attempt: 1, error: 'busy' },
    ]);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    // The attempts' foreign key follows the new table: deleting the webhook takes both.
    db.prepare("DELETE FROM webhooks WHERE id = 'wh_1'").run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM delivery_attempts').get()).toEqual({ n: 0 });
    db.close();
  });
});
