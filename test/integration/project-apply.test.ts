/**
 * Projects against a real server over HTTP: apply creates, a second plan is
 * empty, edits update, prune deletes, an invalid project changes nothing,
 * an export plans nothing, a webhook's endpoint-health settings go both ways,
 * and the imported sample serverless.yml and SAM template answer on their routes.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  applyPlan,
  createHttpProjectApi,
  exportProject,
  importSam,
  importServerless,
  loadProject,
  planProject,
  ProjectError,
  readServerState,
  renderPlan,
  type ProjectApi,
} from '../../src/project/index.js';
import { startService, type RunningService } from '../helpers/service.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

let svc: RunningService;
let api: ProjectApi;
beforeAll(async () => {
  svc = await startService();
  api = createHttpProjectApi({ baseUrl: svc.url });
});
afterAll(async () => {
  await svc?.stop();
});

function projectDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-project-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

async function plan(dir: string, opts: { prune?: boolean; env?: Record<string, string>; file?: string; takeOver?: boolean } = {}) {
  // The variables a test hands in are the ones it allows, as `--env-from` would.
  const { project } = await loadProject(join(dir, opts.file ?? 'switchyard.yaml'), { env: opts.env ?? {}, envFrom: Object.keys(opts.env ?? {}) });
  return planProject(project, await readServerState(api, project), { prune: opts.prune, takeOver: opts.takeOver });
}

const HELLO = `export const handler = async () => ({ statusCode: 200, body: 'hello ' + process.env.GREETING });`;
const USER = `export const handler = async (event) => ({ id: event.pathParameters.id, v: 1 });`;
const PROJECT = `
functions:
  p-hello:
    file: functions/hello.js
    env:
      GREETING: \${env:GREETING}
  p-user:
    file: functions/user.mjs
    event_format: aws-v2
apis:
  p-shop:
    base_path: /shop
    routes:
      - { method: GET, path: /hello, function: p-hello }
      - { method: GET, path: '/users/{id}', function: p-user }
webhooks:
  p-ping:
    target_url: https://example.com/hook
    method: POST
    headers:
      authorization: Bearer \${env:TOKEN}
    payload_template: { event: '{{event}}' }
    events: [order.created]
    secret: generate
`;
const ENV = { GREETING: 'world', TOKEN: 'abc' };

async function invoke(apiName: string, path: string, method = 'GET') {
  const found = (await api.listApis()).find((a) => a.name === apiName)!;
  const res = await fetch(`${found.invokeUrl}${path}`, { method });
  return { status: res.status, text: await res.text() };
}

describe('apply', () => {
  const dir = projectDir({ 'switchyard.yaml': PROJECT, 'functions/hello.js': HELLO, 'functions/user.mjs': USER });

  it('creates everything, answers on its routes, and a second plan is empty', async () => {
    const first = await plan(dir, { env: ENV });
    expect(first.changes).toHaveLength(6);
    const { applied, generated_secrets } = await applyPlan(first, api);
    expect(applied).toHaveLength(6);
    expect(generated_secrets['p-ping']).toMatch(/^whsec_/);
    expect(await invoke('p-shop', '/hello')).toEqual({ status: 200, text: 'hello world' });
    expect(JSON.parse((await invoke('p-shop', '/users/42')).text)).toEqual({ id: '42', v: 1 });
    const hooks = await api.listWebhooks();
    expect(hooks.find((w) => w.name === 'p-ping')).toMatchObject({ has_secret: true, events: ['order.created'] });

    const second = await plan(dir, { env: ENV });
    expect(renderPlan(second)).toBe('No changes: the server matches the project.');
  });

  it('updates what changed: code, env values, a route, a sensitive header', async () => {
    writeFileSync(join(dir, 'functions/user.mjs'), USER.replace('v: 1', 'v: 2'));
    const edited = PROJECT.replace("path: '/users/{id}', function: p-user }", "path: '/users/{id}', function: p-user }\n      - { method: POST, path: /hello, function: p-hello }");
    writeFileSync(join(dir, 'switchyard.yaml'), edited);
    const p = await plan(dir, { env: { GREETING: 'again', TOKEN: 'def' } });
    expect(renderPlan(p).split('\n').slice(0, -2)).toEqual([
      '~ function p-hello (env)',
      '~ function p-user (code)',
      '+ route POST /hello (api p-shop) -> p-hello',
      '~ webhook p-ping (headers)',
    ]);
    await applyPlan(p, api);
    expect(await invoke('p-shop', '/hello', 'POST')).toEqual({ status: 200, text: 'hello again' });
    expect(JSON.parse((await invoke('p-shop', '/users/7')).text)).toEqual({ id: '7', v: 2 });
    expect((await plan(dir, { env: { GREETING: 'again', TOKEN: 'def' } })).changes).toEqual([]);
  });

  it('refuses an invalid project and changes nothing', async () => {
    const before = JSON.stringify([await api.listFunctions(), await api.listApis(), await api.listWebhooks()]);
    writeFileSync(join(dir, 'functions/user.mjs'), 'export const handler = ;');
    const p = await plan(dir, { env: { GREETING: 'third', TOKEN: 'def' } });
    expect(p.changes.map((c) => c.name)).toEqual(['p-hello', 'p-user']);
    const err = await applyPlan(p, api).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectError);
    expect((err as ProjectError).problems[0]).toMatchObject({ path: 'functions.p-user' });
    expect((err as ProjectError).message).toMatch(/functions\.p-user/);
    const after = JSON.stringify([await api.listFunctions(), await api.listApis(), await api.listWebhooks()]);
    expect(after).toBe(before);
    writeFileSync(join(dir, 'functions/user.mjs'), USER.replace('v: 1', 'v: 2'));
  });

  it('prunes only with prune: routes, webhooks and functions the file no longer names', async () => {
    await api.createFunction({ name: 'p-stray', code: HELLO, runtime: 'javascript', env: {}, timeout_ms: 1000, memory_mb: 64, event_format: 'switchyard' });
    writeFileSync(join(dir, 'switchyard.yaml'), PROJECT.replace(/webhooks:[\s\S]*$/, '').replace("      - { method: GET, path: '/users/{id}', function: p-user }\n", ''));
    const env = { GREETING: 'again', TOKEN: 'def' };
    expect((await plan(dir, { env })).changes).toEqual([]);
    const pruned = await plan(dir, { env, prune: true });
    expect(renderPlan(pruned).split('\n').slice(0, -2)).toEqual([
      '- route GET /users/{id} (api p-shop)',
      '- route POST /hello (api p-shop)',
      '- webhook p-ping',
      '- function p-stray',
    ]);
    await applyPlan(pruned, api);
    expect((await api.listFunctions()).map((f) => f.name)).toEqual(['p-hello', 'p-user']);
    expect((await api.listWebhooks()).map((w) => w.name)).toEqual([]);
    expect((await invoke('p-shop', '/users/1')).status).toBe(404);
    expect((await plan(dir, { env, prune: true })).changes).toEqual([]);
  });

  it('export then plan is empty', async () => {
    await api.createWebhook({
      name: 'p-export',
      target_url: 'https://example.com/x',
      method: 'PUT',
      headers: { 'x-api-key': 'k-123', 'x-source': 'sy' },
      payload_template: { a: '{{event}}' },
      cron: '0 * * * *',
      timezone: 'Europe/Berlin',
      mock_endpoint: { api_id: (await api.listApis())[0].id, path: '/shop/hello' },
      transformation: null,
      events: [],
      enabled: false,
      secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0',
      retry: { max_attempts: 2 },
      timeout_ms: 5000,
    });
    const exported = await exportProject(api);
    const out = projectDir(exported.files);
    expect(exported.env_vars.map((v) => v.name), JSON.stringify(exported.env_vars)).toEqual(['P_HELLO__GREETING', 'WEBHOOK_P_EXPORT_X_API_KEY', 'WEBHOOK_P_EXPORT_SECRET']);
    const env = { P_HELLO__GREETING: 'again', WEBHOOK_P_EXPORT_X_API_KEY: 'k-123', WEBHOOK_P_EXPORT_SECRET: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0' };
    expect(renderPlan(await plan(out, { env, prune: true }))).toBe('No changes: the server matches the project.');
    // The placeholders matter: another key value is a change.
    expect((await plan(out, { env: { ...env, WEBHOOK_P_EXPORT_X_API_KEY: 'k-999' } })).changes).toEqual([
      { action: 'update', kind: 'webhook', name: 'p-export', fields: ['headers'] },
    ]);
  });
});

describe('a webhook URL with credentials', () => {
  const CRED = `
env_from: [URL_PASS, URL_TOKEN]
webhooks:
  p-cred:
    target_url: https://hook-user:\${env:URL_PASS}@example.com/cred?token=\${env:URL_TOKEN}&x=1
    method: POST
    payload_template: {}
`;

  it('shows masked, plans nothing again, plans a change of a credential, and exports as a placeholder', async () => {
    const dir = projectDir({ 'switchyard.yaml': CRED });
    const env = { URL_PASS: 'pa55-1', URL_TOKEN: 'tok-1' };
    await applyPlan(await plan(dir, { env }), api);
    const stored = (await api.listWebhooks()).find((w) => w.name === 'p-cred')!;
    expect(stored.target_url).toBe('https://***:***@example.com/cred?token=***&x=1');
    expect((await plan(dir, { env })).changes).toEqual([]);
    expect((await plan(dir, { env: { ...env, URL_TOKEN: 'tok-2' } })).changes).toEqual([
      { action: 'update', kind: 'webhook', name: 'p-cred', fields: ['target_url'] },
    ]);

    const exported = await exportProject(api);
    const variable = exported.env_vars.find((v) => v.for === 'webhooks.p-cred.target_url');
    expect(variable?.name).toBe('WEBHOOK_P_CRED_TARGET_URL');
    const out = projectDir(exported.files);
    const real = 'https://hook-user:pa55-1@example.com/cred?token=tok-1&x=1';
    // The earlier tests' resources export placeholders too: any valid value will do for them.
    const others = Object.fromEntries(
      exported.env_vars.map((v) => [v.name, v.name.endsWith('_SECRET') ? 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0' : 'x']),
    );
    const changes = (await plan(out, { env: { ...others, WEBHOOK_P_CRED_TARGET_URL: real } })).changes;
    expect(changes.filter((c) => c.name === 'p-cred')).toEqual([]);
  });
});

describe('imported samples', () => {
  it('serverless.yml: applied, its REST and HTTP API routes answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-import-'));
    cpSync(join(FIXTURES, 'serverless'), dir, { recursive: true });
    const imported = importServerless(readFileSync(join(dir, 'serverless.yml'), 'utf8'), { exists: (p) => existsSync(join(dir, p)) });
    writeFileSync(join(dir, 'switchyard.yaml'), imported.yaml);
    const p = await plan(dir, { env: { USERS_API_TOKEN: 'tok' } });
    await applyPlan(p, api);

    const user = await invoke('users-service-rest', '/users/42');
    expect(user.status, user.text).toBe(200);
    expect(JSON.parse(user.text)).toEqual({ format: 'aws-v1', method: 'GET', id: '42', service: 'users-service', table: 'users-test', token: 'tok' });
    expect((await invoke('users-service-rest', '/users', 'POST')).status).toBe(201);
    const proxy = await invoke('users-service-rest', '/files/a/b/c.txt', 'DELETE');
    expect(JSON.parse(proxy.text)).toEqual({ proxy: 'a/b/c.txt', method: 'DELETE', mode: 'proxy' });
    const item = await invoke('users-service-http', '/items/9');
    expect(item.status, item.text).toBe(200);
    expect(JSON.parse(item.text)).toEqual({ format: 'aws-v2', route: 'GET /items/{id}', id: '9', table: 'items-test' });
    expect((await plan(dir, { env: { USERS_API_TOKEN: 'tok' } })).changes).toEqual([]);
  });

  it('SAM template: applied, its Api and HttpApi routes answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-import-'));
    cpSync(join(FIXTURES, 'sam'), dir, { recursive: true });
    const imported = importSam(readFileSync(join(dir, 'template.yaml'), 'utf8'), { exists: (p) => existsSync(join(dir, p)) });
    writeFileSync(join(dir, 'switchyard.yaml'), imported.yaml);
    // TABLE_ARN (`!GetAtt`) is left unset by the import: the operator's TABLE_ARN is not read.
    await applyPlan(await plan(dir, { env: { TABLE_ARN: 'arn:aws:dynamodb:table/items' } }), api);

    const hello = await invoke('ServerlessRestApi', '/hello/ada');
    expect(hello.status, hello.text).toBe(200);
    expect(JSON.parse(hello.text)).toEqual({ message: 'hello from test', stage: 'test', name: 'ada', proxy: null });
    const rest = await invoke('ServerlessRestApi', '/hello/a/b', 'POST');
    expect(JSON.parse(rest.text)).toMatchObject({ proxy: 'a/b', name: null });
    const item = await invoke('ServerlessHttpApi', '/items/5');
    expect(item.status, item.text).toBe(200);
    expect(JSON.parse(item.text)).toEqual({ id: '5', route: 'GET /items/{id}', stage: 'test' });
  });
});

describe('a webhook whose target is an API of the file', () => {
  let local: RunningService;
  let localApi: ProjectApi;
  beforeAll(async () => {
    // The webhook calls this server's own loopback address.
    local = await startService({ env: { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
    localApi = createHttpProjectApi({ baseUrl: local.url });
  });
  afterAll(async () => {
    await local?.stop();
  });

  const ECHO = `export const handler = async (event) => ({ statusCode: 200, body: { got: event.body, q: event.queryStringParameters } });`;
  const TARGETED = `
functions:
  t-echo: { file: echo.js }
apis:
  t-hooks:
    base_path: /hooks
    routes:
      - { method: POST, path: /in, function: t-echo }
webhooks:
  t-self:
    target: { api: t-hooks, path: '/in?from=webhook' }
    method: POST
    payload_template: { event: '{{event}}' }
    events: [order.created]
`;

  it('is sent to the invoke URL the server gives the API, plans nothing again, and exports as target', async () => {
    const dir = projectDir({ 'switchyard.yaml': TARGETED, 'echo.js': ECHO });
    const load = async (d: string) => (await loadProject(join(d, 'switchyard.yaml'), { env: {} })).project;
    const project = await load(dir);
    await applyPlan(planProject(project, await readServerState(localApi, project)), localApi);

    const hooksApi = (await localApi.listApis()).find((a) => a.name === 't-hooks')!;
    expect(hooksApi.invokeUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/invoke\/fn\/[^/]+\/hooks$/);
    const hook = (await localApi.listWebhooks()).find((w) => w.name === 't-self')!;
    expect(hook.target_url).toBe(`${hooksApi.invokeUrl}/in?from=webhook`);
    expect(renderPlan(planProject(project, await readServerState(localApi, project)))).toBe('No changes: the server matches the project.');

    // The target answers: the function got the payload and the query.
    const sent = await local.request('POST', `/api/webhooks/${hook.id}/test`);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.json).toMatchObject({ status: 'succeeded' });
    expect(sent.json.attempts[0].response_status).toBe(200);

    const exported = await exportProject(localApi);
    expect(exported.files['switchyard.yaml']).toMatch(/t-self:\n\s+target:\n\s+api: t-hooks\n\s+path: \/in\?from=webhook\n/);
    const out = projectDir(exported.files);
    const again = await load(out);
    expect(renderPlan(planProject(again, await readServerState(localApi, again), { prune: true }))).toBe('No changes: the server matches the project.');
  });
});

describe('function schedules, events and async', () => {
  const TRIGGERS = `
functions:
  t-report:
    file: report.js
    schedules:
      - { cron: '0 9 * * 1-5', timezone: America/New_York, payload: { kind: daily } }
    events: [order.created]
    async: { retries: 1, on_success: { function: t-audit }, on_failure: { webhook: t-alerts } }
  t-audit:
    file: report.js
webhooks:
  t-alerts:
    target_url: https://example.com/alerts
    method: POST
    payload_template: {}
`;
  it('applies them, a destination on a webhook of the same apply included; a second plan is empty; export writes them back', async () => {
    const dir = projectDir({ 'switchyard.yaml': TRIGGERS, 'report.js': 'export const handler = async () => ({ ok: true });' });
    const p = await plan(dir);
    expect(renderPlan(p)).toContain('~ function t-report (async destinations, once they exist)');
    await applyPlan(p, api);
    const fn = (await svc.request('GET', '/api/functions/t-report')).json as Record<string, unknown>;
    const hooks = (await svc.request('GET', '/api/webhooks')).json as Array<{ id: string; name: string }>;
    expect(fn).toMatchObject({
      schedules: [{ cron: '0 9 * * 1-5', timezone: 'America/New_York', payload: { kind: 'daily' } }],
      events: ['order.created'],
      async: {
        retries: 1,
        on_success: { type: 'function', name: 't-audit' },
        on_failure: { type: 'webhook', id: hooks.find((h) => h.name === 't-alerts')!.id },
      },
    });
    expect((await plan(dir)).changes).toEqual([]);

    const exported = await exportProject(api);
    expect(exported.files['switchyard.yaml']).toMatch(/on_failure:\s+webhook: t-alerts/);
  });
});

describe('throttles, api_key_required and usage plans', () => {
  const KEYED = `
functions:
  k-hello:
    file: hello.js
apis:
  k-shop:
    base_path: /kshop
    throttle: { rate_limit: 1000, burst_limit: 1000 }
    routes:
      - { method: GET, path: /items, function: k-hello, api_key_required: true }
      - { method: GET, path: /health, function: k-hello, throttle: { rate_limit: 100, burst_limit: 100 } }
usage_plans:
  k-gold:
    apis: [k-shop]
    quota: { limit: 1000, period: DAY }
`;
  it('applies them: a key made on the server for the plan opens the route; a second plan is empty; export writes them back', async () => {
    const dir = projectDir({ 'switchyard.yaml': KEYED, 'hello.js': 'export const handler = async () => ({ statusCode: 200, body: "hi" });' });
    await applyPlan(await plan(dir), api);
    expect((await invoke('k-shop', '/items')).status).toBe(403);
    expect((await invoke('k-shop', '/health')).status).toBe(200);
    const plans = (await svc.request('GET', '/api/usage-plans')).json as Array<{ id: string; name: string }>;
    const gold = plans.find((p) => p.name === 'k-gold')!;
    const key = (await svc.request('POST', '/api/api-keys', { name: 'k-client', usagePlanId: gold.id })).json as { value: string };
    const found = (await api.listApis()).find((a) => a.name === 'k-shop')!;
    const res = await fetch(`${found.invokeUrl}/items`, { headers: { 'x-api-key': key.value } });
    expect(res.status).toBe(200);
    expect((await plan(dir)).changes).toEqual([]);

    const exported = await exportProject(api);
    const yaml = exported.files['switchyard.yaml'];
    expect(yaml).toContain('api_key_required: true');
    expect(yaml).toMatch(/k-gold:\s+apis:\s+- k-shop/);
    expect(yaml).not.toContain(key.value);
  });
});

describe("a webhook's endpoint-health settings", () => {
  const HEALTH = `
webhooks:
  h-orders:
    target_url: https://example.com/orders
    method: POST
    payload_template: { event: '{{event}}' }
    breaker: { min_attempts: 5, failure_ratio: 0.8 }
    rate_limit: { per_second: 10 }
    auto_disable: { after_s: 3600 }
  h-quiet:
    target_url: https://example.com/quiet
    method: POST
    payload_template: {}
    auto_disable: { enabled: false }
`;
  it('applies them, the server answers them, a second plan is empty, and export writes them back', async () => {
    const dir = projectDir({ 'switchyard.yaml': HEALTH });
    await applyPlan(await plan(dir), api);
    const hooks = (await svc.request('GET', '/api/webhooks')).json as Array<{ id: string; name: string }>;
    const get = async (name: string) => (await svc.request('GET', `/api/webhooks/${hooks.find((h) => h.name === name)!.id}`)).json;
    expect(await get('h-orders')).toMatchObject({
      breaker: { enabled: true, min_attempts: 5, failure_ratio: 0.8, window_s: 60 },
      rate_limit: { per_second: 10, burst: 1 },
      auto_disable: { enabled: true, after_s: 3600, min_span_s: 3600 },
    });
    expect((await get('h-quiet')).auto_disable).toMatchObject({ enabled: false });
    expect(renderPlan(await plan(dir))).toBe('No changes: the server matches the project.');

    const exported = await exportProject(api);
    const doc = parseYaml(exported.files['switchyard.yaml']) as { webhooks: Record<string, Record<string, unknown>> };
    expect(doc.webhooks['h-orders']).toMatchObject({
      breaker: { min_attempts: 5, failure_ratio: 0.8 },
      rate_limit: { per_second: 10 },
      auto_disable: { after_s: 3600 },
    });
    expect(doc.webhooks['h-quiet'].auto_disable).toEqual({ enabled: false });
    const out = projectDir(exported.files);
    // The earlier tests' resources export placeholders too: any valid value will do for them.
    const valid = (name: string) =>
      name.endsWith('_SECRET') ? 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0' : name.endsWith('_TARGET_URL') ? 'https://example.com/x' : 'x';
    const env = Object.fromEntries(exported.env_vars.map((v) => [v.name, valid(v.name)]));
    // The placeholders change the imported projects' functions' env: theirs, so only with take-over.
    await expect(plan(out, { env })).rejects.toThrow(/belongs to project 'users-service', and this file names no project/);
    const changes = (await plan(out, { env, takeOver: true })).changes;
    expect(changes.filter((c) => c.name.startsWith('h-'))).toEqual([]);
  });
});

describe('a changed webhook secret', () => {
  it('rotates on apply: the replaced secret keeps signing for the default overlap (24 h); an ed25519 key from ${env:} shows its public key', async () => {
    const file = `
webhooks:
  p-rotating:
    target_url: https://example.com/rotating
    method: POST
    payload_template: { event: '{{event}}' }
    secret: \${env:HOOK_SECRET}
`;
    const dir = projectDir({ 'switchyard.yaml': file });
    const first = 'whsec_' + Buffer.alloc(32, 21).toString('base64');
    await applyPlan(await plan(dir, { env: { HOOK_SECRET: first } }), api);
    expect((await plan(dir, { env: { HOOK_SECRET: first } })).changes).toEqual([]);

    const second = 'whsec_' + Buffer.alloc(32, 22).toString('base64');
    const changed = await plan(dir, { env: { HOOK_SECRET: second } });
    expect(renderPlan(changed).split('\n')[0]).toBe('~ webhook p-rotating (secret)');
    await applyPlan(changed, api);
    const id = (await api.listWebhooks()).find((w) => w.name === 'p-rotating')!.id;
    const shown = (await svc.request('GET', `/api/webhooks/${id}`)).json;
    expect(shown.secrets).toHaveLength(2);
    expect(Date.parse(shown.secrets[1].expires_at) - Date.parse(shown.secrets[0].created_at)).toBe(86_400_000);
    expect((await plan(dir, { env: { HOOK_SECRET: second } })).changes).toEqual([]);

    const ed = 'whsk_' + Buffer.alloc(32, 23).toString('base64');
    await applyPlan(await plan(dir, { env: { HOOK_SECRET: ed } }), api);
    const now = (await svc.request('GET', `/api/webhooks/${id}`)).json;
    expect(now.public_key).toMatch(/^whpk_/);
    expect(now.secrets.map((s: { kind: string }) => s.kind)).toEqual(['ed25519', 'hmac', 'hmac']);
  });
});

describe("a webhook's transformation", () => {
  const CODE = "function handler(webhook) { webhook.headers['x-from-file'] = '1'; return webhook; }\n";
  const FILE = `
webhooks:
  t-orders:
    target_url: https://example.com/orders
    method: POST
    payload_template: { event: '{{event}}' }
    transformation: ./transforms/orders.js
`;
  it('applies the file it names, plans a change of that file, and exports it as a file again', async () => {
    const dir = projectDir({ 'switchyard.yaml': FILE, 'transforms/orders.js': CODE });
    await applyPlan(await plan(dir), api);
    const hooks = (await svc.request('GET', '/api/webhooks')).json as Array<{ id: string; name: string; transformation: string | null }>;
    expect(hooks.find((h) => h.name === 't-orders')!.transformation).toBe(CODE);
    expect(renderPlan(await plan(dir))).toBe('No changes: the server matches the project.');

    writeFileSync(join(dir, 'transforms/orders.js'), CODE.replace("'1'", "'2'"));
    const changed = await plan(dir);
    expect(changed.changes.find((c) => c.name === 't-orders')).toMatchObject({ action: 'update' });
    expect(renderPlan(changed)).toContain('transformation');

    const exported = await exportProject(api);
    const doc = parseYaml(exported.files['switchyard.yaml']) as { webhooks: Record<string, Record<string, unknown>> };
    expect(doc.webhooks['t-orders'].transformation).toBe('./transforms/t-orders.js');
    expect(exported.files['transforms/t-orders.js']).toBe(CODE);
  });

  it('refuses a file outside the project folder, a missing one, and code the server would refuse', async () => {
    const outside = projectDir({ 'x.js': CODE });
    const dir = projectDir({ 'switchyard.yaml': FILE.replace('./transforms/orders.js', join(outside, 'x.js')) });
    await expect(plan(dir)).rejects.toThrow(/transformation/);
    const missing = projectDir({ 'switchyard.yaml': FILE });
    await expect(plan(missing)).rejects.toThrow(/cannot read \.\/transforms\/orders\.js/);
    const bad = projectDir({ 'switchyard.yaml': FILE.replace('t-orders', 't-bad'), 'transforms/orders.js': 'function nothing() {}' });
    await expect(applyPlan(await plan(bad), api)).rejects.toThrow(/no handler/);
  });
});
