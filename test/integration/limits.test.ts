/**
 * The bounds on functions, APIs, webhooks and routes per API, on a real
 * server with two server processes (so concurrent creators are in different
 * processes, as nodes would be): creations past a bound are refused with 409
 * `limit_reached` naming the setting, however many arrive at once, and
 * nothing past it is stored. Runs on PostgreSQL too (TEST_STORE=postgres),
 * where the count and the insert are kept together by an advisory lock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';

const CODE = 'exports.handler = async () => ({ statusCode: 200, body: {} });';

let svc: RunningService;

/** One request on its own connection, so concurrent ones spread over both processes. */
async function post(path: string, body: unknown, method = 'POST') {
  const res = await fetch(svc.url + path, {
    method,
    headers: { 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
}

function expectLimit(res: { status: number; json: any }, limit: string, setting: string, max: number) {
  expect(res.status, JSON.stringify(res.json)).toBe(409);
  expect(res.json).toMatchObject({ code: 'limit_reached', details: { limit, setting, max } });
  expect(res.json.error).toContain(setting);
}

beforeAll(async () => {
  svc = await startService({
    args: ['--processes', '2'],
    env: {
      SWITCHYARD_MAX_FUNCTIONS: '3',
      SWITCHYARD_MAX_APIS: '2',
      SWITCHYARD_MAX_WEBHOOKS: '2',
      SWITCHYARD_MAX_ROUTES_PER_API: '2',
      SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1',
    },
  });
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

describe('resource limits', () => {
  it('creates exactly SWITCHYARD_MAX_FUNCTIONS functions of 12 created at once, and refuses the rest', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => post('/api/functions', { name: `f${i}`, code: CODE })));
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(3);
    for (const a of answers.filter((x) => x.status !== 201)) expectLimit(a, 'functions', 'SWITCHYARD_MAX_FUNCTIONS', 3);
    const listed = (await svc.request('GET', '/api/functions')).json;
    expect(listed).toHaveLength(3);

    // A deletion makes room again.
    const gone = created[0].json.name;
    expect((await svc.request('DELETE', `/api/functions/${gone}`)).status).toBe(200);
    expect((await post('/api/functions', { name: 'again', code: CODE })).status).toBe(201);
    expectLimit(await post('/api/functions', { name: 'one-more', code: CODE }), 'functions', 'SWITCHYARD_MAX_FUNCTIONS', 3);
  });

  it('bounds the APIs, and the routes of one API however they are added', async () => {
    const fn = (await svc.request('GET', '/api/functions')).json[0].name;
    const route = (path: string) => ({ method: 'GET', path, function: fn });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => post('/api/apis', { name: `api${i}`, basePath: `/a${i}`, routes: [route('/')] })),
    );
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(2);
    for (const a of answers.filter((x) => x.status !== 201)) expectLimit(a, 'apis', 'SWITCHYARD_MAX_APIS', 2);
    expect((await svc.request('GET', '/api/apis')).json).toHaveLength(2);

    const id = created[0].json.id;
    expect((await post(`/api/apis/${id}/routes`, route('/two'))).status).toBe(201);
    expectLimit(await post(`/api/apis/${id}/routes`, route('/three')), 'routes', 'SWITCHYARD_MAX_ROUTES_PER_API', 2);
    expectLimit(await post(`/api/apis/${id}`, { routes: [route('/a'), route('/b'), route('/c')] }, 'PUT'), 'routes', 'SWITCHYARD_MAX_ROUTES_PER_API', 2);
    expect((await svc.request('GET', `/api/apis/${id}`)).json.routes).toHaveLength(2);
    await svc.request('DELETE', `/api/apis/${created[1].json.id}`);
    expectLimit(
      await post('/api/apis', { name: 'wide', basePath: '/wide', routes: [route('/a'), route('/b'), route('/c')] }),
      'routes',
      'SWITCHYARD_MAX_ROUTES_PER_API',
      2,
    );
  });

  it('bounds the webhooks', async () => {
    const hook = (i: number) => ({ name: `h${i}`, target_url: 'http://127.0.0.1:9/hook', method: 'POST', payload_template: {} });
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => post('/api/webhooks', hook(i))));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(2);
    for (const a of answers.filter((x) => x.status !== 201)) expectLimit(a, 'webhooks', 'SWITCHYARD_MAX_WEBHOOKS', 2);
    expect((await svc.request('GET', '/api/webhooks')).json).toHaveLength(2);
  });
});
