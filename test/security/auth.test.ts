/**
 * The admin key, attacked over real HTTP: every spelling of a management path
 * (percent-encoded letters, absolute-form targets, HEAD, a trailing slash,
 * encoded parameters) needs the key; spellings the router does not match
 * answer 404 and serve nothing, methods a management path does not take 405; the invocation prefix, however spelled, never
 * reaches a management route; the public paths stay public; the `Bearer`
 * scheme is matched case-insensitively.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';
import { exactJsonRequest, type WireAnswer } from '../helpers/wire.js';

const KEY = 'k3y-for-the-security-suite';
const AUTH = { authorization: `Bearer ${KEY}` };
const WRONG_AUTH: Record<string, string>[] = [
  {},
  { authorization: 'Bearer nope' },
  { authorization: KEY },
  { authorization: `Basic ${Buffer.from(`admin:${KEY}`).toString('base64')}` },
  { authorization: `Bearer${KEY}` },
  { authorization: 'Bearer' },
];
const HELLO = `exports.handler = async (event) => ({ statusCode: 200, body: { hello: event.pathParameters.name } });`;

let svc: RunningService;
let apiId = '';

const send = (method: string, target: string, headers: Record<string, string> = {}, body?: unknown) =>
  exactJsonRequest(svc.url, method, target, headers, body);

function expectUnauthorized(res: WireAnswer, what: string) {
  expect(res.status, `${what}: ${res.text}`).toBe(401);
  expect(res.headers['x-request-id'], what).toMatch(/^[A-Za-z0-9._:-]+$/);
  if (res.text !== '') expect(res.json.code, what).toBe('unauthorized'); // HEAD has no body
}

/** What an attacker should never see in an answer: the stored function or its code. */
function expectNothingServed(res: WireAnswer, what: string) {
  expect(res.text, what).not.toContain('"name":"greeter"');
  expect(res.text, what).not.toContain('"code_sha256"');
  expect(res.text, what).not.toContain('exports.handler');
}

beforeAll(async () => {
  svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY } });
  const fn = await svc.request('POST', '/api/functions', { name: 'greeter', code: HELLO }, AUTH);
  expect(fn.status, fn.text).toBe(201);
  const api = await svc.request(
    'POST',
    '/api/apis',
    { name: 'Greetings', basePath: '/greet', routes: [{ method: 'GET', path: '/:name', function: 'greeter' }] },
    AUTH,
  );
  expect(api.status, api.text).toBe(201);
  apiId = api.json.id;
}, 30000);

afterAll(async () => {
  await svc?.stop();
});

describe('management paths need the key in every spelling', () => {
  /** [method, target, body, status with the key]: the last proves the spelling really reaches a route. */
  const spellings = (): [string, string, unknown, number][] => {
    const { host } = new URL(svc.url);
    return [
      ['GET', '/%61pi/functions', undefined, 200],
      ['GET', '/ap%69/apis', undefined, 200],
      ['GET', '/%61pi/openapi.json', undefined, 200],
      ['GET', '/%61%70%69/webhooks', undefined, 200],
      ['GET', '/api/%66unctions', undefined, 200],
      ['GET', '/api/function%73', undefined, 200],
      ['GET', '/api/f%75nctions?limit=1', undefined, 200],
      ['GET', '/%61pi/functions/greeter', undefined, 200],
      ['GET', '/api/functions/gr%65eter', undefined, 200],
      ['GET', '/api/functions/%67reeter/logs', undefined, 200],
      ['GET', `/ap%69/apis/${apiId}`, undefined, 200],
      ['GET', `http://${host}/%61pi/functions`, undefined, 200],
      ['GET', `http://${host}/api/functions`, undefined, 200],
      ['HEAD', '/%61pi/functions', undefined, 200],
      ['HEAD', '/api/functions', undefined, 200],
      ['GET', '/api/functions/', undefined, 400],
      ['GET', '/api/apis/%2e%2e', undefined, 404],
      ['POST', '/%61pi/functions', { name: 'sneaky', code: HELLO }, -1],
      ['POST', '/%61pi/events', { event: 'order.created', data: {} }, -1],
      ['PUT', '/%61pi/functions/greeter', { code: 'exports.handler = async () => ({ statusCode: 200, body: "pwned" });' }, -1],
      ['POST', '/%61pi/functions/greeter/invoke', {}, -1],
      ['DELETE', `/%61pi/apis/${apiId}`, undefined, -1],
      ['DELETE', '/%61pi/functions/greeter', undefined, -1],
      ['POST', '/%61pi/webhooks', { name: 'w', target_url: 'https://example.com/h', method: 'POST', payload_template: {} }, -1],
    ];
  };

  it('answers 401 without the key or with a wrong one, and changes nothing', async () => {
    for (const headers of WRONG_AUTH) {
      for (const [method, target, body] of spellings()) {
        const res = await send(method, target, headers, body);
        const what = `${method} ${target} ${JSON.stringify(headers)}`;
        expectUnauthorized(res, what);
        expectNothingServed(res, what);
      }
    }
    const functions = await svc.request('GET', '/api/functions', undefined, AUTH);
    expect(functions.json.map((f: { name: string; version: number }) => [f.name, f.version])).toEqual([['greeter', 1]]);
    const apis = await svc.request('GET', '/api/apis', undefined, AUTH);
    expect(apis.json.map((a: { id: string }) => a.id)).toEqual([apiId]);
    expect((await svc.request('GET', '/api/webhooks', undefined, AUTH)).json).toEqual([]);
    const still = await svc.request('GET', `/api/invoke/fn/${apiId}/greet/ann`);
    expect(still.json).toEqual({ hello: 'ann' });
  });

  it('serves the same spellings with the key: the 401 above came from the key check, not a miss', async () => {
    for (const [method, target, body, status] of spellings()) {
      if (status === -1) continue;
      const res = await send(method, target, AUTH, body);
      expect(res.status, `${method} ${target}: ${res.text}`).toBe(status);
    }
  });

  it('needs the key on every operation of the OpenAPI document, plainly and percent-encoded', async () => {
    const doc = await svc.request('GET', '/api/openapi.json', undefined, AUTH);
    expect(doc.status).toBe(200);
    let checked = 0;
    for (const [path, operations] of Object.entries(doc.json.paths as Record<string, Record<string, { security?: unknown[] }>>)) {
      if (!path.startsWith('/api/')) continue;
      const concrete = path.replace(/\{[^}]+\}/g, 'x');
      for (const [method, operation] of Object.entries(operations)) {
        if (!['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(method)) continue;
        // Documented as public: only the invocation endpoint, which is (test/integration/invoke.test.ts).
        if (operation.security?.length === 0) {
          expect(path, `${method} ${path} is documented as public`).toMatch(/^\/api\/invoke\/fn\//);
          continue;
        }
        // The consumer API takes a portal token instead of the key (src/http/portal.ts): refused without one alike.
        const consumer = JSON.stringify(operation.security) === JSON.stringify([{ portalToken: [] }]);
        for (const target of [concrete, '/%61' + concrete.slice(2), concrete.replace(/[a-z]$/, (c) => `%${c.charCodeAt(0).toString(16)}`)]) {
          const res = await send(method.toUpperCase(), target, {}, method === 'get' || method === 'delete' ? undefined : {});
          if (consumer) {
            expect(res.status, `${method} ${target}`).toBe(401);
            expect(res.json.code, `${method} ${target}`).toBe('portal_token_invalid');
          } else expectUnauthorized(res, `${method} ${target}`);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
  });
});

describe('paths the router does not match', () => {
  it('answer 404 not_found without the key and serve nothing, with or without it', async () => {
    const targets = [
      '/api/nope',
      '/api/functions/greeter/nope',
      '//api/functions',
      '/api//functions',
      '/API/functions',
      '/%41pi/functions',
      '/api/functions%2f',
      '/api%2ffunctions',
      '/api/functions;x=1',
      '/%2e/api/functions',
      '/x/../api/functions',
      '/api/./functions',
      '/api\\functions',
    ];
    for (const headers of [{}, AUTH]) {
      for (const target of targets) {
        const res = await send('GET', target, headers);
        const what = `GET ${target} ${JSON.stringify(headers)}`;
        expect(res.status, `${what}: ${res.text}`).toBe(404);
        expect(res.json.code, what).toBe('not_found');
        expect(res.headers['x-request-id'], what).toBeTruthy();
        expectNothingServed(res, what);
      }
      const res = await send('OPTIONS', '*', headers);
      expect(res.status, 'OPTIONS *').toBe(404);
      expectNothingServed(res, 'OPTIONS *');
    }
  });
});

describe('a method a management path does not take', () => {
  it('answers 405 with Allow, with or without the key, and serves and changes nothing', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }, AUTH]) {
      for (const [method, target, allow] of [
        ['OPTIONS', '/api/functions', 'GET, HEAD, POST'],
        ['OPTIONS', '/%61pi/functions', 'GET, HEAD, POST'],
        ['DELETE', '/api/functions', 'GET, HEAD, POST'],
        ['PATCH', '/api/functions/greeter', 'GET, HEAD, PUT, DELETE'],
        ['POST', '/%61pi/functions/greeter', 'GET, HEAD, PUT, DELETE'],
        ['PATCH', `/api/apis/${apiId}`, 'GET, HEAD, PUT, DELETE'],
      ]) {
        const res = await send(method, target, headers);
        const what = `${method} ${target} ${JSON.stringify(headers)}`;
        expect(res.status, `${what}: ${res.text}`).toBe(405);
        expect(res.headers.allow, what).toBe(allow);
        expect(res.json.code, what).toBe('method_not_allowed');
        expectNothingServed(res, what);
      }
    }
    const functions = await svc.request('GET', '/api/functions', undefined, AUTH);
    expect(functions.json.map((f: { name: string; version: number }) => [f.name, f.version])).toEqual([['greeter', 1]]);
  });
});

describe('the invocation prefix', () => {
  it('as sent raw, reaches only the gateway: dot segments and encoded slashes find no API', async () => {
    for (const target of [
      '/api/invoke/fn/../../functions',
      '/api/invoke/fn/../functions',
      '/api/invoke/fn/%2e%2e/%2e%2e/functions',
      '/api/invoke/fn/..%2f..%2fapi%2ffunctions',
      `/api/invoke/fn/${apiId}/../../../api/functions`,
      '/api/invoke/fn//../../api/openapi.json',
    ]) {
      const res = await send('GET', target);
      expect(res.status, `${target}: ${res.text}`).toBe(404);
      expect(['api_not_found', 'no_route'], target).toContain(res.json.code);
      expectNothingServed(res, target);
    }
  });

  it("with a path sent as one encoded segment (generated clients), reads %2F as / only after the API id, and reaches only the gateway", async () => {
    // The route's own answer, as a raw client gets it.
    const served = await send('GET', `/api/invoke/fn/${apiId}/greet%2Fann`);
    expect(served.status, served.text).toBe(200);
    expect(served.json).toEqual({ hello: 'ann' });
    for (const target of [
      `/api/invoke/fn/${apiId}/..%2F..%2F..%2Fapi%2Ffunctions`,
      `/api/invoke/fn/${apiId}/%2F..%2F..%2Fapi%2Ffunctions%2Fgreeter`,
      `/api/invoke/fn/${apiId}%2F..%2F..%2Ffunctions`,
      `/api/invoke/fn/${apiId}%2Fgreet%2Fann`,
      `/api/invoke/fn/..%2F..%2Fapi%2Ffunctions/x`,
    ]) {
      for (const headers of [{}, AUTH]) {
        const res = await send('GET', target, headers);
        expect(res.status, `${target}: ${res.text}`).toBe(404);
        expect(['api_not_found', 'no_route'], target).toContain(res.json.code);
        expectNothingServed(res, target);
      }
    }
  });

  it('percent-encoded, is not an invocation and serves nothing', async () => {
    for (const target of [
      `/api/invoke/f%6e/${apiId}/greet/ann`,
      `/%61pi/invoke/fn/${apiId}/greet/ann`,
      `/api/%69nvoke/fn/${apiId}/greet/ann`,
    ]) {
      for (const headers of [{}, AUTH]) {
        const res = await send('GET', target, headers);
        expect(res.status, target).toBe(404);
        expect(res.json.code, target).toBe('not_found');
        expect(res.text, target).not.toContain('hello');
      }
    }
  });
});

describe('public paths', () => {
  it('answer without the key', async () => {
    for (const [method, target] of [
      ['GET', '/healthz'],
      ['GET', '/readyz'],
      // The dashboard's page (it holds no data; its calls carry the key).
      ['GET', '/'],
      ['HEAD', '/'],
      ['GET', '/metrics'],
      ['HEAD', '/healthz'],
      ['GET', '/%68ealthz'],
    ]) {
      const res = await send(method, target);
      expect(res.status, `${method} ${target}: ${res.text}`).toBe(200);
    }
    const res = await send('GET', `/api/invoke/fn/${apiId}/greet/bob`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ hello: 'bob' });
  });
});

describe('the Bearer scheme', () => {
  it('is matched case-insensitively (RFC 9110), with one or more spaces before the key', async () => {
    for (const authorization of [`bearer ${KEY}`, `BEARER ${KEY}`, `BeArEr ${KEY}`, `Bearer  ${KEY}`, `Bearer ${KEY} `]) {
      const res = await send('GET', '/api/functions', { authorization });
      expect(res.status, authorization).toBe(200);
    }
    for (const authorization of [`bearer ${KEY}x`, `bearer: ${KEY}`, `xbearer ${KEY}`]) {
      expectUnauthorized(await send('GET', '/api/functions', { authorization }), authorization);
    }
  });
});
