/**
 * The service as a process: state survives a restart on the same SQLite file,
 * SIGTERM lets in-flight requests finish, the admin key guards the management
 * API, and the server refuses to start when it would be unsafe or when the
 * database was written by a newer Switchyard.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, waitFor, type Receiver } from '../helpers/receiver.js';
import { TEST_STORE, startService, tempDbUrl, type RunningService } from '../helpers/service.js';

const HELLO = `exports.handler = async (event) => ({ statusCode: 200, body: { hello: event.pathParameters.name } });`;

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

async function seed(svc: RunningService, headers: Record<string, string> = {}) {
  const fn = await svc.request('POST', '/api/functions', { name: 'greeter', code: HELLO, env: { K: 'v' } }, headers);
  expect(fn.status, fn.text).toBe(201);
  const fn2 = await svc.request('POST', '/api/functions', { name: 'second', code: HELLO }, headers);
  expect(fn2.status, fn2.text).toBe(201);
  const api = await svc.request(
    'POST',
    '/api/apis',
    { name: 'Greetings', basePath: '/greet', routes: [{ method: 'GET', path: '/:name', function: 'greeter' }] },
    headers,
  );
  expect(api.status, api.text).toBe(201);
  return api.json.id as string;
}

describe('restart', () => {
  it('keeps functions, APIs and routes on the same database', async () => {
    const dbUrl = tempDbUrl();
    const first = await startService({ dbUrl });
    let apiId: string;
    let before;
    try {
      apiId = await seed(first);
      before = await first.request('GET', `/api/invoke/fn/${apiId}/greet/ada`);
      expect(before.status).toBe(200);
      expect(before.json).toEqual({ hello: 'ada' });
    } finally {
      expect(await first.stop('SIGTERM')).toBe(0);
    }

    const second = await startService({ dbUrl });
    try {
      const after = await second.request('GET', `/api/invoke/fn/${apiId}/greet/ada`);
      expect(after.status).toBe(200);
      expect(after.json).toEqual(before.json);
      const fns = await second.request('GET', '/api/functions');
      expect(fns.json.map((f: { name: string }) => f.name).sort()).toEqual(['greeter', 'second']);
      expect(fns.json.find((f: { name: string }) => f.name === 'greeter').env_keys).toEqual(['K']);
      const apis = await second.request('GET', '/api/apis');
      expect(apis.json).toHaveLength(1);
      expect(apis.json[0]).toMatchObject({ id: apiId, name: 'Greetings', basePath: '/greet' });
      expect(apis.json[0].routes).toEqual([expect.objectContaining({ method: 'GET', path: '/:name', function: 'greeter' })]);
    } finally {
      await second.stop();
    }
  }, 40000);
});

describe('graceful shutdown', () => {
  it('finishes a request in flight when SIGTERM arrives, then exits 0', async () => {
    // A short grace period: if idle keep-alive connections were left open, the exit would wait for it.
    const svc = await startService({ env: { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1', SWITCHYARD_SHUTDOWN_GRACE_MS: '5000' } });
    let exit: Promise<number | null> | null = null;
    try {
      await svc.request('POST', '/api/functions', {
        name: 'slow',
        code: `exports.handler = async () => {
          await fetch(${JSON.stringify(receiver.url + '/slow-started')});
          await new Promise((r) => setTimeout(r, 1000));
          return { statusCode: 200, body: { finished: true } };
        };`,
      });
      const api = await svc.request('POST', '/api/apis', {
        name: 'slow',
        basePath: '/',
        routes: [{ method: 'GET', path: '/slow', function: 'slow' }],
      });
      const inFlight = svc.request('GET', `/api/invoke/fn/${api.json.id}/slow`);
      await waitFor(() => receiver.requests.some((r) => r.url === '/slow-started'));
      exit = svc.stop('SIGTERM');
      const res = await inFlight;
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ finished: true });
      expect(await exit).toBe(0);
      // Once the last in-flight request is answered nothing should hold the server open:
      // the keep-alive connection that carried it must not have to be cut by the grace timer.
      expect(svc.output.join('')).not.toContain('grace period over');
    } finally {
      if (!exit) await svc.stop();
    }
  }, 30000);
});

describe('admin key', () => {
  let svc: RunningService;
  const auth = { authorization: 'Bearer k3y' };

  beforeAll(async () => {
    svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: 'k3y' } });
  }, 30000);
  afterAll(async () => {
    await svc?.stop();
  });

  it('answers 401 unauthorized without the key or with a wrong one', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: 'k3y' }, { authorization: 'Basic azN5' }] as Record<string, string>[]) {
      for (const [method, path, body] of [
        ['GET', '/api/functions', undefined],
        ['GET', '/api/apis', undefined],
        ['POST', '/api/functions', { name: 'sneaky', code: HELLO }],
      ] as const) {
        const res = await svc.request(method, path, body, headers);
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.json.code).toBe('unauthorized');
        expect(typeof res.json.error).toBe('string');
      }
    }
  });

  it('accepts the right key and keeps invocation routes public', async () => {
    const apiId = await seed(svc, auth);
    const list = await svc.request('GET', '/api/functions', undefined, auth);
    expect(list.status).toBe(200);
    expect(list.json.map((f: { name: string }) => f.name)).not.toContain('sneaky');
    const res = await svc.request('GET', `/api/invoke/fn/${apiId}/greet/bob`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ hello: 'bob' });
    expect((await svc.request('GET', '/healthz')).status).toBe(200);
  });
});

describe('refusing to start', () => {
  it('refuses a non-loopback HOST without an admin key, naming SWITCHYARD_ADMIN_KEY', async () => {
    const err = await startService({ env: { HOST: '0.0.0.0' } }).then(
      (svc) => svc.stop().then(() => null),
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(/server exited with [1-9]/);
    expect(err!.message).toContain('SWITCHYARD_ADMIN_KEY');
  }, 30000);

  // Writes the SQLite file directly; the store conformance suite covers this on PostgreSQL.
  it.skipIf(TEST_STORE === 'postgres')('refuses a database written by a newer Switchyard', async () => {
    const dbUrl = tempDbUrl();
    const svc = await startService({ dbUrl });
    expect(await svc.stop()).toBe(0);

    const db = new Database(dbUrl.slice('sqlite:'.length));
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
      999,
      'from-the-future',
      new Date().toISOString(),
    );
    db.close();

    const err = await startService({ dbUrl }).then(
      (s) => s.stop().then(() => null),
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(/server exited with [1-9]/);
    expect(err!.message).toMatch(/newer Switchyard/);
  }, 30000);
});
