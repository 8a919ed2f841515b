/**
 * Applications in the dashboard, in Chromium against a real server: the
 * navigation links to them, an empty list says so, the form creates one (and
 * shows a refused uid with its field marked), an opened application lists
 * only the webhooks it owns with their health, and **Open portal** opens the
 * portal link with a working token in a new tab that has no opener. Each state
 * passes axe-core and the CSP check (test/helpers/browser.ts).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, checkView, enterKey, launchBrowser, type Browser } from '../helpers/browser.js';
import { startService, type RunningService } from '../helpers/service.js';

const KEY = 'dashboard-applications-key';
const AUTH = { authorization: `Bearer ${KEY}` };

const suite = browserSuite('test/browser/dashboard-applications.test.ts');

suite('applications in the dashboard', () => {
  let svc: RunningService;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
    browser = await launchBrowser();
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('says when there are none, and creates one from the form', async () => {
    await enterKey(page, `${svc.url}/#/applications`, KEY);
    await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor();
    expect(await page.getByRole('link', { name: 'Applications' }).getAttribute('aria-current')).toBe('page');
    await page.getByText('No applications yet.').waitFor();
    await checkView(page, 'applications-empty');

    await page.getByLabel('Name').fill('Acme Corp');
    await page.getByLabel(/^Uid/).fill('acme');
    await page.getByLabel(/^Max endpoints/).fill('5');
    await page.getByRole('button', { name: 'Create application' }).click();
    await page.locator('details.application summary', { hasText: 'Acme Corp (acme), at most 5 endpoints' }).waitFor();
    const listed = await svc.request('GET', '/api/applications', undefined, AUTH);
    expect(listed.json).toMatchObject([{ name: 'Acme Corp', uid: 'acme', limits: { max_endpoints: 5 } }]);

    await page.getByLabel('Name').fill('Again');
    await page.getByLabel(/^Uid/).fill('acme');
    await page.getByRole('button', { name: 'Create application' }).click();
    await page.getByRole('alert').filter({ hasText: 'application_exists' }).waitFor();
    expect(await page.getByLabel(/^Uid/).getAttribute('aria-invalid')).toBe('true');
    await checkView(page, 'applications-refused');
  });

  it("lists an opened application's own webhooks with their health, and opens its portal in a new tab without an opener", async () => {
    const app = (await svc.request('GET', '/api/applications/acme', undefined, AUTH)).json as { id: string };
    const mine = await svc.request('POST', '/api/webhooks', { name: 'acme-orders', target_url: 'http://127.0.0.1:9/a', method: 'POST', payload_template: {}, application_id: app.id }, AUTH);
    expect(mine.status, mine.text).toBe(201);
    await svc.request('POST', '/api/webhooks', { name: 'global-one', target_url: 'http://127.0.0.1:9/g', method: 'POST', payload_template: {} }, AUTH);

    await page.reload();
    const item = page.locator('details.application', { hasText: 'Acme Corp' });
    await item.locator('summary').click();
    const row = item.getByRole('row', { name: /acme-orders/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('none yet');
    expect(await item.getByRole('link', { name: 'acme-orders' }).getAttribute('href')).toBe(`#/webhooks/${mine.json.id}`);
    expect(await item.textContent()).not.toContain('global-one');
    await checkView(page, 'applications-open');

    const [tab] = await Promise.all([browser.context.waitForEvent('page'), item.getByRole('button', { name: 'Open portal' }).click()]);
    await tab.waitForLoadState('domcontentloaded').catch(() => undefined);
    expect(new URL(tab.url()).pathname).toBe(`/portal/${app.id}`);
    expect(await tab.evaluate('window.opener')).toBeNull();
    await tab.close();
    // The same link, shown for a popup blocker's sake (the portal page may drop the token from its own address once read).
    const fallback = item.getByRole('link', { name: /Portal link/ });
    expect(await fallback.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await fallback.getAttribute('target')).toBe('_blank');
    const token = new URLSearchParams(new URL((await fallback.getAttribute('href'))!).hash.slice(1)).get('token');
    expect(token).toMatch(/^swp_/);
    const session = await svc.request('GET', '/api/portal/session', undefined, { authorization: `Bearer ${token}` });
    expect(session.json).toMatchObject({ application_id: app.id, application_name: 'Acme Corp' });
  });

  it('names the project whose apply owns an application, and none for one made by hand', async () => {
    const owned = await svc.request('POST', '/api/applications', { name: 'Shop Owned', uid: 'shop-owned', project: 'shop' }, AUTH);
    expect(owned.status, owned.text).toBe(201);
    await page.reload();
    await page.locator('details.application summary', { hasText: 'Shop Owned (shop-owned), from project shop' }).waitFor();
    expect(await page.locator('details.application summary', { hasText: 'Acme Corp' }).textContent()).not.toContain('project');
  });
});
