/**
 * Endpoint health end to end over real HTTP (issue 24): a real server on the
 * hand-moved test clock and real local receivers whose answers a test
 * switches. Deliveries of a webhook that may not be sent to are held and
 * released in publish order; the circuit breaker opens at its threshold,
 * probes with backoff, closes on success and releases; a webhook failing for
 * the auto-disable span is disabled; a 410 disables and holds; Retry-After
 * (seconds or a date) pauses the whole target; the held bound discards the
 * oldest; held deliveries can be discarded by filter; every transition is an
 * operational event a subscribed function receives.
 * SQLite, or PostgreSQL with TEST_STORE=postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type ReceivedRequest, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { sleep, until } from '../helpers/until.js';

/** How a receiver answers now; tests switch it. */
type Answer = { status: number; body?: string; headers?: Record<string, string> };

let svc: RunningService;
let receiver: Receiver;
/** Receivers of their own (another port: another origin), so one test's failures never add up to another's origin. */
const own: Receiver[] = [];
let answer: (req: ReceivedRequest) => Answer = () => ({ status: 200 });
let watcher: string;

const SECOND = 1000;

const answering = () =>
  startReceiver((req) => {
    const a = answer(req);
    return { status: a.status, body: a.body ?? '{"ok":true}', headers: { 'content-type': 'application/json', ...a.headers } };
  });

/** A receiver of its own for a test whose targets fail. */
async function origin(): Promise<Receiver> {
  const rx = await answering();
  own.push(rx);
  return rx;
}

async function webhook(name: string, extra: Record<string, unknown> = {}, rx: Receiver = receiver) {
  const res = await svc.request('POST', '/api/webhooks', {
    name,
    target_url: `${rx.url}/${name}`,
    method: 'POST',
    payload_template: { n: '{{data.n}}', event: '{{event}}' },
    events: [`${name}.happened`],
    ...extra,
  });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string; name: string };
}

/** Publishes `count` events for the webhook named `name`, numbered from `from`. */
async function publish(name: string, count: number, from = 0, event = `${name}.happened`) {
  for (let i = 0; i < count; i++) {
    const res = await svc.request('POST', '/api/events', { event, data: { n: from + i } });
    expect(res.status, res.text).toBe(202);
  }
}

/** What `name`'s target received, as the numbers its bodies carry, in arrival order (on any receiver). */
const received = (name: string) =>
  [receiver, ...own].flatMap((rx) => rx.requests).filter((r) => r.url === `/${name}`).map((r) => (JSON.parse(r.body) as { n: number }).n);

const get = async (id: string) => (await svc.request('GET', `/api/webhooks/${id}`)).json;
const deliveries = async (id: string, status?: string) =>
  (await svc.request('GET', `/api/webhooks/${id}/deliveries?limit=100${status ? `&status=${status}` : ''}`)).json as Array<{
    id: string;
    status: string;
    error: string | null;
    event: string | null;
  }>;
const advance = (ms: number) => svc.request('PUT', '/api/_test/clock', { advance_ms: ms });

/** The operational events the watcher function received about `webhookId`, oldest first. */
async function toldAbout(webhookId: string): Promise<Array<{ event: string; reason: string }>> {
  const res = await svc.request('GET', `/api/functions/${watcher}/invocations?limit=1000`);
  const runs = res.json as Array<{ event: { detail: Record<string, unknown>; 'detail-type': string } }>;
  return runs
    .filter((r) => r.event.detail.webhook_id === webhookId)
    .map((r) => ({ event: r.event['detail-type'], reason: r.event.detail.reason as string }))
    .reverse();
}

beforeAll(async () => {
  receiver = await answering();
  svc = await startService({ env: { SWITCHYARD_TEST_HOOKS: '1', SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1', SWITCHYARD_MAX_HELD: '6' } });
  const fn = await svc.request('POST', '/api/functions', {
    name: 'health-watcher',
    code: 'export const handler = async (event) => ({ seen: event["detail-type"] });',
    events: ['switchyard.webhook.paused', 'switchyard.webhook.resumed', 'switchyard.webhook.disabled'],
  });
  expect(fn.status, fn.text).toBe(201);
  watcher = fn.json.name;
});

afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
  for (const rx of own) await rx.close();
});

describe('held deliveries', () => {
  it('are kept while a webhook is disabled and released in publish order when it is enabled again', async () => {
    answer = () => ({ status: 200 });
    // One send at a time (a rate limit with a burst of 1) lets the arrival order show the release order.
    const hook = await webhook('disabled-hook', { enabled: false, rate_limit: { per_second: 50, burst: 1 } });
    await publish('disabled-hook', 5);
    const held = await deliveries(hook.id, 'held');
    expect(held.map((d) => d.status)).toEqual(['held', 'held', 'held', 'held', 'held']);
    expect((await get(hook.id)).health).toMatchObject({ held: 5, state: 'closed' });
    await sleep(300);
    expect(received('disabled-hook')).toEqual([]);

    const res = await svc.request('PUT', `/api/webhooks/${hook.id}`, { enabled: true });
    expect(res.status, res.text).toBe(200);
    // The bucket refills by the test clock: a step gives it one token (its burst), so one delivery goes.
    // The next step waits for that delivery to arrive: two in flight at once could arrive either way round.
    await until(() => received('disabled-hook').length === 1, 'the first released delivery, on the full bucket');
    for (let n = 2; n <= 5; n++) {
      await advance(50);
      await until(() => received('disabled-hook').length >= n, `released delivery ${n}`);
    }
    expect(received('disabled-hook')).toEqual([0, 1, 2, 3, 4]);
    expect((await deliveries(hook.id)).every((d) => d.status === 'succeeded')).toBe(true);
    expect((await get(hook.id)).health.held).toBe(0);
    await until(async () => (await toldAbout(hook.id)).length >= 1, 'the resumed event');
    expect(await toldAbout(hook.id)).toEqual([{ event: 'switchyard.webhook.resumed', reason: 'enabled' }]);
  });

  it('are kept while paused by an operator; resume releases them; both are operational events', async () => {
    answer = () => ({ status: 200 });
    const hook = await webhook('paused-hook');
    const paused = await svc.request('POST', `/api/webhooks/${hook.id}/pause`);
    expect(paused.status, paused.text).toBe(200);
    expect(paused.json).toMatchObject({ paused: true, enabled: true });
    expect(paused.json.paused_at).toEqual(expect.any(String));
    await publish('paused-hook', 3);
    expect((await deliveries(hook.id, 'held')).length).toBe(3);
    await sleep(300);
    expect(received('paused-hook')).toEqual([]);

    const resumed = await svc.request('POST', `/api/webhooks/${hook.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.json).toMatchObject({ paused: false, paused_at: null });
    await until(() => received('paused-hook').length === 3, 'the released deliveries');
    expect(received('paused-hook').sort()).toEqual([0, 1, 2]);
    await until(async () => (await toldAbout(hook.id)).length >= 2, 'the paused and resumed events');
    expect(await toldAbout(hook.id)).toEqual([
      { event: 'switchyard.webhook.paused', reason: 'operator' },
      { event: 'switchyard.webhook.resumed', reason: 'operator' },
    ]);
  });

  it('can be discarded by filter instead (dry run first); a discarded delivery is never sent', async () => {
    answer = () => ({ status: 200 });
    const hook = await webhook('discard-hook', { events: ['discard.a', 'discard.b'] });
    await svc.request('POST', `/api/webhooks/${hook.id}/pause`);
    await publish('discard-hook', 2, 0, 'discard.a');
    await publish('discard-hook', 1, 10, 'discard.b');
    const dry = await svc.request('POST', `/api/webhooks/${hook.id}/held/discard?dry_run=true`, { events: ['discard.a'] });
    expect(dry.json).toEqual({ discarded: 2, dry_run: true });
    expect((await deliveries(hook.id, 'held')).length).toBe(3);
    const done = await svc.request('POST', `/api/webhooks/${hook.id}/held/discard`, { events: ['discard.a'] });
    expect(done.json).toEqual({ discarded: 2, dry_run: false });
    const discarded = await deliveries(hook.id, 'discarded');
    expect(discarded.map((d) => d.event)).toEqual(['discard.a', 'discard.a']);
    expect(discarded[0].error).toMatch(/discarded by an operator/);
    await svc.request('POST', `/api/webhooks/${hook.id}/resume`);
    await until(() => received('discard-hook').length === 1, 'the one left');
    await sleep(300);
    expect(received('discard-hook')).toEqual([10]);
  });

  it('are bounded per webhook (SWITCHYARD_MAX_HELD): the oldest are discarded and counted', async () => {
    const hook = await webhook('bounded-hook', { enabled: false });
    await publish('bounded-hook', 9);
    // The bound is kept by a background pass, which a move of the clock runs at once.
    await advance(1);
    await until(async () => (await get(hook.id)).health.held === 6, 'the bound');
    const health = (await get(hook.id)).health;
    expect(health).toMatchObject({ held: 6, held_discarded: 3 });
    const discarded = await deliveries(hook.id, 'discarded');
    expect(discarded).toHaveLength(3);
    expect(discarded[0].error).toMatch(/SWITCHYARD_MAX_HELD/);
    const metrics = (await svc.request('GET', '/metrics')).text;
    expect(metrics).toMatch(/switchyard_webhook_held_discarded_total\{reason="bound"\} [1-9]/);
  });
});

describe('circuit breaker', () => {
  it('opens at its threshold, holds, probes with backoff, and closes on a successful probe, releasing what it held', async () => {
    answer = (req) => (req.url === '/breaker-hook' ? { status: 500 } : { status: 200 });
    const hook = await webhook('breaker-hook', { breaker: { min_attempts: 4, failure_ratio: 0.5, window_s: 60 }, retry: { max_attempts: 1 } }, await origin());
    await publish('breaker-hook', 4);
    await until(() => received('breaker-hook').length === 4, 'the failing attempts');
    const opened = await until(async () => {
      const h = (await get(hook.id)).health;
      return h.state === 'open' ? h : null;
    }, 'the breaker to open');
    expect(opened.failure_ratio).toBe(1);
    expect(opened.next_probe_at).toEqual(expect.any(String));
    await until(async () => (await toldAbout(hook.id)).some((e) => e.event === 'switchyard.webhook.paused'), 'the paused event');
    expect((await toldAbout(hook.id))[0]).toEqual({ event: 'switchyard.webhook.paused', reason: 'failing' });

    // Open: new deliveries are held, nothing is sent.
    await publish('breaker-hook', 3, 10);
    expect((await deliveries(hook.id, 'held')).length).toBe(3);
    await sleep(300);
    expect(received('breaker-hook')).toHaveLength(4);

    // The first probe after 5 s: one held delivery, which fails: the wait doubles to 10 s.
    const firstProbeAt = Date.parse(opened.next_probe_at);
    await advance(5 * SECOND);
    await until(() => received('breaker-hook').length === 5, 'the first probe');
    const after = await until(async () => {
      const h = (await get(hook.id)).health;
      return h.state === 'open' && h.next_probe_at !== opened.next_probe_at ? h : null;
    }, 'the probe to fail');
    expect(Date.parse(after.next_probe_at) - firstProbeAt).toBeGreaterThanOrEqual(10 * SECOND);
    expect(received('breaker-hook')[4]).toBe(10);
    // Not yet due: still nothing sent.
    await advance(5 * SECOND);
    await sleep(300);
    expect(received('breaker-hook')).toHaveLength(5);

    // The target recovers: the next probe succeeds, the breaker closes, the rest go.
    answer = () => ({ status: 200 });
    await advance(5 * SECOND);
    await until(() => received('breaker-hook').length === 7, 'the probe and the released deliveries');
    expect(received('breaker-hook').slice(5).sort()).toEqual([11, 12]);
    await until(async () => (await get(hook.id)).health.state === 'closed', 'the breaker to close');
    expect((await get(hook.id)).health.held).toBe(0);
    await until(async () => (await toldAbout(hook.id)).some((e) => e.event === 'switchyard.webhook.resumed'), 'the resumed event');
    expect((await toldAbout(hook.id)).at(-1)).toEqual({ event: 'switchyard.webhook.resumed', reason: 'probe_succeeded' });
  });

  it('of an origin opens every webhook sending there when they fail together, though none would alone', async () => {
    answer = (req) => (req.url.startsWith('/origin-') ? { status: 503 } : { status: 200 });
    const high = { breaker: { min_attempts: 1000 }, retry: { max_attempts: 1 } };
    const shared = await origin();
    const a = await webhook('origin-a', high, shared);
    const b = await webhook('origin-b', high, shared);
    await publish('origin-a', 11);
    await publish('origin-b', 11);
    await until(() => received('origin-a').length + received('origin-b').length === 22, 'the failing attempts');
    for (const id of [a.id, b.id]) {
      await until(async () => (await get(id)).health.state === 'open', 'both breakers to open');
      await until(async () => (await toldAbout(id)).length > 0, 'the paused events');
      expect((await toldAbout(id))[0]).toEqual({ event: 'switchyard.webhook.paused', reason: 'origin_failing' });
    }
    // Each probes on its own and closes.
    answer = () => ({ status: 200 });
    await publish('origin-a', 1, 100);
    await publish('origin-b', 1, 100);
    await advance(5 * SECOND);
    for (const id of [a.id, b.id]) await until(async () => (await get(id)).health.state === 'closed', 'both breakers to close');
  });
});

describe('automatic disable', () => {
  it('disables a webhook whose every attempt failed for the span, and holds what comes after', async () => {
    answer = (req) => (req.url === '/failing-hook' ? { status: 500 } : { status: 200 });
    const span = { breaker: { enabled: false }, retry: { max_attempts: 1 }, auto_disable: { after_s: 3600, min_span_s: 600 } };
    const rx = await origin();
    const hook = await webhook('failing-hook', span, rx);
    // A webhook with auto-disable off, failing alike, stays enabled.
    const kept = await webhook('failing-kept', { ...span, auto_disable: { enabled: false }, target_url: `${rx.url}/failing-hook` }, rx);
    const both = async (n: number) => {
      await publish('failing-hook', 1, n);
      await publish('failing-kept', 1, n);
      await until(() => received('failing-hook').length === 2 * (n + 1), 'the attempts');
      await advance(1); // report now
    };
    await both(0);
    await advance(700 * SECOND);
    await both(1);
    expect((await get(hook.id)).enabled).toBe(true);
    await advance(3000 * SECOND);
    await both(2);
    const disabled = await until(async () => {
      const w = await get(hook.id);
      return w.enabled === false ? w : null;
    }, 'the webhook to be disabled');
    expect(disabled.disabled_reason).toBe('failing');
    expect(disabled.health.failing_since).toEqual(expect.any(String));
    expect((await get(kept.id)).enabled).toBe(true);
    await until(async () => (await toldAbout(hook.id)).length > 0, 'the disabled event');
    expect(await toldAbout(hook.id)).toEqual([{ event: 'switchyard.webhook.disabled', reason: 'failing' }]);

    await publish('failing-hook', 1, 3);
    expect((await deliveries(hook.id, 'held')).length).toBe(1);
    // Enabled by a person: the reason goes, the held delivery is sent.
    answer = () => ({ status: 200 });
    const enabled = await svc.request('PUT', `/api/webhooks/${hook.id}`, { enabled: true });
    expect(enabled.json).toMatchObject({ enabled: true, disabled_reason: null });
    await until(() => received('failing-hook').includes(3), 'the held delivery');
  });

  it('disables at once on 410 Gone, holding what was still to be sent', async () => {
    answer = (req) => (req.url === '/gone-hook' ? { status: 410 } : { status: 200 });
    const hook = await webhook('gone-hook', {}, await origin());
    await publish('gone-hook', 1);
    const w = await until(async () => {
      const x = await get(hook.id);
      return x.enabled === false ? x : null;
    }, 'the 410 to disable');
    expect(w.disabled_reason).toBe('gone');
    await publish('gone-hook', 2, 1);
    expect((await deliveries(hook.id, 'held')).length).toBe(2);
    answer = () => ({ status: 200 });
    await svc.request('PUT', `/api/webhooks/${hook.id}`, { enabled: true });
    await until(() => received('gone-hook').length === 3, 'the held deliveries');
    expect(received('gone-hook').slice(1).sort()).toEqual([1, 2]);
  });
});

describe('Retry-After', () => {
  // The date is the service's clock's (the test clock, moved ahead by the tests before) two minutes on.
  for (const [form, header] of [
    ['seconds', () => '120'],
    ['an HTTP date', (clock: number) => new Date(clock + 120 * SECOND).toUTCString()],
  ] as const) {
    it(`as ${form} pauses the whole target, not only the delivery that got it`, async () => {
      const name = `retry-after-${form === 'seconds' ? 's' : 'date'}`;
      const now = Date.parse((await svc.request('GET', '/api/_test/clock')).json.now);
      let first = true;
      answer = (req) => {
        if (req.url !== `/${name}` || !first) return { status: 200 };
        first = false;
        return { status: 429, headers: { 'retry-after': header(now) } };
      };
      const hook = await webhook(name, {}, await origin());
      await publish(name, 1);
      await until(async () => (await get(hook.id)).health.not_before !== null, 'the target to ask for time');
      const notBefore = Date.parse((await get(hook.id)).health.not_before);
      const clock = Date.parse((await svc.request('GET', '/api/_test/clock')).json.now);
      // An HTTP date has whole seconds: within a few of two minutes either way.
      expect(Math.abs(notBefore - clock - 120 * SECOND)).toBeLessThan(5 * SECOND);
      await publish(name, 2, 1);
      await sleep(400);
      expect(received(name)).toEqual([0]);
      await advance(121 * SECOND);
      await until(() => received(name).length === 4, 'everything once the time passed');
      expect(received(name).slice(1).sort()).toEqual([0, 1, 2]);
    });
  }
});

describe('visible state', () => {
  it('lists health on every webhook and the held and breaker gauges in /metrics', async () => {
    const list = (await svc.request('GET', '/api/webhooks?limit=100')).json as Array<{ name: string; health: Record<string, unknown> }>;
    for (const w of list) {
      expect(w.health).toMatchObject({ state: expect.stringMatching(/^(closed|open|half_open)$/), held: expect.any(Number), failure_ratio: expect.any(Number) });
    }
    const metrics = (await svc.request('GET', '/metrics')).text;
    expect(metrics).toContain('# TYPE switchyard_webhook_held_deliveries gauge');
    expect(metrics).toContain('# TYPE switchyard_webhook_breaker_state gauge');
    expect(metrics).toMatch(/switchyard_webhook_health_events_total\{event="paused"\} [1-9]/);
  });
});
