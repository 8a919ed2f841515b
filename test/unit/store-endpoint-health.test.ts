/**
 * The store's side of endpoint health, on every backend (SQLite, and the
 * test PostgreSQL): held deliveries (hold, release in publish order,
 * discard, the bound), health rows (a breaker opened once however many
 * processes report, auto-disable taken once, probes), and recovery jobs (a
 * chunk and its cursor in one transaction; another owner resumes a job whose
 * lease ran out without reopening anything twice).
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import type { NewDelivery } from '../../src/deliveries/types.js';
import { webhookKey, type HealthSample } from '../../src/store/shared/target-health.js';
import type { Store } from '../../src/store/store.js';
import { backends, removeTempDatabases } from '../helpers/store-backends.js';
import { newWebhook } from '../helpers/webhook-fixture.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

function dlv(webhookId: string, extra: Partial<NewDelivery> = {}): NewDelivery {
  return { webhookId, trigger: 'event', scheduledFor: null, event: 'order.created', eventData: null, nextAttemptAt: iso(T0), ...extra };
}

function failures(webhookId: string, n: number, at: number, origin = 'https://hooks.example'): HealthSample {
  return { webhookId, origin, attempts: n, failures: n, firstFailureAt: at, lastFailureAt: at, lastSuccessAt: null };
}

/** A delivery as an attempt leaves it: finished (failed or succeeded) or pending again. */
async function finish(store: Store, id: string, status: 'failed' | 'succeeded') {
  const [leased] = await store.claimDueDeliveries('w', iso(T0 + 1), 60_000, 1000).then((all) => all.filter((d) => d.id === id));
  expect(leased?.id).toBe(id);
  const recorded = await store.recordAttempt(id, 'w', {
    attempt: { attempt: leased.attempts.length + 1, startedAt: iso(T0), durationMs: 1, responseStatus: status === 'failed' ? 500 : 200, error: null, outcome: null, requestId: null },
    status,
    nextAttemptAt: null,
    error: status === 'failed' ? 'target answered 500' : null,
    response: null,
  });
  expect(recorded?.status).toBe(status);
}

afterAll(() => removeTempDatabases());

for (const b of backends()) {
  describe(`endpoint health in the store on ${b.name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await b.open();
    });
    afterEach(async () => {
      await store.close();
    });

    describe('held deliveries', () => {
      it('are stored held, released oldest first in steps, and counted', async () => {
        const w = await store.createWebhook(newWebhook('https://hooks.example/in', { enabled: false }));
        const made = [];
        for (let i = 0; i < 5; i++) made.push(await store.createDelivery(dlv(w.id, { held: true })));
        expect(made.every((d) => d.status === 'held')).toBe(true);
        expect(await store.countHeld([w.id])).toEqual(new Map([[w.id, 5]]));
        expect(await store.countHeldDeliveries()).toBe(5);
        // Held ones are never claimed.
        expect(await store.claimDueDeliveries('w', iso(T0 + 1), 60_000, 100)).toEqual([]);
        // A disabled webhook's held ones are not releasable; enabled, they are.
        expect(await store.releasableWebhooks(10)).toEqual([]);
        await store.updateWebhook(w.id, { enabled: true });
        expect(await store.releasableWebhooks(10)).toEqual([w.id]);
        expect(await store.releaseHeld(w.id, iso(T0 + 10), 2)).toBe(2);
        const claimed = await store.claimDueDeliveries('w', iso(T0 + 10), 60_000, 100);
        expect(claimed.map((d) => d.id)).toEqual(made.slice(0, 2).map((d) => d.id));
        expect(await store.releaseHeld(w.id, iso(T0 + 11), 100)).toBe(3);
        expect(await store.countHeld([w.id])).toEqual(new Map());
      });

      it('holds only the pending deliveries no one leases; a leased one is held by its owner', async () => {
        const w = await store.createWebhook(newWebhook('https://hooks.example/in'));
        const a = await store.createDelivery(dlv(w.id));
        const b2 = await store.createDelivery(dlv(w.id));
        await store.claimDueDeliveries('w', iso(T0 + 1), 60_000, 1);
        expect(await store.holdDeliveries(w.id, iso(T0 + 2), 100)).toBe(1);
        expect((await store.getDelivery(b2.id))!.status).toBe('held');
        expect((await store.getDelivery(a.id))!.status).toBe('pending');
        expect(await store.holdDelivery(a.id, 'someone-else')).toBe(false);
        expect(await store.holdDelivery(a.id, 'w')).toBe(true);
        expect((await store.getDelivery(a.id))!.status).toBe('held');
      });

      it('are discarded by filter, and the oldest past the bound, counted on the webhook', async () => {
        const w = await store.createWebhook(newWebhook('https://hooks.example/in', { enabled: false }));
        const first = await store.createDelivery(dlv(w.id, { held: true, event: 'a' }));
        await store.createDelivery(dlv(w.id, { held: true, event: 'b' }));
        for (let i = 0; i < 4; i++) await store.createDelivery(dlv(w.id, { held: true, event: 'c' }));
        expect(await store.discardHeld(w.id, { events: ['b'] }, iso(T0), 'by hand')).toBe(1);
        expect(await store.trimHeld(3, iso(T0))).toEqual([{ webhookId: w.id, discarded: 2 }]);
        expect((await store.getDelivery(first.id))!).toMatchObject({ status: 'discarded', completedAt: iso(T0) });
        expect((await store.listDeliveries(w.id, { limit: 10 }, 'held')).map((d) => d.event)).toEqual(['c', 'c', 'c']);
        expect((await store.targetHealth([webhookKey(w.id)])).get(webhookKey(w.id))!.heldDiscarded).toBe(2);
        expect(await store.trimHeld(3, iso(T0))).toEqual([]);
      });
    });

    describe('health rows', () => {
      it('open a breaker once when two processes report the same failures at once', async () => {
        const url = await b.freshUrl();
        const [one, two] = [await openStore(url), await openStore(url)];
        try {
          const w = await one.createWebhook(newWebhook('https://hooks.example/in', { breaker: { enabled: true, minAttempts: 10, failureRatio: 0.5, windowS: 60 } }));
          const reports = await Promise.all([
            one.recordTargetHealth([failures(w.id, 6, T0)], T0),
            two.recordTargetHealth([failures(w.id, 6, T0)], T0),
          ]);
          const opened = reports.flat().filter((t) => t.kind === 'opened');
          expect(opened).toHaveLength(1);
          const row = (await two.targetHealth([webhookKey(w.id)])).get(webhookKey(w.id))!;
          expect(row).toMatchObject({ state: 'open', attempts: 12, failures: 12, probeAt: T0 + 5000 });
          // Open: the webhook's new deliveries are held at publish.
          expect((await one.subscribersOf('order.created')).map((s) => s.hold)).toEqual([true]);
        } finally {
          await one.close();
          await two.close();
        }
      });

      it('disable a webhook failing for its span once, with its reason', async () => {
        const w = await store.createWebhook(newWebhook('https://hooks.example/in', { autoDisable: { afterS: 60, minSpanS: 10 }, breaker: { enabled: false, minAttempts: 20, failureRatio: 0.5, windowS: 60 } }));
        expect(await store.recordTargetHealth([failures(w.id, 1, T0)], T0)).toEqual([]);
        const later = [failures(w.id, 1, T0 + 61_000)];
        expect((await store.recordTargetHealth(later, T0 + 61_000)).map((t) => t.kind)).toEqual(['disable']);
        expect(await store.getWebhook(w.id)).toMatchObject({ enabled: false, disabledReason: 'failing', nextFireAt: null });
        expect(await store.recordTargetHealth([failures(w.id, 1, T0 + 62_000)], T0 + 62_000)).toEqual([]);
      });

      it('probe with the oldest held delivery, once, and double the wait after a failed probe', async () => {
        const w = await store.createWebhook(newWebhook('https://hooks.example/in', { breaker: { enabled: true, minAttempts: 2, failureRatio: 0.5, windowS: 60 } }));
        await store.recordTargetHealth([failures(w.id, 2, T0)], T0);
        const oldest = await store.createDelivery(dlv(w.id, { held: true }));
        await store.createDelivery(dlv(w.id, { held: true }));
        expect(await store.dueProbes(T0 + 4999, 10)).toEqual([]);
        expect(await store.dueProbes(T0 + 5000, 10)).toEqual([webhookKey(w.id)]);
        expect(await store.startProbe(webhookKey(w.id), T0 + 5000, T0 + 65_000)).toBe(oldest.id);
        expect(await store.startProbe(webhookKey(w.id), T0 + 5000, T0 + 65_000)).toBeNull();
        expect((await store.getDelivery(oldest.id))!.status).toBe('pending');
        expect(await store.finishProbe(webhookKey(w.id), 'dlv_not_the_probe', false, T0 + 6000)).toBeNull();
        expect(await store.finishProbe(webhookKey(w.id), oldest.id, false, T0 + 6000)).toMatchObject({ kind: 'probe_failed', probeAt: T0 + 16_000 });
        // Closed by hand (resumed): nothing held back by it, the streak forgotten.
        expect(await store.resetTargetHealth(w.id, T0 + 7000)).toBe(true);
        expect((await store.targetHealth([webhookKey(w.id)])).get(webhookKey(w.id))).toMatchObject({ state: 'closed', failingSince: null });
        expect(await store.releasableWebhooks(10)).toEqual([w.id]);
      });

      it("keep a target's Retry-After, the later one winning", async () => {
        const w = await store.createWebhook(newWebhook('https://hooks.example/in'));
        await store.setNotBefore(w.id, T0 + 60_000, T0);
        await store.setNotBefore(w.id, T0 + 30_000, T0);
        expect((await store.targetHealth([webhookKey(w.id)])).get(webhookKey(w.id))!.notBefore).toBe(T0 + 60_000);
      });
    });

    describe('recovery jobs', () => {
      it('reopen each selected delivery once in chunks, resumed by another owner after a lease ran out', async () => {
        const w = await store.createWebhook(newWebhook('https://hooks.example/in'));
        const other = await store.createWebhook(newWebhook('https://hooks.example/other'));
        const failed: string[] = [];
        for (let i = 0; i < 7; i++) {
          const d = await store.createDelivery(dlv(w.id, { event: i % 2 ? 'odd' : 'even' }));
          await finish(store, d.id, 'failed');
          failed.push(d.id);
        }
        const ok = await store.createDelivery(dlv(w.id));
        await finish(store, ok.id, 'succeeded');
        const elsewhere = await store.createDelivery(dlv(other.id));
        await finish(store, elsewhere.id, 'failed');

        const filter = { webhookIds: [w.id], since: iso(Date.now() - 3_600_000), until: iso(Date.now() + 1000), statuses: ['failed' as const], events: null };
        expect(await store.countRecoverable(filter)).toBe(7);
        expect(await store.countRecoverable({ ...filter, events: ['odd'] })).toBe(3);
        expect(await store.countRecoverable({ ...filter, webhookIds: null })).toBe(8);
        const job = await store.createRecovery({ webhookId: w.id, filter });
        expect(job).toMatchObject({ status: 'running', total: 7, resent: 0, cursor: '' });

        const now = new Date().toISOString();
        const claimed = await store.claimRecovery('node-a', now, 30_000);
        expect(claimed!.id).toBe(job.id);
        expect(await store.claimRecovery('node-b', now, 30_000)).toBeNull();
        const step = await store.advanceRecovery(job.id, 'node-a', now, 3, 30_000);
        expect(step).toMatchObject({ status: 'running', resent: 3, cursor: failed[2] });
        // node-a dies; its lease runs out; node-b takes the job over where it stopped.
        expect(await store.advanceRecovery(job.id, 'node-b', now, 3, 30_000)).toBeNull();
        const later = new Date(Date.now() + 31_000).toISOString();
        expect((await store.claimRecovery('node-b', later, 30_000))!.cursor).toBe(failed[2]);
        expect(await store.advanceRecovery(job.id, 'node-a', later, 3, 30_000)).toBeNull();
        await store.advanceRecovery(job.id, 'node-b', later, 3, 30_000);
        const done = await store.advanceRecovery(job.id, 'node-b', later, 3, 30_000);
        expect(done).toMatchObject({ status: 'done', resent: 7, total: 7 });

        for (const id of failed) {
          const d = (await store.getDelivery(id))!;
          // Pending again, its retries counted from here.
          expect(d).toMatchObject({ status: 'pending', error: null, retryBase: 1 });
        }
        expect((await store.getDelivery(ok.id))!.status).toBe('succeeded');
        expect((await store.getDelivery(elsewhere.id))!.status).toBe('failed');
        expect(await store.cancelRecovery(job.id, later)).toBeNull();
        expect((await store.listRecoveries(w.id, { limit: 10 })).map((r) => r.id)).toEqual([job.id]);
        expect(await store.listRecoveries(other.id, { limit: 10 })).toEqual([]);
      });
    });
  });
}
