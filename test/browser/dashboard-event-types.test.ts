/**
 * The event-type catalogue in the dashboard, in Chromium against a real
 * server: the navigation links to it, an empty catalogue says so, and a type
 * made over HTTP with two schema versions shows its mode, its deprecation and
 * both versions (newest first) with their schemas and examples. Each state
 * passes axe-core and the CSP check (test/helpers/browser.ts).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, checkView, enterKey, launchBrowser, type Browser } from '../helpers/browser.js';
import { startService, type RunningService } from '../helpers/service.js';

const KEY = 'dashboard-event-types-key';
const AUTH = { authorization: `Bearer ${KEY}` };

const suite = browserSuite('test/browser/dashboard-event-types.test.ts');

suite('event types in the dashboard', () => {
  let svc: RunningService;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY } });
    browser = await launchBrowser();
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('says when the catalogue is empty', async () => {
    await enterKey(page, `${svc.url}/#/event-types`, KEY);
    await page.getByRole('heading', { name: 'Event types' }).waitFor();
    expect(await page.getByRole('link', { name: 'Event types' }).getAttribute('aria-current')).toBe('page');
    await page.getByText('No event types yet.').waitFor();
    await checkView(page, 'event-types-empty');
  });

  it("shows each type's mode, deprecation, versions newest first, schemas and examples", async () => {
    const schema = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };
    const made = await svc.request('POST', '/api/event-types', { name: 'order.created', description: 'An order was placed', schema, examples: [{ id: 'o-1' }], mode: 'warn' }, AUTH);
    expect(made.status, made.text).toBe(201);
    const v2 = { ...schema, required: ['id', 'total'], properties: { ...schema.properties, total: { type: 'number' } } };
    const updated = await svc.request('PUT', '/api/event-types/order.created', { schema: v2, examples: [{ id: 'o-2', total: 9 }], deprecated: true }, AUTH);
    expect(updated.status, updated.text).toBe(200);

    await page.reload();
    const type = page.locator('details.event-type', { hasText: 'order.created' });
    await type.waitFor();
    expect(await type.locator('summary').textContent()).toBe('order.created: warn, deprecated');
    await type.locator('summary').click();
    expect(await type.getByRole('heading', { level: 2 }).allTextContents()).toEqual(['Version 2', 'Version 1']);
    const text = (await type.textContent()) ?? '';
    expect(text).toContain('An order was placed');
    expect(text).toContain('"total"');
    expect(text).toContain('"o-2"');
    expect(text).toContain('"o-1"');
    await checkView(page, 'event-types');
  });
});
