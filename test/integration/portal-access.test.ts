/**
 * Portal access over real HTTP: a token from `POST /api/applications/{id}/portal-access`
 * opens the consumer API on its application's resources only (another
 * application's endpoints and deliveries, and global ones, answer 404), and
 * no operation of the management API: every operation the OpenAPI document
 * lists outside the consumer tag is tried with it and refused. Tokens expire
 * on the hand-moved clock, refreshes extend them up to their maximum, revoked
 * ones and those of a deleted application stop at once; the token is never in
 * the URL sent to the server (only in the link's fragment) nor in a log line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliToEnd } from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const KEY = 'portal-test-admin-key';
const AUTH = { authorization: `Bearer ${KEY}` };

let svc: RunningService;
let receiver: Receiver;
const issued: string[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startService({
    env: {
      SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1',
      SWITCHYARD_ADMIN_KEY: KEY,
      SWITCHYARD_TEST_HOOKS: '1',
      SWITCHYARD_PORTAL_TOKEN_MAX_TTL: '1800',
      // The access log's lines too: the token must be in none of them.
      LOG_LEVEL: 'debug',
    },
  });
});

afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
});

const admin = (method: string, path: string, body?: unknown) => svc.request(method, path, body, AUTH);
const as = (token: string) => (method: string, path: string, body?: unknown) => svc.request(method, path, body, { authorization: `Bearer ${token}` });
const advance = (s: number) => admin('PUT', '/api/_test/clock', { advance_ms: s * 1000 });

async function application(name: string): Promise<string> {
  const res = await admin('POST', '/api/applications', { name });
  expect(res.status, res.text).toBe(201);
  return res.json.id;
}

async function access(appId: string, body?: unknown): Promise<{ token: string; url: string; expires_at: string; max_expires_at: string }> {
  const res = await admin('POST', `/api/applications/${appId}/portal-access`, body ?? {});
  expect(res.status, res.text).toBe(201);
  expect(res.headers.get('cache-control')).toBe('no-store');
  issued.push(res.json.token);
  return res.json;
}

async function adminWebhook(name: string, applicationId?: string): Promise<string> {
  const res = await admin('POST', '/api/webhooks', {
    name,
    target_url: `${receiver.url}/${name}`,
    method: 'POST',
    payload_template: {},
    events: ['invoice.paid'],
    retry: { max_attempts: 1 },
    ...(applicationId ? { application_id: applicationId } : {}),
  });
  expect(res.status, res.text).toBe(201);
  return res.json.id;
}

let appA: string, appB: string;
let tokenA: string;
let b1: string, g1: string, bDelivery: string;

beforeAll(async () => {
  await admin('POST', '/api/event-types', {
    name: 'invoice.paid',
    schema: { type: 'object', properties: { amount: { type: 'number' } } },
    examples: [{ amount: 5 }],
  });
  appA = await application('A');
  appB = await application('B');
  b1 = await adminWebhook('b1', appB);
  g1 = await adminWebhook('g1');
  const published = await admin('POST', '/api/events', { event: 'invoice.paid', data: { amount: 1 }, application: appB });
  bDelivery = published.json.deliveries[0];
  tokenA = (await access(appA)).token;
});

describe('a portal token', () => {
  it('comes with a URL that carries it only in the fragment', async () => {
    const got = await access(appA);
    expect(got.token).toMatch(/^swp_[A-Za-z0-9_-]{43}$/);
    const url = new URL(got.url);
    // The application id is in the path (not secret: it picks the page's frame-ancestors), the token only in the fragment.
    expect(url.pathname).toBe(`/portal/${appA}`);
    expect(url.search).toBe('');
    expect(url.hash).toBe(`#token=${got.token}`);
    expect(Date.parse(got.expires_at) - Date.now()).toBeLessThanOrEqual(900_000 + 60_000);
  });

  it("opens the consumer API on its application's endpoints: create, list, change, test-fire with a type's example", async () => {
    const portal = as(tokenA);
    const session = await portal('GET', '/api/portal/session');
    expect(session.status, session.text).toBe(200);
    expect(session.json).toMatchObject({ application_id: appA, application_name: 'A' });
    const created = await portal('POST', '/api/portal/endpoints', { name: 'mine', target_url: `${receiver.url}/mine`, events: ['invoice.paid'] });
    expect(created.status, created.text).toBe(201);
    expect(created.json.secret).toMatch(/^whsec_/);
    const list = await portal('GET', '/api/portal/endpoints');
    expect((list.json as Array<{ id: string }>).map((w) => w.id)).toEqual([created.json.id]);
    const disabled = await portal('POST', `/api/portal/endpoints/${created.json.id}/disable`);
    expect(disabled.json.enabled).toBe(false);
    expect((await portal('POST', `/api/portal/endpoints/${created.json.id}/enable`)).json.enabled).toBe(true);
    const fired = await portal('POST', `/api/portal/endpoints/${created.json.id}/test`, {});
    expect(fired.status, fired.text).toBe(200);
    await until(() => receiver.requests.some((r) => r.url === '/mine'), 'the test-fire');
    expect(JSON.parse(receiver.requests.find((r) => r.url === '/mine')!.body)).toMatchObject({ type: 'invoice.paid', data: { amount: 5 } });
    const deliveries = await portal('GET', `/api/portal/endpoints/${created.json.id}/deliveries`);
    expect(deliveries.json).toHaveLength(1);
    const detail = await portal('GET', `/api/portal/deliveries/${deliveries.json[0].id}`);
    expect(detail.json.attempts).toHaveLength(1);
    const types = await portal('GET', '/api/portal/event-types');
    expect((types.json as Array<{ name: string }>).map((t) => t.name)).toContain('invoice.paid');
    // The operator sees it as A's.
    expect((await admin('GET', `/api/webhooks?application=${appA}`)).json.map((w: { id: string }) => w.id)).toContain(created.json.id);
  });

  it("cannot read or change another application's resources, nor global ones: every consumer operation answers 404", async () => {
    const portal = as(tokenA);
    for (const id of [b1, g1]) {
      for (const [method, path, body] of [
        ['GET', `/api/portal/endpoints/${id}`],
        ['PATCH', `/api/portal/endpoints/${id}`, { name: 'taken' }],
        ['DELETE', `/api/portal/endpoints/${id}`],
        ['POST', `/api/portal/endpoints/${id}/enable`],
        ['POST', `/api/portal/endpoints/${id}/disable`],
        ['POST', `/api/portal/endpoints/${id}/test`, {}],
        ['POST', `/api/portal/endpoints/${id}/rotate-secret`, {}],
        ['POST', `/api/portal/endpoints/${id}/recover`, { since: '2020-01-01T00:00:00Z' }],
        ['GET', `/api/portal/endpoints/${id}/deliveries`],
      ] as Array<[string, string, unknown?]>) {
        const res = await portal(method, path, body);
        expect(res.status, `${method} ${path}: ${res.text}`).toBe(404);
      }
    }
    for (const [method, path] of [['GET', `/api/portal/deliveries/${bDelivery}`], ['POST', `/api/portal/deliveries/${bDelivery}/retry`]]) {
      expect((await portal(method, path)).status, `${method} ${path}`).toBe(404);
    }
    // Untouched.
    const b = await admin('GET', `/api/webhooks/${b1}`);
    expect(b.json).toMatchObject({ name: 'b1', enabled: true });
  });

  it('opens no operation of the management API: each one in the document is refused with 401', async () => {
    const doc = (await admin('GET', '/api/openapi.json')).json as { paths: Record<string, Record<string, { operationId?: string; tags?: string[]; security?: unknown[] }>> };
    let tried = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op.operationId || op.tags?.includes('consumer')) continue;
        // Public operations (probes, the dashboard page, invocations) need no credential at all.
        if (Array.isArray(op.security) && op.security.length === 0) continue;
        const url = path.replace(/\{[^}]+\}/g, 'x');
        const res = await fetch(svc.url + url, { method: method.toUpperCase(), headers: { authorization: `Bearer ${tokenA}`, 'content-type': 'application/json' }, body: method === 'get' || method === 'head' ? undefined : '{}' });
        await res.arrayBuffer();
        expect(res.status, `${method.toUpperCase()} ${path}`).toBe(401);
        tried++;
      }
    }
    expect(tried).toBeGreaterThan(60);
  });

  it('expires after its TTL, unless refreshed, and never past its maximum', async () => {
    const lapsing = (await access(appA)).token;
    const kept = await access(appA);
    await advance(600);
    const refreshed = await as(kept.token)('POST', '/api/portal/session/refresh');
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(Date.parse(refreshed.json.expires_at)).toBeGreaterThan(Date.parse(kept.expires_at));
    await advance(301);
    // 901 s after both were made: the one not refreshed is gone, the refreshed one is not.
    const gone = await as(lapsing)('GET', '/api/portal/endpoints');
    expect(gone.status).toBe(401);
    expect(gone.json.code).toBe('portal_token_invalid');
    expect((await as(lapsing)('POST', '/api/portal/session/refresh')).status).toBe(401);
    expect((await as(kept.token)('GET', '/api/portal/endpoints')).status).toBe(200);
    const capped = await as(kept.token)('POST', '/api/portal/session/refresh');
    expect(capped.json.expires_at).toBe(kept.max_expires_at);
    await advance(800);
    // 1701 s: still inside its 1800 s maximum.
    expect((await as(kept.token)('GET', '/api/portal/session')).status).toBe(200);
    await advance(100);
    expect((await as(kept.token)('GET', '/api/portal/session')).status).toBe(401);
  });

  it('stops at once when revoked (one, all of an application, by its holder) or its application is deleted', async () => {
    const one = (await access(appB)).token;
    const other = (await access(appB)).token;
    const own = (await access(appB)).token;
    expect((await as(own)('DELETE', '/api/portal/session')).json).toEqual({ revoked: true });
    expect((await as(own)('GET', '/api/portal/session')).status).toBe(401);
    const revokedOne = await admin('DELETE', `/api/applications/${appB}/portal-access`, { token: one });
    expect(revokedOne.json).toEqual({ revoked: 1 });
    expect((await as(one)('GET', '/api/portal/session')).status).toBe(401);
    expect((await as(other)('GET', '/api/portal/session')).status).toBe(200);
    expect((await admin('DELETE', `/api/applications/${appB}/portal-access`, {})).json).toEqual({ revoked: 1 });
    expect((await as(other)('GET', '/api/portal/session')).status).toBe(401);
    const last = (await access(appB)).token;
    expect((await as(last)('GET', '/api/portal/session')).status).toBe(200);
    expect((await admin('DELETE', `/api/applications/${appB}`)).status).toBe(200);
    expect((await as(last)('GET', '/api/portal/session')).status).toBe(401);
  });

  it('is refused without one, with a wrong one, and the admin key does not open the consumer API', async () => {
    expect((await svc.request('GET', '/api/portal/endpoints')).status).toBe(401);
    expect((await as('swp_not-a-token')('GET', '/api/portal/endpoints')).status).toBe(401);
    expect((await as(KEY)('GET', '/api/portal/endpoints')).json.code).toBe('portal_token_invalid');
  });

  it('comes from `switchyard portal`, and applications from `switchyard applications`', async () => {
    const env = { SWITCHYARD_URL: svc.url, SWITCHYARD_ADMIN_KEY: KEY };
    const created = await runCliToEnd(['applications', 'create', 'From the CLI', '--uid', 'cli-made'], env, 30_000);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout.trim()).toMatch(/^app_/);
    const owned = await admin('POST', '/api/applications', { name: 'Owned By Shop', uid: 'shop-owned', project: 'shop' });
    expect(owned.status, owned.text).toBe(201);
    const listed = await runCliToEnd(['applications', 'list'], env, 30_000);
    expect(listed.stdout).toMatch(/cli-made\s+From the CLI/);
    // Which project's apply owns each one (what `apply --prune` may delete).
    expect(listed.stdout).toMatch(/PROJECT/);
    expect(listed.stdout).toMatch(/shop-owned\s+Owned By Shop\s+shop\b/);
    const shownOwned = await runCliToEnd(['applications', 'get', 'shop-owned'], env, 30_000);
    expect(shownOwned.stdout).toMatch(/project\s+shop\n/);
    const portal = await runCliToEnd(['portal', 'From the'], env, 30_000);
    expect(portal.code, portal.stderr).toBe(0);
    const token = /#token=(swp_[A-Za-z0-9_-]+)/.exec(portal.stdout)?.[1];
    expect(token).toBeDefined();
    issued.push(token!);
    expect((await as(token!)('GET', '/api/portal/session')).json.application_name).toBe('From the CLI');
    expect((await runCliToEnd(['portal', 'cli-made', '--ttl', '5'], env, 30_000)).code).not.toBe(0);
  });

  it('`switchyard applications get|update|delete` name one by id, uid or name, suggest the one meant, and --json answers', async () => {
    const env = { SWITCHYARD_URL: svc.url, SWITCHYARD_ADMIN_KEY: KEY };
    const cli = (...args: string[]) => runCliToEnd(args, env, 30_000);
    const made = await cli('applications', 'create', 'Initech Corp', '--uid', 'initech', '--max-endpoints', '2', '--metadata', '{"plan":"gold"}', '--json');
    expect(made.code, made.stderr).toBe(0);
    const id = JSON.parse(made.stdout).id as string;
    expect(JSON.parse(made.stdout)).toMatchObject({ metadata: { plan: 'gold' }, limits: { max_endpoints: 2 } });
    const hook = await admin('POST', '/api/webhooks', { name: 'initech-orders', target_url: `${receiver.url}/initech`, method: 'POST', payload_template: {}, application_id: id });
    expect(hook.status, hook.text).toBe(201);
    await admin('POST', '/api/webhooks', { name: 'not-initech', target_url: `${receiver.url}/other`, method: 'POST', payload_template: {} });

    const shown = await cli('applications', 'get', 'initech corp');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/max endpoints\s+2/);
    expect(shown.stdout).toMatch(new RegExp(`${hook.json.id}\\s+initech-orders`));
    expect(shown.stdout).toContain('no deliveries yet');
    expect(shown.stdout).not.toContain('not-initech');
    const asJson = JSON.parse((await cli('applications', 'get', id, '--json')).stdout);
    expect(asJson.webhooks.map((w: { id: string }) => w.id)).toEqual([hook.json.id]);

    const typo = await cli('applications', 'get', 'initek');
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain("did you mean 'initech'?");

    const updated = await cli('applications', 'update', 'initech', '--name', 'Initech', '--max-endpoints', 'none', '--json');
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ id, name: 'Initech', limits: { max_endpoints: null } });
    const bad = await cli('applications', 'update', 'initech', '--max-endpoints', 'lots');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-endpoints');
    expect((await cli('applications', 'update', 'initech')).code).toBe(2);

    expect((await cli('applications', 'delete', 'initech')).code).toBe(2);
    expect((await admin('GET', `/api/applications/${id}`)).status).toBe(200);
    const deleted = await cli('applications', 'delete', 'initech', '--yes');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await admin('GET', `/api/applications/${id}`)).status).toBe(404);
    expect((await admin('GET', `/api/webhooks/${hook.json.id}`)).status).toBe(404);
  });

  it('never appears in a log line', () => {
    const log = svc.output.join('');
    expect(log).toContain('/api/portal/endpoints');
    for (const token of issued) expect(log).not.toContain(token);
  });
});

const ENDPOINT_KEYS = [
  'created_at', 'disabled_reason', 'enabled', 'events', 'filter', 'has_secret', 'headers', 'id', 'method', 'name',
  'public_key', 'rate_limit', 'secrets', 'target_url', 'updated_at',
];
const OPERATOR_ONLY = ['payload_template', 'transformation', 'mock_endpoint', 'project', 'application_id', 'retry', 'breaker', 'auto_disable', 'cron', 'paused'];
const HEALTH_KEYS = ['failing_since', 'failures_in_a_row', 'held', 'last_failure_at', 'last_outcome', 'last_success_at', 'pending', 'retrying', 'state', 'window'];
const DELIVERY_KEYS = ['attempts', 'completed_at', 'created_at', 'error', 'event', 'id', 'next_attempt_at', 'request', 'response', 'status', 'trigger', 'webhook_id'];
const keysOf = (o: object) => Object.keys(o).sort();

describe("the consumer's view of an endpoint the operator configured", () => {
  let hookId: string;
  // Its own token: the earlier tests moved the clock past tokenA's expiry.
  let token: string;
  beforeAll(async () => {
    token = (await access(appA)).token;
    const fn = await admin('POST', '/api/functions', { name: 'portal-mock', code: "exports.handler = async () => ({ statusCode: 200, body: JSON.stringify({ mocked: true }) });" });
    expect(fn.status, fn.text).toBe(201);
    const api = await admin('POST', '/api/apis', { name: 'portal-mock', basePath: '/portal-mock', routes: [{ method: 'GET', path: '/a', function: 'portal-mock' }] });
    expect(api.status, api.text).toBe(201);
    const res = await admin('POST', '/api/webhooks', {
      name: 'operated',
      target_url: `${receiver.url}/operated`,
      method: 'POST',
      payload_template: { type: '{{event}}', internal_note: 'operator-only' },
      transformation: 'function handler(w) { w.headers["x-reshaped"] = "1"; return w; }',
      mock_endpoint: { api_id: api.json.id, path: '/portal-mock/a' },
      events: ['invoice.paid'],
      retry: { max_attempts: 1 },
      application_id: appA,
    });
    expect(res.status, res.text).toBe(201);
    hookId = res.json.id;
  });

  it('carries none of the operator-side fields in any answer, while the operator still sees them', async () => {
    const portal = as(token);
    const list = await portal('GET', '/api/portal/endpoints');
    const listed = (list.json as Array<Record<string, unknown>>).find((w) => w.id === hookId)!;
    expect(keysOf(listed)).toEqual([...ENDPOINT_KEYS, 'health'].sort());
    expect(keysOf(listed.health as object)).toEqual(HEALTH_KEYS);
    const got = await portal('GET', `/api/portal/endpoints/${hookId}`);
    expect(keysOf(got.json)).toEqual([...ENDPOINT_KEYS, 'health'].sort());
    const patched = await portal('PATCH', `/api/portal/endpoints/${hookId}`, { name: 'operated-renamed' });
    expect(patched.status, patched.text).toBe(200);
    expect(keysOf(patched.json)).toEqual(ENDPOINT_KEYS);
    const rotated = await portal('POST', `/api/portal/endpoints/${hookId}/rotate-secret`, {});
    expect(rotated.status, rotated.text).toBe(200);
    expect(keysOf(rotated.json)).toEqual([...ENDPOINT_KEYS, 'secret'].sort());
    const created = await portal('POST', '/api/portal/endpoints', { name: 'own', target_url: `${receiver.url}/own`, events: ['invoice.paid'] });
    expect(created.status, created.text).toBe(201);
    expect(keysOf(created.json)).toEqual([...ENDPOINT_KEYS, 'secret'].sort());
    for (const field of OPERATOR_ONLY) expect(got.json, field).not.toHaveProperty(field);

    const operator = await admin('GET', `/api/webhooks/${hookId}`);
    expect(operator.json.transformation).toContain('x-reshaped');
    expect(operator.json.payload_template).toEqual({ type: '{{event}}', internal_note: 'operator-only' });
    expect(operator.json.mock_endpoint).toMatchObject({ path: '/portal-mock/a' });
    expect(operator.json.application_id).toBe(appA);
  });

  it("shows deliveries without the operator's internals: the request as sent, not as rendered before the operator's code ran", async () => {
    const portal = as(token);
    const fired = await portal('POST', `/api/portal/endpoints/${hookId}/test`, {});
    expect(fired.status, fired.text).toBe(200);
    expect(keysOf(fired.json)).toEqual(DELIVERY_KEYS);
    expect(keysOf(fired.json.attempts[0])).toEqual(['attempt', 'duration_ms', 'error', 'response_status', 'started_at']);
    const list = await portal('GET', `/api/portal/endpoints/${hookId}/deliveries`);
    expect(keysOf(list.json[0])).toEqual(DELIVERY_KEYS);
    // The endpoint's requests are reshaped by the operator's code: a list does not show the rendered one.
    expect(list.json[0].request).toBeNull();
    const detail = await portal('GET', `/api/portal/deliveries/${fired.json.id}`);
    expect(keysOf(detail.json)).toEqual(DELIVERY_KEYS);
    expect(keysOf(detail.json.attempts[0])).toEqual(['attempt', 'duration_ms', 'error', 'response', 'response_status', 'sent', 'started_at']);
    expect(detail.json.request.headers['x-reshaped']).toBe('1');
    expect(detail.json.request).toEqual(detail.json.attempts[0].sent);
    // The operator's detail still has the rendered request (before their code added the header) and the transformation's outcome.
    const operator = await admin('GET', `/api/deliveries/${fired.json.id}`);
    expect(operator.json.request.headers).not.toHaveProperty('x-reshaped');
    expect(operator.json.attempts[0].outcome).toBe('transformed');
    expect(operator.json).toHaveProperty('scheduled_for');
  });

  it('refuses operator-only fields in its bodies with a 400 naming the field', async () => {
    const portal = as(token);
    for (const field of ['transformation', 'payload_template', 'mock_endpoint', 'project', 'retry', 'application_id']) {
      const created = await portal('POST', '/api/portal/endpoints', { name: 'sneaky', target_url: `${receiver.url}/sneaky`, [field]: null });
      expect(created.status, field).toBe(400);
      expect(created.json.error, field).toContain(`${field} is not a known field`);
      const patched = await portal('PATCH', `/api/portal/endpoints/${hookId}`, { [field]: null });
      expect(patched.status, field).toBe(400);
      expect(patched.json.error, field).toContain(`${field} is not a known field`);
    }
  });

  it('is described in the document by the consumer schemas only', async () => {
    type Doc = { paths: Record<string, Record<string, { tags?: string[] }>>; components: { schemas: Record<string, unknown> } };
    const doc = (await admin('GET', '/api/openapi.json')).json as Doc;
    const refsIn = (value: unknown, into: Set<string>): Set<string> => {
      if (Array.isArray(value)) for (const v of value) refsIn(v, into);
      else if (value && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) {
          if (k === '$ref' && typeof v === 'string') {
            const name = v.replace('#/components/schemas/', '');
            if (!into.has(name)) refsIn(doc.components.schemas[name], into.add(name));
          } else refsIn(v, into);
        }
      }
      return into;
    };
    const used = new Set<string>();
    let operations = 0;
    for (const item of Object.values(doc.paths))
      for (const op of Object.values(item))
        if (op.tags?.includes('consumer')) {
          refsIn(op, used);
          operations++;
        }
    expect(operations).toBeGreaterThan(10);
    expect([...used].sort()).toEqual(['Deleted', 'Error', 'EventType', 'EventTypeVersion', 'PortalDelivery', 'PortalDeliveryDetail', 'PortalEndpoint', 'PortalSession', 'Recovery', 'SigningSecret', 'RateLimit'].sort());
  });
});

describe('on a server without an admin key', () => {
  let keyless: RunningService;
  beforeAll(async () => {
    keyless = await startService({});
  });
  afterAll(async () => {
    await keyless?.stop();
  });

  it('a portal token still opens no management operation', async () => {
    const app = await keyless.request('POST', '/api/applications', { name: 'K' });
    const token = (await keyless.request('POST', `/api/applications/${app.json.id}/portal-access`, {})).json.token as string;
    const auth = { authorization: `Bearer ${token}` };
    expect((await keyless.request('GET', '/api/portal/session', undefined, auth)).status).toBe(200);
    for (const [method, path] of [['GET', '/api/webhooks'], ['GET', '/api/applications'], ['POST', `/api/applications/${app.json.id}/portal-access`]]) {
      const res = await keyless.request(method, path, undefined, auth);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.json.code).toBe('portal_token_invalid');
    }
  });
});
