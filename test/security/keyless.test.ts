/**
 * A server without an admin key (as `switchyard dev` runs) attacked from a web
 * page, over real HTTP: DNS rebinding (the attacker's name in `Host`) and
 * cross-site requests (`Origin`, `Sec-Fetch-Site`) are refused on the
 * management API, invoke-by-name and the dashboard, and change nothing; the
 * server's own pages, loopback names in every spelling and clients that send
 * no Origin (curl, the CLI) are served; the probes and the public invocation
 * routes answer anyone. With an admin key the key alone decides.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { exactJsonRequest, exactRequest, sendBytes, type WireAnswer } from '../helpers/wire.js';

const LOGGER = `exports.handler = async (event) => { console.log('ran ' + JSON.stringify(event)); return { statusCode: 200, body: { ran: true } }; };`;
const ATTACKER = 'rebind.attacker.example';

let svc: RunningService;
let port: string;
let apiId = '';

const send = (method: string, target: string, headers: Record<string, string> = {}, body?: unknown) =>
  exactJsonRequest(svc.url, method, target, headers, body);

const logLines = async () => (await svc.request('GET', '/api/functions/logger/logs')).json as unknown[];

function expectRefused(res: WireAnswer, status: number, code: string, what: string) {
  expect(res.status, `${what}: ${res.text}`).toBe(status);
  expect(res.json?.code, what).toBe(code);
  expect(res.headers['x-request-id'], what).toBeTruthy();
}

beforeAll(async () => {
  svc = await startService();
  port = new URL(svc.url).port;
  expect((await svc.request('POST', '/api/functions', { name: 'logger', code: LOGGER })).status).toBe(201);
  const api = await svc.request('POST', '/api/apis', {
    name: 'Public',
    basePath: '/pub',
    routes: [{ method: 'ANY', path: '/', function: 'logger' }],
  });
  expect(api.status, api.text).toBe(201);
  apiId = api.json.id;
}, 30_000);

afterAll(async () => {
  await svc?.stop();
});

describe('a keyless server refuses DNS rebinding', () => {
  it('answers the management API, invoke-by-name and the dashboard only under loopback Host names', async () => {
    for (const host of [`${ATTACKER}:${port}`, ATTACKER, `127.0.0.1.${ATTACKER}`, `localhost.${ATTACKER}:${port}`, `evil@localhost:${port}`, '10.0.0.1', '[::2]']) {
      const headers = { host };
      expectRefused(await send('GET', '/api/functions', headers), 421, 'host_not_allowed', `GET /api/functions with Host ${host}`);
      expectRefused(await send('GET', '/', headers), 421, 'host_not_allowed', `the dashboard with Host ${host}`);
      expectRefused(await send('GET', '/api/openapi.json', headers), 421, 'host_not_allowed', `the document with Host ${host}`);
      expectRefused(await send('GET', '/metrics', headers), 421, 'host_not_allowed', `/metrics with Host ${host}`);
      expectRefused(
        await send('POST', '/api/apis', headers, { name: 'Rebound', basePath: '/rebound', routes: [] }),
        421,
        'host_not_allowed',
        `POST /api/apis with Host ${host}`,
      );
      expectRefused(await send('POST', '/api/functions/logger/invoke', headers), 421, 'host_not_allowed', `invoke-by-name with Host ${host}`);
    }
    // HTTP/1.0 may leave Host out: not a loopback name either.
    const bare = await sendBytes(svc.url, 'GET /api/functions HTTP/1.0\r\n\r\n');
    expect(bare.status, bare.raw).toBe(421);
    expect(bare.json.code).toBe('host_not_allowed');
    // Nothing was created and nothing ran.
    expect((await svc.request('GET', '/api/apis')).json.map((a: { name: string }) => a.name)).toEqual(['Public']);
    expect(await logLines()).toEqual([]);
  });

  it('serves loopback names in every spelling, and what an attacker sets besides Host changes nothing', async () => {
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      'LOCALHOST',
      `localhost.:${port}`,
      `dev.localhost:${port}`,
      '127.1.2.3',
      `[::1]:${port}`,
      '[0:0:0:0:0:0:0:1]',
      `[::ffff:127.0.0.1]:${port}`,
    ]) {
      const res = await send('GET', '/api/functions', { host });
      expect(res.status, `Host ${host}: ${res.text}`).toBe(200);
    }
    // A rebound page is same-origin with itself, so it may set any header: none of these is read.
    const forwarded = await send('GET', '/api/functions', { host: ATTACKER, 'x-forwarded-host': 'localhost', forwarded: 'host=localhost' });
    expectRefused(forwarded, 421, 'host_not_allowed', 'forwarded headers');
  });

  it('answers the probes and the public invocation routes under any Host', async () => {
    const host = `${ATTACKER}:${port}`;
    expect((await send('GET', '/healthz', { host })).status).toBe(200);
    expect((await send('GET', '/readyz', { host })).status).toBe(200);
    const invoked = await send('GET', `/api/invoke/fn/${apiId}/pub`, { host, origin: `http://${ATTACKER}` });
    expect(invoked.status, invoked.text).toBe(200);
    expect(invoked.json).toEqual({ ran: true });
    await until(async () => (await logLines()).length === 1, 'the public route to run the function');
  });
});

describe('a keyless server refuses cross-site requests', () => {
  it('refuses a cross-site POST with no body to invoke-by-name, and the function does not run', async () => {
    const before = (await logLines()).length;
    const own = { host: `127.0.0.1:${port}` };
    for (const [headers, what] of [
      [{ origin: 'https://attacker.example' }, 'another site'],
      [{ origin: `http://localhost:${port}` }, 'another loopback name'],
      [{ origin: `http://127.0.0.1:${Number(port) + 1}` }, 'another port of this machine'],
      [{ origin: 'null' }, 'a sandboxed frame or a file'],
      [{ 'sec-fetch-site': 'cross-site' }, 'Sec-Fetch-Site cross-site'],
      [{ 'sec-fetch-site': 'same-site' }, 'Sec-Fetch-Site same-site (another port)'],
      [{ origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site' }, 'a same Origin with a cross-site fetch'],
    ] as const) {
      const res = await send('POST', '/api/functions/logger/invoke', { ...own, ...headers });
      expectRefused(res, 403, 'cross_origin_refused', what);
    }
    expect((await logLines()).length).toBe(before);
  });

  it('refuses cross-site writes and reads of the management API, and creates nothing', async () => {
    const cross = { host: `127.0.0.1:${port}`, origin: 'https://attacker.example' };
    expectRefused(await send('POST', '/api/apis', cross, { name: 'Cross', basePath: '/cross', routes: [] }), 403, 'cross_origin_refused', 'POST /api/apis');
    expectRefused(await send('DELETE', '/api/apis/' + apiId, cross), 403, 'cross_origin_refused', 'DELETE /api/apis/:id');
    expectRefused(await send('PUT', '/api/functions/logger', cross, { code: LOGGER }), 403, 'cross_origin_refused', 'PUT /api/functions/:name');
    expectRefused(await send('POST', '/api/events', cross, { event: 'x', data: {} }), 403, 'cross_origin_refused', 'POST /api/events');
    expectRefused(await send('GET', '/api/functions', { ...cross, 'sec-fetch-site': 'cross-site' }), 403, 'cross_origin_refused', 'GET');
    const apis = (await svc.request('GET', '/api/apis')).json;
    expect(apis.map((a: { name: string }) => a.name)).toEqual(['Public']);
  });

  it("serves this server's own pages, and clients that send no Origin", async () => {
    const before = (await logLines()).length;
    const own = await send('POST', '/api/functions/logger/invoke', {
      host: `127.0.0.1:${port}`,
      origin: `http://127.0.0.1:${port}`,
      'sec-fetch-site': 'same-origin',
    });
    expect(own.status, own.text).toBe(200);
    // The default port of the origin's scheme is the same port.
    const bare = await send('GET', '/api/functions', { host: 'localhost:80', origin: 'http://localhost' });
    expect(bare.status, bare.text).toBe(200);
    const typed = await send('GET', '/api/functions', { 'sec-fetch-site': 'none' });
    expect(typed.status).toBe(200);
    const curl = await send('POST', '/api/functions/logger/invoke');
    expect(curl.status, curl.text).toBe(200);
    await until(async () => (await logLines()).length === before + 2, 'both invocations to run');
  });

  it('opens the dashboard page from a link on another site (it holds no data), and its files', async () => {
    const page = await send('GET', '/', { 'sec-fetch-site': 'cross-site' });
    expect(page.status).toBe(200);
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(page.text)![1];
    expect((await send('GET', script, { 'sec-fetch-site': 'cross-site' })).status).toBe(200);
  });
});

describe('a keyless server with its own loopback admin listener', () => {
  let split: RunningService;

  beforeAll(async () => {
    split = await startService({ env: { HOST: '0.0.0.0', SWITCHYARD_ADMIN_ADDRESS: '127.0.0.1:0' } });
  });
  afterAll(async () => {
    await split?.stop();
  });

  it('keeps the admin listener to loopback names and its own pages; the public one, open to the network anyway, answers any name', async () => {
    const publicUrl = `http://127.0.0.1:${new URL(split.url).port}`;
    const host = `${ATTACKER}:3000`;
    expect((await exactRequest(split.adminUrl, 'GET', '/api/functions', { host })).status).toBe(421);
    expect((await exactRequest(split.adminUrl, 'GET', '/metrics', { host })).status).toBe(421);
    expect((await exactRequest(split.adminUrl, 'POST', '/api/functions/x/invoke', { origin: 'https://attacker.example' })).status).toBe(403);
    expect((await exactRequest(split.adminUrl, 'GET', '/api/functions')).status).toBe(200);
    expect((await exactRequest(publicUrl, 'GET', '/metrics', { host })).status).toBe(200);
    expect((await exactRequest(publicUrl, 'GET', '/healthz', { host })).status).toBe(200);
    // The management API is not on the public listener at all.
    expect((await exactRequest(publicUrl, 'GET', '/api/functions')).status).toBe(404);
  });
});

describe('with an admin key', () => {
  let keyed: RunningService;
  const KEY = 'keyed-server-key-of-some-length';

  beforeAll(async () => {
    keyed = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY } });
  });
  afterAll(async () => {
    await keyed?.stop();
  });

  it('lets the key alone decide, whatever the Host and Origin (a page elsewhere cannot send the key)', async () => {
    const headers = { host: `${ATTACKER}:3000`, origin: 'https://attacker.example' };
    const without = await exactRequest(keyed.url, 'GET', '/api/functions', headers);
    expect(without.status).toBe(401);
    const withKey = await exactRequest(keyed.url, 'GET', '/api/functions', { ...headers, authorization: `Bearer ${KEY}` });
    expect(withKey.status, withKey.text).toBe(200);
  });
});
