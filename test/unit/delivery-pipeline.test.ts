/**
 * The pipeline's own seams: the endpoint-health gate the engine consults
 * before an attempt (a deferred delivery keeps its lease and is not sent until
 * then), and the typed events (a listener that throws is logged; the others
 * still hear the event).
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { DeliveryEngine } from '../../src/deliveries/engine.js';
import { TypedEvents, type DeliveryEventMap } from '../../src/deliveries/events.js';
import type { DeliveryGate } from '../../src/deliveries/health.js';
import type { Delivery } from '../../src/deliveries/types.js';
import type { Store } from '../../src/store/store.js';
import { WebhookTarget } from '../../src/webhooks/target.js';
import { newWebhook } from '../helpers/webhook-fixture.js';
import { startReceiver, waitFor, type Receiver } from '../helpers/receiver.js';
import { backends, removeTempDatabases } from '../helpers/store-backends.js';

const iso = (ms: number) => new Date(ms).toISOString();
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

afterAll(() => removeTempDatabases());

for (const backend of backends()) {
  describe(`delivery gate on ${backend.name}`, () => {
    let store: Store;
    let clock: ManualClock;
    let receiver: Receiver;
    let engine: DeliveryEngine | null;

    beforeEach(async () => {
      clock = new ManualClock(Date.now());
      store = await backend.open({ now: () => new Date(clock.now()) });
      receiver = await startReceiver();
      engine = null;
    });

    /** One delivery of a new webhook aimed at the receiver, due now. */
    async function dueDelivery(name: string) {
      const wh = await store.createWebhook(newWebhook(`${receiver.url}/hook`, { name, payloadTemplate: {} }));
      return store.createDelivery({
        webhookId: wh.id,
        trigger: 'event',
        scheduledFor: null,
        event: 'order.created',
        eventData: {},
        nextAttemptAt: iso(clock.now()),
      });
    }

    const webhookTarget = () =>
      new WebhookTarget({ store, clock, allowPrivateTargets: true, connections: 10, fetchMock: async () => ({ status: 404, body: null }), log: quiet });

    afterEach(async () => {
      await engine?.stop(1000);
      await receiver.close();
      await store.close();
    });

    it('defers a delivery the gate puts off: its lease given back with the later due time, nothing is sent until then', async () => {
      const d = await dueDelivery('held');
      const until = clock.now() + 60_000;
      const asked: Delivery[] = [];
      const gate: DeliveryGate = {
        check(delivery) {
          asked.push(delivery);
          return clock.now() < until ? { deferUntil: until, wholeTarget: false } : 'go';
        },
      };
      const target = webhookTarget();
      engine = new DeliveryEngine({ store, clock, owner: 'owner-a', targets: { webhook: target }, gate, log: quiet, pollMs: 50 });
      engine.start();

      await waitFor(() => asked.length >= 1);
      await pause(300);
      expect(receiver.requests).toHaveLength(0);
      expect(asked.map((x) => x.id)).toEqual([d.id]);
      // Not due before then: no owner claims it meanwhile.
      expect(await store.claimDueDeliveries('owner-b', iso(clock.now()), 90_000, 10)).toHaveLength(0);
      expect((await store.getDelivery(d.id))!.nextAttemptAt).toBe(iso(until));

      clock.advance(60_001);
      const done = await waitFor(async () => {
        const cur = await store.getDelivery(d.id);
        return cur?.status === 'succeeded' ? cur : null;
      });
      expect(done!.attempts).toHaveLength(1);
      expect(receiver.requests).toHaveLength(1);
    });

    it('gives back a lease it took again while turning the delivery away, so the delivery is not left unsent for a whole lease', async () => {
      const d = await dueDelivery('reclaimed');
      // The first look defers the whole target until now (a token just due); every later one lets it go.
      let checks = 0;
      const gate: DeliveryGate = {
        check: () => (checks++ === 0 ? Promise.resolve({ deferUntil: clock.now(), wholeTarget: true }) : 'go'),
      };
      // The turn away's release is committed at once but answers late: meanwhile the loop claims the delivery again.
      const slowRelease: Store = Object.create(store);
      slowRelease.releaseLease = async (id, owner) => {
        const released = await store.releaseLease(id, owner);
        await pause(300);
        return released;
      };
      const target = webhookTarget();
      engine = new DeliveryEngine({ store: slowRelease, clock, owner: 'owner-a', targets: { webhook: target }, gate, log: quiet, pollMs: 20 });
      engine.start();

      // The clock stands still: a lease left behind would hold the delivery for its whole 90 s.
      const done = await waitFor(async () => {
        const cur = await store.getDelivery(d.id);
        return cur?.status === 'succeeded' ? cur : null;
      }, 5000);
      expect(done!.attempts).toHaveLength(1);
      expect(receiver.requests).toHaveLength(1);
      expect(checks).toBeGreaterThanOrEqual(2);
    });
  });
}

describe('delivery events', () => {
  it('logs a listener that throws and still tells the others; a removed listener hears nothing', () => {
    const errors: object[] = [];
    const events = new TypedEvents<DeliveryEventMap>({ log: { ...quiet, error: (o) => void errors.push(o) }, source: 'test' });
    const heard: string[] = [];
    events.on('delivery:failed', () => {
      throw new Error('listener bug');
    });
    events.on('delivery:failed', ({ delivery }) => void heard.push(delivery.id));
    const off = events.on('delivery:succeeded', ({ delivery }) => void heard.push(`ok ${delivery.id}`));
    off();
    const delivery = { id: 'dlv_1' } as Delivery;
    events.emit('delivery:failed', { delivery });
    events.emit('delivery:succeeded', { delivery });
    expect(heard).toEqual(['dlv_1']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ event: 'delivery:failed' });
  });
});
