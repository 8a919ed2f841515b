/**
 * Clients generated from the OpenAPI document by two common generators,
 * against a real server: openapi-fetch (over the types openapi-typescript
 * writes at build time) and @hey-api/openapi-ts (its fetch client and SDK,
 * generated here into a temporary folder from dist/openapi.json). Both must
 * be able to call the invocation operations, whose `{path}` they send with
 * its slashes encoded, read every answer as JSON (a dry run without a
 * Content-Type came back to @hey-api as a stream), send numbers for numeric
 * parameters, and get the documented union of error codes.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import createFetchClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../src/client/schema.js';
import { startService, type RunningService } from '../helpers/service.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const KEY = 'generated-clients-key';
// Answers with what the gateway gave the function: the path and its parameters.
const ECHO = `exports.handler = async (event) => ({ statusCode: 200, body: { method: event.httpMethod, path: event.path, params: event.pathParameters, body: event.body } });`;

let svc: RunningService;
let apiId: string;
let rootApiId: string;
let outDir: string;
// The generated SDK: its functions are named after the operationIds.
let sdk: Record<string, (options?: Record<string, unknown>) => Promise<{ data?: any; error?: any; response: Response }>>;

beforeAll(async () => {
  svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY } });
  const auth = { authorization: `Bearer ${KEY}` };
  expect((await svc.request('POST', '/api/functions', { name: 'echo', code: ECHO }, auth)).status).toBe(201);
  expect((await svc.request('POST', '/api/functions', { name: 'echo2', code: ECHO }, auth)).status).toBe(201);
  const api = await svc.request(
    'POST',
    '/api/apis',
    { name: 'users', basePath: '/v1', routes: [{ method: 'GET', path: '/users/:id', function: 'echo' }, { method: 'POST', path: '/users', function: 'echo' }] },
    auth,
  );
  apiId = api.json.id;
  const root = await svc.request('POST', '/api/apis', { name: 'files', basePath: '/', routes: [{ method: 'GET', path: '/files/:name', function: 'echo' }] }, auth);
  rootApiId = root.json.id;

  // Generated like a user would, from the document the build writes, into a folder of its own.
  outDir = join(ROOT, '.tmp', `hey-api-${process.pid}`);
  mkdirSync(outDir, { recursive: true });
  const { createClient } = await import('@hey-api/openapi-ts');
  await createClient({
    input: join(ROOT, 'dist', 'openapi.json'),
    output: { path: outDir },
    logs: { level: 'silent' },
    plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
  });
  sdk = (await import(join(outDir, 'sdk.gen.ts'))) as typeof sdk;
  const { client } = (await import(join(outDir, 'client.gen.ts'))) as { client: { setConfig(config: Record<string, unknown>): void } };
  client.setConfig({ baseUrl: svc.url, auth: () => KEY });
}, 90_000);

afterAll(async () => {
  await svc?.stop();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe('openapi-fetch', () => {
  const client = () => createFetchClient<paths>({ baseUrl: svc.url, headers: { authorization: `Bearer ${KEY}` } });

  it('calls a route through the invocation operation: the encoded path reaches the route as if sent with slashes', async () => {
    const got = await client().GET('/api/invoke/fn/{apiId}/{path}', { params: { path: { apiId, path: 'v1/users/42' } }, parseAs: 'json' });
    expect(got.response.url).toContain('/v1%2Fusers%2F42');
    expect(got.response.status).toBe(200);
    expect(got.data).toEqual({ method: 'GET', path: '/v1/users/42', params: { id: '42' }, body: null });
    // Given with its leading slash, as the basePath is written.
    const slash = await client().GET('/api/invoke/fn/{apiId}/{path}', { params: { path: { apiId, path: '/v1/users/7' } }, parseAs: 'json' });
    expect(slash.data).toMatchObject({ path: '/v1/users/7', params: { id: '7' } });
    const posted = await client().POST('/api/invoke/fn/{apiId}/{path}', { params: { path: { apiId, path: 'v1/users' } }, body: { name: 'Ann' }, parseAs: 'json' });
    expect(posted.data).toMatchObject({ method: 'POST', path: '/v1/users', body: { name: 'Ann' } });
  });

  it("answers a path that matches no route with the gateway's no_route error", async () => {
    const missing = await client().GET('/api/invoke/fn/{apiId}/{path}', { params: { path: { apiId, path: 'v1/nobody/here' } } });
    expect(missing.response.status).toBe(404);
    // Typed loosely: any answer may be the function's own (the `default` answer), not only the gateway's Error.
    expect(missing.error).toMatchObject({ code: 'no_route' });
  });

  it('sends numbers for numeric query parameters', async () => {
    const page = await client().GET('/api/functions', { params: { query: { limit: 1 } } });
    expect(page.response.url).toMatch(/\?limit=1$/);
    expect(page.data).toHaveLength(1);
  });
});

describe('@hey-api/openapi-ts', () => {
  it('generates types with number parameters and the union of error codes', () => {
    const types = readFileSync(join(outDir, 'types.gen.ts'), 'utf8');
    expect(types).toMatch(/export type ListFunctionsData = \{[^}]*limit\?: number;/s);
    expect(types).toMatch(/code: 'invalid_request' \|[^;]*'invalid_code' \|[^;]*'function_not_found'/);
  });

  it('calls a route through the invocation operation, at the API root and under a basePath', async () => {
    const got = await sdk.invokeGet({ path: { apiId, path: 'v1/users/42' } });
    expect(got.response.status).toBe(200);
    expect(got.data).toEqual({ method: 'GET', path: '/v1/users/42', params: { id: '42' }, body: null });
    const file = await sdk.invokeGet({ path: { apiId: rootApiId, path: 'files/report.pdf' } });
    expect(file.data).toMatchObject({ path: '/files/report.pdf', params: { name: 'report.pdf' } });
    // An escaped %2F inside the value stays one: decoded once, it is the parameter's text.
    const escaped = await sdk.invokeGet({ path: { apiId: rootApiId, path: 'files/a%2Fb' } });
    expect(escaped.data).toMatchObject({ params: { name: 'a%2Fb' } });
  });

  it('reads dry runs as JSON, not as a stream', async () => {
    const plan = await sdk.createFunction({ body: { name: 'planned', code: ECHO }, query: { dry_run: 'true' } });
    expect(plan.response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(plan.data).toEqual({ dry_run: true, action: 'create', changes: ['code'] });
    const update = await sdk.updateFunction({ path: { name: 'echo' }, body: { memory_mb: 64 }, query: { dry_run: 'true' } });
    expect(update.data).toEqual({ dry_run: true, action: 'update', changes: ['memory_mb'] });
    const remove = await sdk.deleteApi({ path: { id: rootApiId }, query: { dry_run: 'true' } });
    expect(remove.data).toEqual({ dry_run: true, action: 'delete', changes: [] });
  });

  it('pages with a numeric limit and reads typed errors', async () => {
    const page = await sdk.listFunctions({ query: { limit: 1 } });
    expect(page.data).toHaveLength(1);
    expect(page.response.headers.get('link')).toMatch(/rel="next"/);
    const missing = await sdk.getFunction({ path: { name: 'nobody' } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ code: 'function_not_found' });
  });
});
