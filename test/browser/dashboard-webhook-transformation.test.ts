/**
 * A webhook's transformation in the dashboard, in Chromium against a real
 * server: added from the webhook's form (the code editor loads), tried on a
 * sample payload (the request it would send is shown), saved (the server
 * stores the code), and a refused one marks its line. Each view state passes
 * axe-core and the CSP check (test/helpers/browser.ts).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, checkView, enterKey, launchBrowser, setEditorText, type Browser } from '../helpers/browser.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const KEY = 'dashboard-webhook-transformation-key';
const AUTH = { authorization: `Bearer ${KEY}` };
const CODE = "function handler(webhook) {\n  webhook.headers['x-from-ui'] = 'yes';\n  webhook.payload = { wrapped: webhook.payload };\n  return webhook;\n}\n";

const suite = browserSuite('test/browser/dashboard-webhook-transformation.test.ts');

suite("a webhook's transformation on the dashboard in Chromium", () => {
  let svc: RunningService;
  let browser: Browser;
  let page: Page;
  let id: string;

  const get = async () => (await svc.request('GET', `/api/webhooks/${id}`, undefined, AUTH)).json;
  const typeCode = async (code: string) => {
    await page.locator('.code-editor[data-ready="true"]').waitFor();
    await setEditorText(page, code);
  };

  beforeAll(async () => {
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY } });
    browser = await launchBrowser();
    page = browser.page;
    const res = await svc.request(
      'POST',
      '/api/webhooks',
      { name: 'shaped', target_url: 'https://example.com/shaped', method: 'POST', payload_template: { event: '{{event}}' } },
      AUTH,
    );
    expect(res.status, res.text).toBe(201);
    id = res.json.id;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('adds a transformation, tries it on a sample payload, and saves it', async () => {
    await enterKey(page, `${svc.url}/#/webhooks/${id}`, KEY);
    await page.getByRole('button', { name: 'Add a transformation' }).click();
    await page.locator('.code-editor[data-ready="true"]').waitFor();
    expect(await page.locator('.cm-content').textContent()).toContain('function handler(webhook)');
    await typeCode(CODE);
    await page.getByLabel('Sample payload (JSON) to try it on').fill('{"total": 5}');
    await page.getByRole('button', { name: 'Try it' }).click();
    const result = page.getByRole('status', { name: 'Transformation result' });
    await expect.poll(() => result.textContent()).toContain('Would send POST https://example.com/shaped');
    const shown = await result.locator('pre').textContent();
    expect(shown).toContain('x-from-ui');
    expect(shown).toContain('wrapped');
    await checkView(page, 'webhook-transformation-tried');

    await page.getByRole('button', { name: 'Save' }).click();
    const stored = await until(async () => ((await get()).transformation ? await get() : null), 'the transformation saved');
    expect(stored.transformation).toBe(CODE);
  }, 60_000);

  it('shows a failure of the try-it run, and marks the line of code the server refuses', async () => {
    await typeCode('function handler(webhook) {\n  for (;;) {}\n}\n');
    await page.getByRole('button', { name: 'Try it' }).click();
    const result = page.getByRole('status', { name: 'Transformation result' });
    await expect.poll(() => result.textContent()).toContain('transformation_cpu_limit');

    await typeCode('function handler(webhook) {\n  return webhook +;\n}\n');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('transformation');
    await expect.poll(() => page.locator('.compile-error').textContent()).toMatch(/line 2/);
    await checkView(page, 'webhook-transformation-refused');
    // The stored code is still the one saved before.
    expect((await get()).transformation).toBe(CODE);
  }, 60_000);
});
