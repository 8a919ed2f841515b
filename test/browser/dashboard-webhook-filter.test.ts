/**
 * The webhook form's payload filter in Chromium against a real server: the
 * tester asks the server whether the typed event matches and shows which part
 * failed, a refused filter is marked with the server's message naming its
 * path, and a saved filter is stored and shown again; a publish then reaches
 * the webhook only when the filter matches. Each view state passes axe-core
 * and the CSP check (test/helpers/browser.ts).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, checkView, enterKey, launchBrowser, type Browser } from '../helpers/browser.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';

const KEY = 'dashboard-filter-key';
const AUTH = { authorization: `Bearer ${KEY}` };
const suite = browserSuite('test/browser/dashboard-webhook-filter.test.ts');

suite('the webhook filter editor in Chromium', () => {
  let svc: RunningService;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;
  let hookId: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
    browser = await launchBrowser();
    page = browser.page;
    const res = await svc.request(
      'POST',
      '/api/webhooks',
      { name: 'big orders', target_url: `${receiver.url}/big`, method: 'POST', payload_template: { total: '{{data.total}}' }, events: ['order.created'] },
      AUTH,
    );
    expect(res.status).toBe(201);
    hookId = res.json.id as string;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await receiver?.close();
  });

  const filterBox = () => page.getByLabel('Filter (JSON; empty: every event)');
  const eventBox = () => page.getByLabel('Test event (JSON: event, data, headers)');
  const tester = () => page.getByRole('button', { name: 'Would this event match?' });

  it('tests a filter against a typed event: a match, then the part that failed', async () => {
    await enterKey(page, `${svc.url}/#/webhooks/${hookId}`, KEY);
    await filterBox().waitFor();
    await filterBox().fill('{"data": {"total": {"$gt": 100}}}');
    await eventBox().fill('{"event": "order.created", "data": {"total": 120}}');
    await tester().click();
    await page.getByRole('status').filter({ hasText: 'Matches' }).waitFor();
    await checkView(page, 'webhook-filter-match');

    await eventBox().fill('{"event": "order.created", "data": {"total": 80}}');
    await tester().click();
    const verdict = page.getByRole('status').filter({ hasText: 'No match' });
    await verdict.waitFor();
    expect(await verdict.textContent()).toBe('No match: data.total $gt 100; the event has 80');
    await checkView(page, 'webhook-filter-no-match');
  }, 60_000);

  it('marks a filter the server refuses, with the path it names', async () => {
    await filterBox().fill('{"data": {"total": {"$gt": true}}}');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('filter.data.total.$gt');
    expect(await filterBox().getAttribute('aria-invalid')).toBe('true');
    await checkView(page, 'webhook-filter-refused');
    expect((await svc.request('GET', `/api/webhooks/${hookId}`, undefined, AUTH)).json.filter).toBeNull();
  }, 60_000);

  it('saves the filter, shows it again, and the server filters publishes by it', async () => {
    await filterBox().fill('{"data": {"total": {"$gt": 100}}}');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    expect((await svc.request('GET', `/api/webhooks/${hookId}`, undefined, AUTH)).json.filter).toEqual({ data: { total: { $gt: 100 } } });

    await page.reload();
    await filterBox().waitFor();
    expect(JSON.parse(await filterBox().inputValue())).toEqual({ data: { total: { $gt: 100 } } });

    const small = await svc.request('POST', '/api/events', { event: 'order.created', data: { total: 5 } }, AUTH);
    expect(small.json.webhooks).toEqual({ matched: [], filtered_out: [hookId] });
    const big = await svc.request('POST', '/api/events', { event: 'order.created', data: { total: 500 } }, AUTH);
    expect(big.json.webhooks).toEqual({ matched: [hookId], filtered_out: [] });
  }, 60_000);
});
