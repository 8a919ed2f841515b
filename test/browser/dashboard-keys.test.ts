/**
 * API keys in the dashboard, in Chromium against a real server: a key created
 * in the page shows its secret once, and that secret works on a route with
 * apiKeyRequired; after a reload only its prefix is left (and the view fits a
 * phone's width); disabling it in the page refuses it at the gateway right
 * after, enabling admits it again; its usage shows the calls admitted; a usage plan refused for a field names it,
 * then is created with its APIs, throttle and quota; a key on a plan removed
 * meanwhile is refused with the field named; revoking the key refuses it.
 * Each state passes axe-core and the CSP check (test/helpers/browser.ts).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, checkView, enterKey, inPage, launchBrowser, type Browser } from '../helpers/browser.js';
import { startService, type RunningService } from '../helpers/service.js';

const KEY = 'dashboard-keys-key';
const AUTH = { authorization: `Bearer ${KEY}` };

const suite = browserSuite('test/browser/dashboard-keys.test.ts');

suite('API keys in the dashboard', () => {
  let svc: RunningService;
  let browser: Browser;
  let page: Page;
  let apiId: string;
  let secret = '';
  let keyId = '';
  let prefix = '';
  let admitted = 0;

  /** The status of the keyed route called with `key` (none: no header). */
  async function privateStatus(key?: string): Promise<number> {
    const res = await fetch(`${svc.url}/api/invoke/fn/${apiId}/private`, { headers: key === undefined ? {} : { 'x-api-key': key } });
    await res.arrayBuffer();
    if (res.status === 200) admitted++;
    return res.status;
  }
  const row = (name: string) => page.locator('table.keys tbody tr', { hasText: name });
  const enabledCell = (name: string) => row(name).locator('td').nth(2).textContent();

  beforeAll(async () => {
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY } });
    const code = 'export async function handler() { return { statusCode: 200, body: "hi" }; }';
    expect((await svc.request('POST', '/api/functions', { name: 'hi', code }, AUTH)).status).toBe(201);
    const created = await svc.request(
      'POST',
      '/api/apis',
      { name: 'shop', basePath: '/', routes: [{ method: 'GET', path: '/private', function: 'hi', apiKeyRequired: true }] },
      AUTH,
    );
    expect(created.status, created.text).toBe(201);
    apiId = created.json.id;
    // No quota: the usage of such a key is written in batches, which the usage check waits for.
    const plan = await svc.request('POST', '/api/usage-plans', { name: 'gold', apiIds: [apiId] }, AUTH);
    expect(plan.status, plan.text).toBe(201);
    browser = await launchBrowser();
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('creates a key on a plan chosen in the page and shows its secret once; the secret opens the keyed route', async () => {
    await enterKey(page, `${svc.url}/#/keys`, KEY);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(await page.getByRole('link', { name: 'API keys' }).getAttribute('aria-current')).toBe('page');
    // The plan made over HTTP is listed, its API by name.
    await expect.poll(() => page.locator('table.plans tbody tr').first().textContent()).toBe('goldshopnonenone');
    await page.getByText('No API keys yet.').waitFor();
    expect(await page.locator('#key-plan option:checked').textContent()).toBe('gold');

    await page.getByLabel('Name', { exact: true }).first().fill('partner');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('.key-secret').waitFor();
    secret = (await page.locator('.key-secret').textContent()) ?? '';
    expect(secret).toMatch(/^sy_[A-Za-z0-9_-]{32}$/);
    expect(await page.locator('.secret').textContent()).toContain('will not be shown again');
    await expect.poll(() => row('partner').count()).toBe(1);
    const keys = (await svc.request('GET', '/api/api-keys', undefined, AUTH)).json as Array<{ id: string; prefix: string; usagePlanId: string; enabled: boolean }>;
    expect(keys).toHaveLength(1);
    keyId = keys[0].id;
    prefix = keys[0].prefix;
    expect(secret.startsWith(keys[0].prefix)).toBe(true);
    expect(keys[0].enabled).toBe(true);
    expect(await row('partner').textContent()).toContain(`${keys[0].prefix}…`);
    expect(await row('partner').locator('td').nth(3).textContent()).toBe('gold');
    await checkView(page, 'keys-created');

    expect(await privateStatus()).toBe(403);
    expect(await privateStatus(secret)).toBe(200);
  }, 60_000);

  it('forgets the secret on a reload: only the prefix is left', async () => {
    await page.reload();
    await expect.poll(() => row('partner').count()).toBe(1);
    expect(await page.locator('.key-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    expect(await row('partner').locator('code').textContent()).toBe(`${prefix}…`);
    await checkView(page, 'keys-list');
    // At phone width the page does not scroll sideways (the table does, in its own box).
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await inPage(page, 'document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await checkView(page, 'keys-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 60_000);

  it('disables the key in the page (refused right after) and enables it again', async () => {
    await page.getByRole('button', { name: 'Disable key partner' }).click();
    await expect.poll(() => enabledCell('partner')).toBe('no');
    expect(await privateStatus(secret)).toBe(403);
    expect((await svc.request('GET', `/api/api-keys/${keyId}`, undefined, AUTH)).json.enabled).toBe(false);
    await checkView(page, 'keys-disabled');

    await page.getByRole('button', { name: 'Enable key partner' }).click();
    await expect.poll(() => enabledCell('partner')).toBe('yes');
    expect(await privateStatus(secret)).toBe(200);
    expect(await privateStatus(secret)).toBe(200);
  }, 60_000);

  it("shows the key's usage: the calls it was admitted for, not the refused ones", async () => {
    expect(admitted).toBe(3);
    // Written in batches (about every second): ask again until the page shows them all.
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Usage of key partner' }).click();
          const usage = page.getByRole('region', { name: 'Usage of partner' });
          await usage.locator('.usage-total').waitFor();
          return usage.locator('.usage-total').textContent();
        },
        { timeout: 15_000, interval: 300 },
      )
      .toBe('3');
    const today = new Date().toISOString().slice(0, 10);
    const usage = page.getByRole('region', { name: 'Usage of partner' });
    expect(await usage.locator('tbody tr').allTextContents()).toEqual([`${today}3`]);
    await checkView(page, 'keys-usage');
  }, 60_000);

  it('names the field of a refused usage plan, then creates one with its APIs, throttle and quota', async () => {
    const form = page.getByRole('form', { name: 'New usage plan' });
    await form.getByLabel('Name').fill('metered');
    await form.getByRole('checkbox', { name: 'shop' }).check();
    await form.getByLabel('Rate limit (requests/s)').fill('5');
    await form.getByRole('button', { name: 'Create usage plan' }).click();
    const refusal = form.locator('.error');
    await refusal.waitFor();
    expect(await refusal.locator('dd').nth(1).textContent()).toBe('throttle.burstLimit');
    expect(await form.getByLabel('Burst limit').getAttribute('aria-invalid')).toBe('true');
    expect(await form.getByLabel('Rate limit (requests/s)').getAttribute('aria-invalid')).toBeNull();
    expect((await svc.request('GET', '/api/usage-plans', undefined, AUTH)).json).toHaveLength(1);
    await checkView(page, 'keys-plan-refused');

    await form.getByLabel('Burst limit').fill('10');
    await form.getByLabel('Quota (requests)').fill('1000');
    await form.getByLabel('Quota period').selectOption('WEEK');
    await form.getByRole('button', { name: 'Create usage plan' }).click();
    await expect.poll(() => page.locator('table.plans tbody tr', { hasText: 'metered' }).textContent()).toBe('meteredshop5/s, burst 101000 per week');
    const plans = (await svc.request('GET', '/api/usage-plans', undefined, AUTH)).json as Array<Record<string, unknown>>;
    expect(plans.find((p) => p.name === 'metered')).toMatchObject({ apiIds: [apiId], throttle: { rateLimit: 5, burstLimit: 10 }, quota: { limit: 1000, period: 'WEEK' } });
    // The new plan can be chosen for the next key.
    expect(await page.locator('#key-plan option').allTextContents()).toEqual(['gold', 'metered', 'none']);

    // Removed elsewhere while the page shows it: the key is refused, the plan field named and marked.
    const metered = plans.find((p) => p.name === 'metered')!;
    expect((await svc.request('DELETE', `/api/usage-plans/${metered.id}`, undefined, AUTH)).status).toBe(200);
    const keyForm = page.getByRole('form', { name: 'New key' });
    await keyForm.getByLabel('Name').fill('late');
    await keyForm.getByLabel('Usage plan').selectOption({ label: 'metered' });
    await keyForm.getByRole('button', { name: 'Create key' }).click();
    await keyForm.locator('.error').waitFor();
    expect(await keyForm.locator('.error dd').nth(1).textContent()).toBe('usagePlanId');
    expect(await keyForm.getByLabel('Usage plan').getAttribute('aria-invalid')).toBe('true');
    expect(await row('late').count()).toBe(0);
    await checkView(page, 'keys-key-refused');
  }, 60_000);

  it('revokes the key after asking once more: refused at the gateway', async () => {
    await page.getByRole('button', { name: 'Delete key partner…' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await expect.poll(() => row('partner').count()).toBe(0);
    await page.getByText('No API keys yet.').waitFor();
    expect((await svc.request('GET', `/api/api-keys/${keyId}`, undefined, AUTH)).status).toBe(404);
    expect(await privateStatus(secret)).toBe(403);
    await checkView(page, 'keys-revoked');
  }, 60_000);
});
