/**
 * CORS in a real headless Chromium: a page on one origin (a local server on
 * its own port) calls an API of Switchyard on another. With the API's policy
 * the browser's preflight passes and the page reads the answer and its
 * exposed header; without one, and from an origin the policy does not list,
 * the browser refuses the call.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, inPage, launchBrowser, type Browser } from '../helpers/browser.js';
import { startService, type RunningService } from '../helpers/service.js';

const suite = browserSuite('test/browser/cors.test.ts');

suite('a page calling an API on another origin, in Chromium', () => {
  let svc: RunningService;
  let browser: Browser;
  let page: Server;
  let pageOrigin = '';
  const urls: Record<string, string> = {};

  beforeAll(async () => {
    svc = await startService();
    const fn = await svc.request('POST', '/api/functions', {
      name: 'cors-page-items',
      code: `exports.handler = async (event) => ({ statusCode: 200, headers: { 'x-total': '2' }, body: { method: event.httpMethod, got: event.body } });`,
    });
    expect(fn.status, fn.text).toBe(201);
    page = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>app</title>');
    });
    await new Promise<void>((done) => page.listen(0, '127.0.0.1', done));
    pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    const routes = [{ method: 'PUT', path: '/items', function: 'cors-page-items' }];
    const policies: Record<string, unknown> = {
      allowed: { allowOrigins: [pageOrigin], allowMethods: ['PUT'], allowHeaders: ['content-type'], exposeHeaders: ['x-total'] },
      elsewhere: { allowOrigins: ['https://app.example.com'], allowMethods: ['PUT'], allowHeaders: ['content-type'] },
      none: null,
    };
    for (const [name, cors] of Object.entries(policies)) {
      const api = await svc.request('POST', '/api/apis', { name: `cors-page-${name}`, basePath: '/', routes, cors });
      expect(api.status, api.text).toBe(201);
      urls[name] = api.json.invokeUrl;
    }
    browser = await launchBrowser();
    await browser.page.goto(`${pageOrigin}/`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await new Promise((done) => page?.close(done));
  });

  /** A PUT with a JSON body from the page: not a simple request, so the browser sends a preflight first. */
  const put = (url: string) =>
    inPage<{ ok: true; status: number; total: string | null; body: unknown } | { ok: false; error: string }>(
      browser.page,
      `fetch(${JSON.stringify(`${url}/items`)}, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"n":1}' })
        .then(async (r) => ({ ok: true, status: r.status, total: r.headers.get('x-total'), body: await r.json() }), (e) => ({ ok: false, error: String(e) }))`,
    );

  it('passes the preflight and reads the answer and its exposed header when the API allows the origin', async () => {
    expect(await put(urls.allowed)).toEqual({ ok: true, status: 200, total: '2', body: { method: 'PUT', got: { n: 1 } } });
  }, 30_000);

  it('is refused by the browser when the API has no policy, or one for other origins', async () => {
    for (const name of ['none', 'elsewhere']) {
      const result = await put(urls[name]);
      expect(result.ok, name).toBe(false);
    }
  }, 30_000);
});
