/**
 * Applications on every backend: a taken uid is a typed conflict; the fan-out
 * reads only the scope asked for (an application's subscriptions, or the global
 * ones), also after a webhook moves between scopes; an application's retention
 * prunes its own finished deliveries only; deleting it deletes its webhooks,
 * their deliveries and its portal tokens; a refresh never passes a token's maximum;
 * `max_endpoints` holds against creates (and moves) made at once; a webhook of a
 * missing application is application_not_found; two PATCHes of different
 * limits at once both hold; the owning project (migration 29) is kept
 * through create and update, and left as it is by an update without it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ApplicationLimitError, ConflictError, NotFoundError } from '../../src/errors.js';
import { DEFAULT_PORTAL_SETTINGS, NO_APPLICATION_LIMITS } from '../../src/applications/types.js';
import { ApplicationService } from '../../src/applications/service.js';
import type { ChangeBus } from '../../src/changes.js';
import { systemClock } from '../../src/clock.js';
import type { Store } from '../../src/store/store.js';
import { backends, removeTempDatabases, withStore as withBackendStore } from '../helpers/store-backends.js';
import { newWebhook } from '../helpers/webhook-fixture.js';

afterAll(removeTempDatabases);

const DAY = 86_400_000;
const app = (name: string, over: Partial<{ uid: string | null; retentionDays: number | null }> = {}) => ({
  name,
  uid: over.uid ?? null,
  metadata: {},
  limits: { ...NO_APPLICATION_LIMITS, retentionDays: over.retentionDays ?? null },
  portal: DEFAULT_PORTAL_SETTINGS,
});

for (const backend of backends()) {
  describe(`applications on ${backend.name}`, () => {
    const withStore = (fn: (store: Store) => Promise<void>) => withBackendStore(backend, fn);

    it('keeps portal settings (migration 28) through create and update', () =>
      withStore(async (store) => {
        const plain = await store.createApplication(app('plain'));
        expect(plain.portal).toEqual({ allowedParents: [], theme: { logoUrl: null, primaryColor: null, mode: 'auto' } });
        const portal = { allowedParents: ['https://app.example.com'], theme: { logoUrl: 'https://cdn.example.com/l.png', primaryColor: '#112233', mode: 'dark' as const } };
        const updated = await store.updateApplication(plain.id, { portal });
        expect(updated?.portal).toEqual(portal);
        expect((await store.getApplication(plain.id))?.portal).toEqual(portal);
        // Another field's update leaves them as they are.
        expect((await store.updateApplication(plain.id, { name: 'renamed' }))?.portal).toEqual(portal);
      }));

    it('keeps the owning project (migration 29) through create and update', () =>
      withStore(async (store) => {
        expect((await store.createApplication(app('by-hand'))).project).toBeNull();
        const owned = await store.createApplication({ ...app('owned'), project: 'shop' });
        expect(owned.project).toBe('shop');
        expect((await store.updateApplication(owned.id, { name: 'renamed' }))?.project).toBe('shop');
        expect((await store.updateApplication(owned.id, { project: 'blog' }))?.project).toBe('blog');
        expect((await store.getApplication(owned.id))?.project).toBe('blog');
        expect((await store.updateApplication(owned.id, { project: null }))?.project).toBeNull();
        expect((await store.listApplications({ limit: 10 })).map((a) => a.project)).toEqual([null, null]);
      }));

    it('refuses a webhook of a missing application as application_not_found naming application_id', () =>
      withStore(async (store) => {
        const err = await store.createWebhook(newWebhook('http://a.test/', { events: ['x'], applicationId: 'app_missing' })).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(NotFoundError);
        expect(err).toMatchObject({ code: 'application_not_found', details: { field: 'application_id' } });
        expect((err as Error).message).toContain("'app_missing'");
      }));

    it('keeps both of two concurrent PATCHes of different limits (the merge runs under the row lock)', () =>
      withStore(async (store) => {
        const changes = { publish: async () => {} } as unknown as ChangeBus;
        const service = new ApplicationService({ store, clock: systemClock, changes });
        const a = await store.createApplication(app('raced'));
        await Promise.all([service.update(a.id, { limits: { max_endpoints: 7 } }), service.update(a.id, { limits: { events_per_second: 3 } })]);
        expect((await store.getApplication(a.id))?.limits).toMatchObject({ maxEndpoints: 7, eventsPerSecond: 3 });
      }));

    it('refuses a taken uid, finds one by uid', () =>
      withStore(async (store) => {
        const a = await store.createApplication(app('A', { uid: 'acme' }));
        const again = await store.createApplication(app('B', { uid: 'acme' })).catch((e: unknown) => e);
        expect(again).toBeInstanceOf(ConflictError);
        expect((again as ConflictError).code).toBe('application_exists');
        expect((await store.getApplicationByUid('acme'))?.id).toBe(a.id);
        expect(a.id).toMatch(/^app_/);
      }));

    it('hands the fan-out only the scope asked for, following a move', () =>
      withStore(async (store) => {
        const a = await store.createApplication(app('A'));
        const b = await store.createApplication(app('B'));
        const wa = await store.createWebhook(newWebhook('http://a.test/', { events: ['x'], applicationId: a.id }));
        const wb = await store.createWebhook(newWebhook('http://b.test/', { events: ['*'], applicationId: b.id }));
        const wg = await store.createWebhook(newWebhook('http://g.test/', { events: ['x'] }));
        const ids = async (scope: string | null) => (await store.subscribersOf('x', scope)).map((s) => s.webhook.id);
        expect(await ids(a.id)).toEqual([wa.id]);
        expect(await ids(b.id)).toEqual([wb.id]);
        expect(await ids(null)).toEqual([wg.id]);
        await store.updateWebhook(wg.id, { applicationId: a.id });
        expect((await ids(a.id)).sort()).toEqual([wa.id, wg.id].sort());
        expect(await ids(null)).toEqual([]);
        expect((await store.listWebhooks({ limit: 10 }, b.id)).map((w) => w.id)).toEqual([wb.id]);
        expect(await store.countApplicationWebhooks(a.id)).toBe(2);
      }));

    it('holds max_endpoints inside the write, for creates made at once and for a move into it', () =>
      withStore(async (store) => {
        const small = await store.createApplication({ ...app('Small'), limits: { ...NO_APPLICATION_LIMITS, maxEndpoints: 3 } });
        const other = await store.createApplication(app('Other'));
        const tries = await Promise.allSettled(Array.from({ length: 10 }, () => store.createWebhook(newWebhook('http://s.test/', { events: ['x'], applicationId: small.id }))));
        expect(tries.filter((t) => t.status === 'fulfilled')).toHaveLength(3);
        for (const t of tries) if (t.status === 'rejected') expect(t.reason).toBeInstanceOf(ApplicationLimitError);
        expect(await store.countApplicationWebhooks(small.id)).toBe(3);
        const elsewhere = await store.createWebhook(newWebhook('http://o.test/', { applicationId: other.id }));
        await expect(store.updateWebhook(elsewhere.id, { applicationId: small.id })).rejects.toBeInstanceOf(ApplicationLimitError);
        // Its own application again (any other field changed) is no new endpoint.
        const mine = (await store.listWebhooks({ limit: 1 }, small.id))[0];
        expect((await store.updateWebhook(mine.id, { applicationId: small.id, name: 'renamed' }))?.name).toBe('renamed');
        expect((await store.createWebhook(newWebhook('http://o.test/', { applicationId: other.id }))).applicationId).toBe(other.id);
      }));

    it("prunes an application's finished deliveries past its retention only, and deletes what it owned with it", () =>
      withStore(async (store) => {
        const short = await store.createApplication(app('Short', { retentionDays: 1 }));
        const long = await store.createApplication(app('Long', { retentionDays: 30 }));
        const hooks = await Promise.all([short.id, long.id, null].map((applicationId) => store.createWebhook(newWebhook('http://x.test/', { applicationId }))));
        const deliveries = [];
        for (const w of hooks) {
          deliveries.push(await store.createDelivery({ webhookId: w.id, trigger: 'event', scheduledFor: null, event: 'x', eventData: null, nextAttemptAt: new Date().toISOString(), held: true }));
        }
        expect(await store.pruneApplicationDeliveries(Date.now() + 2 * DAY)).toBe(1);
        expect(await store.getDelivery(deliveries[0].id)).toBeNull();
        expect(await store.getDelivery(deliveries[1].id)).not.toBeNull();
        expect(await store.getDelivery(deliveries[2].id)).not.toBeNull();
        const now = new Date().toISOString();
        await store.createPortalToken('h1', { applicationId: long.id, createdAt: now, expiresAt: new Date(Date.now() + 60_000).toISOString(), maxExpiresAt: new Date(Date.now() + 120_000).toISOString() });
        const refreshed = await store.refreshPortalToken('h1', new Date(Date.now() + DAY).toISOString(), now);
        expect(refreshed?.expiresAt).toBe(refreshed?.maxExpiresAt);
        expect(await store.deleteApplication(long.id)).toBe(true);
        expect(await store.getWebhook(hooks[1].id)).toBeNull();
        expect(await store.getDelivery(deliveries[1].id)).toBeNull();
        expect(await store.portalSession('h1')).toBeNull();
        expect(await store.getWebhook(hooks[2].id)).not.toBeNull();
      }));
  });
}
