/**
 * Store conformance suite: written once, run against every backend on a real
 * database (see test/helpers/store-backends.ts).
 */
import { mkdtempSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, ConflictError, UnknownFunctionError } from '../../src/errors.js';
import { openStore } from '../../src/store/index.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/migrations/postgres.js';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import { SQLITE_MIGRATIONS } from '../../src/store/migrations/sqlite.js';
import type { NewFunction, Store } from '../../src/store/store.js';
import type { Api, CorsConfig, FunctionLogLine } from '../../src/types.js';
import { backends, removeTempDatabases, type StoreBackend } from '../helpers/store-backends.js';
import { newWebhook } from '../helpers/webhook-fixture.js';
import type { Delivery } from '../../src/deliveries/types.js';
import type { Webhook } from '../../src/webhooks/types.js';
import { NO_APPLICATION_LIMITS } from '../../src/applications/types.js';

/** Back to migration 28: applications have no owner. */
async function undoApplicationOwners(b: StoreBackend, url: string): Promise<void> {
  await b.exec(url, 'ALTER TABLE applications DROP COLUMN project');
  await b.exec(url, 'DELETE FROM schema_migrations WHERE version = 29');
}

/** Back to migration 27: no portal settings. */
async function undoPortalSettings(b: StoreBackend, url: string): Promise<void> {
  await undoApplicationOwners(b, url);
  await b.exec(url, 'ALTER TABLE applications DROP COLUMN portal_json');
  await b.exec(url, 'DELETE FROM schema_migrations WHERE version = 28');
}

/** Back to migration 25 (with undoApplications first): deliveries keep no trace context. */
async function undoTraceContext(b: StoreBackend, url: string): Promise<void> {
  await b.exec(url, 'ALTER TABLE deliveries DROP COLUMN trace_context');
  await b.exec(url, 'DELETE FROM schema_migrations WHERE version = 26');
}

/** Back to migration 26: no applications. */
async function undoApplications(b: StoreBackend, url: string): Promise<void> {
  await undoPortalSettings(b, url);
  for (const index of ['webhooks_by_application', 'webhook_events_by_scope']) await b.exec(url, `DROP INDEX ${index}`);
  await b.exec(url, 'ALTER TABLE webhooks DROP COLUMN application_id');
  await b.exec(url, 'ALTER TABLE webhook_events DROP COLUMN application_id');
  for (const table of ['portal_tokens', 'applications']) await b.exec(url, `DROP TABLE ${table}`);
  await b.exec(url, 'DELETE FROM schema_migrations WHERE version = 27');
}

/** Back to migration 24: no lease heartbeats. */
async function undoHeartbeats(b: StoreBackend, url: string): Promise<void> {
  await undoApplications(b, url);
  await undoTraceContext(b, url);
  await b.exec(url, 'DROP TABLE lease_heartbeats');
  await b.exec(url, 'DELETE FROM schema_migrations WHERE version = 25');
}

/** Back to migration 23: no transformations. */
async function undoTransformations(b: StoreBackend, url: string): Promise<void> {
  await undoHeartbeats(b, url);
  await b.exec(url, 'ALTER TABLE webhooks DROP COLUMN transformation');
  await b.exec(url, 'ALTER TABLE delivery_attempts DROP COLUMN sent_json');
  await b.exec(url, 'DELETE FROM schema_migrations WHERE version = 24');
}

/** Back to migration 22: no secret rotation. */
async function undoSecretRotation(b: StoreBackend, url: string): Promise<void> {
  await undoTransformations(b, url);
  for (const c of ['secret_created_at', 'previous_secrets_json']) await b.exec(url, `ALTER TABLE webhooks DROP COLUMN ${c}`);
  await b.exec(url, 'DELETE FROM schema_migrations WHERE version = 23');
}

/** Back to migration 21: no payload filters. */
async function undoFilters(b: StoreBackend, url: string): Promise<void> {
  await undoSecretRotation(b, url);
  await b.exec(url, 'ALTER TABLE webhooks DROP COLUMN filter_json');
  await b.exec(url, 'DELETE FROM schema_migrations WHERE version = 22');
}

/** Back to migration 20: no event-type catalogue. */
async function undoEventTypes(b: StoreBackend, url: string): Promise<void> {
  await undoFilters(b, url);
  for (const table of ['event_type_violations', 'event_type_versions', 'event_types']) await b.exec(url, `DROP TABLE ${table}`);
  await b.exec(url, 'DELETE FROM schema_migrations WHERE version = 21');
}

/** Back to migration 19: no idempotency keys. */
async function undoIdempotencyKeys(b: StoreBackend, url: string): Promise<void> {
  await undoEventTypes(b, url);
  await b.exec(url, 'DROP TABLE idempotency_keys');
  await b.exec(url, 'DELETE FROM schema_migrations WHERE version = 20');
}

/** Back to migration 18: no owners. */
async function undoProjectOwners(b: StoreBackend, url: string): Promise<void> {
  await undoIdempotencyKeys(b, url);
  for (const table of ['functions', 'apis', 'webhooks']) await b.exec(url, `ALTER TABLE ${table} DROP COLUMN project`);
  await b.exec(url, 'DELETE FROM schema_migrations WHERE version = 19');
}

/** Back to the schema before migration 18 (endpoint health), as a database written by an older Switchyard. */
async function undoEndpointHealth(b: StoreBackend, url: string): Promise<void> {
  await undoProjectOwners(b, url);
  for (const sql of [
    'DROP TABLE recoveries',
    'DROP TABLE target_health',
    'DROP INDEX webhooks_by_origin',
    'DROP INDEX deliveries_held',
    ...['paused_at', 'disabled_reason', 'health_json', 'target_origin'].map((c) => `ALTER TABLE webhooks DROP COLUMN ${c}`),
    'ALTER TABLE deliveries DROP COLUMN retry_base',
    'DELETE FROM schema_migrations WHERE version = 18',
  ]) {
    await b.exec(url, sql);
  }
}

function fn(name: string, extra: Partial<NewFunction> = {}): NewFunction {
  return {
    name,
    runtime: 'javascript',
    code: `export function handler() { return { statusCode: 200, body: '${name}' }; }`,
    compiled: `exports.handler = function () { return { statusCode: 200, body: '${name}' }; };`,
    env: { GREETING: 'hi' },
    timeoutMs: 10000,
    memoryMb: 128,
    handler: null,
    eventFormat: 'switchyard',
    codeSha256: 'a'.repeat(64),
    ...extra,
  };
}

function line(message: string, level: FunctionLogLine['level'] = 'log'): FunctionLogLine {
  return { time: '2024-01-01T00:00:00.000Z', level, message, requestId: 'req1' };
}

/** A clock that moves one second per reading, so every write gets a distinct, known time. */
function fakeClock() {
  let t = Date.parse('2024-01-01T00:00:00.000Z');
  return () => new Date((t += 1000));
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

afterAll(() => removeTempDatabases());

for (const b of backends()) {
  describe(`store on ${b.name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await b.open({ now: fakeClock() });
    });
    afterEach(async () => {
      await store.close();
    });

    describe('functions', () => {
      it('creates, gets, lists, updates (bumping version) and deletes', async () => {
        const created = await store.createFunction(fn('hello'));
        expect(created).toMatchObject({ name: 'hello', version: 1, env: { GREETING: 'hi' }, timeoutMs: 10000 });
        expect(created.createdAt).toBe(created.updatedAt);
        expect(await store.getFunction('hello')).toEqual(created);
        expect(await store.getFunction('nope')).toBeNull();

        const updated = await store.updateFunction('hello', { code: 'new code', env: {}, memoryMb: 256 });
        expect(updated).toMatchObject({ name: 'hello', version: 2, code: 'new code', env: {}, memoryMb: 256 });
        expect(updated!.compiled).toBe(created.compiled); // untouched fields survive
        expect(updated!.createdAt).toBe(created.createdAt);
        expect(updated!.updatedAt > created.updatedAt).toBe(true);
        expect((await store.updateFunction('hello', {}))!.version).toBe(3);
        expect(await store.updateFunction('nope', { code: 'x' })).toBeNull();

        expect(await store.deleteFunction('hello')).toBe(true);
        expect(await store.getFunction('hello')).toBeNull();
        expect(await store.deleteFunction('hello')).toBe(false);
      });

      it('keeps handler and event format, resets handler with null and leaves both alone when absent', async () => {
        const created = await store.createFunction(fn('lambda', { handler: 'app.lambdaHandler', eventFormat: 'aws-v2' }));
        expect(created).toMatchObject({ handler: 'app.lambdaHandler', eventFormat: 'aws-v2' });
        expect(await store.getFunction('lambda')).toMatchObject({ handler: 'app.lambdaHandler', eventFormat: 'aws-v2' });
        const untouched = await store.updateFunction('lambda', { timeoutMs: 2000 });
        expect(untouched).toMatchObject({ handler: 'app.lambdaHandler', eventFormat: 'aws-v2', timeoutMs: 2000 });
        const reset = await store.updateFunction('lambda', { handler: null, eventFormat: 'aws-v1' });
        expect(reset).toMatchObject({ handler: null, eventFormat: 'aws-v1' });
        expect(await store.getFunction('plain-default')).toBeNull();
        expect(await store.createFunction(fn('plain-default'))).toMatchObject({ handler: null, eventFormat: 'switchyard' });
      });

      it('lists in creation order with keyset pagination by name', async () => {
        for (const name of ['zeta', 'alpha', 'mid']) await store.createFunction(fn(name));
        const names = (list: { name: string }[]) => list.map((f) => f.name);
        expect(names(await store.listFunctions({ limit: 100 }))).toEqual(['zeta', 'alpha', 'mid']);
        expect(names(await store.listFunctions({ limit: 2 }))).toEqual(['zeta', 'alpha']);
        expect(names(await store.listFunctions({ limit: 2, after: 'alpha' }))).toEqual(['mid']);
        expect(await store.listFunctions({ limit: 2, after: 'mid' })).toEqual([]);
        expect(await store.listFunctions({ limit: 2, after: 'unknown' })).toEqual([]);
      });

      it('refuses a duplicate name with function_exists', async () => {
        await store.createFunction(fn('dup'));
        const err = await rejection(store.createFunction(fn('dup', { code: 'other' })));
        expect(err).toBeInstanceOf(ConflictError);
        expect(err).toMatchObject({ code: 'function_exists', status: 409, message: "Function 'dup' already exists" });
        expect((await store.getFunction('dup'))!.code).not.toBe('other');
      });
    });

    describe('APIs and routes', () => {
      beforeEach(async () => {
        await store.createFunction(fn('users'));
        await store.createFunction(fn('orders'));
      });

      it('creates an API with routes and reads it back in route order', async () => {
        const api = await store.createApi({
          name: 'shop',
          basePath: '/v1',
          routes: [
            { method: 'GET', path: '/users/:id', function: 'users' },
            { method: 'POST', path: '/orders', function: 'orders' },
          ],
        });
        expect(api.id).toMatch(/^api_/);
        expect(api).toMatchObject({ name: 'shop', basePath: '/v1' });
        expect(api.routes.map((r) => [r.method, r.path, r.function])).toEqual([
          ['GET', '/users/:id', 'users'],
          ['POST', '/orders', 'orders'],
        ]);
        for (const r of api.routes) expect(r.id).toMatch(/^rt_/);
        expect(await store.getApi(api.id)).toEqual(api);
        expect(await store.getApi('api_missing')).toBeNull();
      });

      it('lists APIs by id with after + limit, each with its routes', async () => {
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          const api = await store.createApi({
            name: `api${i}`,
            basePath: `/b${i}`,
            routes: [{ method: 'GET', path: `/r${i}`, function: 'users' }],
          });
          ids.push(api.id);
        }
        const first = await store.listApis({ limit: 2 });
        expect(first.map((a) => a.id)).toEqual(ids.slice(0, 2));
        expect(first.map((a) => a.routes.map((r) => r.path))).toEqual([['/r0'], ['/r1']]);
        const rest = await store.listApis({ limit: 2, after: first[1].id });
        expect(rest.map((a) => a.name)).toEqual(['api2']);
        expect(rest[0].routes[0].path).toBe('/r2');
        expect(await store.listApis({ limit: 2, after: ids[2] })).toEqual([]);
      });

      it('treats routes differing only in parameter names as a conflict, per method', async () => {
        const err = await rejection(
          store.createApi({
            name: 'clash',
            basePath: '/',
            routes: [
              { method: 'GET', path: '/users/:id', function: 'users' },
              { method: 'GET', path: '/users/:name', function: 'users' },
            ],
          }),
        );
        expect(err).toBeInstanceOf(ConflictError);
        expect(err).toMatchObject({
          code: 'route_conflict',
          message: 'GET /users/:name conflicts with existing route GET /users/:id',
        });
        expect(await store.listApis({ limit: 10 })).toEqual([]); // all or nothing

        const api = await store.createApi({
          name: 'ok',
          basePath: '/',
          routes: [
            { method: 'GET', path: '/users/:id', function: 'users' },
            { method: 'POST', path: '/users/:name', function: 'users' },
            { method: 'ANY', path: '/users/:id', function: 'users' },
          ],
        });
        expect(api.routes).toHaveLength(3);

        const addErr = await rejection(store.addRoute(api.id, { method: 'GET', path: '/users/:name', function: 'orders' }));
        expect(addErr).toMatchObject({
          code: 'route_conflict',
          message: 'GET /users/:name conflicts with existing route GET /users/:id',
          details: { route: api.routes[0].id },
        });
        expect((await store.getApi(api.id))!.routes).toHaveLength(3);
      });

      it("treats API Gateway's {id} and {proxy+} as :id and *: the same shape, a conflict", async () => {
        const err = await rejection(
          store.createApi({
            name: 'clash',
            basePath: '/',
            routes: [
              { method: 'GET', path: '/items/:id', function: 'users' },
              { method: 'GET', path: '/items/{id}', function: 'users' },
            ],
          }),
        );
        expect(err).toMatchObject({
          code: 'route_conflict',
          message: 'GET /items/{id} conflicts with existing route GET /items/:id',
        });
        const api = await store.createApi({
          name: 'ok',
          basePath: '/',
          routes: [
            { method: 'ANY', path: '/{proxy+}', function: 'users' },
            { method: 'GET', path: '/items/{id}', function: 'users' },
          ],
        });
        // Stored as written.
        expect(api.routes.map((r) => r.path)).toEqual(['/{proxy+}', '/items/{id}']);
        const addErr = await rejection(store.addRoute(api.id, { method: 'ANY', path: '/*', function: 'users' }));
        expect(addErr).toMatchObject({
          code: 'route_conflict',
          message: 'ANY /* conflicts with existing route ANY /{proxy+}',
        });
      });

      it('refuses a route to an unknown function and writes nothing', async () => {
        const err = await rejection(
          store.createApi({
            name: 'bad',
            basePath: '/',
            routes: [
              { method: 'GET', path: '/a', function: 'users' },
              { method: 'GET', path: '/b', function: 'ghost' },
            ],
          }),
        );
        expect(err).toBeInstanceOf(UnknownFunctionError);
        expect((err as Error).message).toContain("'ghost'");
        expect(await store.listApis({ limit: 10 })).toEqual([]);
        expect(await store.routesUsingFunction('users')).toEqual([]);

        const api = await store.createApi({ name: 'good', basePath: '/', routes: [] });
        expect(await rejection(store.addRoute(api.id, { method: 'GET', path: '/x', function: 'ghost' }))).toBeInstanceOf(
          UnknownFunctionError,
        );
        expect((await store.getApi(api.id))!.routes).toEqual([]);
      });

      it('updates an API atomically, replacing routes and keeping ids of unchanged ones', async () => {
        const api = await store.createApi({
          name: 'v1',
          basePath: '/one',
          routes: [
            { method: 'GET', path: '/keep', function: 'users' },
            { method: 'GET', path: '/drop', function: 'users' },
          ],
        });
        const failed = await rejection(
          store.updateApi(api.id, { name: 'v2', routes: [{ method: 'GET', path: '/new', function: 'ghost' }] }),
        );
        expect(failed).toBeInstanceOf(UnknownFunctionError);
        expect(await store.getApi(api.id)).toEqual(api);

        const updated = await store.updateApi(api.id, {
          name: 'v2',
          routes: [
            { method: 'POST', path: '/new', function: 'orders' },
            { method: 'GET', path: '/keep', function: 'orders' },
          ],
        });
        expect(updated).toMatchObject({ id: api.id, name: 'v2', basePath: '/one', createdAt: api.createdAt });
        expect(updated!.updatedAt > api.updatedAt).toBe(true);
        expect(updated!.routes.map((r) => `${r.method} ${r.path} ${r.function}`)).toEqual([
          'POST /new orders',
          'GET /keep orders',
        ]);
        expect(updated!.routes[1].id).toBe(api.routes[0].id);
        expect(await store.getApi(api.id)).toEqual(updated);

        const renamed = await store.updateApi(api.id, { basePath: '/two' });
        expect(renamed!.routes).toEqual(updated!.routes); // no `routes` leaves them alone
        expect(renamed!.basePath).toBe('/two');
        expect(await store.updateApi('api_missing', { name: 'x' })).toBeNull();
      });

      it('adds and deletes single routes, bumping the API updatedAt', async () => {
        const api = await store.createApi({
          name: 'a',
          basePath: '/',
          routes: [{ method: 'GET', path: '/one', function: 'users' }],
        });
        const added = await store.addRoute(api.id, { method: 'PUT', path: '/two/:id', function: 'orders' });
        expect(added).toMatchObject({ method: 'PUT', path: '/two/:id', function: 'orders' });
        expect(added!.id).toMatch(/^rt_/);
        const afterAdd = (await store.getApi(api.id))!;
        expect(afterAdd.routes.map((r) => r.id)).toEqual([api.routes[0].id, added!.id]);
        expect(afterAdd.updatedAt > api.updatedAt).toBe(true);
        expect(await store.addRoute('api_missing', { method: 'GET', path: '/x', function: 'users' })).toBeNull();

        expect(await store.deleteRoute(api.id, api.routes[0].id)).toBe(true);
        const afterDelete = (await store.getApi(api.id))!;
        expect(afterDelete.routes.map((r) => r.id)).toEqual([added!.id]);
        expect(afterDelete.updatedAt > afterAdd.updatedAt).toBe(true);
        expect(await store.deleteRoute(api.id, api.routes[0].id)).toBe(false);
        expect(await store.deleteRoute('api_other', added!.id)).toBe(false);
      });

      it('refuses to delete a function bound by routes, listing them', async () => {
        const api = await store.createApi({
          name: 'a',
          basePath: '/',
          routes: [
            { method: 'GET', path: '/u', function: 'users' },
            { method: 'DELETE', path: '/u/:id', function: 'users' },
          ],
        });
        const err = await rejection(store.deleteFunction('users'));
        expect(err).toBeInstanceOf(ConflictError);
        expect(err).toMatchObject({
          code: 'function_in_use',
          message: "Function 'users' is bound by 2 routes",
          details: {
            routes: [
              { apiId: api.id, id: api.routes[0].id, method: 'GET', path: '/u' },
              { apiId: api.id, id: api.routes[1].id, method: 'DELETE', path: '/u/:id' },
            ],
          },
        });
        expect(await store.getFunction('users')).not.toBeNull();
        expect((await store.routesUsingFunction('users')).map((r) => [r.apiId, r.id])).toEqual([
          [api.id, api.routes[0].id],
          [api.id, api.routes[1].id],
        ]);
      });

      it('deleting an API deletes its routes and frees their functions', async () => {
        const api = await store.createApi({
          name: 'a',
          basePath: '/',
          routes: [{ method: 'GET', path: '/u', function: 'users' }],
        });
        expect(await store.deleteApi(api.id)).toBe(true);
        expect(await store.getApi(api.id)).toBeNull();
        expect(await store.routesUsingFunction('users')).toEqual([]);
        expect(await store.deleteFunction('users')).toBe(true);
        expect(await store.deleteApi(api.id)).toBe(false);
      });

      it("keeps an API's cors, minimumCompressionSize and binaryMediaTypes; a patch of one leaves the others", async () => {
        const cors: CorsConfig = {
          allowOrigins: ['https://app.example.com'],
          allowMethods: ['GET', 'POST'],
          allowHeaders: ['x-trace'],
          exposeHeaders: [],
          maxAge: 600,
          allowCredentials: true,
        };
        const api = await store.createApi({
          name: 'both',
          basePath: '/both',
          routes: [{ method: 'GET', path: '/u', function: 'users' }],
          cors,
          minimumCompressionSize: 1024,
          binaryMediaTypes: ['image/*'],
        });
        expect(api).toMatchObject({ cors, minimumCompressionSize: 1024, binaryMediaTypes: ['image/*'] });
        expect(await store.getApi(api.id)).toEqual(api);
        // Each setting alone: the others stay as they were.
        expect(await store.updateApi(api.id, { minimumCompressionSize: null })).toMatchObject({
          cors,
          minimumCompressionSize: null,
          binaryMediaTypes: ['image/*'],
        });
        expect(await store.updateApi(api.id, { cors: null })).toMatchObject({ cors: null, minimumCompressionSize: null, binaryMediaTypes: ['image/*'] });
        expect(await store.updateApi(api.id, { cors, binaryMediaTypes: null, minimumCompressionSize: 0 })).toMatchObject({
          cors,
          minimumCompressionSize: 0,
          binaryMediaTypes: null,
        });
        expect(await store.updateApi(api.id, { name: 'renamed' })).toMatchObject({ name: 'renamed', cors, minimumCompressionSize: 0, binaryMediaTypes: null });
        // An API created without them has none.
        expect(await store.createApi({ name: 'plain', basePath: '/plain', routes: [] })).toMatchObject({
          cors: null,
          minimumCompressionSize: null,
          binaryMediaTypes: null,
        });
      });
    });

    describe('function logs', () => {
      beforeEach(async () => {
        await store.createFunction(fn('f1'));
        await store.createFunction(fn('f2'));
      });

      it('appends and lists the newest lines, oldest first', async () => {
        await store.appendFunctionLogs('f1', [line('one'), line('two', 'warn')]);
        await store.appendFunctionLogs('f1', [line('three'), { ...line('four', 'error'), requestId: null }]);
        await store.appendFunctionLogs('f2', [line('other')]);
        const stored = { id: expect.any(Number), function: 'f1', version: null };
        expect(await store.listFunctionLogs('f1', 3)).toEqual([
          { ...line('two', 'warn'), ...stored },
          { ...line('three'), ...stored },
          { ...line('four', 'error'), requestId: null, ...stored },
        ]);
        expect((await store.listFunctionLogs('f2', 10)).map((l) => l.message)).toEqual(['other']);
        expect(await store.listFunctionLogs('nobody', 10)).toEqual([]);
      });

      it('reads lines after an id cursor, of every function or of the named ones, with their version', async () => {
        expect(await store.lastFunctionLogId()).toBe(0);
        await store.appendFunctionLogs('f1', [{ ...line('one'), version: 3 }, line('two')]);
        await store.appendFunctionLogs('f2', [line('other')]);
        const all = await store.listFunctionLogsAfter(0, null, 10);
        expect(all.map((l) => [l.function, l.message, l.version])).toEqual([
          ['f1', 'one', 3],
          ['f1', 'two', null],
          ['f2', 'other', null],
        ]);
        expect(all[0].id).toBeLessThan(all[1].id);
        expect(await store.lastFunctionLogId()).toBe(all[2].id);
        expect((await store.listFunctionLogsAfter(all[0].id, null, 10)).map((l) => l.message)).toEqual(['two', 'other']);
        expect((await store.listFunctionLogsAfter(all[0].id, null, 1)).map((l) => l.message)).toEqual(['two']);
        expect((await store.listFunctionLogsAfter(0, ['f2', 'nobody'], 10)).map((l) => l.message)).toEqual(['other']);
        expect(await store.listFunctionLogsAfter(all[2].id, null, 10)).toEqual([]);
      });

      it('prunes to the newest lines per function', async () => {
        await store.appendFunctionLogs('f1', ['a', 'b', 'c', 'd'].map((m) => line(m)));
        await store.appendFunctionLogs('f2', ['x', 'y', 'z'].map((m) => line(m)));
        await store.pruneFunctionLogs(2);
        expect((await store.listFunctionLogs('f1', 10)).map((l) => l.message)).toEqual(['c', 'd']);
        expect((await store.listFunctionLogs('f2', 10)).map((l) => l.message)).toEqual(['y', 'z']);
      });

      it('drops the logs with their function, and lines for a missing function', async () => {
        await store.appendFunctionLogs('f1', [line('old')]);
        await store.deleteFunction('f1');
        await store.appendFunctionLogs('f1', [line('late')]); // an invocation finishing after the delete
        await store.createFunction(fn('f1'));
        expect(await store.listFunctionLogs('f1', 10)).toEqual([]);
      });
    });

    it('keeps at most logRetention lines per function as lines arrive', async () => {
      const s = await b.open({ logRetention: 10 });
      try {
        await s.createFunction(fn('chatty'));
        for (let i = 0; i < 25; i++) await s.appendFunctionLogs('chatty', [line(`line ${i}`)]);
        const lines = await s.listFunctionLogs('chatty', 1000);
        expect(lines).toHaveLength(10);
        expect(lines.at(-1)!.message).toBe('line 24');
      } finally {
        await s.close();
      }
    });

    it('keeps everything across a restart', async () => {
      const url = await b.freshUrl();
      const first = await openStore(url);
      await first.createFunction(fn('persist'));
      await first.updateFunction('persist', { code: 'v2' });
      const api = await first.createApi({
        name: 'p',
        basePath: '/p',
        routes: [{ method: 'GET', path: '/x', function: 'persist' }],
      });
      await first.appendFunctionLogs('persist', [line('remember me')]);
      await first.close();

      const second = await openStore(url);
      try {
        expect(await second.getFunction('persist')).toMatchObject({ version: 2, code: 'v2' });
        expect(await second.getApi(api.id)).toEqual(api);
        expect((await second.listFunctionLogs('persist', 10)).map((l) => l.message)).toEqual(['remember me']);
      } finally {
        await second.close();
      }
    });

    it('migration 15 adds the compression columns to a database at migration 14, keeping its APIs and their cors', async () => {
      const url = await b.freshUrl();
      const cors: CorsConfig = {
        allowOrigins: ['*'],
        allowMethods: ['GET'],
        allowHeaders: [],
        exposeHeaders: ['x-request-id'],
        maxAge: null,
        allowCredentials: false,
      };
      const first = await openStore(url);
      let id: string;
      try {
        await first.createFunction(fn('older'));
        id = (await first.createApi({ name: 'older', basePath: '/o', routes: [{ method: 'GET', path: '/x', function: 'older' }], cors })).id;
      } finally {
        await first.close();
      }
      // Back to the schema of migration 14 (cors, before compression), the API as it was then.
      await undoEndpointHealth(b, url);
      for (const table of ['rate_buckets', 'quota_usage', 'api_key_usage', 'api_keys', 'usage_plans']) await b.exec(url, `DROP TABLE ${table}`);
      await b.exec(url, 'ALTER TABLE apis DROP COLUMN policy_json');
      await b.exec(url, 'ALTER TABLE routes DROP COLUMN policy_json');
      await b.exec(url, 'ALTER TABLE apis DROP COLUMN minimum_compression_size');
      await b.exec(url, 'ALTER TABLE apis DROP COLUMN binary_media_types');
      await b.exec(url, 'DELETE FROM schema_migrations WHERE version >= 15');
      expect(Number((await b.query(url, 'SELECT MAX(version) AS v FROM schema_migrations'))[0].v)).toBe(14);
      const again = await openStore(url);
      try {
        expect(await again.getApi(id)).toMatchObject({ name: 'older', cors, minimumCompressionSize: null, binaryMediaTypes: null });
        const applied = await b.query(url, 'SELECT version, name FROM schema_migrations WHERE version >= 14 ORDER BY version');
        expect(applied.map((r) => [Number(r.version), r.name])).toEqual([
          [14, 'api_cors'],
          [15, 'api_compression_binary_types'],
          [16, 'api_route_policy'],
          [17, 'api_keys_usage_plans_throttles'],
          [18, 'endpoint_health'],
          [19, 'project_owners'],
          [20, 'idempotency_keys'],
          [21, 'event_types'],
          [22, 'webhook_filters'],
          [23, 'webhook_secret_rotation'],
          [24, 'webhook_transformations'],
          [25, 'lease_heartbeats'],
          [26, 'delivery_trace_context'],
          [27, 'applications'],
          [28, 'application_portal_settings'],
          [29, 'application_owners'],
        ]);
        expect(await again.updateApi(id, { minimumCompressionSize: 512, binaryMediaTypes: ['application/octet-stream'] })).toMatchObject({
          cors,
          minimumCompressionSize: 512,
          binaryMediaTypes: ['application/octet-stream'],
        });
      } finally {
        await again.close();
      }
    });

    it('migration 16 gives a database at migration 15 the policy documents: its APIs read with the default policy, routes kept', async () => {
      const url = await b.freshUrl();
      const first = await openStore(url);
      let api: Api;
      try {
        await first.createFunction(fn('older'));
        api = await first.createApi({ name: 'older', basePath: '/o', routes: [{ method: 'GET', path: '/x', function: 'older' }], minimumCompressionSize: 10 });
      } finally {
        await first.close();
      }
      await b.exec(url, 'ALTER TABLE apis DROP COLUMN policy_json');
      await b.exec(url, 'ALTER TABLE routes DROP COLUMN policy_json');
      await b.exec(url, 'DELETE FROM schema_migrations WHERE version = 16');
      const again = await openStore(url);
      try {
        expect(await again.getApi(api.id)).toEqual(api);
        expect(api).toMatchObject({ errorFormat: 'switchyard', exposeErrors: false, minimumCompressionSize: 10 });
        const updated = await again.updateApi(api.id, { errorFormat: 'aws' });
        expect(updated).toMatchObject({ errorFormat: 'aws', exposeErrors: false, minimumCompressionSize: 10, routes: api.routes });
      } finally {
        await again.close();
      }
    });

    it('a delivery keeps the trace context of its cause through the claim (migration 26); an untraced one has none', async () => {
      const webhook = await store.createWebhook({ ...newWebhook('https://example.com/in'), name: 'traced' });
      const due = new Date(Date.now() - 1000).toISOString();
      const carrier = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\nvendor=abc';
      const traced = await store.createDelivery({ webhookId: webhook.id, trigger: 'event', scheduledFor: null, event: 'e', eventData: 1, nextAttemptAt: due, traceContext: carrier });
      const plain = await store.createDelivery({ webhookId: webhook.id, trigger: 'event', scheduledFor: null, event: 'e', eventData: 2, nextAttemptAt: due });
      expect(traced.traceContext).toBe(carrier);
      expect(plain).not.toHaveProperty('traceContext');
      const claimed = await store.claimDueDeliveries('owner', new Date().toISOString(), 90_000, 10);
      expect(claimed.find((d) => d.id === traced.id)?.traceContext).toBe(carrier);
      expect(claimed.find((d) => d.id === plain.id)).not.toHaveProperty('traceContext');
    });

    it("creates an event's deliveries in one transaction: all of them in order, or none when one names a missing webhook", async () => {
      const a = await store.createWebhook({ ...newWebhook('https://example.com/a'), name: 'fan-a' });
      const c = await store.createWebhook({ ...newWebhook('https://example.com/c'), name: 'fan-c' });
      const due = new Date().toISOString();
      const to = (webhookId: string, n: number) => ({ webhookId, trigger: 'event' as const, scheduledFor: null, event: 'fan', eventData: n, nextAttemptAt: due });
      const made = await store.createDeliveries([to(a.id, 1), to(c.id, 2), to(a.id, 3)]);
      expect(made.map((d) => [d.webhookId, d.eventData, d.status])).toEqual([[a.id, 1, 'pending'], [c.id, 2, 'pending'], [a.id, 3, 'pending']]);
      expect(new Set(made.map((d) => d.id)).size).toBe(3);
      for (const d of made) expect(await store.getDelivery(d.id)).toEqual(d);
      // The third names a webhook that does not exist: the first two are not kept either.
      await expect(store.createDeliveries([to(a.id, 4), to(c.id, 5), to('wh_missing', 6)])).rejects.toMatchObject({
        code: 'webhook_not_found',
        message: expect.stringContaining('wh_missing'),
      });
      const listed = async (id: string) => (await store.listDeliveries(id, { limit: 50 })).map((d) => d.eventData);
      expect(await listed(a.id)).toEqual([3, 1]);
      expect(await listed(c.id)).toEqual([2]);
      // Past PostgreSQL's rows per statement (1,000): still all, in order.
      const many = await store.createDeliveries(Array.from({ length: 1001 }, (_, i) => to(c.id, 100 + i)));
      expect(many.map((d) => d.eventData)).toEqual(Array.from({ length: 1001 }, (_, i) => 100 + i));
      expect(new Set(many.map((d) => d.id)).size).toBe(1001);
      expect((await store.getDelivery(many[1000].id))?.eventData).toBe(1100);
    });

    it("migration 18 gives a database at migration 17 endpoint health: webhooks keep their fields, get their origin and default settings, deliveries stay pending", async () => {
      const url = await b.freshUrl();
      const first = await openStore(url);
      let webhook: Webhook;
      let delivery: Delivery;
      try {
        webhook = await first.createWebhook({ ...newWebhook('HTTPS://user:pw@Hooks.Example.COM:443/in?x=1#y'), name: 'older' });
        delivery = await first.createDelivery({ webhookId: webhook.id, trigger: 'event', scheduledFor: null, event: 'e', eventData: 1, nextAttemptAt: new Date().toISOString() });
      } finally {
        await first.close();
      }
      await undoEndpointHealth(b, url);
      const again = await openStore(url);
      try {
        const [row] = await b.query(url, `SELECT target_origin FROM webhooks WHERE id = '${webhook.id}'`);
        expect(row.target_origin).toBe('https://hooks.example.com');
        expect(await again.getWebhook(webhook.id)).toMatchObject({
          name: 'older',
          pausedAt: null,
          disabledReason: null,
          secretCreatedAt: null,
          previousSecrets: [],
          breaker: { enabled: true, minAttempts: 20, failureRatio: 0.5, windowS: 60 },
          rateLimit: null,
          autoDisable: { afterS: 432_000, minSpanS: 43_200 },
        });
        expect(await again.getDelivery(delivery.id)).toMatchObject({ status: 'pending', retryBase: 0 });
        expect(await again.countHeldDeliveries()).toBe(0);
      } finally {
        await again.close();
      }
    });

    it('migration 19 gives functions, APIs and webhooks an owner: none for what a database at migration 18 holds; a write records one, a patch keeps or clears it', async () => {
      const url = await b.freshUrl();
      const first = await openStore(url);
      let apiId: string;
      let hookId: string;
      try {
        await first.createFunction(fn('older'));
        apiId = (await first.createApi({ name: 'older', basePath: '/o', routes: [{ method: 'GET', path: '/x', function: 'older' }] })).id;
        hookId = (await first.createWebhook({ ...newWebhook('https://example.com/in'), name: 'older' })).id;
      } finally {
        await first.close();
      }
      await undoProjectOwners(b, url);
      const again = await openStore(url);
      try {
        expect(await again.getFunction('older')).toMatchObject({ name: 'older', project: null, version: 1 });
        expect(await again.getApi(apiId)).toMatchObject({ name: 'older', project: null, routes: [{ path: '/x' }] });
        expect(await again.getWebhook(hookId)).toMatchObject({ name: 'older', project: null });
        expect(await again.createFunction(fn('owned', { project: 'shop' }))).toMatchObject({ project: 'shop' });
        expect(await again.updateFunction('owned', { timeoutMs: 2000 })).toMatchObject({ project: 'shop', timeoutMs: 2000 });
        expect(await again.updateFunction('owned', { project: null })).toMatchObject({ project: null });
        expect(await again.updateApi(apiId, { project: 'shop' })).toMatchObject({ project: 'shop' });
        expect(await again.updateApi(apiId, { name: 'renamed' })).toMatchObject({ project: 'shop', name: 'renamed' });
        expect(await again.updateWebhook(hookId, { project: 'shop' })).toMatchObject({ project: 'shop' });
      } finally {
        await again.close();
      }
    });

    it('migration 29 gives applications an owner: none for what a database at migration 28 holds; a write records one', async () => {
      const url = await b.freshUrl();
      const first = await openStore(url);
      let appId: string;
      const application = { name: 'older', uid: null, metadata: {}, limits: NO_APPLICATION_LIMITS, portal: { allowedParents: [], theme: { logoUrl: null, primaryColor: null, mode: 'auto' as const } } };
      try {
        appId = (await first.createApplication(application)).id;
      } finally {
        await first.close();
      }
      await undoApplicationOwners(b, url);
      const again = await openStore(url);
      try {
        expect(await again.getApplication(appId)).toMatchObject({ name: 'older', project: null });
        expect(await again.updateApplication(appId, { project: 'shop' })).toMatchObject({ project: 'shop' });
        expect(await again.createApplication({ ...application, name: 'owned', project: 'blog' })).toMatchObject({ project: 'blog' });
      } finally {
        await again.close();
      }
    });

    it('migration 23 reads a webhook of a database before it with its secret and no previous ones; a rotation under the lock keeps both', async () => {
      const url = await b.freshUrl();
      const first = await openStore(url);
      const secret = 'whsec_' + Buffer.alloc(32, 1).toString('base64');
      let hookId: string;
      try {
        hookId = (await first.createWebhook({ ...newWebhook('https://example.com/in'), name: 'older', secret })).id;
      } finally {
        await first.close();
      }
      await undoSecretRotation(b, url);
      const again = await openStore(url);
      try {
        expect(await again.getWebhook(hookId)).toMatchObject({ secret, secretCreatedAt: null, previousSecrets: [] });
        const next = 'whsec_' + Buffer.alloc(32, 2).toString('base64');
        const rotated = await again.rotateWebhookSecret(hookId, { secret: next, at: '2026-12-01T00:00:00.000Z', overlapUntil: '2026-12-02T00:00:00.000Z' });
        expect(rotated).toMatchObject({
          secret: next,
          secretCreatedAt: '2026-12-01T00:00:00.000Z',
          previousSecrets: [{ secret, createdAt: null, expiresAt: '2026-12-02T00:00:00.000Z' }],
        });
        // Other writes keep what a rotation stored.
        expect((await again.updateWebhook(hookId, { name: 'renamed' }))?.previousSecrets).toHaveLength(1);
        expect(await again.rotateWebhookSecret('wh_missing', { secret: next, at: '2026-12-01T00:00:00.000Z', overlapUntil: '2026-12-02T00:00:00.000Z' })).toBeNull();
      } finally {
        await again.close();
      }
    });

    it('keeps an API policy field until a patch changes it, and stores only the fields that differ from their defaults', async () => {
      const url = await b.freshUrl();
      const s = await openStore(url);
      try {
        await s.createFunction(fn('p'));
        const api = await s.createApi({ name: 'p', basePath: '/p', routes: [], exposeErrors: true });
        expect(api).toMatchObject({ errorFormat: 'switchyard', exposeErrors: true });
        expect(await s.updateApi(api.id, { name: 'renamed' })).toMatchObject({ exposeErrors: true, errorFormat: 'switchyard' });
        expect(await s.updateApi(api.id, { errorFormat: 'aws' })).toMatchObject({ exposeErrors: true, errorFormat: 'aws' });
        const stored = async () => (await b.query(url, `SELECT policy_json FROM apis WHERE id = '${api.id}'`))[0].policy_json;
        expect(JSON.parse(String(await stored()))).toEqual({ errorFormat: 'aws', exposeErrors: true });
        // Back to the defaults: nothing is stored, so a default changed later reaches this API.
        expect(await s.updateApi(api.id, { errorFormat: 'switchyard', exposeErrors: false })).toMatchObject({ errorFormat: 'switchyard', exposeErrors: false });
        expect(await stored()).toBeNull();
      } finally {
        await s.close();
      }
    });

    it(`opens through openStore as kind ${b.name}, answering ping until closed`, async () => {
      const url = await b.freshUrl();
      // postgresql:// is the other spelling PostgreSQL tools use (a no-op for other backends).
      for (const u of [url, url.replace(/^postgres:/, 'postgresql:')]) {
        const s = await openStore(u);
        expect(s.kind).toBe(b.name);
        await s.ping();
        await s.close();
        await expect(s.ping()).rejects.toThrow();
        await s.close(); // closing twice is harmless
      }
    });

    it('migrates once when several nodes start together on a fresh database', async () => {
      const url = await b.freshUrl();
      const stores = await Promise.all([openStore(url), openStore(url), openStore(url)]);
      try {
        await stores[0].createFunction(fn('shared'));
        expect((await stores[2].getFunction('shared'))!.name).toBe('shared');
        const applied = await b.query(url, 'SELECT version, name FROM schema_migrations ORDER BY version');
        expect(applied.map((r) => [Number(r.version), r.name])).toEqual(SQLITE_MIGRATIONS.map((m) => [m.version, m.name]));
      } finally {
        for (const s of stores) await s.close();
      }
    });

    it('refuses a database written by a newer Switchyard', async () => {
      const url = await b.freshUrl();
      await (await openStore(url)).close();
      await b.exec(url, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', '2099-01-01')");
      const err = await rejection(openStore(url));
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(/newer Switchyard/);
      expect((err as Error).message).toMatch(/version 999/);
      expect((err as Error).message).toMatch(/knows versions up to \d+\./);
    });
  });
}

describe('migrations', () => {
  it('are the same numbered steps on every backend', () => {
    const steps = (list: typeof SQLITE_MIGRATIONS) => list.map((m) => `${m.version} ${m.name}`);
    expect(steps(POSTGRES_MIGRATIONS)).toEqual(steps(SQLITE_MIGRATIONS));
    expect(SQLITE_MIGRATIONS.length).toBeGreaterThan(0);
  });
});

describe('openStore', () => {
  it('opens sqlite: paths relative to the working directory, creating parent folders', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-open-'));
    try {
      const file = join(dir, 'nested', 'deeper', 'x.db');
      const store = await openStore(`sqlite:${relative(process.cwd(), file)}`);
      expect(store.kind).toBe('sqlite');
      await store.ping();
      await store.close();
      expect(existsSync(file)).toBe(true);
      const raw = new Database(file, { readonly: true });
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal'); // WAL persists in the file
      raw.close();
      await expect(store.ping()).rejects.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('opens sqlite::memory:', async () => {
    const store = await openStore('sqlite::memory:');
    await store.createFunction(fn('mem'));
    expect((await store.getFunction('mem'))!.name).toBe('mem');
    await store.close();
  });

  it('takes pool_max and schema out of a PostgreSQL URL and leaves the rest to the driver', () => {
    expect(parsePostgresUrl('postgres://u:p%40ss@db.local:6543/app?pool_max=3&schema=tenant_1&application_name=sy')).toEqual({
      connectionString: 'postgres://u:p%40ss@db.local:6543/app?application_name=sy',
      poolMax: 3,
      schema: 'tenant_1',
      options: '-c search_path="tenant_1"',
    });
    expect(parsePostgresUrl('postgresql://u@h/app?options=-c%20statement_timeout%3D5000&schema=s')).toMatchObject({
      connectionString: 'postgresql://u@h/app',
      poolMax: 10,
      options: '-c statement_timeout=5000 -c search_path="s"',
    });
    expect(parsePostgresUrl('postgres://u@h/app')).toEqual({
      connectionString: 'postgres://u@h/app',
      poolMax: 10,
      schema: null,
      options: undefined,
    });
  });

  it('refuses bad PostgreSQL URL parameters before connecting, and unknown schemes, with ConfigError', async () => {
    // Port 1 has no server: a refusal here can only come from parsing the URL.
    const bad = [
      ['postgres://u@127.0.0.1:1/db?pool_max=0', /pool_max must be a whole number from 1 to 1000, got "0"/],
      ['postgresql://u@127.0.0.1:1/db?pool_max=ten', /pool_max .* got "ten"/],
      ['postgres://u@127.0.0.1:1/db?schema=a;drop', /schema must be letters, digits and _ .* got "a;drop"/],
    ] as const;
    for (const [url, message] of bad) {
      const err = await rejection(openStore(url));
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(message);
    }
    expect(await rejection(openStore('postgres://u@127.0.0.1:1/db'))).not.toBeInstanceOf(ConfigError);
    expect(await rejection(openStore('mysql://x'))).toBeInstanceOf(ConfigError);
    expect(await rejection(openStore('sqlite:'))).toBeInstanceOf(ConfigError);
  });
});
