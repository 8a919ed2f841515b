/**
 * The typed client (`switchyard-gateway/client`) against a real server: its
 * types come from the OpenAPI document the build generates, so this file only
 * compiles (npm run typecheck:tests) while the calls below match the API, and
 * it passes only while the server answers what the types say.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, followDeliveries, followLogs, type AttemptStreamEvent, type Schemas, type StreamEvent, type SwitchyardClient } from '../../src/client/index.js';
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
    expect(published.data).toEqual({ event: 'nobody.listens', deliveries: [], functions: [] });
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
