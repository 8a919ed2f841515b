/**
 * The invocation hub over a real database (SQLite file, PostgreSQL schema): two
 * hubs on two store connections stand for two processes. Nothing is shared
 * while nobody watches; a stream on one makes the other share its invocations
 * through the store, each arriving once; the sharing stops when the watcher goes.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ChangeBus } from '../../src/changes.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/store.js';
import { InvocationHub, type InvocationEvent } from '../../src/streams/invocations.js';
import { backends, removeTempDatabases } from '../helpers/store-backends.js';
import { until } from '../helpers/until.js';

const log = { warn: () => undefined };
const event = (fn: string, requestId: string): InvocationEvent => ({
  function: fn,
  api_id: null,
  method: 'POST',
  path: `/api/functions/${fn}/invoke`,
  status: 200,
  duration_ms: 1.5,
  request_id: requestId,
  ts: '2026-11-23T12:00:00.000Z',
  outcome: 'ok',
  log_lines: 0,
});

afterAll(removeTempDatabases);

for (const backend of backends()) {
  describe(`invocation hub on ${backend.name}`, () => {
    const open: Array<{ store: Store; bus: ChangeBus; hub: InvocationHub }> = [];
    async function processOn(url: string, flushMs = 10) {
      const store = await openStore(url);
      const bus = new ChangeBus({ feed: store.changeFeed });
      const hub = new InvocationHub({ store, changes: bus, log, flushMs, pollMs: 20, announceMs: 50 });
      const p = { store, bus, hub };
      open.push(p);
      return p;
    }
    afterEach(async () => {
      for (const p of open.splice(0)) {
        await p.hub.close();
        p.bus.close();
        await p.store.close();
      }
    });

    it('shares nothing while nobody watches, and hands its own streams its events directly', async () => {
      const url = await backend.freshUrl();
      const a = await processOn(url);
      expect(a.hub.active).toBe(false);
      expect(a.hub.sharing).toBe(false);
      a.hub.publish(event('f', 'r0'));
      await new Promise((r) => setTimeout(r, 100));
      expect(await a.store.lastInvocationEventId()).toBe(0);

      const seen: string[] = [];
      const stop = a.hub.subscribe((fn, data) => seen.push(`${fn} ${JSON.parse(data).request_id}`));
      expect(a.hub.active).toBe(true);
      a.hub.publish(event('f', 'r1'));
      expect(seen).toEqual(['f r1']);
      stop();
      expect(a.hub.active).toBe(false);
    });

    it("brings another process's invocations to a stream, once each, and stops sharing when the stream goes", async () => {
      const url = await backend.freshUrl();
      const a = await processOn(url);
      const b = await processOn(url);
      const atA: string[] = [];
      const atB: string[] = [];
      const stopA = a.hub.subscribe((_fn, data) => atA.push(JSON.parse(data).request_id));
      const stopB = b.hub.subscribe((_fn, data) => atB.push(JSON.parse(data).request_id));
      // Each hears the other watch through the change feed.
      await until(() => a.hub.sharing && b.hub.sharing, 'both hubs to hear the other watch');
      await new Promise((r) => setTimeout(r, 60)); // both followers have their start cursor

      a.hub.publish(event('f', 'from-a'));
      b.hub.publish(event('g', 'from-b'));
      await until(() => atA.includes('from-b') && atB.includes('from-a'), 'each event on the other process');
      await new Promise((r) => setTimeout(r, 100));
      expect(atA.sort()).toEqual(['from-a', 'from-b']);
      expect(atB.sort()).toEqual(['from-a', 'from-b']);

      // B's stream closes: A keeps sharing only until the word lapses (three announcements missed).
      stopB();
      stopA();
      await until(() => !a.hub.sharing, 'A to stop sharing');
      expect(a.hub.active).toBe(false);
      const before = await a.store.lastInvocationEventId();
      a.hub.publish(event('f', 'after'));
      await new Promise((r) => setTimeout(r, 100));
      expect(await a.store.lastInvocationEventId()).toBe(before);
    });

    it('writes a full batch at once instead of waiting for the timer or dropping the rest', async () => {
      const url = await backend.freshUrl();
      const a = await processOn(url, 60_000); // the timer alone would write nothing during this test
      const b = await processOn(url);
      const stop = b.hub.subscribe(() => undefined);
      await until(() => a.hub.sharing, 'A to hear that B watches');
      for (let i = 0; i < 2500; i++) a.hub.publish(event('f', `r${i}`));
      // Two batches of 1000 go out at once; the last 500 wait for the timer (or close).
      await until(async () => (await a.store.lastInvocationEventId()) >= 2000, 'two full batches written');
      stop();
      await a.hub.close();
      expect(await a.store.lastInvocationEventId()).toBe(2500);
    });

    it('reads after a cursor without the reader\'s own rows, and prunes by age', async () => {
      const url = await backend.freshUrl();
      const { store } = await processOn(url);
      await store.appendInvocationEvents('me', [{ function: 'f', data: '{"n":1}' }]);
      await store.appendInvocationEvents('other', [
        { function: 'g', data: '{"n":2}' },
        { function: 'h', data: '{"n":3}' },
      ]);
      const rows = await store.listInvocationEventsAfter(0, 'me', 10);
      expect(rows.map((r) => [r.function, r.data])).toEqual([['g', '{"n":2}'], ['h', '{"n":3}']]);
      expect(await store.listInvocationEventsAfter(rows[0].id, 'me', 10)).toHaveLength(1);
      const last = await store.lastInvocationEventId();
      expect(last).toBe(rows[1].id);
      await store.pruneInvocationEvents(60_000);
      expect(await store.listInvocationEventsAfter(0, 'nobody', 10)).toHaveLength(3);
      await new Promise((r) => setTimeout(r, 20));
      await store.pruneInvocationEvents(1);
      expect(await store.listInvocationEventsAfter(0, 'nobody', 10)).toHaveLength(0);
      // Ids are not reused after a prune: a follower's cursor stays valid.
      await store.appendInvocationEvents('other', [{ function: 'f', data: '{}' }]);
      expect(await store.lastInvocationEventId()).toBeGreaterThan(last);
    });
  });
}
