/**
 * The dashboard and management API on their own listener
 * (`SWITCHYARD_ADMIN_ADDRESS`), over real HTTP, with one server process and
 * with two (node:cluster shares both ports): the public listener serves
 * invocations and health checks only (404 for the dashboard and the
 * management API, however spelled), the admin listener everything else but
 * never an invocation; `invokeUrl` and the dashboard's CSP point at the
 * public listener; `SWITCHYARD_PUBLIC_URL` names it instead; /metrics moves
 * to the admin listener when asked; `switchyard dev --admin-address` applies
 * its project through the admin listener and prints public invoke URLs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killLeftoverClis, runCli } from '../helpers/cli.js';
import { startService, type RunningService } from '../helpers/service.js';
import { sendBytes } from '../helpers/wire.js';

const KEY = 'admin-listener-suite-key';
const AUTH = { authorization: `Bearer ${KEY}` };
const HELLO = `exports.handler = async (event) => ({ statusCode: 200, body: { hello: event.pathParameters.name } });`;

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = AUTH) {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** A function and an API routing to it, made on the admin listener; the API as answered. */
async function deployHello(admin: string) {
  const fn = await call(admin, 'POST', '/api/functions', { name: 'hello', code: HELLO });
  expect(fn.status, fn.text).toBe(201);
  const api = await call(admin, 'POST', '/api/apis', {
    name: 'Hello',
    basePath: '/hello',
    routes: [{ method: 'GET', path: '/:name', function: 'hello' }],
  });
  expect(api.status, api.text).toBe(201);
  return api.json as { id: string; invokeUrl: string };
}

/** What every layout with an admin listener must hold. */
function separateListeners(env: Record<string, string>) {
  let svc: RunningService;
  let api: { id: string; invokeUrl: string };

  beforeAll(async () => {
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_ADMIN_ADDRESS: '127.0.0.1:0', ...env } });
    // Every case below is about two listeners: without them none of it holds.
    expect(svc.adminUrl, 'the admin listener').not.toBe(svc.url);
    api = await deployHello(svc.adminUrl);
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
  });

  it('listens on two ports and says where the dashboard is', () => {
    expect(new URL(svc.adminUrl).port).not.toBe(new URL(svc.url).port);
    expect(svc.output.join('')).toContain(`(dashboard and management API on ${svc.adminUrl})`);
  });

  it('answers 404 on the public listener for the dashboard and the management API, however spelled', async () => {
    for (const path of ['/', '/assets/index.js', '/api/functions', '/%61pi/functions', '/api/functions/hello/invoke', '/api/openapi.json', '/api/apis', '//api/functions']) {
      const res = await call(svc.url, 'GET', path);
      expect(res.status, path).toBe(404);
      expect(res.json?.code, path).toBe('not_found');
      expect(res.text, path).not.toContain('exports.handler');
      expect(res.text, path).not.toMatch(/<!doctype/i);
    }
    const post = await call(svc.url, 'POST', '/api/functions/hello/invoke', {});
    expect(post.status).toBe(404);
  });

  it('serves the dashboard and the management API on the admin listener', async () => {
    const page = await call(svc.adminUrl, 'GET', '/', undefined, {});
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const list = await call(svc.adminUrl, 'GET', '/api/functions');
    expect(list.status).toBe(200);
    expect(list.json.map((f: { name: string }) => f.name)).toEqual(['hello']);
    expect((await call(svc.adminUrl, 'GET', '/api/functions', undefined, {})).status).toBe(401);
  });

  it('serves invocations on the public listener only', async () => {
    const res = await call(svc.url, 'GET', `/api/invoke/fn/${api.id}/hello/ada`, undefined, {});
    expect(res.status, res.text).toBe(200);
    expect(res.json.hello).toBe('ada');
    const onAdmin = await call(svc.adminUrl, 'GET', `/api/invoke/fn/${api.id}/hello/ada`, undefined, {});
    expect(onAdmin.status).toBe(404);
    expect(onAdmin.json.code).toBe('not_found');
    expect(onAdmin.text).not.toContain('ada"');
  });

  it('answers health checks on both listeners', async () => {
    for (const base of [svc.url, svc.adminUrl]) {
      expect((await call(base, 'GET', '/healthz', undefined, {})).status).toBe(200);
      expect((await call(base, 'GET', '/readyz', undefined, {})).status).toBe(200);
    }
  });

  it("points invokeUrl and the dashboard's try-it at the public listener", async () => {
    const port = new URL(svc.url).port;
    expect(api.invokeUrl).toBe(`http://127.0.0.1:${port}/api/invoke/fn/${api.id}/hello`);
    // The host name the caller used, with the public port.
    const viaName = await call(svc.adminUrl.replace('127.0.0.1', 'localhost'), 'GET', `/api/apis/${api.id}`);
    expect(viaName.json.invokeUrl).toBe(`http://localhost:${port}/api/invoke/fn/${api.id}/hello`);
    const listed = await call(svc.adminUrl, 'GET', '/api/apis');
    expect(listed.json[0].invokeUrl).toBe(api.invokeUrl);
    const invoked = await fetch(`${api.invokeUrl}/grace`);
    expect(((await invoked.json()) as { hello: string }).hello).toBe('grace');
    const page = await call(svc.adminUrl, 'GET', '/', undefined, {});
    expect(page.headers.get('content-security-policy')).toContain(`connect-src 'self' http://127.0.0.1:${port};`);
  });

  it('answers a malformed request on the admin listener as on the public one', async () => {
    const res = await sendBytes(svc.adminUrl, 'GET /api/functions HTTP/1.1\r\nHost: x\r\nbad header: x\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('invalid_request');
  });

  return () => ({ svc, api });
}

describe('an admin listener beside the public one', () => {
  const get = separateListeners({});

  it('serves /metrics on both listeners by default', async () => {
    const { svc } = get();
    expect((await call(svc.url, 'GET', '/metrics', undefined, {})).status).toBe(200);
    expect((await call(svc.adminUrl, 'GET', '/metrics', undefined, {})).status).toBe(200);
  });
});

describe.skipIf(process.platform !== 'linux')('an admin listener beside the public one, with two server processes', () => {
  const get = separateListeners({ SWITCHYARD_PROCESSES: '2', SWITCHYARD_WORKERS: '1' });

  it('shares both ports between the two processes', async () => {
    const { svc, api } = get();
    expect(svc.output.join('')).toContain('with 2 server processes');
    for (const [what, base, path] of [
      ['admin', svc.adminUrl, '/healthz'],
      ['public', svc.url, '/healthz'],
    ] as const) {
      const pids = new Set<number>();
      for (let i = 0; i < 20 && pids.size < 2; i++) {
        // A new connection each time: the primary hands them out in turn.
        const res = await fetch(base + path, { headers: { connection: 'close' } });
        pids.add(((await res.json()) as { pid: number }).pid);
      }
      expect(pids.size, `${what} listener's processes`).toBe(2);
    }
    // Invocations on fresh connections, so on both processes.
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${api.invokeUrl}/p${i}`, { headers: { connection: 'close' } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { hello: string }).hello).toBe(`p${i}`);
    }
  });
});

describe('SWITCHYARD_PUBLIC_URL and SWITCHYARD_METRICS_LISTENER=admin', () => {
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startService({
      env: {
        SWITCHYARD_ADMIN_KEY: KEY,
        SWITCHYARD_ADMIN_ADDRESS: '0',
        SWITCHYARD_PUBLIC_URL: 'https://api.example.com',
        SWITCHYARD_METRICS_LISTENER: 'admin',
      },
    });
    expect(svc.adminUrl, 'the admin listener').not.toBe(svc.url);
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
  });

  it('builds invokeUrl and the CSP from the public URL', async () => {
    const api = await deployHello(svc.adminUrl);
    expect(api.invokeUrl).toBe(`https://api.example.com/api/invoke/fn/${api.id}/hello`);
    const page = await call(svc.adminUrl, 'GET', '/', undefined, {});
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self' https://api.example.com;");
  });

  it('serves /metrics on the admin listener only', async () => {
    expect((await call(svc.url, 'GET', '/metrics', undefined, {})).status).toBe(404);
    const metrics = await call(svc.adminUrl, 'GET', '/metrics', undefined, {});
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('switchyard_');
    expect((await call(svc.url, 'GET', '/healthz', undefined, {})).status).toBe(200);
  });
});

describe('switchyard dev --admin-address', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-dev-admin-'));
    mkdirSync(join(dir, 'functions'));
    writeFileSync(join(dir, 'functions', 'hi.js'), 'exports.handler = async () => ({ statusCode: 200, body: { hi: true } });');
    writeFileSync(
      join(dir, 'switchyard.yaml'),
      'functions:\n  hi:\n    file: functions/hi.js\napis:\n  dev:\n    base_path: /dev\n    routes:\n      - { method: GET, path: /hi, function: hi }\n',
    );
  });
  afterAll(() => {
    killLeftoverClis();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies the project on the admin listener and prints invoke URLs of the public one', async () => {
    const run = runCli(['dev', dir, '--port', '0', '--admin-address', '0'], { FORCE_COLOR: '0', NO_COLOR: '1' });
    try {
      const [, dashboard] = await run.waitForOutput(/Dashboard: (http:\/\/127\.0\.0\.1:\d+)\//, 30_000);
      const [route] = await run.waitForOutput(/http:\/\/127\.0\.0\.1:\d+\/api\/invoke\/fn\/api_[0-9a-z]+\/dev\/hi/, 30_000);
      const publicOrigin = new URL(route).origin;
      expect(publicOrigin).not.toBe(dashboard);
      expect(await (await fetch(route)).json()).toEqual({ hi: true });
      expect((await fetch(`${dashboard}/api/functions/hi`)).status).toBe(200);
      expect((await fetch(`${publicOrigin}/api/functions/hi`)).status).toBe(404);
      run.proc.kill('SIGINT');
      expect((await run.exit).code).toBe(0);
    } finally {
      run.kill();
    }
  }, 60_000);
});
