/**
 * A webhook's endpoint health in the dashboard, in Chromium against a real
 * server (admin key, the test clock, which stands still here so an open
 * breaker's probe never comes due, local receivers): paused from the
 * page, a published event is held (the held count and the held list show it)
 * and resuming sends it; held deliveries of one event are counted, then
 * discarded; a recovery is counted before it starts and followed to its end,
 * and a refused time is marked; a webhook whose breaker opened shows it in
 * the list and on its page; the form's breaker, rate limit and auto-disable
 * settings round-trip and a refused one is marked. Each view state passes
 * axe-core and the CSP check (test/helpers/browser.ts).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, checkView, enterKey, launchBrowser, type Browser } from '../helpers/browser.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const KEY = 'dashboard-webhook-health-key';
const AUTH = { authorization: `Bearer ${KEY}` };
const HOUR = 3_600_000;

/** A time as a datetime-local input takes it, in the browser's time zone (the machine's, as here). */
const local = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 19);

const suite = browserSuite('test/browser/dashboard-webhook-health.test.ts');

suite('endpoint health on the dashboard webhook pages in Chromium', () => {
  let svc: RunningService;
  let ok: Receiver;
  let failing: Receiver;
  let browser: Browser;
  let page: Page;

  const createHook = async (name: string, target: string, extra: Record<string, unknown> = {}) => {
    const res = await svc.request(
      'POST',
      '/api/webhooks',
      { name, target_url: target, method: 'POST', payload_template: { event: '{{event}}' }, events: [`${name}.happened`], ...extra },
      AUTH,
    );
    expect(res.status, res.text).toBe(201);
    return res.json.id as string;
  };
  const publish = async (event: string) => expect((await svc.request('POST', '/api/events', { event }, AUTH)).status).toBe(202);
  const get = async (id: string) => (await svc.request('GET', `/api/webhooks/${id}`, undefined, AUTH)).json;
  const deliveries = async (id: string, status: string) =>
    (await svc.request('GET', `/api/webhooks/${id}/deliveries?status=${status}`, undefined, AUTH)).json as Array<{ id: string; event: string | null }>;
  const sent = (rx: Receiver, path: string) => rx.requests.filter((r) => r.url === path).length;
  const section = (title: string) => page.locator(`section[aria-labelledby="${title}"]`);

  beforeAll(async () => {
    ok = await startReceiver();
    failing = await startReceiver(() => ({ status: 500, body: 'down' }));
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_TEST_HOOKS: '1', SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
    browser = await launchBrowser();
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await ok?.close();
    await failing?.close();
  });

  it('holds an event published while paused from the page, lists it, and sends it once resumed', async () => {
    const id = await createHook('held', `${ok.url}/held`);
    await enterKey(page, `${svc.url}/#/webhooks/${id}`, KEY);
    const health = section('health-title');
    await expect.poll(() => health.locator('.sending').textContent()).toBe('yes');
    await expect.poll(() => page.locator('#deliveries-title .live-state').textContent()).toBe('live');

    await health.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => health.locator('.sending').textContent()).toMatch(/^no: paused since /);
    expect((await get(id)).paused).toBe(true);

    await publish('held.happened');
    await health.getByRole('button', { name: 'Refresh health' }).click();
    await expect.poll(() => health.locator('.held-count').textContent()).toBe('1');
    const [held] = await deliveries(id, 'held');
    const rows = section('held-title').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.locator(`a[href="#/deliveries/${held.id}"]`).count()).toBe(1);
    expect(await rows.locator('.badge').textContent()).toBe('held');
    expect(await rows.locator('td').nth(1).textContent()).toBe('event (held.happened)');
    expect(sent(ok, '/held')).toBe(0);
    await checkView(page, 'webhook-paused-held');

    await health.getByRole('button', { name: 'Resume' }).click();
    await until(() => sent(ok, '/held') === 1, 'the held delivery sent');
    // Its attempt reaches the page by the deliveries stream, and the health is read again with it.
    await expect.poll(() => health.locator('.held-count').textContent(), { timeout: 10_000 }).toBe('0');
    expect(await health.locator('.sending').textContent()).toBe('yes');
    expect(await section('held-title').count()).toBe(0);
  }, 60_000);

  it('counts the held deliveries of an event before discarding them', async () => {
    const id = await createHook('discard', `${ok.url}/discard`, { events: ['discard.a', 'discard.b'] });
    expect((await svc.request('POST', `/api/webhooks/${id}/pause`, undefined, AUTH)).status).toBe(200);
    await publish('discard.a');
    await publish('discard.a');
    await publish('discard.b');
    await page.goto(`${svc.url}/#/webhooks/${id}`);
    const held = section('held-title');
    await expect.poll(() => held.locator('tbody tr').count()).toBe(3);

    await held.getByLabel('Of these events only (blank: all)').fill('discard.a');
    await held.getByRole('button', { name: 'Discard held…' }).click();
    await expect.poll(() => held.locator('.will').textContent()).toBe('Will discard 2 held deliveries.');
    // Counted, not done.
    expect(await deliveries(id, 'held')).toHaveLength(3);
    await checkView(page, 'webhook-discard-count');

    await held.getByRole('button', { name: 'Discard them' }).click();
    await expect.poll(() => held.getByRole('status').textContent()).toBe('Discarded 2 deliveries.');
    expect((await deliveries(id, 'held')).map((d) => d.event)).toEqual(['discard.b']);
    expect((await deliveries(id, 'discarded')).map((d) => d.event)).toEqual(['discard.a', 'discard.a']);
    await expect.poll(() => section('health-title').locator('.held-count').textContent()).toBe('1');
    await expect.poll(() => held.locator('tbody tr').count()).toBe(1);
  }, 60_000);

  it('counts a recovery before starting it, then shows the job to its end', async () => {
    let down = true;
    const flaky = await startReceiver(() => (down ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }));
    try {
      const id = await createHook('recover', `${flaky.url}/recover`, { retry: { max_attempts: 1 } });
      await publish('recover.happened');
      await publish('recover.happened');
      await until(async () => (await deliveries(id, 'failed')).length === 2, 'two failed deliveries');
      down = false;
      await page.goto(`${svc.url}/#/webhooks/${id}`);
      const card = section('recover-title');
      const since = card.getByLabel('Created since');
      const now = Date.now();

      // A span that ends before it begins is refused, naming since; the page marks it.
      await since.fill(local(now + HOUR));
      await card.getByLabel('Created until (blank: now)').fill(local(now));
      await card.getByRole('button', { name: 'Recover…' }).click();
      await expect.poll(() => card.getByRole('alert').textContent()).toContain('since');
      expect(await since.getAttribute('aria-invalid')).toBe('true');
      await checkView(page, 'webhook-recover-refused');

      await since.fill(local(now - HOUR));
      await card.getByLabel('Created until (blank: now)').fill(local(now + HOUR));
      expect(await card.getByRole('button', { name: 'Start recovery' }).count()).toBe(0);
      await card.getByRole('button', { name: 'Recover…' }).click();
      await expect.poll(() => card.locator('.will').textContent()).toBe('Will resend 2 deliveries.');
      // Counted: no job yet.
      expect((await svc.request('GET', `/api/recoveries?webhook_id=${id}`, undefined, AUTH)).json).toEqual([]);
      await checkView(page, 'webhook-recover-count');

      await card.getByRole('button', { name: 'Start recovery' }).click();
      await expect.poll(() => card.locator('.recovery-state').textContent(), { timeout: 10_000 }).toBe('Resent 2 of 2: done');
      expect(await card.locator('progress').getAttribute('value')).toBe('1');
      const [job] = (await svc.request('GET', `/api/recoveries?webhook_id=${id}`, undefined, AUTH)).json;
      expect(job).toMatchObject({ status: 'done', total: 2, resent: 2 });
      await until(() => sent(flaky, '/recover') === 4, 'the deliveries resent');
      await until(async () => (await deliveries(id, 'succeeded')).length === 2, 'the resent deliveries to succeed');
      await checkView(page, 'webhook-recover-done');
    } finally {
      await flaky.close();
    }
  }, 60_000);

  it('shows the health of a webhook whose breaker opened, in the list and on its page', async () => {
    const id = await createHook('tripped', `${failing.url}/tripped`, { breaker: { min_attempts: 3 }, retry: { max_attempts: 1 } });
    for (let i = 0; i < 3; i++) await publish('tripped.happened');
    const opened = await until(async () => {
      const h = (await get(id)).health;
      return h.state === 'open' ? h : null;
    }, 'the breaker to open');
    // Open: the next one is held (the test clock stands still, so no probe comes due).
    await publish('tripped.happened');
    await until(async () => (await get(id)).health.held === 1, 'the delivery held');

    await page.goto(`${svc.url}/#/webhooks`);
    const row = page.locator('tbody tr').filter({ has: page.locator(`a[href="#/webhooks/${id}"]`) });
    await expect.poll(() => row.locator('.breaker .state').textContent()).toBe('open');
    const summary = await row.locator('.breaker').textContent();
    expect(summary).toMatch(/^open since .+ · 100 % failed · next probe /);
    expect(await row.locator('.held-count').textContent()).toBe('1');
    await checkView(page, 'webhooks-breaker-open');

    await row.locator(`a[href="#/webhooks/${id}"]`).click();
    const health = section('health-title');
    await expect.poll(() => health.locator('.breaker .state').textContent()).toBe('open');
    expect(await health.locator('.breaker').textContent()).toMatch(/^open since /);
    expect(await health.locator('.failure-ratio').textContent()).toBe('100 % of 3 attempts in the last 60 s (opens at 50 % of 3 at least)');
    expect(await health.locator('.next-probe time').getAttribute('datetime')).toBe(opened.next_probe_at);
    expect(await health.locator('.held-count').textContent()).toBe('1');
    expect(await health.locator('.held-discarded').textContent()).toBe('0');
    // The held list is its own request: it may render after the health card.
    await expect.poll(() => section('held-title').locator('tbody tr').count()).toBe(1);
    await checkView(page, 'webhook-breaker-open');

    // Resume closes the breaker by hand: what it held is sent.
    await health.getByRole('button', { name: 'Resume' }).click();
    await until(() => sent(failing, '/tripped') === 4, 'the held delivery sent');
  }, 60_000);

  it('saves the breaker, rate limit and auto-disable settings, and marks the field a refusal names', async () => {
    const id = await createHook('settings', `${ok.url}/settings`);
    await page.goto(`${svc.url}/#/webhooks/${id}`);
    const ratio = page.getByLabel('Failure ratio that opens it (0.01 to 1)');
    await expect.poll(() => page.getByLabel('Opens after attempts (at least)').inputValue()).toBe('20');
    expect(await ratio.inputValue()).toBe('0.5');

    await ratio.fill('2');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('breaker.failure_ratio');
    expect(await ratio.getAttribute('aria-invalid')).toBe('true');
    await checkView(page, 'webhook-health-settings-error');

    await ratio.fill('0.25');
    await page.getByLabel('Opens after attempts (at least)').fill('5');
    await page.getByLabel('Window (seconds)').fill('30');
    await page.getByLabel('Sends per second').fill('2.5');
    await page.getByLabel('Burst').fill('3');
    await page.getByLabel('Auto-disable on').uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
    const stored = await until(async () => {
      const w = await get(id);
      return w.rate_limit ? w : null;
    }, 'the settings saved');
    expect(stored.breaker).toEqual({ enabled: true, min_attempts: 5, failure_ratio: 0.25, window_s: 30 });
    expect(stored.rate_limit).toEqual({ per_second: 2.5, burst: 3 });
    expect(stored.auto_disable).toEqual({ enabled: false, after_s: 432_000, min_span_s: 43_200 });

    // A fresh load shows what was stored; emptied, the rate limit is removed.
    await page.reload();
    await expect.poll(() => page.getByLabel('Sends per second').inputValue()).toBe('2.5');
    expect(await page.getByLabel('Burst').inputValue()).toBe('3');
    expect(await page.getByLabel('Auto-disable on').isChecked()).toBe(false);
    await page.getByLabel('Sends per second').fill('');
    await page.getByLabel('Burst').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await until(async () => (await get(id)).rate_limit === null, 'the rate limit removed');
    await checkView(page, 'webhook-health-settings');
  }, 60_000);
});
