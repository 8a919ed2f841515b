/**
 * The consumer portal's page and an application's portal settings over real
 * HTTP: the settings are validated, kept and answered (the theme to the
 * portal token's session too); `GET /portal/<application id>` carries a CSP
 * whose frame-ancestors are that application's allowed parents ('none', with
 * X-Frame-Options DENY, when it has none), never sends a Referer, and is
 * served on the admin listener only when there is one. Browser behaviour
 * (framing, the token's path) is test/browser/portal.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';

const KEY = 'portal-page-key';
const AUTH = { authorization: `Bearer ${KEY}` };

describe('portal settings and the portal page', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_ADMIN_ADDRESS: '127.0.0.1:0' } });
  });
  afterAll(async () => {
    await svc?.stop();
  });
  const admin = (method: string, path: string, body?: unknown) => fetchJson(svc.adminUrl, method, path, body, AUTH);

  it('keeps an application\'s allowed parents (as origins) and theme, and answers them', async () => {
    const created = await admin('POST', '/api/applications', {
      name: 'Themed',
      portal: { allowed_parents: ['https://App.Example.com:443', 'http://localhost:8080'], theme: { primary_color: '#224488', mode: 'dark' } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.portal).toEqual({
      allowed_parents: ['https://app.example.com', 'http://localhost:8080'],
      theme: { logo_url: null, primary_color: '#224488', mode: 'dark' },
    });
    const plain = await admin('POST', '/api/applications', { name: 'Plain' });
    expect(plain.json.portal).toEqual({ allowed_parents: [], theme: { logo_url: null, primary_color: null, mode: 'auto' } });
    // A partial theme changes only what it names.
    const patched = await admin('PATCH', `/api/applications/${created.json.id}`, { portal: { theme: { logo_url: 'https://cdn.example.com/logo.png' } } });
    expect(patched.json.portal.theme).toEqual({ logo_url: 'https://cdn.example.com/logo.png', primary_color: '#224488', mode: 'dark' });
    expect(patched.json.portal.allowed_parents).toEqual(['https://app.example.com', 'http://localhost:8080']);

    const token = (await admin('POST', `/api/applications/${created.json.id}/portal-access`, {})).json.token as string;
    const session = await fetchJson(svc.adminUrl, 'GET', '/api/portal/session', undefined, { authorization: `Bearer ${token}` });
    expect(session.json.theme).toEqual({ logo_url: 'https://cdn.example.com/logo.png', primary_color: '#224488', mode: 'dark' });
  });

  it('refuses an allowed parent that is not an origin, and a colour that is not #rrggbb', async () => {
    for (const portal of [{ allowed_parents: ['https://app.example.com/path'] }, { allowed_parents: ['*'] }, { theme: { primary_color: 'red' } }, { theme: { logo_url: 'javascript:alert(1)' } }]) {
      const res = await admin('POST', '/api/applications', { name: 'Bad', portal });
      expect(res.status, JSON.stringify(portal)).toBe(400);
      expect(res.text).toContain('portal');
    }
    // Past the pattern, refused by the URL parser: a 400 naming the entry, never a 500.
    for (const origin of ['https://app.example.com:99999', 'http://1.2.3.256']) {
      const res = await admin('POST', '/api/applications', { name: 'Bad', portal: { allowed_parents: ['https://ok.example.com', origin] } });
      expect(res.status, origin).toBe(400);
      expect(res.json).toMatchObject({ code: 'invalid_request', details: { field: 'portal.allowed_parents[1]' } });
    }
  });

  it("serves the page with its application's frame-ancestors, no Referer, on the admin listener only", async () => {
    const framed = await admin('POST', '/api/applications', { name: 'Framed', portal: { allowed_parents: ['https://app.example.com'] } });
    const closed = await admin('POST', '/api/applications', { name: 'Closed' });
    const link = new URL((await admin('POST', `/api/applications/${framed.json.id}/portal-access`, {})).json.url);
    expect(link.origin).toBe(svc.adminUrl);

    const page = await fetch(`${svc.adminUrl}${link.pathname}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="app">');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'self' https://app.example.com");
    expect(page.headers.get('x-frame-options')).toBeNull();
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');

    const shut = await fetch(`${svc.adminUrl}/portal/${closed.json.id}`);
    expect(shut.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(shut.headers.get('x-frame-options')).toBe('DENY');

    expect((await fetch(`${svc.adminUrl}/portal/app_missing`)).status).toBe(404);
    // The functions' origin serves no portal.
    expect((await fetch(`${svc.url}${link.pathname}`)).status).toBe(404);

    const script = /src="(\/portal\/assets\/[^"]+\.js)"/.exec(await (await fetch(`${svc.adminUrl}${link.pathname}`)).text())?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${svc.adminUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('text/javascript');
  });
});

async function fetchJson(base: string, method: string, path: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(base + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: text ? JSON.parse(text) : undefined };
}
