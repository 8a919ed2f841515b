/**
 * A function's page in a real headless Chromium against a real server with an
 * admin key: its version history (two deploys listed, version 1's code opened
 * by its own URL and compared with the current code, restored as version 3),
 * and its triggers edited in the page (a schedule with a bad cron refused with
 * the API's message naming the field, then added; an event subscription added;
 * the schedule removed), each checked through the API. Every new state passes
 * the per-view check of test/helpers/browser.ts (axe-core, CSP, screenshot).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, checkView, enterKey, inPage, launchBrowser, setEditorText, type Browser } from '../helpers/browser.js';
import { startService, type RunningService } from '../helpers/service.js';

const KEY = 'dashboard-functions-key';
const AUTH = { authorization: `Bearer ${KEY}` };

const V1 = `export async function handler(event) {
  return { statusCode: 200, body: { version: 1 } };
}
`;
const V2 = `export async function handler(event) {
  console.log('second version');
  return { statusCode: 200, body: { version: 2 } };
}
`;

const suite = browserSuite('test/browser/dashboard-functions.test.ts');

suite('a function page in Chromium: versions and triggers', () => {
  let svc: RunningService;
  let browser: Browser;
  let page: Page;

  const fnNow = async () => (await svc.request('GET', '/api/functions/ver', undefined, AUTH)).json;

  beforeAll(async () => {
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY } });
    browser = await launchBrowser();
    page = browser.page;
    const created = await svc.request('POST', '/api/functions', { name: 'ver', code: V1, env: { TOKEN: 'write-only-value' } }, AUTH);
    expect(created.status, created.text).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('deploys version 2 in the editor and lists both versions', async () => {
    await enterKey(page, `${svc.url}/#/functions/ver`, KEY);
    await page.locator('.code-editor[data-ready="true"]').waitFor();
    await setEditorText(page, V2);
    await page.getByRole('button', { name: 'Save and deploy' }).click();
    await page.getByText(/^Version 2 ·/).waitFor();

    const versions = page.getByRole('region', { name: 'Versions' });
    await versions.getByRole('link', { name: 'Version 1', exact: true }).waitFor();
    await versions.getByRole('link', { name: 'Version 2', exact: true }).waitFor();
    const rows = await versions.locator('tbody tr').allTextContents();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^Version 2 current/);
    expect(rows[0]).toContain(`${Buffer.byteLength(V2)} B`);
    expect(rows[1]).toContain(`${Buffer.byteLength(V1)} B`);
    await checkView(page, 'function-versions');
  }, 90_000);

  it("opens version 1 at its own URL, shows its code and the changes against the current code", async () => {
    await page.getByRole('link', { name: 'Version 1', exact: true }).click();
    await page.waitForURL(/#\/functions\/ver\/versions\/1$/);
    await page.getByRole('heading', { name: 'Version 1', exact: true }).waitFor();
    expect(await page.locator('pre.code-view').textContent()).toBe(V1);

    await page.getByRole('button', { name: 'Changes against the current code' }).click();
    const diff = await page.locator('pre.diff').textContent();
    // − lines are the current code's only, + lines version 1's only.
    expect(diff).toContain("−   console.log('second version');");
    expect(diff).toContain('−   return { statusCode: 200, body: { version: 2 } };');
    expect(diff).toContain('+   return { statusCode: 200, body: { version: 1 } };');
    expect(diff).toContain('  export async function handler(event) {');
    await checkView(page, 'function-version');

    // The same view by its link alone (a fresh load of the URL).
    await page.goto(`${svc.url}/#/functions/ver/versions/2`);
    await page.getByRole('heading', { name: 'Version 2 (current)' }).waitFor();
    expect(await page.locator('pre.code-view').textContent()).toBe(V2);
    await page.goto(`${svc.url}/#/functions/ver/versions/1`);
    await page.getByRole('heading', { name: 'Version 1', exact: true }).waitFor();
  }, 60_000);

  it('restores version 1 as version 3, asking once, and keeps the environment', async () => {
    await page.getByRole('button', { name: /^Restore version 1/ }).click();
    const confirm = page.getByRole('group', { name: 'Restore version 1' });
    await expect.poll(() => confirm.textContent()).toContain('as version 3');
    await confirm.getByRole('button', { name: 'Yes, restore' }).click();
    await page.waitForURL(/#\/functions\/ver$/);
    await page.getByText(/^Version 3 ·/).waitFor();

    const fn = await fnNow();
    expect(fn).toMatchObject({ version: 3, env_keys: ['TOKEN'] });
    expect(fn.code).toBe(V1);
    const list = (await svc.request('GET', '/api/functions/ver/versions', undefined, AUTH)).json;
    expect(list.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    expect(list[0].code_sha256).toBe(list[2].code_sha256);
    await page.getByRole('region', { name: 'Versions' }).getByRole('link', { name: 'Version 3', exact: true }).waitFor();
    // The editor shows the restored code.
    await page.locator('.code-editor[data-ready="true"]').waitFor();
    expect(await page.locator('.cm-content').textContent()).toContain('version: 1');
  }, 60_000);

  it("refuses a schedule with a bad cron with the API's message naming the field, then adds the fixed one", async () => {
    await page.getByLabel('Cron').fill('every minute please');
    await page.getByLabel('Time zone (IANA)').fill('Europe/Berlin');
    await page.getByRole('button', { name: 'Add schedule' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('schedules[0].cron');
    expect(await alert.textContent()).toContain('invalid_request');
    expect(await page.getByLabel('Cron').getAttribute('aria-invalid')).toBe('true');
    expect((await fnNow()).schedules).toEqual([]);
    await checkView(page, 'function-schedule-error');

    await page.getByLabel('Cron').fill('0 9 * * 1-5');
    await page.getByRole('button', { name: 'Add schedule' }).click();
    await page.getByRole('button', { name: 'Remove schedule 0 9 * * 1-5 (Europe/Berlin)' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect((await fnNow()).schedules).toEqual([{ cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' }]);
  }, 60_000);

  it('adds an event subscription, and removes the schedule, keeping unsaved code in the editor', async () => {
    // Code typed but not deployed: a trigger change (a new version too) must not throw it away.
    await page.locator('.code-editor[data-ready="true"]').waitFor();
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText('\n// not deployed yet');
    const versionBefore = (await fnNow()).version;
    await page.getByLabel('Event name (or *)').fill('order.created');
    await page.getByRole('button', { name: 'Add subscription' }).click();
    await page.getByRole('button', { name: 'Remove subscription order.created' }).waitFor();
    expect((await fnNow()).events).toEqual(['order.created']);
    await page.getByText(new RegExp(`^Version ${versionBefore + 1} ·`)).waitFor();
    expect(await page.locator('.cm-content').textContent()).toContain('// not deployed yet');
    expect((await fnNow()).code).not.toContain('// not deployed yet');
    await checkView(page, 'function-triggers');

    await page.getByRole('button', { name: 'Remove schedule 0 9 * * 1-5 (Europe/Berlin)' }).click();
    await page.getByText('No schedules.').waitFor();
    const fn = await fnNow();
    expect(fn.schedules).toEqual([]);
    expect(fn.events).toEqual(['order.created']);
    await checkView(page, 'function-triggers-removed');
  }, 60_000);

  it('fits a phone-width screen', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(`${svc.url}/#/functions/ver/versions/1`);
    await page.getByRole('heading', { name: 'Version 1', exact: true }).waitFor();
    expect(await inPage<boolean>(page, 'document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await checkView(page, 'function-version-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 60_000);
});
