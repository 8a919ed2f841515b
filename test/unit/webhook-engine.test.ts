import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { hostname } from 'node:os';
import { ManualClock } from '../../src/clock.js';
import type { Store } from '../../src/store/store.js';
import { DeliveryEngine, type DeliveryEngineDeps } from '../../src/deliveries/engine.js';
import { followWebhookOutcomes } from '../../src/webhooks/outcomes.js';
import { WebhookTarget, type WebhookTargetDeps } from '../../src/webhooks/target.js';
import { isDeadOwnerOnThisHost } from '../../src/deliveries/lease-owner.js';
import { generateSecret } from '../../src/webhooks/signing.js';
import type { Delivery } from '../../src/deliveries/types.js';
import type { NewWebhook, Webhook } from '../../src/webhooks/types.js';
import {
  closedPort,
  startHoldingReceiver,
  startReceiver,
  startScriptedReceiver,
  waitFor,
  type ReceivedRequest,
  type Receiver,
} from '../helpers/receiver.js';
import { backends, removeTempDatabases } from '../helpers/store-backends.js';
import { newWebhook } from '../helpers/webhook-fixture.js';

const iso = (ms: number) => new Date(ms).toISOString();
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterAll(() => removeTempDatabases());

for (const backend of backends()) {
  describe(`delivery engine on ${backend.name}`, () => {
    let store: Store;
    let clock: ManualClock;
    let cleanups: Array<() => Promise<unknown>>;
    let finalFailures: Array<{ webhook: Webhook; delivery: Delivery }>;
    let disabled: Webhook[];
    let outcomes: string[];

    beforeEach(async () => {
      // Near real time, so the stock verifier's 5-minute tolerance accepts our timestamps.
      clock = new ManualClock(Date.now());
      store = await backend.open({ now: () => new Date(clock.now()) });
      cleanups = [];
      finalFailures = [];
      disabled = [];
      outcomes = [];
    });

    afterEach(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
      await store.close();
    });

    const log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    /** The webhook target of the last engine built. */
    let target: WebhookTarget;

    function engine(
      overrides: Partial<DeliveryEngineDeps> & Partial<Pick<WebhookTargetDeps, 'allowPrivateTargets' | 'fetchMock'>> = {},
    ): DeliveryEngine {
      const { allowPrivateTargets = true, fetchMock, ...rest } = overrides;
      target = new WebhookTarget({
        store: rest.store ?? store,
        clock,
        allowPrivateTargets,
        connections: rest.concurrency ?? 1000,
        fetchMock: fetchMock ?? (async () => ({ status: 404, body: null, error: 'no mock in this test' })),
        log,
        random: () => 0.5, // no jitter: delays are exact
      });
      const e = new DeliveryEngine({
        store,
        clock,
        owner: 'owner-a',
        targets: { webhook: target },
        log,
        metrics: { attempted: (a) => void outcomes.push(a.status === 'pending' ? 'retry' : a.status) },
        pollMs: 100,
        ...rest,
      });
      followWebhookOutcomes(
        { events: e.events, target, log },
        { failed: (webhook, delivery) => finalFailures.push({ webhook, delivery }), disabled: (webhook) => disabled.push(webhook) },
      );
      e.start();
      cleanups.push(() => e.stop(1000));
      return e;
    }

    async function receiver(answer?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
      const r = await startReceiver(answer);
      cleanups.push(() => r.close());
      return r;
    }

    function webhook(targetUrl: string, patch: Partial<NewWebhook> = {}): Promise<Webhook> {
      return store.createWebhook(newWebhook(targetUrl, patch));
    }

    function delivery(wh: Webhook, patch: Partial<Parameters<Store['createDelivery']>[0]> = {}): Promise<Delivery> {
      return store.createDelivery({
        webhookId: wh.id,
        trigger: 'event',
        scheduledFor: null,
        event: 'order.created',
        eventData: { id: 7 },
        nextAttemptAt: iso(clock.now()),
        ...patch,
      });
    }

    /** The delivery once it has at least `n` attempts recorded. */
    async function attempts(id: string, n: number): Promise<Delivery> {
      const found = await waitFor(async () => {
        const d = await store.getDelivery(id);
        return d && d.attempts.length >= n ? d : null;
      });
      return found!;
    }

    const verify = (secret: string, got: ReceivedRequest) =>
      new StandardWebhook(secret).verify(got.body, got.headers as Record<string, string>);

    it('sends the rendered template with the configured and signature headers', async () => {
      const r = await receiver();
      const secret = generateSecret();
      const wh = await webhook(`${r.url}/hook?x=1`, { secret, headers: { authorization: 'Bearer t0k', 'x-extra': 'yes' } });
      const d = await delivery(wh);
      engine();

      const done = await attempts(d.id, 1);
      expect(r.requests).toHaveLength(1);
      const got = r.requests[0];
      expect(got.method).toBe('POST');
      expect(got.url).toBe('/hook?x=1');
      expect(JSON.parse(got.body)).toEqual({ event: 'order.created', id: 7, note: `delivery ${d.id}` });
      expect(got.headers).toMatchObject({
        authorization: 'Bearer t0k',
        'x-extra': 'yes',
        'content-type': 'application/json',
        'user-agent': 'Switchyard-Webhooks/0.1',
        'webhook-id': d.id,
        'webhook-timestamp': String(Math.floor(clock.now() / 1000)),
      });
      expect(got.headers['webhook-signature']).toMatch(/^v1,/);
      expect(verify(secret, got)).toEqual({ event: 'order.created', id: 7, note: `delivery ${d.id}` });

      expect(done.status).toBe('succeeded');
      expect(done.error).toBeNull();
      expect(done.nextAttemptAt).toBeNull();
      expect(done.attempts).toEqual([
        expect.objectContaining({ attempt: 1, responseStatus: 200, error: null, startedAt: iso(clock.now()) }),
      ]);
      expect(done.response).toMatchObject({ status: 200, body: '{"ok":true}' });
      // The rendered request is kept for retries; the per-attempt signature (and the secret) are not.
      expect(done.request).toMatchObject({ method: 'POST', url: `${r.url}/hook?x=1`, body: got.body });
      expect(done.request!.headers['webhook-id']).toBe(d.id);
      expect(done.request!.headers).not.toHaveProperty('webhook-signature');
      expect(JSON.stringify(done)).not.toContain(secret.slice(6));
      expect(outcomes).toEqual(['succeeded']);
    });

    it('sends a webhook the scheduler just read (remember) without reading it back from the store', async () => {
      const r = await receiver();
      const wh = await webhook(r.url);
      const d = await delivery(wh);
      const reads: string[] = [];
      const getWebhook = store.getWebhook.bind(store);
      store.getWebhook = (id: string) => {
        reads.push(id);
        return getWebhook(id);
      };
      const e = engine();
      target.remember(wh);
      const done = await attempts(d.id, 1);
      expect(done.status).toBe('succeeded');
      expect(r.requests).toHaveLength(1);
      expect(reads).toEqual([]);
    });

    it('sends GET without a body or content-type, and keeps a user-agent the webhook sets', async () => {
      const r = await receiver();
      const wh = await webhook(r.url, { method: 'GET', headers: { 'User-Agent': 'mine/1' } });
      const d = await delivery(wh);
      engine();
      const done = await attempts(d.id, 1);
      expect(r.requests[0]).toMatchObject({ method: 'GET', body: '' });
      expect(r.requests[0].headers['content-type']).toBeUndefined();
      expect(r.requests[0].headers['user-agent']).toBe('mine/1');
      expect(done.request!.body).toBeNull();
    });

    it('keeps the first 16 KiB of a large answer and a content-type the webhook sets', async () => {
      const big = 'x'.repeat(100 * 1024);
      const r = await receiver(() => ({ status: 200, body: big }));
      const wh = await webhook(r.url, { headers: { 'Content-Type': 'application/vnd.api+json' } });
      const d = await delivery(wh);
      engine();
      const done = await attempts(d.id, 1);
      expect(r.requests[0].headers['content-type']).toBe('application/vnd.api+json');
      expect(done.response!.body).toBe(big.slice(0, 16 * 1024));
      expect(done.status).toBe('succeeded');
    });

    it('retries a 500 with the same webhook-id and the same body bytes', async () => {
      let calls = 0;
      const r = await receiver(() => (++calls === 1 ? { status: 500, body: 'boom' } : { status: 200, body: 'ok' }));
      const secret = generateSecret();
      const wh = await webhook(r.url, { secret });
      const d = await delivery(wh);
      engine();

      const first = await attempts(d.id, 1);
      expect(first.status).toBe('pending');
      expect(first.attempts[0]).toMatchObject({ responseStatus: 500, error: 'target answered 500' });
      expect(first.error).toBe('target answered 500');
      expect(first.response).toMatchObject({ status: 500, body: 'boom' });
      expect(first.nextAttemptAt).toBe(iso(clock.now() + 5000));

      clock.advance(5000);
      const second = await attempts(d.id, 2);
      expect(second.status).toBe('succeeded');
      expect(second.attempts.map((a) => a.responseStatus)).toEqual([500, 200]);
      expect(r.requests).toHaveLength(2);
      const [a, b] = r.requests;
      expect(b.headers['webhook-id']).toBe(a.headers['webhook-id']);
      expect(b.headers['webhook-id']).toBe(d.id);
      expect(Buffer.from(b.body)).toEqual(Buffer.from(a.body));
      expect(Number(b.headers['webhook-timestamp']) - Number(a.headers['webhook-timestamp'])).toBe(5);
      // Each attempt is signed over its own timestamp: both verify.
      expect(verify(secret, a)).toEqual(verify(secret, b));
      expect(outcomes).toEqual(['retry', 'succeeded']);
    });

    it('waits at least Retry-After on a 429', async () => {
      let calls = 0;
      const r = await receiver(() =>
        ++calls === 1 ? { status: 429, body: '', headers: { 'retry-after': '120' } } : { status: 204, body: '' },
      );
      const wh = await webhook(r.url);
      const d = await delivery(wh);
      engine();
      const first = await attempts(d.id, 1);
      expect(first.status).toBe('pending');
      expect(Date.parse(first.nextAttemptAt!) - clock.now()).toBe(120_000);

      clock.advance(60_000);
      await pause(400); // several polls
      expect(r.requests).toHaveLength(1);

      clock.advance(60_000);
      const second = await attempts(d.id, 2);
      expect(second.status).toBe('succeeded');
      expect(r.requests).toHaveLength(2);
    });

    it('disables the webhook on 410 and does not retry', async () => {
      const r = await receiver(() => ({ status: 410, body: 'gone' }));
      const wh = await webhook(r.url, { cron: '*/5 * * * *', nextFireAt: iso(clock.now() + 60_000) });
      const d = await delivery(wh);
      engine();
      const done = await attempts(d.id, 1);
      expect(done.status).toBe('failed');
      expect(done.nextAttemptAt).toBeNull();
      expect(done.attempts[0].responseStatus).toBe(410);
      // The attempt is recorded first, then the webhook disabled: wait for the second step.
      await waitFor(() => disabled.length === 1);
      expect(disabled[0].id).toBe(wh.id);
      const after = await store.getWebhook(wh.id);
      expect(after).toMatchObject({ enabled: false, nextFireAt: null });
      expect(finalFailures.map((f) => f.delivery.id)).toEqual([d.id]);
    });

    it('records a timeout as a failed attempt and schedules a retry', async () => {
      const hanging = await startHoldingReceiver();
      cleanups.push(() => hanging.close());
      const wh = await webhook(hanging.url, { timeoutMs: 1000 });
      const d = await delivery(wh);
      engine();
      const first = await attempts(d.id, 1);
      expect(hanging.requests).toHaveLength(1);
      expect(first.status).toBe('pending');
      expect(first.attempts[0]).toMatchObject({ responseStatus: null, error: 'timeout after 1000 ms' });
      expect(first.error).toBe('timeout after 1000 ms');
      expect(first.response).toBeNull();
      expect(first.nextAttemptAt).toBe(iso(clock.now() + 5000));
    });

    it('records connection refused and schedules a retry', async () => {
      const port = await closedPort();
      const wh = await webhook(`http://127.0.0.1:${port}/hook`);
      const d = await delivery(wh);
      engine();
      const first = await attempts(d.id, 1);
      expect(first.status).toBe('pending');
      expect(first.attempts[0]).toMatchObject({ responseStatus: null, error: 'connection refused (ECONNREFUSED)' });
      expect(first.nextAttemptAt).not.toBeNull();
    });

    it('does not follow a redirect and fails at once', async () => {
      const r = await receiver((req) =>
        req.url === '/hook' ? { status: 302, body: '', headers: { location: '/elsewhere' } } : { status: 200, body: 'ok' },
      );
      const wh = await webhook(`${r.url}/hook`);
      const d = await delivery(wh);
      engine();
      const done = await attempts(d.id, 1);
      expect(done.status).toBe('failed');
      expect(done.attempts[0]).toMatchObject({ responseStatus: 302, error: 'redirect not followed (302)' });
      expect(done.response!.headers.location).toBe('/elsewhere');
      expect(r.requests.map((q) => q.url)).toEqual(['/hook']);
      await waitFor(() => finalFailures.length === 1);
    });

    it('refuses a private target unless private targets are allowed', async () => {
      const r = await receiver();
      const wh = await webhook(`${r.url}/hook`);
      const d = await delivery(wh);
      engine({ allowPrivateTargets: false });
      const first = await attempts(d.id, 1);
      expect(r.requests).toHaveLength(0);
      expect(first.status).toBe('pending');
      expect(first.attempts[0].error).toMatch(/^connect refused: 127\.0\.0\.1 is a private address/);
    });

    it('fails for good after max_attempts and reports the final failure, except for switchyard.* events', async () => {
      const r = await receiver(() => ({ status: 503, body: 'down' }));
      const wh = await webhook(r.url, { retry: { maxAttempts: 2, scheduleS: [1] } });
      const d = await delivery(wh);
      const op = await delivery(wh, { event: 'switchyard.delivery.failed', eventData: { id: 1 } });
      engine();
      await attempts(d.id, 1);
      await attempts(op.id, 1);
      expect(finalFailures).toHaveLength(0);
      clock.advance(1000);
      const done = await attempts(d.id, 2);
      const opDone = await attempts(op.id, 2);
      expect(done.status).toBe('failed');
      expect(done.nextAttemptAt).toBeNull();
      expect(done.error).toBe('target answered 503');
      expect(opDone.status).toBe('failed');
      await waitFor(() => finalFailures.length >= 1);
      expect(finalFailures.map((f) => [f.webhook.id, f.delivery.id, f.delivery.attempts.length])).toEqual([[wh.id, d.id, 2]]);
      clock.advance(3_600_000);
      await pause(300);
      expect(r.requests).toHaveLength(4);
    });

    it('attemptNow makes one final attempt of a test delivery', async () => {
      const r = await receiver(() => ({ status: 500, body: 'nope' }));
      const wh = await webhook(r.url, { enabled: false });
      const e = engine();
      const test = await delivery(wh, { trigger: 'test', event: null, eventData: null, nextAttemptAt: iso(clock.now() + 60_000) });
      const done = await e.attemptNow(test.id);
      expect(done.status).toBe('failed');
      expect(done.nextAttemptAt).toBeNull();
      expect(done.attempts).toHaveLength(1);
      expect(done.attempts[0].responseStatus).toBe(500);
      expect(JSON.parse(r.requests[0].body)).toEqual({ event: null, id: '{{data.id}}', note: `delivery ${test.id}` });

      // A manual retry: reopened, one more attempt with the same id and bytes.
      expect(await store.reopenDelivery(test.id, iso(clock.now() + 60_000))).not.toBeNull();
      const again = await e.attemptNow(test.id);
      expect(again.attempts.map((a) => a.attempt)).toEqual([1, 2]);
      expect(again.status).toBe('failed');
      expect(r.requests[1].body).toBe(r.requests[0].body);
      expect(r.requests[1].headers['webhook-id']).toBe(test.id);
      await expect(e.attemptNow('dlv_missing')).rejects.toMatchObject({ code: 'delivery_not_found' });
    });

    it('stop() gives leases back and another engine delivers the pending ones', async () => {
      const hanging = await startHoldingReceiver();
      cleanups.push(() => hanging.close());
      const wh = await webhook(hanging.url);
      const ids = (await Promise.all([1, 2, 3].map(() => delivery(wh)))).map((d) => d.id);
      const first = engine({ owner: 'owner-a' });
      await waitFor(() => hanging.requests.length === 3);
      await first.stop(100);

      // Nothing was recorded by the stopped engine, and nothing is leased any more.
      for (const id of ids) expect(await store.getDelivery(id)).toMatchObject({ status: 'pending', attempts: [] });
      expect((await store.claimDueDeliveries('probe', iso(clock.now()), 1, 10)).map((d) => d.id).sort()).toEqual(
        [...ids].sort(),
      );
      await store.releaseLeases('probe');

      hanging.release();
      engine({ owner: 'owner-b' });
      for (const id of ids) expect((await attempts(id, 1)).status).toBe('succeeded');
      expect(hanging.requests.length).toBeGreaterThanOrEqual(6);
    });

    it('gives the lease back when an attempt fails on the store, so the delivery is retried before the lease runs out', async () => {
      const target = await receiver();
      const wh = await webhook(target.url);
      const d = await delivery(wh);
      // The first read of the webhook fails as if the database went away mid-attempt.
      const realGetWebhook = store.getWebhook.bind(store);
      let failures = 0;
      store.getWebhook = async (id: string) => {
        if (failures++ === 0) throw Object.assign(new Error('connection terminated'), { code: 'ECONNRESET' });
        return realGetWebhook(id);
      };
      // A lease far longer than the test: only giving it back lets the second attempt start.
      engine({ leaseMs: 3_600_000 });
      expect((await attempts(d.id, 1)).status).toBe('succeeded');
      expect(failures).toBeGreaterThanOrEqual(2);
      expect(target.requests).toHaveLength(1);
    });

    it('records outcomes through the batch method of a store when it has one', async () => {
      const r = await receiver();
      const wh = await webhook(r.url);
      const ids = (await Promise.all(Array.from({ length: 20 }, () => delivery(wh)))).map((d) => d.id);
      const batches: number[] = [];
      // The real store, plus the optional batch method (sequential here; one transaction in a real store).
      const batching = Object.assign(Object.create(store) as Store, {
        async recordAttempts(owner: string, items: Array<{ id: string; outcome: Parameters<Store['recordAttempt']>[2] }>) {
          batches.push(items.length);
          return Promise.all(items.map((i) => store.recordAttempt(i.id, owner, i.outcome)));
        },
      });
      engine({ store: batching });
      for (const id of ids) expect((await attempts(id, 1)).status).toBe('succeeded');
      // Every outcome went through the batch method (how many share a batch depends on timing).
      expect(batches.reduce((a, b) => a + b, 0)).toBe(20);
    });

    it('puts an event\'s data into the top-level data of a template that does not place it', async () => {
      const r = await receiver();
      const wh = await webhook(r.url, { payloadTemplate: { source: 'shop', event: '{{event}}', data: { id: 0 } } });
      const d = await delivery(wh, { event: 'invoice.paid', eventData: { amount: 5 } });
      const test = await delivery(wh, { trigger: 'test', event: null, eventData: null });
      engine();
      await attempts(d.id, 1);
      await attempts(test.id, 1);
      const bodies = r.requests.map((q) => JSON.parse(q.body));
      expect(bodies).toContainEqual({ source: 'shop', event: 'invoice.paid', data: { amount: 5 } });
      // Not an event: the template is sent as is.
      expect(bodies).toContainEqual({ source: 'shop', event: null, data: { id: 0 } });
    });

    it('puts the mock endpoint body into data, and retries a failing mock endpoint', async () => {
      const r = await receiver();
      const api = await store.createApi({ name: 'stock', basePath: '/stock', routes: [] });
      const wh = await webhook(r.url, {
        mockEndpoint: { apiId: api.id, path: '/items' },
        payloadTemplate: { source: 'erp', event: 'stock.sync', data: {} },
      });
      let mockStatus = 500;
      const calls: string[] = [];
      engine({
        fetchMock: async (apiId, path) => {
          calls.push(`${apiId}${path}`);
          return mockStatus === 200
            ? { status: 200, body: { items: [{ sku: 'A', qty: 3 }] } }
            : { status: mockStatus, body: null, error: `mock endpoint answered ${mockStatus}` };
        },
      });
      const d = await delivery(wh, { trigger: 'schedule', event: null, eventData: null, scheduledFor: iso(clock.now()) });

      const first = await attempts(d.id, 1);
      expect(first.status).toBe('pending');
      expect(first.attempts[0]).toMatchObject({ responseStatus: null, error: 'mock endpoint answered 500' });
      expect(first.request).toBeNull();
      expect(r.requests).toHaveLength(0);

      mockStatus = 200;
      clock.advance(5000);
      const done = await attempts(d.id, 2);
      expect(done.status).toBe('succeeded');
      expect(calls).toEqual([`${api.id}/items`, `${api.id}/items`]);
      expect(JSON.parse(r.requests[0].body)).toEqual({ source: 'erp', event: 'stock.sync', data: { items: [{ sku: 'A', qty: 3 }] } });
    });

    it('renders the mock body into {{data}} paths and the schedule slot into {{timestamp}}', async () => {
      const r = await receiver();
      const api = await store.createApi({ name: 'stock', basePath: '/stock', routes: [] });
      const wh = await webhook(r.url, {
        mockEndpoint: { apiId: api.id, path: '/items' },
        payloadTemplate: { at: '{{timestamp}}', first: '{{data.items.0.sku}}', count: '{{mock.count}}' },
      });
      engine({ fetchMock: async () => ({ status: 200, body: { items: [{ sku: 'Z' }], count: 1 } }) });
      const slot = '2024-03-01T10:00:00.000Z';
      const d = await delivery(wh, { trigger: 'schedule', event: null, eventData: null, scheduledFor: slot });
      await attempts(d.id, 1);
      expect(JSON.parse(r.requests[0].body)).toEqual({ at: slot, first: 'Z', count: 1 });
    });

    it('gives each webhook a bounded share of the slots: hung targets hold theirs, a healthy one still gets through', async () => {
      const hanging = await startHoldingReceiver();
      cleanups.push(() => hanging.close());
      const r = await receiver();
      const hungA = await webhook(`${hanging.url}/a`, { timeoutMs: 60_000 });
      const hungB = await webhook(`${hanging.url}/b`, { timeoutMs: 60_000 });
      const healthy = await webhook(`${r.url}/ok`);
      const hung = [];
      for (let i = 0; i < 8; i++) hung.push((await delivery(hungA)).id, (await delivery(hungB)).id);
      const e = engine({ concurrency: 7, perTarget: 3 });
      await waitFor(() => hanging.requests.length === 6);

      // Two hung webhooks hold 3 slots each; the seventh slot serves the healthy webhook, one at a time.
      const ok = [];
      for (let i = 0; i < 5; i++) ok.push((await delivery(healthy)).id);
      e.wake();
      for (const id of ok) expect((await attempts(id, 1)).status).toBe('succeeded');
      expect(r.requests).toHaveLength(5);
      expect(hanging.requests).toHaveLength(6);
      expect([...e.inflightByTarget()].sort()).toEqual([[hungA.id, 3], [hungB.id, 3]].sort());

      // Once the target answers, each webhook's backlog goes out, its share at a time.
      hanging.release();
      for (const id of hung) expect((await attempts(id, 1)).status).toBe('succeeded');
      expect(hanging.requests).toHaveLength(16);
      await waitFor(() => e.inflightByTarget().size === 0);
    });

    it('refills a webhook at its share as its attempts finish, without waiting for the poll', async () => {
      const r = await receiver();
      const wh = await webhook(r.url);
      const ids = [];
      for (let i = 0; i < 40; i++) ids.push((await delivery(wh)).id);
      engine({ perTarget: 4, pollMs: 60_000 });
      for (const id of ids) expect((await attempts(id, 1)).status).toBe('succeeded');
      expect(r.requests).toHaveLength(40);
    });

    it('lets a webhook whose target keeps its latency have more than its starting share in flight', async () => {
      let e: DeliveryEngine | null = null;
      let released = false;
      let inflightAtRelease = 0;
      const held: Array<{ end(body: string): void }> = [];
      // The clock stands still: every latency the engine measures is 0 ms, the same as the first.
      const r = await startScriptedReceiver((_req, res, index) => {
        if (index < 100 || released) return void res.end('{"ok":true}');
        // From the 101st on, answer only once 60 are waiting at once: more than the starting share of 50.
        held.push(res);
        if (held.length < 60) return;
        released = true;
        inflightAtRelease = e!.inflightByTarget().get(wh.id) ?? 0;
        for (const waiting of held.splice(0)) waiting.end('{"ok":true}');
      });
      cleanups.push(() => r.close());
      const wh = await webhook(r.url);
      const ids = [];
      for (let i = 0; i < 200; i++) ids.push((await delivery(wh)).id);
      e = engine();
      for (const id of ids) expect((await attempts(id, 1)).status).toBe('succeeded');
      expect(r.requests).toHaveLength(200);
      expect(inflightAtRelease).toBeGreaterThanOrEqual(60);
      expect(new Map(e.concurrencyLimits()).get(wh.id)).toBeGreaterThan(50);
    });

    it('falls back to one attempt in flight for a target that times out', async () => {
      let e: DeliveryEngine | null = null;
      const inflightAtArrival: number[] = [];
      // Never answers: every attempt ends in its 200 ms timeout.
      const r = await startScriptedReceiver(() => void inflightAtArrival.push(e!.inflightByTarget().get(wh.id) ?? 0));
      cleanups.push(() => r.close());
      const wh = await webhook(`${r.url}/hangs`, { timeoutMs: 200 });
      for (let i = 0; i < 60; i++) await delivery(wh);
      e = engine();
      await waitFor(() => r.requests.length >= 53);
      // The starting share went out at once (all 50 were in flight when the first arrived; on a busy
      // machine some may time out before the last arrive); once those timed out, one at a time
      // (a fixed share sent the other 10 at once).
      expect(inflightAtArrival[0]).toBe(50);
      expect(Math.max(...inflightAtArrival.slice(0, 50))).toBe(50);
      expect(inflightAtArrival.slice(50, 53)).toEqual([1, 1, 1]);
      expect(new Map(e.concurrencyLimits()).get(wh.id)).toBe(1);
    });

    it('on start, releases the leases of a gone process of this host at once, and no other host\'s', async () => {
      const r = await receiver();
      const wh = await webhook(r.url);
      const self = `${hostname()}:${process.pid}:aaaaaa`;
      // A pid above any pid_max: no process has it.
      const gone = `${hostname()}:4194399:bbbbbb`;
      const elsewhere = `other-host.example:4194399:cccccc`;
      const mine = await delivery(wh);
      expect(await store.claimDueDeliveries(gone, iso(clock.now()), 90_000, 1)).toHaveLength(1);
      const theirs = await delivery(wh);
      expect(await store.claimDueDeliveries(elsewhere, iso(clock.now()), 90_000, 1)).toHaveLength(1);

      engine({ owner: self, isDeadOwner: (owner) => isDeadOwnerOnThisHost(owner, self) });
      // The clock stands still: only the release can make the first one due for this engine.
      expect((await attempts(mine.id, 1)).status).toBe('succeeded');
      await pause(300);
      expect(r.requests.map((q) => q.headers['webhook-id'])).toEqual([mine.id]);
      expect(await store.leaseOwners()).toEqual([elsewhere]);
      // The other host's lease is taken over as before: when it expires.
      clock.advance(90_001);
      expect((await attempts(theirs.id, 1)).status).toBe('succeeded');
    });
  });
}
