/**
 * The dashboard as a newcomer meets it in the first hour (issue 21), in
 * Chromium against real servers: a wrong admin key said to be wrong, a created
 * function confirmed on its own page, its stored console lines shown on load,
 * a route's path parameters filled in (encoded) by try-it and its curl command
 * safe from curl's globbing, JSON answers indented, the subscribers of an event
 * listed before publishing and its invocations linked, a webhook whose
 * delivery is failing right now shown as failing (health, next attempt, why
 * Retry waits), and a fresh server's overview charting only the minutes with
 * data. Each view state passes the per-view check of test/helpers/browser.ts.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, checkView, inPage, launchBrowser, setEditorText, type Browser } from '../helpers/browser.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const KEY = 'dashboard-first-hour-key';
const AUTH = { authorization: `Bearer ${KEY}` };

const ECHO = `export async function handler(event) {
  console.log('echo', event.pathParameters?.name);
  return { statusCode: 200, body: { params: event.pathParameters } };
}
`;

const suite = browserSuite('test/browser/dashboard-first-hour.test.ts');

suite('the dashboard in the first hour, in Chromium', () => {
  let svc: RunningService;
  let target: Receiver;
  let down = false;
  let browser: Browser;
  let page: Page;
  let apiId: string;

  beforeAll(async () => {
    target = await startReceiver(() => (down ? { status: 500, body: 'down' } : { status: 200, body: '{"ok":true}' }));
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
    browser = await launchBrowser();
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await target?.close();
  });

  it('says a wrong admin key is wrong, in words, and takes another', async () => {
    await page.goto(`${svc.url}/#/functions`);
    const field = page.getByRole('textbox', { name: 'Admin key' });
    await field.fill('not-the-key');
    await page.getByRole('button', { name: 'Use this key' }).click();
    await expect.poll(() => page.locator('.key-problem').textContent()).toContain('Wrong admin key');
    // The API's text for scripts ("send Authorization: Bearer ...") is not what the form shows.
    expect(await page.getByText('Missing or wrong admin key').count()).toBe(0);
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await inPage(page, "document.activeElement?.id")).toBe('admin-key');
    await checkView(page, 'first-hour-wrong-key');

    await field.fill(KEY);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.getByText('No functions yet.').waitFor();
    expect(await page.locator('.key-problem').count()).toBe(0);
  }, 60_000);

  it('confirms a created function on its page, and shows its stored console lines on load', async () => {
    await page.getByRole('link', { name: 'New function' }).click();
    await page.getByLabel('Name', { exact: true }).fill('echo');
    await page.locator('.code-editor[data-ready="true"]').waitFor();
    await setEditorText(page, ECHO);
    await page.getByRole('button', { name: 'Create and deploy' }).click();
    await page.waitForURL(/#\/functions\/echo$/);
    await expect.poll(() => page.locator('.notice.created').textContent()).toContain('Created function echo: version 1 deployed');
    await checkView(page, 'first-hour-created');

    const created = await svc.request('POST', '/api/apis', { name: 'First', basePath: '/first', routes: [{ method: 'GET', path: '/users/{name}', function: 'echo' }] }, AUTH);
    expect(created.status, created.text).toBe(201);
    apiId = created.json.id;
    expect((await fetch(`${svc.url}/api/invoke/fn/${apiId}/first/users/earlier-call`)).status).toBe(200);
    await until(async () => (await svc.request('GET', '/api/functions/echo/logs', undefined, AUTH)).text.includes('earlier-call'), 'the line stored');

    // Opened afresh, with no call since: the stored line is there.
    await page.goto('about:blank');
    await page.goto(`${svc.url}/#/functions/echo`);
    await expect.poll(() => page.locator('.console').textContent()).toContain('echo earlier-call');
    // And the console goes on live from there, without showing the stored line twice.
    await expect.poll(() => page.locator('#console-title .badge').textContent()).toBe('live');
    expect((await fetch(`${svc.url}/api/invoke/fn/${apiId}/first/users/later-call`)).status).toBe(200);
    await expect.poll(() => page.locator('.console').textContent(), { timeout: 10_000 }).toContain('echo later-call');
    expect(await page.locator('.console li', { hasText: 'echo earlier-call' }).count()).toBe(1);
  }, 90_000);

  it('fills path parameters in, encoded, and writes a curl command curl does not glob', async () => {
    await page.goto(`${svc.url}/#/apis/${encodeURIComponent(apiId)}`);
    await page.getByRole('button', { name: 'Try route GET /users/{name}' }).click();
    const param = page.getByLabel('Path parameter name');
    await param.waitFor();
    const invoke = `${svc.url}/api/invoke/fn/${apiId}/first`;
    // Not filled yet: the template stays in the URL, and curl is told not to read its braces as a glob.
    expect(await page.locator('pre.curl').textContent()).toBe(`curl -i -X GET --globoff '${invoke}/users/{name}'`);

    await param.fill('a b/c');
    expect(await page.locator('pre.curl').textContent()).toBe(`curl -i -X GET '${invoke}/users/a%20b%2Fc'`);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('.try-status').textContent()).toBe('200');
    // The function got the value as typed; the answer's JSON is indented.
    expect(await page.locator('.try-body').textContent()).toBe('{\n  "params": {\n    "name": "a b/c"\n  }\n}');
    await checkView(page, 'first-hour-try-it');
  }, 60_000);

  it('lists who subscribes to an event before it is published, and links the invocations it made', async () => {
    expect((await svc.request('PUT', '/api/functions/echo', { events: ['user.signed_up'] }, AUTH)).status).toBe(200);
    const hook = (name: string, events: string[], enabled = true) =>
      svc.request('POST', '/api/webhooks', { name, target_url: `${target.url}/${name}`, method: 'POST', events, enabled, payload_template: {} }, AUTH);
    for (const created of [await hook('audit', ['user.signed_up']), await hook('everything', ['*'], false)]) expect(created.status, created.text).toBe(201);

    await page.getByRole('link', { name: 'Events' }).click();
    await page.getByLabel('Event name').fill('user.signed_up');
    await expect.poll(() => page.locator('.subscribed-webhooks').textContent()).toBe('Webhooks: audit, everything (disabled: gets no delivery)');
    expect(await page.locator('.subscribed-functions').textContent()).toBe('Functions: echo');
    // `*` is every event but the service's own.
    await page.getByLabel('Event name').fill('switchyard.webhook.disabled');
    await expect.poll(() => page.locator('.subscribed-webhooks').textContent()).toBe('Webhooks: none');
    await page.getByLabel('Event name').fill('user.signed_up');
    await checkView(page, 'first-hour-subscribers');

    await page.getByRole('button', { name: 'Publish' }).click();
    const link = page.locator('a.invocation-link');
    await link.waitFor();
    const runId = (await link.textContent())!;
    expect(await link.getAttribute('href')).toBe(`#/functions/echo/runs/${runId}`);
    await link.click();
    await page.locator(`#run-${runId} details[open]`).waitFor();
  }, 60_000);

  it('shows a webhook whose delivery is failing right now as failing, with its next attempt and why Retry waits', async () => {
    const res = await svc.request(
      'POST',
      '/api/webhooks',
      { name: 'orders', target_url: `${target.url}/orders`, method: 'POST', events: ['order.paid'], payload_template: { order: '{{data}}' }, retry: { max_attempts: 3, schedule_s: [3600] } },
      AUTH,
    );
    expect(res.status, res.text).toBe(201);
    const hookId = res.json.id as string;
    expect((await svc.request('POST', `/api/webhooks/${hookId}/test`, undefined, AUTH)).json.status).toBe('succeeded');

    down = true;
    expect((await svc.request('POST', '/api/events', { event: 'order.paid', data: { id: 7, total: 12.5 } }, AUTH)).status).toBe(202);
    const pending = await until(async () => {
      const [newest] = (await svc.request('GET', `/api/webhooks/${hookId}/deliveries?limit=1`, undefined, AUTH)).json;
      return newest?.trigger === 'event' && newest.status === 'pending' && newest.attempts.length === 1 && newest;
    }, 'the event delivery failed once and waits an hour for its retry');

    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    const row = page.locator('tbody tr').filter({ has: page.locator(`a[href="#/webhooks/${hookId}"]`) });
    await expect.poll(() => row.locator('.last-outcome .badge.failed').textContent()).toBe('failed');
    expect(await row.locator('.badge.retrying').textContent()).toBe('retrying 1');
    expect(await row.locator('.failures-in-a-row').textContent()).toBe('1');
    expect(await row.locator('.pending-count').textContent()).toBe('1');
    await checkView(page, 'first-hour-webhooks-failing');

    await page.goto(`${svc.url}/#/deliveries/${pending.id}`);
    const next = page.locator('.next-attempt');
    await expect.poll(() => next.textContent()).toContain('(attempt 2, after 1 failed)');
    expect(await next.locator('time').getAttribute('datetime')).toBe(pending.next_attempt_at);
    const retry = page.getByRole('button', { name: 'Retry', exact: true });
    expect(await retry.isDisabled()).toBe(true);
    expect(await page.locator('#retry-why').textContent()).toContain('is pending, and is tried again on its own schedule (next attempt');
    expect(await retry.getAttribute('aria-describedby')).toBe('retry-why');
    // The request's and the response's JSON bodies are indented, not one line.
    await expect.poll(() => page.locator('section[aria-labelledby="request-title"] pre.json').last().textContent()).toBe(
      '{\n  "order": {\n    "id": 7,\n    "total": 12.5\n  }\n}',
    );
    await checkView(page, 'first-hour-delivery-retrying');
    down = false;
  }, 60_000);

  it("charts a fresh server's first minutes across the chart, and says when there is no data yet", async () => {
    const fresh = await startService();
    const other = await browser.context.newPage();
    try {
      await other.goto(`${fresh.url}/#/overview`);
      await other.locator('.updated time').waitFor();
      await expect.poll(() => other.locator('figure.chart[data-ready="empty"]').count()).toBe(6);
      expect(await other.locator('figure.chart .chart-empty').first().textContent()).toBe('No data yet');
      expect(await other.locator('.chart-host canvas').count()).toBe(0);
      await checkView(other, 'first-hour-overview-empty');

      const code = 'export async function handler() { return { statusCode: 200, body: { ok: true } }; }';
      expect((await fresh.request('POST', '/api/functions', { name: 'one', code })).status).toBe(201);
      const api = await fresh.request('POST', '/api/apis', { name: 'One', basePath: '/one', routes: [{ method: 'GET', path: '/', function: 'one' }] });
      expect((await fetch(`${fresh.url}/api/invoke/fn/${api.json.id}/one/`)).status).toBe(200);
      await until(async () => (await fresh.request('GET', '/api/stats')).json.routes.length > 0, 'the call in /api/stats', 20_000);

      await other.reload();
      const requests = other.locator('figure.chart', { has: other.locator('#chart-requests-title') });
      await expect.poll(() => requests.getAttribute('data-ready')).toBe('true');
      // The window's first minutes saw nothing: the chart spans the last 10, not the hour.
      expect(await requests.getAttribute('data-minutes')).toBe('10');
      expect(await other.locator('.charts-from').count()).toBe(1);
      expect(await other.locator('figure.chart', { has: other.locator('#chart-lateness-title') }).getAttribute('data-ready')).toBe('empty');
      await checkView(other, 'first-hour-overview');
    } finally {
      await other.close();
      await fresh.stop();
    }
  }, 60_000);
});
