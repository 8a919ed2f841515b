/**
 * An API's policy in the dashboard, in Chromium against a real server: the
 * policy card shows the API's policy fields, a dry run names what would
 * change without changing it, a save reaches the server (and the gateway: a
 * preflight is then answered), a refusal shows the field the server names;
 * a route's policy is listed in the routes table and edited in place. Each
 * state passes axe-core and the CSP check (test/helpers/browser.ts).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, checkView, enterKey, launchBrowser, type Browser } from '../helpers/browser.js';
import { startService, type RunningService } from '../helpers/service.js';

const KEY = 'dashboard-policy-key';
const AUTH = { authorization: `Bearer ${KEY}` };

const suite = browserSuite('test/browser/dashboard-api-policy.test.ts');

suite('API policy in the dashboard', () => {
  let svc: RunningService;
  let browser: Browser;
  let page: Page;
  let apiId: string;

  const policyText = () => page.locator('#api-policy').inputValue();
  const getApi = async () => (await svc.request('GET', `/api/apis/${apiId}`, undefined, AUTH)).json;

  beforeAll(async () => {
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY } });
    const code = 'export async function handler() { return { statusCode: 200, body: "hi" }; }';
    expect((await svc.request('POST', '/api/functions', { name: 'hi', code }, AUTH)).status).toBe(201);
    const created = await svc.request('POST', '/api/apis', { name: 'shop', basePath: '/shop', routes: [{ method: 'GET', path: '/items', function: 'hi' }] }, AUTH);
    expect(created.status).toBe(201);
    apiId = created.json.id;
    browser = await launchBrowser();
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it("shows the API's policy fields, and a dry run names a change without making it", async () => {
    await enterKey(page, `${svc.url}/#/apis/${apiId}`, KEY);
    await page.locator('#api-policy').waitFor();
    const shown = JSON.parse(await policyText());
    // Every policy field the server has, none of the API's identity fields.
    expect(shown).toMatchObject({ cors: null, minimumCompressionSize: null, binaryMediaTypes: null, errorFormat: 'switchyard', exposeErrors: false });
    for (const identity of ['id', 'name', 'basePath', 'routes', 'createdAt', 'updatedAt', 'invokeUrl']) expect(shown).not.toHaveProperty(identity);
    expect(await page.locator('td.route-policy').first().textContent()).toBe('none');

    await page.locator('#api-policy').fill(JSON.stringify({ ...shown, cors: { allowOrigins: ['https://app.example.com'], allowMethods: ['GET'] }, errorFormat: 'aws' }));
    await page.getByRole('button', { name: 'Check changes' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Would change: errorFormat, cors');
    expect(await getApi()).toMatchObject({ cors: null, errorFormat: 'switchyard' });
    await checkView(page, 'api-policy-dry-run');
  }, 60_000);

  it('saves the policy: the server keeps it and the gateway answers preflights from it', async () => {
    await page.getByRole('button', { name: 'Save policy' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Saved.');
    expect(await getApi()).toMatchObject({ cors: { allowOrigins: ['https://app.example.com'], allowMethods: ['GET'] }, errorFormat: 'aws' });
    const preflight = await fetch(`${svc.url}/api/invoke/fn/${apiId}/shop/items`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  }, 60_000);

  it('shows the field the server refuses', async () => {
    await page.locator('#api-policy').fill(JSON.stringify({ cors: { allowOrigins: ['not an origin'] } }));
    await page.getByRole('button', { name: 'Save policy' }).click();
    await expect.poll(async () => (await page.locator('.error').first().textContent()) ?? '').toContain('cors');
    expect((await getApi()).cors).toEqual({
      allowOrigins: ['https://app.example.com'],
      allowMethods: ['GET'],
      allowHeaders: [],
      exposeHeaders: [],
      maxAge: null,
      allowCredentials: false,
    });
    await checkView(page, 'api-policy-refused');
  }, 60_000);

  it("edits a route's policy in place, keeping the other routes and their ids", async () => {
    const before = (await getApi()).routes as Array<{ id: string }>;
    await page.getByRole('button', { name: 'Edit policy of route GET /items' }).click();
    const editor = page.getByRole('form', { name: 'Policy of route GET /items' });
    await editor.locator('textarea').waitFor();
    expect(JSON.parse(await editor.locator('textarea').inputValue())).toEqual({});
    // A field the server does not take is refused with its name; the route is unchanged.
    await editor.locator('textarea').fill('{"bogus": true}');
    await editor.getByRole('button', { name: 'Save route policy' }).click();
    await expect.poll(async () => (await editor.locator('.error').first().textContent()) ?? '').toContain('bogus');
    expect((await getApi()).routes).toEqual(before);
    await editor.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => editor.count()).toBe(0);
  }, 60_000);
});
