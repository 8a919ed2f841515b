/**
 * The consumer portal in Chromium against a real server: opened by the link
 * portal-access answers, every view (endpoints with the add form, an
 * endpoint with its deliveries, a delivery with its attempts, the event
 * catalogue) works and passes axe-core and the CSP check, at desktop and
 * phone width (375 px, no horizontal scroll), in the application's theme.
 * Embedded in an iframe it loads from an allowed parent origin and is
 * blocked (frame-ancestors) from any other. The token is in no request URL
 * the browser sends, no Referer, and no server log line.
 *
 * While open (the server on its hand-moved clock, the page's timers moved by
 * Playwright's page.clock) the page refreshes its token and keeps working
 * past the token's first life; a revoked or expired token turns the page into
 * one accessible notice, with no further requests. An accent that white text
 * does not read on still gives readable, axe-clean buttons.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, checkView, inPage, launchBrowser, type Browser } from '../helpers/browser.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const KEY = 'portal-browser-key';
const AUTH = { authorization: `Bearer ${KEY}` };
const suite = browserSuite('test/browser/portal.test.ts');

/** A page on its own origin that frames `src`. */
async function parentPage(src: () => string): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><title>Customer product</title><h1>Product</h1><iframe title="Webhooks" src="${src()}" width="800" height="600"></iframe></html>`);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

suite('the consumer portal', () => {
  let svc: RunningService;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;
  let allowed: { server: Server; origin: string };
  let refused: { server: Server; origin: string };
  let appId: string;
  let frameUrl = '';
  const tokens: string[] = [];
  const sent: Array<{ url: string; referer: string | undefined }> = [];

  const link = async () => {
    const res = await svc.request('POST', `/api/applications/${appId}/portal-access`, {}, AUTH);
    expect(res.status, res.text).toBe(201);
    tokens.push(res.json.token);
    return res.json.url as string;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1', LOG_LEVEL: 'debug' } });
    allowed = await parentPage(() => frameUrl);
    refused = await parentPage(() => frameUrl);
    await svc.request('POST', '/api/event-types', { name: 'invoice.paid', description: 'An invoice was paid', schema: { type: 'object', properties: { amount: { type: 'number' } } }, examples: [{ amount: 5 }] }, AUTH);
    const app = await svc.request(
      'POST',
      '/api/applications',
      { name: 'Acme', portal: { allowed_parents: [allowed.origin], theme: { primary_color: '#7a1f5c', mode: 'light' } } },
      AUTH,
    );
    expect(app.status, app.text).toBe(201);
    appId = app.json.id;
    browser = await launchBrowser();
    page = browser.page;
    const record = (r: Request) => sent.push({ url: r.url(), referer: r.headers()['referer'] });
    browser.context.on('request', record);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await receiver?.close();
    allowed?.server.close();
    refused?.server.close();
  });

  it('opens from the link, drops the token from the address, and shows the application themed', async () => {
    await page.goto(await link());
    await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.locator('.brand').textContent()).toBe('Acme');
    expect(await inPage(page, "getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()")).toBe('#7a1f5c');
    await checkView(page, 'portal-endpoints-empty');
  }, 60_000);

  it('adds an endpoint with event types, a filter and a rate limit; shows its secret once', async () => {
    await page.getByLabel('Name').fill('orders');
    await page.getByLabel('URL').fill(`${receiver.url}/orders`);
    await page.getByRole('checkbox', { name: 'invoice.paid' }).check();
    await page.getByLabel('Filter (JSON, optional)').fill('{"data": {"amount": {"$gte": 1}}}');
    await page.getByLabel('Rate limit (requests per second, optional)').fill('5');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByText('Endpoint added.').waitFor();
    expect(await page.locator('.secret code').textContent()).toMatch(/^whsec_|.{16,}/);
    const hooks = (await svc.request('GET', `/api/webhooks?application=${appId}`, undefined, AUTH)).json;
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({ name: 'orders', events: ['invoice.paid'], filter: { data: { amount: { $gte: 1 } } }, rate_limit: { per_second: 5 } });
    await checkView(page, 'portal-endpoint-added');
  }, 60_000);

  it('test-fires, disables and enables, rotates the secret, recovers; lists the delivery', async () => {
    await page.getByRole('button', { name: 'orders' }).click();
    await page.getByRole('heading', { name: 'orders' }).waitFor();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByText(/Test sent: succeeded/).waitFor();
    expect(receiver.requests.some((r) => r.url === '/orders')).toBe(true);
    await page.getByRole('list', { name: 'Deliveries' }).getByRole('button').first().waitFor();
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Enable' }).waitFor();
    const id = (await svc.request('GET', `/api/webhooks?application=${appId}`, undefined, AUTH)).json[0].id;
    expect((await svc.request('GET', `/api/webhooks/${id}`, undefined, AUTH)).json.enabled).toBe(false);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('button', { name: 'Disable' }).waitFor();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText(/Secret rotated/).waitFor();
    await page.getByLabel('Since').fill('2020-01-01T00:00');
    await page.getByRole('button', { name: 'Recover' }).click();
    await page.getByText(/Recovery started/).waitFor();
    await checkView(page, 'portal-endpoint');
  }, 60_000);

  it("shows a delivery's attempts with request and response, and retries it", async () => {
    await page.getByRole('list', { name: 'Deliveries' }).getByRole('button').first().click();
    await page.getByRole('heading', { name: 'Delivery' }).waitFor();
    await page.getByText(/^Attempt 1/).waitFor();
    await page.getByText('Response to attempt 1').click();
    expect(await page.locator('details[open] pre').last().textContent()).toContain('"status": 200');
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByText(/^Attempt 2/).waitFor();
    await checkView(page, 'portal-delivery');
  }, 60_000);

  it('shows the event catalogue with schemas and examples', async () => {
    await page.getByRole('button', { name: 'Event types' }).click();
    await page.getByRole('heading', { name: 'invoice.paid' }).waitFor();
    await page.getByText('Example 1').click();
    expect(await page.locator('details[open] pre').textContent()).toContain('"amount": 5');
    await checkView(page, 'portal-event-types');
  }, 60_000);

  it('fits a phone: 375 px wide with no horizontal scroll, every view', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const view of ['Event types', 'Endpoints']) {
      await page.getByRole('button', { name: view, exact: true }).click();
      await page.getByRole('heading', { name: view }).waitFor();
      expect(await inPage<number>(page, 'document.documentElement.scrollWidth'), view).toBeLessThanOrEqual(375);
    }
    await page.getByRole('button', { name: 'orders' }).click();
    await page.getByRole('heading', { name: 'orders' }).waitFor();
    expect(await inPage<number>(page, 'document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await checkView(page, 'portal-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 60_000);

  it('deletes an endpoint after a confirming second press', async () => {
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Really delete' }).click();
    await page.getByText('No endpoints yet.').waitFor();
    expect((await svc.request('GET', `/api/webhooks?application=${appId}`, undefined, AUTH)).json).toHaveLength(0);
  }, 60_000);

  it("shows a dark-themed application's portal in dark colours, still axe-clean", async () => {
    const dark = await svc.request('POST', '/api/applications', { name: 'Night', portal: { theme: { mode: 'dark' } } }, AUTH);
    const res = await svc.request('POST', `/api/applications/${dark.json.id}/portal-access`, {}, AUTH);
    tokens.push(res.json.token);
    await page.goto(res.json.url);
    await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
    expect(await inPage(page, 'document.documentElement.dataset.mode')).toBe('dark');
    expect(await inPage(page, 'getComputedStyle(document.documentElement).backgroundColor')).toBe('rgb(21, 24, 28)');
    await checkView(page, 'portal-dark');
  }, 60_000);

  it('loads inside an iframe of an allowed parent, and is blocked in one of any other', async () => {
    frameUrl = await link();
    await page.goto(`${allowed.origin}/`);
    const frame = page.frameLocator('iframe');
    await frame.getByRole('heading', { name: 'Endpoints' }).waitFor();
    expect(await frame.locator('.brand').textContent()).toBe('Acme');

    frameUrl = await link();
    const blocked = new Promise<string>((done) => page.on('console', (m) => m.text().includes('frame-ancestors') && done(m.text())));
    await page.goto(`${refused.origin}/`);
    expect(await blocked).toContain('frame-ancestors');
    const child = page.frames().find((f) => f !== page.mainFrame());
    // Chromium leaves a refused frame on its error page: the portal's script never ran there.
    expect(await child?.locator('.brand').count()).toBe(0);
  }, 60_000);

  it('never sent its token in a URL or a Referer, and the server logged it nowhere', () => {
    expect(tokens.length).toBeGreaterThan(2);
    expect(sent.some((r) => r.url.includes('/api/portal/endpoints'))).toBe(true);
    for (const token of tokens) {
      for (const r of sent) {
        // A fragment is never sent (Playwright reports a navigation's URL with it; the wire has none).
        expect(r.url.split('#')[0], 'a request URL').not.toContain(token);
        expect(r.referer ?? '', `the Referer of ${r.url}`).not.toContain(token);
      }
      expect(svc.output.join(''), 'the log').not.toContain(token);
    }
    // Nothing the portal page asked for named it as its Referer (a parent's own page may, when framing it).
    expect(sent.filter((r) => r.referer?.startsWith(svc.url))).toEqual([]);
  });
});

suite('the consumer portal while open: refresh, expiry, readable themes', () => {
  let svc: RunningService;
  let browser: Browser;
  let page: Page;
  const portalCalls: Array<{ path: string; status: number }> = [];
  const EXPIRED = 'This portal link has expired or was revoked. Ask for a new one.';

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await svc.request(method, path, body, AUTH);
    expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
    return res.json;
  };
  /** Moves the server's clock; the page's clock is moved with page.clock by the test. */
  const advanceServer = (ms: number) => admin('PUT', '/api/_test/clock', { advance_ms: ms });
  /** A new application's portal, opened on a page whose clock starts at the server's time. */
  const open = async (body: Record<string, unknown>) => {
    const app = await admin('POST', '/api/applications', body);
    const access = await admin('POST', `/api/applications/${app.id}/portal-access`, {});
    await page.close();
    page = await browser.context.newPage();
    page.on('response', (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith('/api/portal/')) portalCalls.push({ path, status: r.status() });
    });
    await page.clock.install({ time: Date.parse((await admin('GET', '/api/_test/clock')).now) });
    await page.goto(access.url);
    // The view's own calls answered (the heading comes before them): a revocation after this is met by the test's next call.
    await page.getByText('No endpoints yet.').waitFor();
    return app.id as string;
  };
  const calls = (path: string) => portalCalls.filter((c) => c.path === path).map((c) => c.status);

  beforeAll(async () => {
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_TEST_HOOKS: '1' } });
    browser = await launchBrowser();
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('refreshes its token before expiry and keeps working past the first 15 minutes', async () => {
    await open({ name: 'Long visit' });
    // Half the token's 900 s: the page refreshes then.
    await advanceServer(451_000);
    await page.clock.runFor(451_000);
    await until(() => calls('/api/portal/session/refresh').length === 1, 'the refresh');
    expect(calls('/api/portal/session/refresh')).toEqual([200]);
    // 951 s after the token was made: without the refresh it would be refused now.
    await advanceServer(500_000);
    await page.getByRole('button', { name: 'Event types', exact: true }).click();
    await page.getByText('No event types are catalogued.').waitFor();
    expect(calls('/api/portal/event-types').at(-1)).toBe(200);
    expect(await page.getByRole('alert').count()).toBe(0);
  }, 60_000);

  it('says clearly that a revoked link no longer works, and stops calling the server', async () => {
    const id = await open({ name: 'Revoked' });
    await admin('DELETE', `/api/applications/${id}/portal-access`, {});
    await page.getByRole('button', { name: 'Event types', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: EXPIRED }).waitFor();
    expect(await page.getByRole('heading', { name: 'Webhooks portal' }).count()).toBe(1);
    expect(await page.locator('nav').count()).toBe(0);
    await checkView(page, 'portal-revoked');
    const before = portalCalls.length;
    // An hour of the page's timers: no refresh, no retry.
    await page.clock.runFor(3_600_000);
    await page.getByRole('alert').filter({ hasText: EXPIRED }).waitFor();
    expect(portalCalls.length).toBe(before);
  }, 60_000);

  it('says so when the token expired while the page was open (a sleeping laptop), with no loop of requests', async () => {
    await open({ name: 'Slept' });
    // The machine slept past the token's life: the refresh comes too late and is refused.
    await advanceServer(901_000);
    await page.clock.runFor(451_000);
    await page.getByRole('alert').filter({ hasText: EXPIRED }).waitFor();
    expect(calls('/api/portal/session/refresh').at(-1)).toBe(401);
    await checkView(page, 'portal-expired');
    const before = portalCalls.length;
    await page.clock.runFor(3_600_000);
    expect(portalCalls.length).toBe(before);
    // A reload has no token left to try either.
    await page.reload();
    await page.getByRole('alert').filter({ hasText: 'This link has no access token' }).waitFor();
    expect(portalCalls.length).toBe(before);
  }, 60_000);

  it('keeps buttons readable on an accent white text does not read on, light and dark, axe-clean', async () => {
    for (const [color, mode] of [['#ffd400', 'light'], ['#9ad0ff', 'dark'], ['#1a1a1a', 'dark']] as const) {
      await open({ name: `Accent ${color}`, portal: { theme: { primary_color: color, mode } } });
      const text = await inPage(page, "getComputedStyle(document.querySelector('button[type=submit]')).color");
      expect(text, color).toBe(color === '#1a1a1a' ? 'rgb(255, 255, 255)' : 'rgb(0, 0, 0)');
      await checkView(page, `portal-accent-${color.slice(1)}-${mode}`);
    }
  }, 60_000);
});
