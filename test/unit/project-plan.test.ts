/**
 * Plan and apply against an in-memory ProjectApi: what each edit of the file
 * plans, the order changes run in, prune, idempotence, and a refused project
 * writing nothing.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  applyPlan,
  parseProject,
  planProject,
  planToJson,
  ProjectError,
  readServerState,
  renderPlan,
  type Plan,
} from '../../src/project/index.js';
import { FakeProjectApi } from '../helpers/project-fake.js';

let files: Record<string, string>;
let api: FakeProjectApi;

const BASE = `
env_from: [GREETING]
functions:
  hello:
    file: hello.js
    env: { GREETING: '\${env:GREETING}' }
  users:
    file: users.js
    event_format: aws-v2
apis:
  shop:
    base_path: /shop
    routes:
      - { method: GET, path: /hello, function: hello }
      - { method: GET, path: '/users/{id}', function: users }
webhooks:
  ping:
    target_url: https://example.com/hook
    method: POST
    payload_template: { event: '{{event}}' }
    mock_endpoint: { api: shop, path: /hello }
    secret: generate
`;

async function plan(text: string, opts: { prune?: boolean; env?: Record<string, string> } = {}): Promise<Plan> {
  const { project } = await parseProject(text, '/p/switchyard.yaml', {
    env: opts.env ?? { GREETING: 'hi' },
    readFile: async (p) => files[p.replace('/p/', '')],
  });
  return planProject(project, await readServerState(api, project), { prune: opts.prune });
}

async function apply(text: string, opts: { prune?: boolean; env?: Record<string, string> } = {}) {
  return applyPlan(await plan(text, opts), api);
}

beforeEach(() => {
  files = { 'hello.js': 'export const handler = () => "hello";', 'users.js': 'export const handler = () => "users";' };
  api = new FakeProjectApi();
});

describe('plan', () => {
  it('on an empty server creates functions, then the API and its routes, then webhooks', async () => {
    const p = await plan(BASE);
    expect(renderPlan(p)).toBe(
      [
        '+ function hello',
        '+ function users',
        '+ api shop',
        '+ route GET /hello (api shop) -> hello',
        '+ route GET /users/{id} (api shop) -> users',
        '+ webhook ping',
        '',
        'Plan: 6 to create, 0 to update, 0 to delete.',
      ].join('\n'),
    );
    expect(planToJson(p)).toEqual({
      prune: false,
      changes: [
        { action: 'create', kind: 'function', name: 'hello' },
        { action: 'create', kind: 'function', name: 'users' },
        { action: 'create', kind: 'api', name: 'shop' },
        { action: 'create', kind: 'route', name: 'GET /hello', api: 'shop', function: 'hello' },
        { action: 'create', kind: 'route', name: 'GET /users/{id}', api: 'shop', function: 'users' },
        { action: 'create', kind: 'webhook', name: 'ping' },
      ],
    });
  });

  it('applies, and a second plan is empty (a generated secret is kept, env compared by the server)', async () => {
    await apply(BASE);
    expect(api.writes).toEqual(['create function hello', 'create function users', 'create api shop', 'create webhook ping']);
    expect(api.webhooks[0].mock_endpoint).toEqual({ api_id: api.apis[0].id, path: '/hello' });
    const again = await plan(BASE);
    expect(again.changes).toEqual([]);
    expect(renderPlan(again)).toBe('No changes: the server matches the project.');
  });

  it('names the fields that change: code and settings, env values, routes', async () => {
    await apply(BASE);
    files['hello.js'] = 'export const handler = () => "hello 2";';
    const edited = BASE.replace('    file: hello.js\n', '    file: hello.js\n    timeout_ms: 500\n').replace(
      "'/users/{id}', function: users",
      "'/users/{id}', function: hello",
    );
    const p = await plan(edited, { env: { GREETING: 'hello' } });
    expect(renderPlan(p).split('\n').slice(0, 2)).toEqual([
      '~ function hello (code, env, timeout_ms)',
      '~ route GET /users/{id} (api shop) -> hello',
    ]);
    await applyPlan(p, api);
    expect(api.functions.get('hello')!.env).toEqual({ GREETING: 'hello' });
    expect(api.functions.get('hello')!.timeout_ms).toBe(500);
    expect(api.writes.slice(-2)).toEqual(['update function hello code,env,timeout_ms', 'update api shop']);
    expect((await plan(edited, { env: { GREETING: 'hello' } })).changes).toEqual([]);
  });

  it('without prune deletes nothing; with prune deletes webhooks, then routes and APIs, then functions', async () => {
    await apply(BASE);
    const only = `
functions:
  hello: { file: hello.js, env: { GREETING: hi } }
apis:
  shop:
    base_path: /shop
    routes:
      - { method: GET, path: /hello, function: hello }
`;
    expect((await plan(only)).changes).toEqual([]);
    const pruned = await plan(only, { prune: true });
    expect(renderPlan(pruned).split('\n').slice(0, 3)).toEqual([
      '- route GET /users/{id} (api shop)',
      '- webhook ping',
      '- function users',
    ]);
    await applyPlan(pruned, api);
    expect(api.writes.slice(-3)).toEqual(['update api shop', 'delete webhook ping', 'delete function users']);
    expect(api.apis[0].routes.map((r) => r.path)).toEqual(['/hello']);
    expect([...api.functions.keys()]).toEqual(['hello']);
    expect((await plan(only, { prune: true })).changes).toEqual([]);
  });

  it('prune of a whole API deletes its routes with it, before the functions they call', async () => {
    await apply(BASE);
    const p = await plan('functions: {}\n', { prune: true });
    expect(p.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual([
      'delete webhook ping',
      'delete route GET /hello',
      'delete route GET /users/{id}',
      'delete api shop',
      'delete function hello',
      'delete function users',
    ]);
    await applyPlan(p, api);
    expect(api.apis).toEqual([]);
    expect(api.functions.size).toBe(0);
  });

  it('keeps, without prune, the routes of a named API that the file does not list', async () => {
    await apply(BASE);
    const fewer = BASE.replace("      - { method: GET, path: '/users/{id}', function: users }\n", '').replace(
      '/hello, function: hello }',
      '/hello, function: hello }\n      - { method: POST, path: /hello, function: hello }',
    );
    await apply(fewer);
    expect(api.apis[0].routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['GET /hello', 'GET /users/{id}', 'POST /hello']);
  });

  it('refuses the whole project, before any write, when the server refuses one function', async () => {
    files['users.js'] = 'SYNTAX ERROR';
    const err = await apply(BASE).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectError);
    expect((err as ProjectError).problems).toEqual([
      // Where in the function's own file: for the demo's one-line refusal.
      { file: 'switchyard.yaml', path: 'functions.users', message: 'Unexpected identifier', code_position: { line: 1, column: null } },
    ]);
    expect(api.writes).toEqual([]);
  });

  it('a route to a function neither in the file nor on the server is refused', async () => {
    const { project } = await parseProject(
      'apis:\n  a:\n    base_path: /\n    routes: [{ method: GET, path: /, function: ghost }]\n',
      '/p/switchyard.yaml',
      { knownFunctions: ['ghost'] },
    );
    expect(() => planProject(project, { functions: [], apis: [], webhooks: [], env_differs: [], write_only_differs: {} })).toThrow(
      /apis\.a\.routes\[0\]\.function: no function 'ghost'/,
    );
  });

  it('a webhook target on an API of the file is sent to its invoke URL, and compares stably', async () => {
    const TARGETED = BASE.replace('    target_url: https://example.com/hook\n', '    target: { api: shop, path: /hello?from=hook }\n');
    expect(TARGETED).not.toBe(BASE);
    await apply(TARGETED);
    const shop = api.apis[0];
    expect(api.webhooks[0].target_url).toBe(`${shop.invokeUrl}/hello?from=hook`);
    expect((await plan(TARGETED)).changes).toEqual([]);

    // Another path, or the API created anew (another id, another invoke URL), is a target change.
    const moved = await plan(TARGETED.replace('/hello?from=hook', '/users/1'));
    expect(moved.changes).toEqual([{ action: 'update', kind: 'webhook', name: 'ping', fields: ['target_url'] }]);
    await applyPlan(moved, api);
    expect(api.webhooks[0].target_url).toBe(`${shop.invokeUrl}/users/1`);
    api.apis = [];
    const recreated = await plan(TARGETED);
    expect(recreated.changes.map((c) => `${c.action} ${c.kind} ${c.name}${c.fields ? ` ${c.fields.join(',')}` : ''}`)).toEqual([
      'create api shop',
      'create route GET /hello',
      'create route GET /users/{id}',
      'update webhook ping target_url,mock_endpoint',
    ]);
    await applyPlan(recreated, api);
    expect(api.webhooks[0].target_url).toBe(`${api.apis[0].invokeUrl}/hello?from=hook`);
    expect(api.apis[0].invokeUrl).not.toBe(shop.invokeUrl);
    expect((await plan(TARGETED)).changes).toEqual([]);
  });

  it('refuses to pick between two server APIs of the same name', async () => {
    await api.createApi({ name: 'shop', basePath: '/a', routes: [] });
    await api.createApi({ name: 'shop', basePath: '/b', routes: [] });
    await expect(plan(BASE)).rejects.toThrow(/apis\.shop: the server holds 2 items named 'shop'/);
  });
});

describe('function schedules, events and async', () => {
  const TRIGGERS = `
functions:
  hello:
    file: hello.js
    schedules:
      - { cron: '0 9 * * 1-5', timezone: America/New_York, payload: { kind: daily } }
      - { cron: '*/15 * * * *' }
    events: [order.created]
    async: { retries: 4, on_failure: { webhook: alerts }, on_success: { function: users } }
  users:
    file: users.js
webhooks:
  alerts:
    target_url: https://example.com/alerts
    method: POST
    payload_template: {}
`;

  it('a destination on a webhook of the same apply is set by a second write, after the webhook exists', async () => {
    const p = await plan(TRIGGERS);
    expect(renderPlan(p).split('\n').slice(0, 4)).toEqual([
      '+ function hello',
      '+ function users',
      '+ webhook alerts',
      '~ function hello (async destinations, once they exist)',
    ]);
    expect(p.changes[0]).toMatchObject({ action: 'create', name: 'hello', pending: ['on_success', 'on_failure'] });
    // The fake refuses a destination that does not exist, as the server does: the order is what makes this pass.
    await applyPlan(p, api);
    expect(api.writes).toEqual(['create function hello', 'create function users', 'create webhook alerts', 'update function hello async']);
    const hello = api.functions.get('hello')!;
    expect(hello.async).toEqual({
      retries: 4,
      on_success: { type: 'function', name: 'users' },
      on_failure: { type: 'webhook', id: api.webhooks[0].id },
    });
    expect(hello.schedules).toEqual([
      { cron: '0 9 * * 1-5', timezone: 'America/New_York', payload: { kind: 'daily' } },
      { cron: '*/15 * * * *', timezone: 'UTC', payload: null },
    ]);
    expect(hello.events).toEqual(['order.created']);
    // The server answers timezone UTC and payload null where the file wrote nothing: still no change.
    expect((await plan(TRIGGERS)).changes).toEqual([]);
  });

  it('a destination on what the server holds already goes in the first write', async () => {
    await apply(TRIGGERS.replace("on_success: { function: users } }", "on_success: null }"));
    api.writes = [];
    const p = await plan(TRIGGERS);
    expect(renderPlan(p).split('\n')[0]).toBe('~ function hello (async)');
    expect(p.changes).toHaveLength(1);
    await applyPlan(p, api);
    expect(api.functions.get('hello')!.async!.on_success).toEqual({ type: 'function', name: 'users' });
  });

  it('an existing function gaining a destination on a new webhook: only the second write, unless async changes otherwise', async () => {
    const without = TRIGGERS.replace(/webhooks:[\s\S]*$/, '').replace(/on_failure: \{ webhook: alerts \}, /, '');
    await apply(without);
    expect(api.functions.get('hello')!.async!.on_failure).toBeNull();
    api.writes = [];
    const p = await plan(TRIGGERS);
    expect(renderPlan(p).split('\n').slice(0, 2)).toEqual(['+ webhook alerts', '~ function hello (async destinations, once they exist)']);
    await applyPlan(p, api);
    expect(api.writes).toEqual(['create webhook alerts', 'update function hello async']);

    // retries changes as well: the first write sets retries (without the pending destination), the second the destination.
    api = new FakeProjectApi();
    await apply(without);
    const p2 = await plan(TRIGGERS.replace('retries: 4', 'retries: 1').replace(/\n {2}alerts:/, '\n  alerts2:').replace('webhook: alerts', 'webhook: alerts2'));
    expect(renderPlan(p2).split('\n').slice(0, 3)).toEqual([
      '~ function hello (async)',
      '+ webhook alerts2',
      '~ function hello (async destinations, once they exist)',
    ]);
    await applyPlan(p2, api);
    expect(api.functions.get('hello')!.async).toMatchObject({ retries: 1, on_failure: { type: 'webhook' } });
  });

  it('defaults equal absent; edits name schedules, events and async; removing them resets them', async () => {
    const plain = `
functions:
  hello:
    file: hello.js
    schedules: []
    events: []
    async: { retries: 2, on_success: null }
`;
    await apply(plain);
    expect(api.writes).toEqual(['create function hello']);
    expect((await plan('functions:\n  hello:\n    file: hello.js\n')).changes).toEqual([]);

    const edited = `
functions:
  hello:
    file: hello.js
    schedules: [{ cron: '0 * * * *', timezone: Europe/Paris }]
    events: ['user.*']
    async: { retries: 0 }
`;
    const p = await plan(edited);
    expect(renderPlan(p).split('\n')[0]).toBe('~ function hello (schedules, events, async)');
    await applyPlan(p, api);
    expect((await plan(edited)).changes).toEqual([]);
    // Schedules in another order are the same schedules.
    const hello = api.functions.get('hello')!;
    hello.schedules = [{ cron: '0 * * * *', timezone: 'Europe/Paris', payload: {} }];
    expect((await plan(edited)).changes).toEqual([]);

    const back = await plan('functions:\n  hello:\n    file: hello.js\n');
    expect(renderPlan(back).split('\n')[0]).toBe('~ function hello (schedules, events, async)');
    await applyPlan(back, api);
    expect(api.writes.at(-1)).toBe('update function hello async,events,schedules');
    expect(api.functions.get('hello')).toMatchObject({ schedules: [], events: [], async: { retries: 2, on_success: null, on_failure: null } });
  });

  it('a server older than function triggers (no such fields) plans nothing for a file without them', async () => {
    await apply('functions:\n  hello:\n    file: hello.js\n');
    const fn = api.functions.get('hello')! as unknown as Record<string, unknown>;
    delete fn.schedules;
    delete fn.events;
    delete fn.async;
    expect((await plan('functions:\n  hello:\n    file: hello.js\n')).changes).toEqual([]);
  });
});
