/**
 * The typed client (`switchyard-gateway/client`, `@switchyard-gateway/client`)
 * against a real server: its types come from the OpenAPI document the build
 * generates, so this file only compiles (npm run typecheck:tests) while the
 * calls below match the API, and it passes only while the server answers what
 * the types say. `expectTypeOf` lines are checked by that compile: the
 * resources answer the resource (not `DryRun | Resource`), `.plan` a DryRun,
 * and error codes are the documented union.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  SwitchyardApiError,
  UnexpectedAnswerError,
  createClient,
  followDeliveries,
  followLogs,
  type AttemptStreamEvent,
  type DryRun,
  type ErrorCode,
  type Schemas,
  type StreamEvent,
  type SwitchyardClient,
} from '../../src/client/index.js';
import { startService, type RunningService } from '../helpers/service.js';

const KEY = 'client-test-key';
let svc: RunningService;
let client: SwitchyardClient;

beforeAll(async () => {
  svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY } });
  client = createClient({ baseUrl: svc.url + '/', adminKey: KEY });
}, 30_000);

afterAll(async () => {
  await svc?.stop();
});

describe('typed client', () => {
  it('is what the package exports as switchyard-gateway/client', async () => {
    // Node resolves a package's own name through its `exports`, as an installed copy would.
    const resolved = createRequire(import.meta.url).resolve('switchyard-gateway/client');
    expect(resolved).toMatch(/\/dist\/client\/index\.js$/);
    const packaged = (await import(pathToFileURL(resolved).href)) as { createClient: unknown };
    expect(typeof packaged.createClient).toBe('function');
  });

  it('creates a function, invokes it, lists its logs, and reads typed errors', async () => {
    const created = await client.POST('/api/functions', {
      body: { name: 'typed', code: `exports.handler = async (event) => { console.log('typed ' + event.body.n); return { statusCode: 200, body: { twice: event.body.n * 2 } }; };` },
    });
    expect(created.response.status).toBe(201);
    // 201 is the function; 200 would be a DryRun (only with ?dry_run=true).
    const fn = created.data as Schemas['Function'];
    expect(fn).toMatchObject({ name: 'typed', version: 1, runtime: 'javascript' });

    const dry = await client.POST('/api/functions', { params: { query: { dry_run: 'true' } }, body: { name: 'dry', code: 'exports.handler = async () => 1;' } });
    expect(dry.response.status).toBe(200);
    expect(dry.data).toMatchObject({ dry_run: true, action: 'create' });

    const invoked = await client.POST('/api/functions/{name}/invoke', {
      params: { path: { name: 'typed' } },
      body: { body: { n: 21 } },
    });
    expect(invoked.error).toBeUndefined();
    expect(invoked.data?.status).toBe(200);
    // Without x-invocation-type: Event the answer is the 200 with the result (the 202 has no logs).
    const ran = invoked.data && 'logs' in invoked.data ? invoked.data : null;
    expect(ran?.result).toEqual({ statusCode: 200, body: { twice: 42 } });
    expect(ran?.logs.map((l) => l.message)).toEqual(['typed 21']);

    const logs = await client.GET('/api/functions/{name}/logs', { params: { path: { name: 'typed' }, query: { limit: 10 } } });
    expect(logs.data?.map((l) => [l.message, l.version])).toEqual([['typed 21', 1]]);

    const list = await client.GET('/api/functions');
    expect(list.data?.map((f) => f.name)).toContain('typed');

    const missing = await client.GET('/api/functions/{name}', { params: { path: { name: 'nobody' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.code).toBe('function_not_found');

    const unauthorised = await createClient({ baseUrl: svc.url }).GET('/api/functions');
    expect(unauthorised.response.status).toBe(401);
    expect(unauthorised.error?.code).toBe('unauthorized');

    const health = await createClient({ baseUrl: svc.url }).GET('/healthz');
    expect(health.data?.status).toBe('ok');
  });

  it('publishes an event and reads the 202 answer', async () => {
    const published = await client.POST('/api/events', { body: { event: 'nobody.listens', data: { a: 1 } } });
    expect(published.response.status).toBe(202);
    expect(published.data).toEqual({ id: expect.stringMatching(/^evt_/), event: 'nobody.listens', deliveries: [], webhooks: { matched: [], filtered_out: [] }, functions: [] });
  });

  it('follows the log stream with followLogs, from a stored line id', async () => {
    const first = await client.GET('/api/functions/{name}/logs', { params: { path: { name: 'typed' } } });
    const firstId = first.data?.[0]?.id;
    expect(firstId).toEqual(expect.any(Number));
    const stop = new AbortController();
    const seen: StreamEvent[] = [];
    const reading = (async () => {
      for await (const event of followLogs({ baseUrl: svc.url, adminKey: KEY, function: 'typed', since: firstId! - 1, signal: stop.signal })) {
        seen.push(event);
        if (event.event === 'log' && event.data.message === 'typed 5') stop.abort();
      }
    })();
    const again = await client.POST('/api/functions/{name}/invoke', { params: { path: { name: 'typed' } }, body: { body: { n: 5 } } });
    expect(again.data?.status).toBe(200);
    await reading;
    const lines = seen.filter((e): e is Extract<StreamEvent, { event: 'log' }> => e.event === 'log');
    expect(lines.map((e) => e.data.message)).toEqual(['typed 21', 'typed 5']);
    expect(lines[0].id).toBe(firstId);
    expect(seen.some((e) => e.event === 'invocation' && e.data.function === 'typed' && e.data.status === 200)).toBe(true);
  });

  it('follows the deliveries stream with followDeliveries, told when it is open', async () => {
    const stop = new AbortController();
    const seen: AttemptStreamEvent[] = [];
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const reading = (async () => {
      for await (const event of followDeliveries({ baseUrl: svc.url, adminKey: KEY, function: 'typed', signal: stop.signal, onOpen: opened })) {
        seen.push(event);
        if (event.data.outcome === 'succeeded') stop.abort();
      }
    })();
    // Attempts recorded before the stream opened are not sent: a reader fetches the state when told it is open.
    await open;
    const queued = await client.POST('/api/functions/{name}/invoke', {
      params: { path: { name: 'typed' }, header: { 'x-invocation-type': 'Event' } },
      body: { body: { n: 3 } },
    });
    expect(queued.response.status).toBe(202);
    await reading;
    const invocationId = (queued.data as Schemas['InvocationAccepted']).invocation_id;
    expect(seen.map((e) => [e.event, e.data.delivery_id, e.data.function, e.data.outcome])).toEqual([['attempt', invocationId, 'typed', 'succeeded']]);
    expect(seen[0].id).toBe(seen[0].data.seq);
  });
});

describe('resources', () => {
  const CODE = `exports.handler = async (event) => ({ statusCode: 200, body: { hi: event.body?.name ?? 'you' } });`;

  it('creates, plans, updates and deletes a function, each typed as what it answers', async () => {
    const plan = await client.functions.create.plan({ name: 'res-fn', code: CODE });
    expectTypeOf(plan).toEqualTypeOf<DryRun>();
    expect(plan).toEqual({ dry_run: true, action: 'create', changes: ['code'] });
    await expect(client.functions.get('res-fn')).rejects.toMatchObject({ status: 404, code: 'function_not_found' });

    const fn = await client.functions.create({ name: 'res-fn', code: CODE, timeout_ms: 2000 });
    expectTypeOf(fn).toEqualTypeOf<Schemas['Function']>();
    expect(fn).toMatchObject({ name: 'res-fn', version: 1, timeout_ms: 2000 });

    const noChange = await client.functions.update.plan('res-fn', { timeout_ms: 2000 });
    expect(noChange).toEqual({ dry_run: true, action: 'none', changes: [] });
    const updated = await client.functions.update('res-fn', { timeout_ms: 3000 });
    expectTypeOf(updated).toEqualTypeOf<Schemas['Function']>();
    expect(updated).toMatchObject({ version: 2, timeout_ms: 3000 });
    expect((await client.functions.versions('res-fn')).map((v) => v.version)).toEqual([2, 1]);
    expect((await client.functions.version('res-fn', 1)).timeout_ms).toBe(2000);

    const ran = await client.functions.invoke('res-fn', { body: { name: 'Ann' } });
    expectTypeOf(ran).toEqualTypeOf<Schemas['Invocation']>();
    expect(ran.result).toEqual({ statusCode: 200, body: { hi: 'Ann' } });
    const queued = await client.functions.invokeAsync('res-fn', { body: {} });
    expect(queued).toMatchObject({ status: 'pending', invocation_id: expect.any(String) });

    expect(await client.functions.delete.plan('res-fn')).toEqual({ dry_run: true, action: 'delete', changes: [] });
    expect((await client.functions.get('res-fn')).name).toBe('res-fn');
    const deleted = await client.functions.delete('res-fn');
    expectTypeOf(deleted).toEqualTypeOf<Schemas['Deleted']>();
    expect(deleted).toEqual({ deleted: true, name: 'res-fn' });
  });

  it('iterates every item of a list across pages, following the Link header', async () => {
    const names = ['pg-1', 'pg-2', 'pg-3', 'pg-4', 'pg-5'];
    for (const name of names) await client.functions.create({ name, code: CODE });
    const seen: string[] = [];
    for await (const fn of client.functions.list({ limit: 2 })) seen.push(fn.name);
    expect(seen.filter((n) => n.startsWith('pg-'))).toEqual(names);
    const all = (await client.functions.list({ limit: 1000 }).pages()[Symbol.asyncIterator]().next()).value as Schemas['Function'][];
    expect(seen).toEqual(all.map((f) => f.name));
    const sizes: number[] = [];
    for await (const page of client.functions.list({ limit: 2, after: 'pg-1' }).pages()) sizes.push(page.length);
    expect(sizes.slice(0, 2)).toEqual([2, 2]);
    expect(sizes.reduce((a, b) => a + b)).toBe(seen.length - seen.indexOf('pg-1') - 1);
  });

  it('plans and makes API, route and webhook writes', async () => {
    await client.functions.create({ name: 'res-route', code: CODE });
    const apiPlan = await client.apis.create.plan({ name: 'res', basePath: '/res', routes: [] });
    expect(apiPlan.action).toBe('create');
    const api = await client.apis.create({ name: 'res', basePath: '/res', routes: [] });
    expectTypeOf(api).toEqualTypeOf<Schemas['Api']>();
    expect((await client.apis.routes.add.plan(api.id, { method: 'GET', path: '/hi', function: 'res-route' })).changes).toEqual(['method', 'path', 'function']);
    const route = await client.apis.routes.add(api.id, { method: 'GET', path: '/hi', function: 'res-route' });
    expectTypeOf(route).toEqualTypeOf<Schemas['Route']>();
    expect((await client.apis.get(api.id)).routes.map((r) => r.id)).toEqual([route.id]);
    const apis: string[] = [];
    for await (const a of client.apis.list()) apis.push(a.id);
    expect(apis).toContain(api.id);

    const hook = { name: 'res-hook', target_url: 'https://example.com/hook', method: 'POST' as const, payload_template: {} };
    expect((await client.webhooks.create.plan(hook)).action).toBe('create');
    const webhook = await client.webhooks.create(hook);
    expectTypeOf(webhook).toEqualTypeOf<Schemas['Webhook']>();
    expect((await client.webhooks.update(webhook.id, { enabled: false })).enabled).toBe(false);
    expect((await client.webhooks.delete(webhook.id)).deleted).toBe(true);
    expect((await client.events.publish({ event: 'nobody.listens' })).deliveries).toEqual([]);
    // A filter, typed: the tester's verdict, and a webhook holding one answers it back.
    const verdict = await client.webhooks.testFilter({ filter: { data: { total: { $gt: 100 } } }, event: { data: { total: 80 } } });
    expect(verdict).toEqual({ matched: false, failed: { path: 'data.total', operator: '$gt', expected: 100, actual: 80 } });
    const filtered = await client.webhooks.create({ ...hook, name: 'res-filtered', filter: { data: { total: { $gt: 100 } } } });
    expect(filtered.filter).toEqual({ data: { total: { $gt: 100 } } });
    const err = await client.webhooks.create({ ...hook, name: 'res-bad-filter', filter: { data: { total: { $gt: [] } } } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, code: 'invalid_filter', details: { path: 'filter.data.total.$gt' } });
    await client.webhooks.delete(filtered.id);
    const tried = await client.webhooks.testTransformation({
      transformation: 'function handler(w) { w.method = "PUT"; return w; }',
      request: { url: 'https://example.com/hook', payload: { a: 1 } },
    });
    expectTypeOf(tried).toEqualTypeOf<Schemas['TransformationTestResult']>();
    expect(tried).toMatchObject({ outcome: 'transformed', request: { method: 'PUT', body: '{"a":1}' } });
  });

  it('throws the server’s errors as SwitchyardApiError with the typed code', async () => {
    const err = await client.functions.create({ name: 'bad name', code: CODE }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SwitchyardApiError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_request', details: { field: 'name' } });
    expectTypeOf<SwitchyardApiError['code']>().toEqualTypeOf<ErrorCode>();
    // The union, not string: a code the API does not have does not compile.
    // @ts-expect-error 'no_such_code' is not an ErrorCode
    const notACode: ErrorCode = 'no_such_code';
    expect(notACode).toBe('no_such_code');
    const denied = await createClient({ baseUrl: svc.url }).functions.list().pages()[Symbol.asyncIterator]().next().catch((e: unknown) => e);
    expect(denied).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('throws UnexpectedAnswerError for an answer that is not the API’s', async () => {
    const other = createServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<h1>Bad gateway</h1>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const err = await createClient({ baseUrl: `http://127.0.0.1:${(other.address() as AddressInfo).port}` })
        .functions.get('x')
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnexpectedAnswerError);
      expect(err).toMatchObject({ status: 502 });
    } finally {
      other.close();
    }
  });

  it('follows the log stream from the client, with its key and base URL', async () => {
    await client.functions.create({ name: 'res-logs', code: `exports.handler = async () => { console.log('from res-logs'); return 1; };` });
    const stop = new AbortController();
    const reading = (async () => {
      for await (const event of client.logs.follow({ function: 'res-logs', since: 0, signal: stop.signal })) {
        if (event.event === 'log') {
          stop.abort();
          return event.data.message;
        }
      }
    })();
    await client.functions.invoke('res-logs');
    expect(await reading).toBe('from res-logs');
  });
});
