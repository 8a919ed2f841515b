/**
 * Function answers cannot act on the dashboard's origin, over real HTTP on
 * one listener (the default, where they share it): a service worker script
 * is never served; the headers whose effect reaches the whole origin or host
 * are dropped; cookies are kept to the API's invoke path (Path forced,
 * Domain dropped) in every result format; and the dashboard's and the
 * management API's own answers carry the headers that keep other content
 * away from them (docs/security.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';

const KEY = 'origins-security-suite-key';
const AUTH = { authorization: `Bearer ${KEY}` };

/** Every header a function might use against the origin, and one it may set. */
const ORIGIN_WIDE = {
  'Service-Worker-Allowed': '/',
  'Clear-Site-Data': '"cookies", "storage"',
  'Cross-Origin-Opener-Policy': 'same-origin',
  NEL: '{"report_to":"x","max_age":31536000,"success_fraction":1.0}',
  'Report-To': '{"group":"x","max_age":31536000,"endpoints":[{"url":"https://collector.example/r"}]}',
  'Alt-Svc': 'h2="other.example:443"; ma=2592000',
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  'X-Kept': 'yes',
  'Content-Security-Policy': "default-src 'none'",
};

const COOKIES = ['sid=1; Path=/; HttpOnly', 'wide=2; Domain=127.0.0.1; Path=/api', 'own=3; Path=/api/invoke/fn/API/shop/cart'];

/** A function per result format setting the same cookies, the way each format spells them. */
const FUNCTIONS = {
  'cookie-native': {
    event_format: 'switchyard',
    code: `exports.handler = async () => ({ statusCode: 200, headers: { 'set-cookie': COOKIES[0] }, multiValueHeaders: { 'Set-Cookie': COOKIES }, body: 'ok' });`,
  },
  'cookie-v1': {
    event_format: 'aws-v1',
    code: `exports.handler = async () => ({ statusCode: 200, multiValueHeaders: { 'Set-Cookie': COOKIES }, body: 'ok' });`,
  },
  'cookie-v1-single': {
    event_format: 'aws-v1',
    code: `exports.handler = async () => ({ statusCode: 200, headers: { 'Set-Cookie': COOKIES[0] }, body: 'ok' });`,
  },
  'cookie-v2': {
    event_format: 'aws-v2',
    code: `exports.handler = async () => ({ statusCode: 200, headers: { 'set-cookie': COOKIES[0] }, cookies: COOKIES.slice(1), body: 'ok' });`,
  },
  headers: {
    event_format: 'switchyard',
    code: `exports.handler = async () => ({ statusCode: 200, headers: ${JSON.stringify(ORIGIN_WIDE)}, body: 'ok' });`,
  },
  'headers-v1': {
    event_format: 'aws-v1',
    code: `exports.handler = async () => ({ statusCode: 200, multiValueHeaders: ${JSON.stringify(
      Object.fromEntries(Object.entries(ORIGIN_WIDE).map(([k, v]) => [k, [v]])),
    )}, body: 'ok' });`,
  },
  'headers-v2': {
    event_format: 'aws-v2',
    code: `exports.handler = async () => ({ statusCode: 200, headers: ${JSON.stringify(ORIGIN_WIDE)}, body: 'ok' });`,
  },
  script: {
    event_format: 'switchyard',
    code: `exports.handler = async () => ({ statusCode: 200, headers: { 'content-type': 'text/javascript' }, body: 'self.onfetch = () => {}' });`,
  },
} as const;

let svc: RunningService;
let apiId = '';
let scope = '';

beforeAll(async () => {
  svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY } });
  // The API id is known only once created: the cookie "inside the API" names it.
  const api = await svc.request('POST', '/api/apis', { name: 'Shop', basePath: '/shop', routes: [] }, AUTH);
  expect(api.status, api.text).toBe(201);
  apiId = api.json.id;
  scope = `/api/invoke/fn/${apiId}/shop`;
  for (const [name, f] of Object.entries(FUNCTIONS)) {
    const code = `const COOKIES = ${JSON.stringify(COOKIES.map((c) => c.replace('/API/', `/${apiId}/`)))};\n${f.code}`;
    const res = await svc.request('POST', '/api/functions', { name, code, event_format: f.event_format }, AUTH);
    expect(res.status, `${name}: ${res.text}`).toBe(201);
    const route = await svc.request('POST', `/api/apis/${apiId}/routes`, { method: 'ANY', path: `/${name}`, function: name }, AUTH);
    expect(route.status, route.text).toBe(201);
  }
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

const invoke = (name: string, headers: string[] = [], method = 'GET', body?: string) =>
  rawRequest(svc.url, method, `/api/invoke/fn/${apiId}/shop/${name}`, headers, body);

describe('service worker scripts', () => {
  it('are refused with 403 service_worker_refused before the function runs', async () => {
    for (const value of ['script', 'SCRIPT', 'anything']) {
      const res = await invoke('script', ['Service-Worker', value]);
      expect(res.status, value).toBe(403);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body.toString())).toMatchObject({ code: 'service_worker_refused' });
    }
    // The same request without the header is the function's script.
    const plain = await invoke('script');
    expect(plain.status).toBe(200);
    expect(plain.body.toString()).toContain('self.onfetch');
  });

  it('are refused with a body too, and the connection closed rather than read on', async () => {
    const res = await invoke('script', ['service-worker', 'script', 'content-type', 'text/plain'], 'POST', 'x'.repeat(10_000));
    expect(res.status).toBe(403);
    expect(res.headers.connection).toBe('close');
  });
});

describe('headers of function answers', () => {
  for (const name of ['headers', 'headers-v1', 'headers-v2']) {
    it(`drop the origin-wide ones and keep the rest (${name})`, async () => {
      const res = await invoke(name);
      expect(res.status).toBe(200);
      for (const header of ['service-worker-allowed', 'clear-site-data', 'cross-origin-opener-policy', 'nel', 'report-to', 'alt-svc', 'strict-transport-security']) {
        expect(res.headers[header], header).toBeUndefined();
      }
      expect(res.headers['x-kept']).toBe('yes');
      // A function's CSP covers only its own answer: kept.
      expect(res.headers['content-security-policy']).toBe("default-src 'none'");
    });
  }
});

describe('cookies of function answers', () => {
  const scoped = () => [`sid=1; HttpOnly; Path=${scope}`, `wide=2; Path=${scope}`, `own=3; Path=${scope}/cart`];

  for (const name of ['cookie-native', 'cookie-v1', 'cookie-v2']) {
    it(`get the API's invoke path, a Path inside it kept, and no Domain (${name})`, async () => {
      const res = await invoke(name);
      expect(res.status).toBe(200);
      expect(res.headers['set-cookie']).toEqual(scoped());
    });
  }

  it('are scoped when the function sets a single one in headers; a manual invoke sets none (its answer is data)', async () => {
    const res = await invoke('cookie-v1-single');
    expect(res.headers['set-cookie']).toEqual([`sid=1; HttpOnly; Path=${scope}`]);
    const manual = await svc.request('POST', '/api/functions/cookie-v1-single/invoke', {}, AUTH);
    expect(manual.status, manual.text).toBe(200);
    expect(manual.headers.get('set-cookie')).toBeNull();
  });
});

describe("the dashboard's and the management API's answers", () => {
  const own = (res: { headers: Headers }, what: string) => {
    expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
    expect(res.headers.get('cross-origin-resource-policy'), what).toBe('same-origin');
    expect(res.headers.get('cross-origin-opener-policy'), what).toBe('same-origin');
  };

  it('carry nosniff, same-origin CORP and COOP: the page, a list, an error, a refusal', async () => {
    const page = await fetch(svc.url + '/');
    expect(page.status).toBe(200);
    own(page, 'GET /');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self';");
    own(await svc.request('GET', '/api/functions', undefined, AUTH), 'GET /api/functions');
    own(await svc.request('GET', '/api/functions'), '401');
    own(await svc.request('GET', '/api/nothing', undefined, AUTH), '404');
  });
});
