/**
 * The dashboard's webhook pages in Chromium against a real server (admin key,
 * local receivers): the delivery history and a delivery's attempts follow the
 * deliveries stream (changes made through the API, outside the page, show
 * without a reload), the list's health comes with the list itself (no
 * per-webhook request), the form's mock endpoint and retry schedule round-trip
 * and an API refusal marks the field it names, the overview links a failed
 * delivery to its page and stops reading /api/stats once left, and a chosen
 * attempt's own response shows on the delivery page (kept across a live
 * update). Each view state passes axe-core and the CSP check
 * (test/helpers/browser.ts).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, checkView, enterKey, inPage, launchBrowser, type Browser } from '../helpers/browser.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const KEY = 'dashboard-webhooks-key';
const AUTH = { authorization: `Bearer ${KEY}` };

const suite = browserSuite('test/browser/dashboard-webhooks.test.ts');

suite('dashboard webhook pages in Chromium', () => {
  let svc: RunningService;
  let ok: Receiver;
  let failing: Receiver;
  let browser: Browser;
  let page: Page;
  let hookId: string;
  let deliveryId: string;
  let brokenId: string;
  let brokenDeliveryId: string;

  const createHook = async (name: string, target: string) => {
    const res = await svc.request('POST', '/api/webhooks', { name, target_url: target, method: 'POST', payload_template: { hello: name } }, AUTH);
    expect(res.status).toBe(201);
    return res.json.id as string;
  };
  const testFire = async (id: string) => {
    const res = await svc.request('POST', `/api/webhooks/${id}/test`, undefined, AUTH);
    expect(res.status).toBe(200);
    return res.json as { id: string; status: string };
  };

  beforeAll(async () => {
    ok = await startReceiver();
    failing = await startReceiver(() => ({ status: 500, body: 'down' }));
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
    browser = await launchBrowser();
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await ok?.close();
    await failing?.close();
  });

  it('shows a delivery fired through the API in the history without a reload', async () => {
    hookId = await createHook('live', `${ok.url}/live`);
    await enterKey(page, `${svc.url}/#/webhooks/${hookId}`, KEY);
    await page.getByText('No deliveries yet.').waitFor();
    await expect.poll(() => page.locator('#deliveries-title .live-state').textContent()).toBe('live');
    // Gone if the page were loaded again.
    await inPage(page, 'window.sameDocument = true');

    deliveryId = (await testFire(hookId)).id;
    const row = page.locator('#deliveries-title').locator('xpath=ancestor::section[1]').locator('tbody tr').filter({ has: page.locator(`a[href="#/deliveries/${deliveryId}"]`) });
    await expect.poll(() => row.locator('.badge').textContent(), { timeout: 10_000 }).toBe('succeeded');
    expect(await inPage(page, 'window.sameDocument')).toBe(true);
    await checkView(page, 'webhook-live');
  }, 60_000);

  it('shows an attempt of a retry made through the API on the delivery page as it happens', async () => {
    await page.locator(`a[href="#/deliveries/${deliveryId}"]`).click();
    await page.waitForURL(/#\/deliveries\//);
    await expect.poll(() => page.locator('table.attempts tbody tr').count()).toBe(1);
    await expect.poll(() => page.locator('#attempts-title .live-state').textContent()).toBe('live');
    await inPage(page, 'window.sameDocument = true');

    expect((await svc.request('POST', `/api/deliveries/${deliveryId}/retry`, undefined, AUTH)).status).toBe(200);
    await expect.poll(() => page.locator('table.attempts tbody tr').count(), { timeout: 10_000 }).toBe(2);
    expect(ok.requests.filter((r) => r.url === '/live')).toHaveLength(2);
    expect(await inPage(page, 'window.sameDocument')).toBe(true);
    await checkView(page, 'delivery-live');
  }, 60_000);

  it("lists each webhook's health from the list request alone", async () => {
    brokenId = await createHook('broken', `${failing.url}/down`);
    expect((await testFire(brokenId)).status).toBe('failed');
    brokenDeliveryId = (await testFire(brokenId)).id;
    const requested: string[] = [];
    const record = (r: { url(): string }) => requested.push(new URL(r.url()).pathname);
    page.on('request', record);
    try {
      await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
      const brokenRow = page.locator('tbody tr').filter({ has: page.locator(`a[href="#/webhooks/${brokenId}"]`) });
      await expect.poll(() => brokenRow.locator('.badge').textContent()).toBe('failed');
      expect(Number(await brokenRow.locator('.failures-in-a-row').textContent())).toBeGreaterThanOrEqual(2);
      expect(await brokenRow.locator('.pending-count').textContent()).toBe('0');
      const liveRow = page.locator('tbody tr').filter({ has: page.locator(`a[href="#/webhooks/${hookId}"]`) });
      expect(await liveRow.locator('.badge').textContent()).toBe('succeeded');
      expect(await liveRow.locator('.failures-in-a-row').textContent()).toBe('0');
    } finally {
      page.off('request', record);
    }
    expect(requested.filter((path) => path.startsWith('/api/'))).toEqual(['/api/webhooks']);
    await checkView(page, 'webhooks-health');
  }, 60_000);

  it('saves the mock endpoint and the retry schedule, and marks the field an API refusal names', async () => {
    const created = await svc.request('POST', '/api/apis', { name: 'Mock source', basePath: '/mock', routes: [] }, AUTH);
    expect(created.status).toBe(201);
    const apiId = created.json.id as string;
    await page.goto(`${svc.url}/#/webhooks/${hookId}`);
    await page.getByLabel('Retry schedule (seconds, comma-separated)').waitFor();

    // The API refuses a schedule entry that is not a whole number, naming it; the page marks that input.
    await page.getByLabel('Retry schedule (seconds, comma-separated)').fill('5, soon');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('retry.schedule_s[1]');
    expect(await page.getByLabel('Retry schedule (seconds, comma-separated)').getAttribute('aria-invalid')).toBe('true');
    await checkView(page, 'webhook-form-error');

    await page.getByLabel('Retry schedule (seconds, comma-separated)').fill('5, 30');
    await page.getByLabel('Mock API').selectOption(apiId);
    await page.getByLabel('Mock path (after the API id)').fill('/mock/latest');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const stored = (await svc.request('GET', `/api/webhooks/${hookId}`, undefined, AUTH)).json;
    expect(stored.retry).toEqual({ max_attempts: 8, schedule_s: [5, 30] });
    expect(stored.mock_endpoint).toEqual({ api_id: apiId, path: '/mock/latest' });

    // A fresh load shows what was stored.
    await page.reload();
    await expect.poll(() => page.getByLabel('Retry schedule (seconds, comma-separated)').inputValue()).toBe('5, 30');
    expect(await page.getByLabel('Mock API').inputValue()).toBe(apiId);
    expect(await page.getByLabel('Mock path (after the API id)').inputValue()).toBe('/mock/latest');
    await checkView(page, 'webhook-form');

    // Phone width: one column, the history table scrolls inside its box.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => inPage(page, 'document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await checkView(page, 'phone-webhook');
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 60_000);

  it("links a failed delivery in the overview's failures to its page", async () => {
    // Each process adds its figures to the store every 5 s.
    await until(
      async () => {
        const stats = (await svc.request('GET', '/api/stats', undefined, AUTH)).json as { failures: Array<{ id: string }> };
        return stats.failures.some((f) => f.id === brokenDeliveryId);
      },
      'the failed delivery in /api/stats',
      20_000,
    );
    await page.goto(`${svc.url}/#/overview`);
    const link = page.locator(`.failures a[href="#/deliveries/${brokenDeliveryId}"]`);
    await link.waitFor();
    await link.click();
    await page.waitForURL(new RegExp(`#/deliveries/${brokenDeliveryId}$`));
    await expect.poll(() => page.locator('.response-status').textContent()).toBe('500');
    await checkView(page, 'delivery-failed');
  }, 60_000);

  it("shows the chosen attempt's response, kept across a live update", async () => {
    let calls = 0;
    const flaky = await startReceiver(() => (++calls === 1 ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }));
    try {
      const id = await createHook('flaky', `${flaky.url}/flaky`);
      const fired = await testFire(id);
      expect(fired.status).toBe('failed');
      await page.goto(`${svc.url}/#/deliveries/${fired.id}`);
      const pane = page.locator('section[aria-labelledby="response-title"]');
      const heading = page.locator('#response-title');
      await expect.poll(() => heading.textContent()).toBe('Response (attempt 1)');
      await expect.poll(() => page.locator('#attempts-title .live-state').textContent()).toBe('live');

      // A retry from the page: the pane follows the newest attempt.
      await page.getByRole('button', { name: 'Retry', exact: true }).click();
      await expect.poll(() => heading.textContent(), { timeout: 10_000 }).toBe('Response (attempt 2)');
      expect(await pane.locator('.response-status').textContent()).toBe('200');

      // Choosing attempt 1 shows its own answer, not the delivery's latest.
      const show1 = page.getByRole('button', { name: 'Show attempt 1' });
      await show1.click();
      await expect.poll(() => heading.textContent()).toBe('Response (attempt 1)');
      expect(await pane.locator('.response-status').textContent()).toBe('500');
      expect(await pane.textContent()).toContain('down');
      expect(await show1.getAttribute('aria-pressed')).toBe('true');
      expect(await page.getByRole('button', { name: 'Show attempt 2' }).getAttribute('aria-pressed')).toBe('false');
      await checkView(page, 'delivery-attempts');

      // A retry through the API shows up live, and the chosen attempt stays shown.
      expect((await svc.request('POST', `/api/deliveries/${fired.id}/retry`, undefined, AUTH)).status).toBe(200);
      await expect.poll(() => page.locator('table.attempts tbody tr').count(), { timeout: 10_000 }).toBe(3);
      expect(await heading.textContent()).toBe('Response (attempt 1)');
      expect(await pane.locator('.response-status').textContent()).toBe('500');

      // By keyboard: focus the newest row's button and press Enter.
      await page.getByRole('button', { name: 'Show attempt 3' }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => heading.textContent()).toBe('Response (attempt 3)');
      expect(await pane.locator('.response-status').textContent()).toBe('200');
    } finally {
      await flaky.close();
    }
  }, 60_000);

  it('stops reading /api/stats once the overview is left', async () => {
    // A page whose timers run on Playwright's clock, moved by hand: minutes pass in no time.
    const other = await browser.context.newPage();
    try {
      await other.clock.install();
      const reads: string[] = [];
      other.on('request', (r) => new URL(r.url()).pathname === '/api/stats' && reads.push(r.url()));
      await enterKey(other, `${svc.url}/#/overview`, KEY);
      await other.locator('.updated time').waitFor();
      const first = reads.length;
      expect(first).toBeGreaterThanOrEqual(1);
      // While the view is open, its own timer reads again (this shows the clock drives it).
      await other.clock.runFor(11_000);
      await expect.poll(() => reads.length).toBeGreaterThan(first);
      await expect.poll(() => other.locator('.updated time').count()).toBe(1);

      await other.getByRole('link', { name: 'Webhooks', exact: true }).click();
      await other.getByRole('heading', { name: 'Webhooks' }).waitFor();
      const left = reads.length;
      await other.clock.runFor(60_000);
      // A request issued by a timer that fired would be seen before this round trip ends.
      await inPage(other, "fetch('/healthz').then((r) => r.status)");
      expect(reads.length).toBe(left);
    } finally {
      await other.close();
    }
  }, 60_000);
});
