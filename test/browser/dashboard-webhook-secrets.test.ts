/**
 * A webhook's signing secrets in the dashboard, in Chromium against a real
 * server and a local receiver: the secrets card lists the current secret,
 * a rotation with a chosen overlap shows the new secret once and lists both
 * with the old one's expiry, and a test-fire then carries both signatures;
 * a rotation to ed25519 shows the public key and sends a `v1a` signature
 * first. Each state passes axe-core and the CSP check (test/helpers/browser.ts).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, checkView, enterKey, launchBrowser, type Browser } from '../helpers/browser.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';

const KEY = 'dashboard-webhook-secrets-key';
const AUTH = { authorization: `Bearer ${KEY}` };
const OLD = 'whsec_' + Buffer.alloc(32, 4).toString('base64');

const suite = browserSuite('test/browser/dashboard-webhook-secrets.test.ts');

suite('signing secrets on the dashboard webhook page in Chromium', () => {
  let svc: RunningService;
  let rx: Receiver;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    rx = await startReceiver();
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
    browser = await launchBrowser();
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await rx?.close();
  });

  it('rotates with a chosen overlap, shows the new secret once, lists both; then moves to ed25519', async () => {
    const res = await svc.request(
      'POST',
      '/api/webhooks',
      { name: 'signed', target_url: `${rx.url}/signed`, method: 'POST', payload_template: { a: 1 }, secret: OLD },
      AUTH,
    );
    expect(res.status, res.text).toBe(201);
    const id = res.json.id as string;
    await enterKey(page, `${svc.url}/#/webhooks/${id}`, KEY);
    const card = page.locator('section[aria-labelledby="secrets-title"]');
    await expect.poll(() => card.locator('.secrets li').allTextContents()).toEqual(['hmac: current']);
    await checkView(page, 'webhook-secrets');

    await card.getByLabel('Overlap').selectOption({ label: '7 d' });
    await card.getByRole('button', { name: 'Rotate secret' }).click();
    await expect.poll(() => card.locator('.secrets li').count()).toBe(2);
    const secret = /whsec_\S+/.exec((await page.locator('.secret').textContent()) ?? '')?.[0];
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(OLD);
    const shown = (await svc.request('GET', `/api/webhooks/${id}`, undefined, AUTH)).json;
    expect(Date.parse(shown.secrets[1].expires_at) - Date.parse(shown.secrets[0].created_at)).toBe(7 * 86_400_000);
    expect(await card.locator('.secrets li').nth(1).textContent()).toMatch(/^hmac: signs until /);
    await checkView(page, 'webhook-secrets-rotated');

    await page.getByRole('button', { name: 'Test-fire now' }).click();
    await expect.poll(() => page.locator('.fired').textContent()).toContain('succeeded');
    const signatures = String(rx.requests.at(-1)!.headers['webhook-signature']).split(' ');
    expect(signatures.map((s) => s.split(',')[0])).toEqual(['v1', 'v1']);

    await card.getByLabel('New kind').selectOption('ed25519');
    await card.getByRole('button', { name: 'Rotate secret' }).click();
    await expect.poll(() => card.locator('code').textContent()).toMatch(/^whpk_/);
    expect(await card.locator('.secrets li').first().textContent()).toBe('ed25519: current');
    expect((await page.locator('.secret').textContent()) ?? '').toMatch(/whsk_/);
    await checkView(page, 'webhook-secrets-ed25519');
    await page.getByRole('button', { name: 'Test-fire now' }).click();
    await expect.poll(() => String(rx.requests.at(-1)?.headers['webhook-signature']).split(' ').length).toBe(3);
    expect(String(rx.requests.at(-1)!.headers['webhook-signature'])).toMatch(/^v1a,/);
  }, 90_000);
});
