/**
 * The function sandbox over real HTTP: time and memory limits, thrown errors,
 * no way out to the host, per-function env, in-flight updates, the sandbox
 * globals, fetch's private-target guard, and a worker process dying mid-call.
 * Two services: the default one, and one with SWITCHYARD_ALLOW_PRIVATE_TARGETS=1
 * whose functions can reach a local receiver (used as an "I am running" signal).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerIndexFor } from '../../src/runtime/pool.js';
import { childPids, commandLine, startReceiver, waitFor, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';

const OK = (tag: string) => `exports.handler = async () => ({ statusCode: 200, body: { ok: '${tag}' } });`;

let svc: RunningService;
let receiver: Receiver;
let apiId = '';

/** Creates (or replaces) a function and a GET route `/<name>` to it on the default service's API. */
async function deploy(s: RunningService, api: string, name: string, code: string, extra: Record<string, unknown> = {}) {
  const res = await s.request('POST', '/api/functions', { name, code, ...extra });
  expect(res.status, `${name}: ${res.text}`).toBe(201);
  const route = await s.request('POST', `/api/apis/${api}/routes`, { method: 'GET', path: `/${name}`, function: name });
  expect(route.status, route.text).toBe(201);
}

const call = (s: RunningService, api: string, name: string) => s.request('GET', `/api/invoke/fn/${api}/${name}`);

beforeAll(async () => {
  [svc, receiver] = await Promise.all([startService(), startReceiver()]);
  await svc.request('POST', '/api/functions', { name: 'bystander', code: OK('bystander') });
  const api = await svc.request('POST', '/api/apis', {
    name: 'sandbox',
    basePath: '/',
    routes: [{ method: 'GET', path: '/bystander', function: 'bystander' }],
    // Failures are checked by the message and source position they answer, which only an API that exposes errors shows.
    exposeErrors: true,
  });
  expect(api.status, api.text).toBe(201);
  apiId = api.json.id;
}, 60000);

afterAll(async () => {
  await Promise.all([svc?.stop(), receiver?.close()]);
});

describe('limits', () => {
  it('stops an endless loop with 504 function_timeout; others and a fixed version answer after', async () => {
    await deploy(svc, apiId, 'spin', `exports.handler = async () => { while (true) {} };`, { timeout_ms: 500 });
    const res = await call(svc, apiId, 'spin');
    expect(res.status).toBe(504);
    expect(res.json.code).toBe('function_timeout');
    expect(res.json.requestId).toBe(res.headers.get('x-request-id'));

    const other = await call(svc, apiId, 'bystander');
    expect(other.status).toBe(200);
    expect(other.json).toEqual({ ok: 'bystander' });

    const fixed = await svc.request('PUT', '/api/functions/spin', { code: OK('spin-fixed') });
    expect(fixed.status).toBe(200);
    const again = await call(svc, apiId, 'spin');
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ ok: 'spin-fixed' });
  }, 20000);

  it('stops a promise that never settles with 504', async () => {
    await deploy(svc, apiId, 'hang', `exports.handler = () => new Promise(() => {});`, { timeout_ms: 500 });
    const res = await call(svc, apiId, 'hang');
    expect(res.status).toBe(504);
    expect(res.json.code).toBe('function_timeout');
  }, 20000);

  it('stops a memory bomb with 502 function_memory_limit without disturbing others', async () => {
    await deploy(
      svc,
      apiId,
      'bomb',
      `exports.handler = async () => { const a = []; for (;;) a.push({ i: a.length, s: 'item-' + a.length, t: [a.length] }); };`,
      { memory_mb: 16, timeout_ms: 10000 },
    );
    const [res, other] = await Promise.all([call(svc, apiId, 'bomb'), call(svc, apiId, 'bystander')]);
    expect(res.status).toBe(502);
    expect(res.json.code).toBe('function_memory_limit');
    expect(other.status).toBe(200);
    expect((await call(svc, apiId, 'bystander')).status).toBe(200);
  }, 30000);

  it('answers a throw with 502 function_error carrying the request id', async () => {
    await deploy(svc, apiId, 'thrower', `exports.handler = async () => { throw new TypeError('bad thing'); };`);
    const res = await call(svc, apiId, 'thrower');
    expect(res.status).toBe(502);
    expect(res.json.code).toBe('function_error');
    expect(res.json.error).toContain('bad thing');
    expect(res.json.requestId).toBe(res.headers.get('x-request-id'));
  });
});

describe('isolation', () => {
  it("offers no host require, no host process and no way to reach them through constructors (require and Buffer are the sandbox's)", async () => {
    await deploy(
      svc,
      apiId,
      'escape',
      `exports.handler = async function () {
        const out = {};
        out.require = typeof require;
        out.processKeys = Object.keys(process).sort();
        out.exit = typeof process.exit;
        out.pid = typeof process.pid;
        out.binding = typeof process.binding;
        out.mainModule = typeof process.mainModule;
        const g = (function () {}).constructor('return this')();
        out.sameGlobal = g === globalThis;
        out.gRequire = typeof g.require;
        out.gProcessKeys = Object.keys(g.process || {}).sort();
        const p = ({}).constructor.constructor('return process')();
        out.ctorPid = typeof p.pid;
        out.ctorMainModule = typeof p.mainModule;
        out.ctorExit = typeof p.exit;
        let viaThis = 'none';
        try { viaThis = typeof this.constructor.constructor('return process')().pid; } catch (e) { viaThis = 'threw'; }
        out.viaThis = viaThis;
        out.bridges = ${JSON.stringify(['hostRandom', 'hostCrypto', 'hostUrl', 'hostTimerSet', 'hostTimerClear', 'hostFetch', 'envJson', 'ivm', '_ivm'])}
          .filter((n) => n in globalThis);
        // fs loads, as the sandbox's inert module: it reads nothing of the host.
        const fsName = ['node', 'fs'].join(':');
        // import() of a name built at run time stays V8's, which has no module loader here.
        try { await import(fsName); out.imported = 'yes'; } catch (e) { out.imported = 'no'; }
        try { require(fsName).readFileSync('/etc/passwd'); out.required = 'read'; } catch (e) { out.required = e.code; }
        // The module loader and Buffer are built in this isolate: their constructors lead back to its own global.
        out.requireRealm = require.constructor('return this')() === globalThis;
        out.bufferRealm = Buffer.constructor('return this')() === globalThis && Buffer.from('x').constructor === Buffer;
        out.bufferZeroed = Buffer.allocUnsafe(65536).every((b) => b === 0);
        return out;
      };`,
    );
    const res = await call(svc, apiId, 'escape');
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      require: 'function',
      processKeys: ['env'],
      exit: 'undefined',
      pid: 'undefined',
      binding: 'undefined',
      mainModule: 'undefined',
      sameGlobal: true,
      gRequire: 'undefined',
      gProcessKeys: ['env'],
      ctorPid: 'undefined',
      ctorMainModule: 'undefined',
      ctorExit: 'undefined',
      bridges: [],
      imported: 'no',
      required: 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM',
      requireRealm: true,
      bufferRealm: true,
      bufferZeroed: true,
    });
    expect(['undefined', 'threw', 'none']).toContain(res.json.viaThis);
  });

  it("keeps one function's env invisible to another", async () => {
    const envCode = `exports.handler = async () => ({ statusCode: 200, body: { env: { ...process.env } } });`;
    await deploy(svc, apiId, 'env-a', envCode, { env: { SECRET_A: 'alpha' } });
    await deploy(svc, apiId, 'env-b', envCode, { env: { SECRET_B: 'beta' } });
    const a = await call(svc, apiId, 'env-a');
    const b = await call(svc, apiId, 'env-b');
    // TZ is Lambda's (functions run in UTC), the same for every function.
    expect(a.json).toEqual({ env: { SECRET_A: 'alpha', TZ: ':UTC' } });
    expect(b.json).toEqual({ env: { SECRET_B: 'beta', TZ: ':UTC' } });
    // Nor the host's environment.
    expect(b.text).not.toContain('PATH');
    expect(b.text).not.toContain('DATABASE_URL');
  });
});

describe('sandbox globals', () => {
  it('provides TextEncoder, URL, crypto, atob/btoa, structuredClone and timers', async () => {
    await deploy(
      svc,
      apiId,
      'globals',
      `exports.handler = async () => {
        const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');
        const enc = new TextEncoder();
        const key = await crypto.subtle.importKey('raw', enc.encode('key'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
        const msg = enc.encode('The quick brown fox jumps over the lazy dog');
        const mac = await crypto.subtle.sign('HMAC', key, msg);
        const verified = await crypto.subtle.verify('HMAC', key, mac, msg);
        const digest = await crypto.subtle.digest('SHA-256', enc.encode('abc'));
        const url = new URL('https://user@api.example.com:8443/a/b?q=1&q=2#frag');
        const params = new URLSearchParams('x=1&y=two+words');
        const original = { a: [1, { b: 2 }], d: new Date(0), m: new Map([['k', 'v']]) };
        const clone = structuredClone(original);
        const fired = await new Promise((r) => setTimeout(() => r('fired'), 20));
        let cleared = 'not-fired';
        const t = setTimeout(() => { cleared = 'fired'; }, 10);
        clearTimeout(t);
        await new Promise((r) => setTimeout(r, 30));
        return {
          utf8Length: enc.encode('héllo').length,
          decoded: new TextDecoder().decode(enc.encode('héllo')),
          url: { host: url.hostname, port: url.port, path: url.pathname, q: url.searchParams.getAll('q'), hash: url.hash },
          params: { x: params.get('x'), y: params.get('y') },
          hmac: hex(mac),
          verified,
          digest: hex(digest),
          btoa: btoa('hello'),
          atob: atob('aGVsbG8='),
          clone: { distinct: clone !== original && clone.a !== original.a, a: clone.a, date: clone.d instanceof Date && clone.d.getTime() === 0, map: clone.m instanceof Map && clone.m.get('k') },
          fired,
          cleared,
          uuid: crypto.randomUUID(),
          random: crypto.getRandomValues(new Uint8Array(8)).length,
        };
      };`,
    );
    const res = await call(svc, apiId, 'globals');
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      utf8Length: 6,
      decoded: 'héllo',
      url: { host: 'api.example.com', port: '8443', path: '/a/b', q: ['1', '2'], hash: '#frag' },
      params: { x: '1', y: 'two words' },
      hmac: 'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
      verified: true,
      digest: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      btoa: 'aGVsbG8=',
      atob: 'hello',
      clone: { distinct: true, a: [1, { b: 2 }], date: true, map: 'v' },
      fired: 'fired',
      cleared: 'not-fired',
      random: 8,
    });
    expect(res.json.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('Node built-ins', () => {
  it('deploys code that imports fs or child_process (they load, and throw when called); refuses a top-level require of an unbundled npm package with 400', async () => {
    const cases: Array<[string, string, string]> = [
      ['needs-fs', `const fs = require('fs');\nexports.handler = async () => fs.readFileSync('/etc/passwd', 'utf8');`, 'no file system'],
      ['needs-exec', `\nimport { exec } from 'node:child_process';\nexport const handler = async () => exec('id');`, 'no processes'],
    ];
    for (const [name, code, why] of cases) {
      const res = await svc.request('POST', '/api/functions', { name, code });
      expect(res.status, res.text).toBe(201);
      expect(res.json.unavailable_modules).toEqual([name === 'needs-fs' ? 'fs' : 'child_process']);
      const ran = await svc.request('POST', `/api/functions/${name}/invoke`, {});
      expect(ran.json.error.code).toBe('function_error');
      expect(ran.json.error.message).toContain(why);
    }
    const npm = await svc.request('POST', '/api/functions', { name: 'needs-uuid', code: `const { v4 } = require('uuid');\n\nexports.handler = async () => v4();` });
    expect(npm.status, npm.text).toBe(400);
    expect(npm.json.code).toBe('invalid_code');
    expect(npm.json.error).toContain("module 'uuid'");
    expect(npm.json.error).toContain('bundled into its code');
    expect(npm.json.details).toMatchObject({ line: 1 });
    expect((await svc.request('GET', '/api/functions/needs-uuid')).status).toBe(404);
  });

  it("verifies a webhook's HMAC-SHA256 signature over the raw body with require('crypto')", async () => {
    const secret = 'whsec_5WbX5kEWLlfzsGNjH64I8lOOqUB6e8FH';
    const code = `const crypto = require('crypto');
exports.handler = async (event) => {
  const body = event.body;
  const sent = Buffer.from(event.headers['x-signature'] || '', 'hex');
  const expected = crypto.createHmac('sha256', process.env.WEBHOOK_SECRET).update(body, 'utf8').digest();
  if (sent.length !== expected.length || !crypto.timingSafeEqual(sent, expected)) {
    return { statusCode: 401, body: { error: 'bad signature' } };
  }
  return { statusCode: 200, body: { verified: true, digest: crypto.createHash('sha256').update(body).digest('base64') } };
};`;
    const created = await svc.request('POST', '/api/functions', { name: 'webhook-in', code, env: { WEBHOOK_SECRET: secret } });
    expect(created.status, created.text).toBe(201);
    const route = await svc.request('POST', `/api/apis/${apiId}/routes`, { method: 'POST', path: '/webhook-in', function: 'webhook-in' });
    expect(route.status, route.text).toBe(201);
    const payload = '{"type":"invoice.paid","data":{"amount":4200,"currency":"eur","note":"café"}}';
    const { createHash, createHmac } = await import('node:crypto');
    const signature = createHmac('sha256', secret).update(payload).digest('hex');
    const post = (sig: string) =>
      svc.request('POST', `/api/invoke/fn/${apiId}/webhook-in`, payload, { 'content-type': 'text/plain', 'x-signature': sig });
    const good = await post(signature);
    expect(good.status, good.text).toBe(200);
    expect(good.json).toEqual({ verified: true, digest: createHash('sha256').update(payload).digest('base64') });
    const bad = await post(signature.replace(/^./, (c) => (c === '0' ? '1' : '0')));
    expect(bad.status).toBe(401);
  });
});

describe('positions in the user source', () => {
  it('names the TypeScript file and line 5 in the invoke API and the logs', async () => {
    const code = `import type { IncomingMessage } from 'node:http';
type Event = { id: string };

export async function handler(event: Event) {
  console.error(new Error('about to fail'));  throw new Error('cannot handle ' + event.id);
}`;
    const created = await svc.request('POST', '/api/functions', { name: 'ts-line5', code, runtime: 'typescript' });
    expect(created.status, created.text).toBe(201);
    const res = await svc.request('POST', '/api/functions/ts-line5/invoke', { id: 'x1' });
    expect(res.json.error).toEqual({ code: 'function_error', message: 'Error: cannot handle x1 (ts-line5.ts, line 5, column 53)' });
    expect(res.json.logs[0].message).toMatch(/^Error: about to fail\n {4}at handler \(ts-line5\.ts:5:17\)/);
    const logs = await svc.request('GET', '/api/functions/ts-line5/logs');
    expect(JSON.stringify(logs.json)).toContain('ts-line5.ts:5:17');
  });

  it('names line 6 for a throw after an ES module import on line 4, through a route', async () => {
    await deploy(svc, apiId, 'esm-line6', `// handler

const greeting = 'hi';
import { randomUUID } from 'crypto';
export const handler = async () => {
  throw new TypeError(greeting + ' ' + typeof randomUUID);
};`);
    const res = await call(svc, apiId, 'esm-line6');
    expect(res.status).toBe(502);
    expect(res.json.error).toBe('TypeError: hi function (esm-line6.js, line 6, column 9)');
  });

  it('answers a syntax error and a top-level throw at deploy with the user line, once', async () => {
    const syntax = await svc.request('POST', '/api/functions', {
      name: 'bad-syntax',
      runtime: 'typescript',
      code: `import { join } from 'path';\n\nexport const handler = async (): Promise<string> => {\n  return join('a',, 'b');\n};`,
    });
    expect(syntax.status).toBe(400);
    expect(syntax.json.details).toEqual({ line: 4, column: 19 });
    expect(syntax.json.error).toBe('code: Unexpected "," (bad-syntax.ts, line 4, column 19)');

    const top = await svc.request('POST', '/api/functions', {
      name: 'bad-top',
      code: `import { format } from 'util';\nconst label = format('%s', 'x');\n\nlabel.missing.field;\nexport const handler = async () => label;`,
    });
    expect(top.status).toBe(400);
    expect(top.json.details).toEqual({ line: 4, column: 15 });
    expect(top.json.error).toBe(
      "code: top-level code threw TypeError: Cannot read properties of undefined (reading 'field') (bad-top.js, line 4, column 15)",
    );
  });
});

const FETCH_CODE = (url: string) =>
  `exports.handler = async () => {
    const res = await fetch(${JSON.stringify(url)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: 'fn' }) });
    return { statusCode: 200, body: { status: res.status, got: await res.json() } };
  };`;

describe('fetch to a private address', () => {
  it('is refused by default with 502 function_error naming the private address', async () => {
    await deploy(svc, apiId, 'fetcher', FETCH_CODE(receiver.url + '/refused'));
    const res = await call(svc, apiId, 'fetcher');
    expect(res.status).toBe(502);
    expect(res.json.code).toBe('function_error');
    expect(res.json.error).toMatch(/private/i);
    expect(receiver.requests.some((r) => r.url === '/refused')).toBe(false);
  });
});

describe('with SWITCHYARD_ALLOW_PRIVATE_TARGETS=1', () => {
  let open: RunningService;
  let openApi = '';

  beforeAll(async () => {
    open = await startService({ env: { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
    const api = await open.request('POST', '/api/apis', { name: 'open', basePath: '/', routes: [] });
    expect(api.status, api.text).toBe(201);
    openApi = api.json.id;
  }, 30000);

  afterAll(async () => {
    await open?.stop();
  });

  it('lets fetch reach a local server', async () => {
    await deploy(open, openApi, 'fetcher', FETCH_CODE(receiver.url + '/allowed'));
    const res = await call(open, openApi, 'fetcher');
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ status: 200, got: { ok: true } });
    const seen = receiver.requests.find((r) => r.url === '/allowed');
    expect(seen?.method).toBe('POST');
    expect(JSON.parse(seen!.body)).toEqual({ from: 'fn' });
  });

  it('finishes an in-flight call on the old code while new calls get the new code', async () => {
    const v1 = `exports.handler = async () => {
      await fetch(${JSON.stringify(receiver.url + '/v1-started')});
      await new Promise((r) => setTimeout(r, 1500));
      return { v: 1 };
    };`;
    await deploy(open, openApi, 'versioned', v1);
    const slow = call(open, openApi, 'versioned');
    await waitFor(() => receiver.requests.some((r) => r.url === '/v1-started'));
    const upd = await open.request('PUT', '/api/functions/versioned', { code: `exports.handler = async () => ({ v: 2 });` });
    expect(upd.status).toBe(200);
    expect(upd.json.version).toBe(2);
    const fresh = await call(open, openApi, 'versioned');
    expect(fresh.json).toEqual({ v: 2 });
    const old = await slow;
    expect(old.status).toBe(200);
    expect(old.json).toEqual({ v: 1 });
  }, 20000);

  it('survives the death of a worker process: 502 for its call, others answer, the worker comes back', async () => {
    // Two workers (service.ts default); functions are pinned to one by name.
    const idx = (n: string) => workerIndexFor(n, 2);
    const crashName = 'crasher';
    const sameName = ['same-0', 'same-1', 'same-2', 'same-3', 'same-4', 'same-5'].find((n) => idx(n) === idx(crashName))!;
    const otherName = ['other-0', 'other-1', 'other-2', 'other-3', 'other-4', 'other-5'].find((n) => idx(n) !== idx(crashName))!;
    await deploy(
      open,
      openApi,
      crashName,
      `exports.handler = async () => {
        await fetch(${JSON.stringify(receiver.url + '/crasher-started')});
        await new Promise((r) => setTimeout(r, 5000));
        return { survived: true };
      };`,
    );
    await deploy(open, openApi, sameName, OK('same'));
    await deploy(open, openApi, otherName, OK('other'));
    expect((await call(open, openApi, sameName)).status).toBe(200);

    // Workers are spawned in index order at start, so their pids ascend with the index.
    const workers = childPids(open.proc.pid!).filter((p) => commandLine(p).includes('worker.js')).sort((a, b) => a - b);
    expect(workers.length).toBe(2);
    const victim = workers[idx(crashName)];

    const crashing = call(open, openApi, crashName);
    await waitFor(() => receiver.requests.some((r) => r.url === '/crasher-started'));
    // What a V8 abort or host OOM does to the worker, from outside.
    process.kill(victim, 'SIGKILL');

    const [crashed, other, mgmt] = await Promise.all([
      crashing,
      call(open, openApi, otherName),
      open.request('GET', '/api/functions'),
    ]);
    expect(crashed.status).toBe(502);
    expect(crashed.json.code).toBeTruthy();
    expect(crashed.json.requestId).toBe(crashed.headers.get('x-request-id'));
    expect(other.status).toBe(200);
    expect(other.json).toEqual({ ok: 'other' });
    expect(mgmt.status).toBe(200);

    // The supervisor restarts it; the functions pinned to it answer again.
    const same = await call(open, openApi, sameName);
    expect(same.status).toBe(200);
    expect(same.json).toEqual({ ok: 'same' });
    const after = childPids(open.proc.pid!).filter((p) => commandLine(p).includes('worker.js'));
    expect(after.length).toBe(2);
    expect(after).not.toContain(victim);
    expect(open.proc.exitCode).toBeNull();
  }, 30000);
});
