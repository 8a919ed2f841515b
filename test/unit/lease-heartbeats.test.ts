/**
 * Lease owners' heartbeats on every backend: the store's part (beat, stale
 * owners taken over, clean removal), and two real delivery engines on one
 * store with a hand-moved clock (silences are timed on it): an owner that stops beating loses its
 * leases to the other within the timeout, a live slow attempt is never taken
 * over, and a paused owner neither records nor sends what it lost.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { DeliveryEngine } from '../../src/deliveries/engine.js';
import type { DeliveryGate, GateAnswer } from '../../src/deliveries/health.js';
import { OwnerHeartbeat } from '../../src/deliveries/heartbeat.js';
import type { Delivery } from '../../src/deliveries/types.js';
import type { Store } from '../../src/store/store.js';
import { WebhookTarget } from '../../src/webhooks/target.js';
import type { Webhook } from '../../src/webhooks/types.js';
import { startHoldingReceiver, waitFor, type HoldingReceiver } from '../helpers/receiver.js';
import { backends, removeTempDatabases } from '../helpers/store-backends.js';
import { newWebhook } from '../helpers/webhook-fixture.js';

const iso = (ms: number) => new Date(ms).toISOString();
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const TIMEOUT = 10_000;

afterAll(() => removeTempDatabases());

for (const backend of backends()) {
  describe(`lease heartbeats on ${backend.name}`, () => {
    let store: Store;
    let clock: ManualClock;
    let cleanups: Array<() => Promise<unknown>>;
    let receiver: HoldingReceiver;
    let wh: Webhook;

    beforeEach(async () => {
      clock = new ManualClock(Date.now());
      store = await backend.open({ now: () => new Date(clock.now()) });
      cleanups = [];
      receiver = await startHoldingReceiver();
      wh = await store.createWebhook(newWebhook(receiver.url));
    });

    afterEach(async () => {
      receiver.release();
      for (const cleanup of cleanups.reverse()) await cleanup();
      await receiver.close();
      await store.close();
    });

    /** A heartbeat driven by hand (its timer never fires within a test): `beat()` is the owner beating. */
    function heartbeat(owner: string, engine?: () => DeliveryEngine): OwnerHeartbeat {
      return new OwnerHeartbeat({
        store,
        clock,
        owner,
        host: 'test-host',
        pid: 1,
        timeoutMs: TIMEOUT,
        intervalMs: 2_000,
        // Silences are timed on the hand-moved clock.
        elapsed: () => clock.now(),
        log,
        onTakeover: () => engine?.().wake(),
        onBeat: () => engine?.().wake(),
      });
    }

    /** An engine with its heartbeat, beaten once (as the pipeline does before the first claim). */
    async function node(owner: string, gate?: DeliveryGate): Promise<{ engine: DeliveryEngine; beat: OwnerHeartbeat }> {
      const target = new WebhookTarget({
        store,
        clock,
        allowPrivateTargets: true,
        connections: 100,
        fetchMock: async () => ({ status: 404, body: null, error: 'no mock in this test' }),
        log,
        random: () => 0.5,
      });
      let engine: DeliveryEngine | undefined;
      const beat = heartbeat(owner, () => engine!);
      engine = new DeliveryEngine({ store, clock, owner, targets: { webhook: target }, log, fence: beat, gate, pollMs: 50 });
      await beat.beat();
      engine.start();
      cleanups.push(() => engine!.stop(200));
      return { engine, beat };
    }

    const delivery = (): Promise<Delivery> =>
      store.createDelivery({
        webhookId: wh.id,
        trigger: 'event',
        scheduledFor: null,
        event: 'order.created',
        eventData: { id: 7 },
        nextAttemptAt: iso(clock.now()),
      });

    const received = (id: string) => receiver.requests.filter((r) => r.headers['webhook-id'] === id).length;

    it('beat says whether the row was there; a takeover needs the seq it saw, and gives the leases back', async () => {
      const beat = (owner: string) => store.beat({ owner, host: 'h', pid: 7, now: iso(clock.now()) });
      expect(await beat('a')).toBe(false);
      expect(await beat('a')).toBe(true);
      expect(await beat('b')).toBe(false);
      expect(await store.heartbeats()).toEqual([
        expect.objectContaining({ owner: 'a', host: 'h', pid: 7, seq: 2 }),
        expect.objectContaining({ owner: 'b', seq: 1 }),
      ]);
      const d = await delivery();
      expect(await store.claimDueDeliveries('a', iso(clock.now()), 90_000, 1)).toHaveLength(1);
      // `a` beat after seq 1 was seen: not taken.
      expect(await store.takeOverOwner('a', 1)).toBeNull();
      expect(await store.leaseOwners()).toEqual(['a']);
      expect(await store.takeOverOwner('a', 2)).toBe(1);
      expect(await store.leaseOwners()).toEqual([]);
      expect((await store.claimDueDeliveries('b', iso(clock.now()), 90_000, 1)).map((x) => x.id)).toEqual([d.id]);
      // A second watcher finds it taken already.
      expect(await store.takeOverOwner('a', 2)).toBeNull();
      // Its row went with its leases: its next beat writes it anew, and says so.
      expect(await beat('a')).toBe(false);
      await store.endHeartbeat('b');
      expect((await store.heartbeats()).map((r) => r.owner)).toEqual(['a']);
    });

    it('an owner that stops beating loses its leases to another within the timeout; what it had in flight is not recorded', async () => {
      const ids = (await Promise.all([1, 2, 3].map(() => delivery()))).map((d) => d.id);
      const a = await node('owner-a');
      await waitFor(() => receiver.requests.length === 3);
      // From here on `a` beats no more (killed, or paused). `b` beats every 2 s of clock.
      const b = await node('owner-b');
      for (let t = 2_000; t <= 8_000; t += 2_000) {
        clock.advance(2_000);
        await b.beat.beat();
      }
      // 8 s: `a` is not stale yet, its leases hold; but it is no longer fresh enough to claim or send.
      await pause(200);
      expect(receiver.requests).toHaveLength(3);
      expect(a.beat.fresh()).toBe(false);
      clock.advance(2_001);
      await b.beat.beat();
      // Taken over at the first beat past the timeout: `b` sends all three again.
      await waitFor(() => receiver.requests.length === 6);
      receiver.release();
      for (const id of ids) {
        const d = await waitFor(async () => {
          const got = await store.getDelivery(id);
          return got?.status === 'succeeded' ? got : null;
        });
        // One attempt each: `a`'s answers came back too, but its lease was gone, so they were not recorded.
        expect(d!.attempts).toHaveLength(1);
        expect(received(id)).toBe(2);
      }
      await pause(200);
      for (const id of ids) expect((await store.getDelivery(id))!.attempts).toHaveLength(1);
    });

    it('a slow attempt of an owner that keeps beating is never taken over', async () => {
      const d = await delivery();
      const a = await node('owner-a');
      const b = await node('owner-b');
      await waitFor(() => receiver.requests.length === 1);
      // 60 s of clock, both beating: the lease (90 s) is `a`'s all along.
      for (let t = 0; t < 60_000; t += 2_000) {
        clock.advance(2_000);
        await a.beat.beat();
        await b.beat.beat();
      }
      await pause(200);
      expect(receiver.requests).toHaveLength(1);
      receiver.release();
      const done = await waitFor(async () => {
        const got = await store.getDelivery(d.id);
        return got?.status === 'succeeded' ? got : null;
      });
      expect(done!.attempts).toHaveLength(1);
      expect(received(d.id)).toBe(1);
      expect(a.beat.epoch).toBe(0);
    });

    it('a paused owner does not send what it claimed before the pause once it may have been taken over', async () => {
      // `a`'s gate stands for a pause between its claim and its send.
      let resume!: (answer: GateAnswer) => void;
      let asked = 0;
      const paused: DeliveryGate = {
        check: () => {
          asked++;
          return new Promise<GateAnswer>((r) => (resume = r));
        },
      };
      const d = await delivery();
      const a = await node('owner-a', paused);
      await waitFor(() => asked === 1);
      // `b` first sees `a`'s beat now, and times its silence from here.
      const b = await node('owner-b');
      for (let t = 0; t < TIMEOUT; t += 2_000) {
        clock.advance(2_000);
        await b.beat.beat();
      }
      await waitFor(() => receiver.requests.length === 1);
      receiver.release();
      await waitFor(async () => (await store.getDelivery(d.id))?.status === 'succeeded');
      // `a` wakes up: its last beat is stale, so it sends nothing.
      resume('go');
      await pause(300);
      expect(received(d.id)).toBe(1);
      // Its next beat finds its row gone: it knows it was taken for dead.
      await a.beat.beat();
      expect(a.beat.epoch).toBe(1);
      expect(a.beat.fresh()).toBe(true);
      expect((await store.getDelivery(d.id))!.attempts).toHaveLength(1);
    });

    it('a watcher that could not beat for a while (the database away) times the others again before it takes any over', async () => {
      expect(await store.beat({ owner: 'owner-a', host: 'h', pid: 1, now: iso(clock.now()) })).toBe(false);
      await delivery();
      expect(await store.claimDueDeliveries('owner-a', iso(clock.now()), 90_000, 1)).toHaveLength(1);
      let away = false;
      const flaky = Object.assign(Object.create(store) as Store, {
        beat: (b: Parameters<Store['beat']>[0]) => (away ? Promise.reject(new Error('connection refused')) : store.beat(b)),
      });
      const b = new OwnerHeartbeat({ store: flaky, clock, owner: 'owner-b', host: 'h', pid: 2, timeoutMs: TIMEOUT, intervalMs: 2_000, elapsed: () => clock.now(), log });
      await b.beat();
      away = true;
      for (let t = 0; t < 20_000; t += 2_000) {
        clock.advance(2_000);
        await b.beat();
      }
      away = false;
      clock.advance(2_000);
      await b.beat();
      // `a` did not beat either, but `b` saw nothing for 22 s: it starts timing `a` now.
      expect(await store.leaseOwners()).toEqual(['owner-a']);
      for (let t = 0; t < TIMEOUT; t += 2_000) {
        clock.advance(2_000);
        await b.beat();
      }
      expect(await store.leaseOwners()).toEqual([]);
    });

    it('a clean stop removes the row after the leases went back', async () => {
      const beat = heartbeat('owner-a');
      await beat.start();
      await beat.stop();
      expect(await store.heartbeats()).toEqual([]);
    });
  });
}
