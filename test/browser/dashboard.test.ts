/**
 * The dashboard end to end in a real headless Chromium (Debian's `chromium`,
 * driven by playwright-core; no browser download) against a real server with
 * an admin key: the key prompt, a function written in the editor (its compile
 * error shown at its line, then fixed and deployed), a route bound and tried,
 * a console line arriving live, a webhook to a local receiver test-fired, its
 * delivery opened and retried, an event published, the overview's charts,
 * route table and failures. Every view passes axe-core
 * with no serious or critical violation and reports no CSP violation; each
 * view's screenshot goes to test-artifacts/dashboard/<view>.png (set-up and
 * the per-view check: test/helpers/browser.ts).
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, checkView, inPage as evaluate, launchBrowser, setEditorText as setText, type Browser } from '../helpers/browser.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const KEY = 'dashboard-test-key';

const BROKEN = `export async function handler(event) {
  console.log('called', event.httpMethod, event.path, event.queryStringParameters?.name);
  return { statusCode: 200, body: { hello: event.queryStringParameters?.name ?? 'world' } ;
}
`;
// A regular expression and a template string: their colours are checked for contrast too.
const FIXED = `export async function handler(event) {
  console.log('called', event.httpMethod, event.path, event.queryStringParameters?.name);
  const name = (event.queryStringParameters?.name ?? 'world').replace(/[^a-z0-9]/gi, '');
  return { statusCode: 200, body: { hello: \`\${name}\` } };
}
`;

const suite = browserSuite('test/browser/dashboard.test.ts');

suite('dashboard in Chromium', () => {
  let svc: RunningService;
  let receiver: Receiver;
  let context: BrowserContext;
  let page: Page;
  let browser: Browser;
  let apiId: string;
  let webhookId: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
    browser = await launchBrowser();
    context = browser.context;
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await receiver?.close();
  });

  const inPage = <T = unknown>(expression: string) => evaluate<T>(page, expression);
  const check = (view: string) => checkView(page, view);
  const setEditorText = (text: string) => setText(page, text);

  it('serves the page with its security headers', async () => {
    const res = await fetch(svc.url + '/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(await res.text())![1];
    const asset = await fetch(svc.url + script);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
  });

  it('asks for the admin key on a 401 and keeps it in the session only', async () => {
    await page.goto(`${svc.url}/#/functions`);
    await page.getByRole('textbox', { name: 'Admin key' }).waitFor();
    await check('key-prompt');
    await page.getByRole('textbox', { name: 'Admin key' }).fill(KEY);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.getByText('No functions yet.').waitFor();
    expect(await inPage("sessionStorage.getItem('switchyard.adminKey')")).toBe(KEY);
    expect(await inPage('document.cookie')).toBe('');
    expect(page.url()).not.toContain(KEY);
    await check('functions');
  }, 60_000);

  it('shows a compile error at its line in the editor, then deploys the fix', async () => {
    await page.getByRole('link', { name: 'New function' }).click();
    await page.getByLabel('Name', { exact: true }).fill('hello');
    await page.locator('.code-editor[data-ready="true"]').waitFor();
    await setEditorText(BROKEN);
    await page.getByRole('button', { name: 'Create and deploy' }).click();
    await expect.poll(() => page.locator('.compile-error').textContent()).toContain('line 3');
    await expect.poll(() => page.locator('.cm-error-line').textContent()).toContain("return { statusCode: 200");
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('invalid_code');
    await check('function-compile-error');

    // Tab indents inside the editor; Escape then Tab leaves it (no keyboard trap).
    await page.locator('.cm-content').click();
    await page.keyboard.press('Tab');
    expect(await inPage<boolean>("document.activeElement.matches('.code-host')")).toBe(true);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    expect(await inPage<boolean>("document.activeElement.matches('.code-host')")).toBe(false);

    await setEditorText(FIXED);
    await page.getByRole('button', { name: 'Create and deploy' }).click();
    await page.waitForURL(/#\/functions\/hello$/);
    await page.getByText(/^Version 1 ·/).waitFor();
    const stored = await svc.request('GET', '/api/functions/hello', undefined, { authorization: `Bearer ${KEY}` });
    expect(stored.json.code).toBe(FIXED);

    await page.getByLabel('Event (JSON').fill('{"httpMethod": "GET", "path": "/", "queryStringParameters": {"name": "invoker"}}');
    await page.getByRole('button', { name: 'Invoke', exact: true }).click();
    await expect.poll(() => page.locator('.invoke-status').textContent()).toBe('200');
    await expect.poll(() => page.locator('.result pre.json').first().textContent()).toContain('invoker');
    await check('function');
  }, 90_000);

  it('binds a route, tries it and copies it as curl', async () => {
    await page.getByRole('link', { name: 'APIs' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Hello API');
    await page.getByLabel('Base path').fill('/hello');
    await page.getByRole('button', { name: 'Create API' }).click();
    await page.waitForURL(/#\/apis\/[^/]+$/);
    apiId = decodeURIComponent(page.url().split('/').pop()!);
    await page.getByLabel('Function').selectOption('hello');
    await page.getByRole('button', { name: 'Add route' }).click();
    await page.getByRole('button', { name: 'Remove route GET /' }).waitFor();

    await page.getByRole('button', { name: 'Try route GET /' }).click();
    await page.getByLabel('Query').fill('name=browser');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('.try-status').textContent()).toBe('200');
    // The answer's JSON indented, not one line.
    await expect.poll(() => page.locator('.try-body').textContent()).toBe('{\n  "hello": "browser"\n}');
    expect(await page.locator('pre.curl').textContent()).toBe(`curl -i -X GET '${svc.url}/api/invoke/fn/${apiId}/hello/?name=browser'`);
    await check('api');
    await page.getByRole('link', { name: 'APIs' }).click();
    await page.getByRole('link', { name: 'Hello API' }).waitFor();
    await check('apis');
  }, 90_000);

  it('shows console lines live as the function runs', async () => {
    await page.goto('about:blank');
    await page.goto(`${svc.url}/#/functions/hello`);
    await page.getByText(/^Version 1 ·/).waitFor();
    // The lines stored before the page opened come first (the invoke above logged one, the route try another).
    await expect.poll(() => page.locator('.console').textContent()).toContain('called GET / invoker');
    // The stream may connect after a call: call until a line shows (each call logs one).
    let n = 0;
    await until(async () => {
      await fetch(`${svc.url}/api/invoke/fn/${apiId}/hello/?name=live${++n}`);
      return (await page.locator('.console li[class^="level-"]', { hasText: /live\d+/ }).count()) > 0;
    }, `a console line in the page; its console says: ${await page.locator('#console-title').locator('..').textContent()}`, 20_000);
    expect(await page.locator('.console').textContent()).toMatch(/called GET \/hello\/? live\d+/);
    // The finished call itself, from the same stream.
    await expect.poll(() => page.locator('.console li.invocation').first().textContent()).toMatch(/GET \/hello\/? → 200 in \d+\.\d ms/);
  }, 60_000);

  it('creates a webhook, test-fires it, opens the delivery and retries it', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('link', { name: 'New webhook' }).click();
    await page.getByLabel('Name', { exact: true }).fill('receiver');
    await page.getByLabel('Target URL').fill(`${receiver.url}/hook`);
    await page.getByLabel('Events (comma-separated)').fill('order.created');
    await page.getByLabel('Cron (five fields)').fill('not a cron');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    // The API's own validation message, with its code and the field it names.
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/cron/);
    await page.getByLabel('Cron (five fields)').fill('');
    await page.getByLabel('Sign deliveries with a new secret').check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.waitForURL(/#\/webhooks\/[^/]+$/);
    webhookId = decodeURIComponent(page.url().split('/').pop()!);
    // The generated secret is shown once, after the save; the API never answers it again.
    const secret = /whsec_\S+/.exec((await page.locator('.secret').textContent()) ?? '')?.[0];
    expect(secret).toBeDefined();

    await page.getByRole('button', { name: 'Test-fire now' }).click();
    await expect.poll(() => page.locator('.fired').textContent()).toContain('succeeded');
    expect(receiver.requests.filter((r) => r.url === '/hook')).toHaveLength(1);
    expect(receiver.requests[0].headers['webhook-signature']).toMatch(/^v1,/);
    await check('webhook');

    await page.locator('.fired a').click();
    await page.waitForURL(/#\/deliveries\//);
    await expect.poll(() => page.locator('.response-status').textContent()).toBe('200');
    await page.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => page.locator('table.attempts tbody tr').count()).toBe(2);
    expect(receiver.requests.filter((r) => r.url === '/hook')).toHaveLength(2);
    await check('delivery');

    await page.getByRole('link', { name: 'Webhooks' }).click();
    await expect.poll(() => page.locator('.badge.succeeded').count()).toBeGreaterThan(0);
    await check('webhooks');
  }, 90_000);

  it('publishes an event, lists what it reached, and shows the function background run', async () => {
    const subscribed = await svc.request('PUT', '/api/functions/hello', { events: ['order.created'] }, { authorization: `Bearer ${KEY}` });
    expect(subscribed.status).toBe(200);
    await page.getByRole('link', { name: 'Events' }).click();
    await page.getByLabel('Event name').fill('order.created');
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Webhook deliveries (1)').waitFor();
    await page.getByText('Functions (1)').waitFor();
    await until(() => receiver.requests.filter((r) => r.url === '/hook').length === 3, 'the event delivered');
    await check('events');

    await page.locator('a[href="#/functions/hello"]').first().click();
    await page.getByText(/^Version 2 ·/).waitFor();
    expect(await page.locator('#triggers-title').locator('..').textContent()).toContain('order.created');
    await until(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return (await page.locator('.runs .badge.succeeded').count()) === 1;
    }, 'the event-triggered run listed as succeeded');
    expect(await page.locator('.runs summary').textContent()).toContain('event');
    await check('function-runs');
  }, 60_000);

  it('charts the last hour on the overview, lists the routes and links a failure to its function', async () => {
    const auth = { authorization: `Bearer ${KEY}` };
    const created = await svc.request('POST', '/api/functions', { name: 'boom', code: "export async function handler() { throw new Error('boom'); }" }, auth);
    expect(created.status).toBe(201);
    expect((await svc.request('POST', `/api/apis/${apiId}/routes`, { method: 'GET', path: '/boom', function: 'boom' }, auth)).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await fetch(`${svc.url}/api/invoke/fn/${apiId}/hello/?name=overview${i}`)).status).toBe(200);
    expect((await fetch(`${svc.url}/api/invoke/fn/${apiId}/hello/boom`)).status).toBe(502);
    // A background run that fails for good: a function delivery failure.
    expect((await svc.request('PUT', '/api/functions/boom', { async: { retries: 0 } }, auth)).status).toBe(200);
    const queued = await svc.request('POST', '/api/functions/boom/invoke', {}, { ...auth, 'x-invocation-type': 'Event' });
    expect(queued.status).toBe(202);
    const runId = queued.json.invocation_id as string;
    await until(
      async () => (await svc.request('GET', `/api/functions/boom/invocations/${runId}`, undefined, auth)).json.status === 'failed',
      'the background run failed',
    );

    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // A route's path in the statistics is the API's base path and the route's pattern.
    const routeRow = (path: string) => page.locator('table.route-stats tbody tr').filter({ has: page.locator('code', { hasText: new RegExp(`^GET ${path}$`) }) });
    const boomRow = routeRow('/hello/boom');
    await expect.poll(() => boomRow.locator('td.count').textContent(), { timeout: 20_000 }).toBe('1');
    expect(await boomRow.locator('td.errors').textContent()).toBe('1 (100.0%)');
    const helloCount = Number(await routeRow('/hello').locator('td.count').textContent());
    expect(helloCount).toBeGreaterThanOrEqual(3);
    await expect.poll(() => page.locator('#chart-requests-title').locator('..').locator('figcaption').textContent()).toMatch(/^\d+ requests in the last 60 minutes/);

    // Every chart with data drawn by uPlot (its lazily loaded chunk), with a size; no webhook or
    // function here runs on a schedule, so the lateness chart says it has no data instead.
    await expect.poll(() => page.locator('figure.chart[data-ready="true"]').count()).toBe(5);
    expect(await page.locator('figure.chart[data-ready="empty"]').allTextContents()).toEqual([
      'Scheduler lateness (start after the slot)No data yetNo scheduled deliveries started.',
    ]);
    const sizes = await inPage<{ width: number; height: number }[]>(
      "[...document.querySelectorAll('.chart-host canvas')].map((c) => ({ width: c.clientWidth, height: c.clientHeight }))",
    );
    expect(sizes).toHaveLength(5);
    for (const size of sizes) expect(size.width * size.height).toBeGreaterThan(0);
    expect(await page.locator('figure.chart figcaption', { hasText: 'function_error' }).count()).toBe(1);
    expect(await page.locator('.updated time').count()).toBe(1);
    await check('overview');

    // The view reads the statistics again by itself (every 10 s): a second failing call shows up without a reload.
    expect((await fetch(`${svc.url}/api/invoke/fn/${apiId}/hello/boom`)).status).toBe(502);
    await expect.poll(() => boomRow.locator('td.count').textContent(), { timeout: 30_000 }).toBe('2');

    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => inPage('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await check('phone-overview');
    await page.setViewportSize({ width: 1280, height: 900 });

    // The failed run links to the function's page with that run opened.
    await expect.poll(() => page.locator(`.failures a[href="#/functions/boom/runs/${runId}"]`).count(), { timeout: 30_000 }).toBe(1);
    await page.locator(`.failures a[href="#/functions/boom/runs/${runId}"]`).click();
    await page.locator(`#run-${runId} details[open]`).waitFor();
    expect(await page.locator(`#run-${runId} .badge`).textContent()).toBe('failed');

    await page.goto(`${svc.url}/#/overview`);
    await page.locator('.failures a[href="#/functions/boom"]').first().click();
    await page.waitForURL(/#\/functions\/boom$/);
    await page.getByText(/^Version 2 ·/).waitFor();
  }, 90_000);

  it('works at phone width and by keyboard, and forgets the key', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${svc.url}/#/functions/hello`);
    await page.getByText(/^Version 2 ·/).waitFor();
    expect(await inPage('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await check('phone-function');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Keyboard: a fresh load, then Tab walks the skip link, the brand and the sections; Enter follows one.
    await page.goto('about:blank');
    await page.goto(`${svc.url}/#/overview`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const focused: string[] = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      focused.push(await inPage<string>("document.activeElement?.textContent ?? ''"));
    }
    expect(focused).toEqual(['Skip to content', 'Switchyard', 'Overview', 'Functions']);
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/functions$/);

    // Deleting asks once more in the page, then goes back to the list.
    await page.goto(`${svc.url}/#/apis/${encodeURIComponent(apiId)}`);
    await page.getByRole('button', { name: 'Delete API Hello API…' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.waitForURL(/#\/apis$/);
    expect((await svc.request('GET', `/api/apis/${apiId}`, undefined, { authorization: `Bearer ${KEY}` })).status).toBe(404);

    await page.getByRole('button', { name: 'Forget key' }).click();
    expect(await inPage("sessionStorage.getItem('switchyard.adminKey')")).toBeNull();
    await page.goto(`${svc.url}/#/webhooks`);
    await page.getByRole('textbox', { name: 'Admin key' }).waitFor();
  }, 60_000);

  it('asks for nothing on a server without an admin key', async () => {
    const open = await startService();
    try {
      const other = await context.newPage();
      await other.goto(`${open.url}/#/functions`);
      await other.getByText('No functions yet.').waitFor();
      expect(await other.getByRole('textbox', { name: 'Admin key' }).count()).toBe(0);
      expect(await other.getByRole('button', { name: 'Forget key' }).count()).toBe(0);
      // The page's own writes carry its Origin: same origin, so a keyless server takes them.
      const created = await evaluate<{ status: number; origin: string }>(
        other,
        `fetch('/api/functions', { method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'from-page', code: 'exports.handler = async () => ({ statusCode: 200, body: {} });' }) })
          .then((r) => ({ status: r.status, origin: location.origin }))`,
      );
      expect(created.status).toBe(201);
      // A malformed escape in the address, opened afresh, shows the not-found view instead of a blank page.
      await other.goto('about:blank');
      await other.goto(`${open.url}/#/functions/%E0%A4%A`);
      await other.getByRole('heading', { name: 'Not found' }).waitFor();
      await other.getByRole('link', { name: 'Functions' }).click();
      await other.getByText('from-page').waitFor();
      await other.close();
    } finally {
      await open.stop();
    }
  }, 60_000);
});
