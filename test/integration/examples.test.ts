/**
 * `switchyard --demo` end to end: the example functions of examples/switchyard.yaml,
 * deployed by the server itself, answer as docs/functions.md describes (Users
 * API, webhook receiver, the Lambda-style project of the Lambda API) through
 * the public invocation URLs, and the demo webhook sends what the receiver
 * reads.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const demo = parseYaml(readFileSync(new URL('../../examples/switchyard.yaml', import.meta.url), 'utf8'));
const SECRET: string = demo.functions['webhook-receiver'].env.WEBHOOK_SECRET;

let svc: RunningService;
let base = '';
let lambda = '';

beforeAll(async () => {
  svc = await startService({ args: ['--demo'] });
  // The demo loads after the server listens: wait for its APIs.
  const until = Date.now() + 20000;
  for (;;) {
    const apis = await svc.request('GET', '/api/apis');
    const named = (name: string) => (Array.isArray(apis.json) ? apis.json.find((a: { name: string }) => a.name === name) : undefined);
    const users = named('Users API');
    const lambdaApi = named('Lambda API');
    if (users && users.routes.length === 5 && lambdaApi && lambdaApi.routes.length === 5) {
      base = `/api/invoke/fn/${users.id}${users.basePath}`;
      lambda = `/api/invoke/fn/${lambdaApi.id}${lambdaApi.basePath}`;
      expect(users.invokeUrl).toBe(svc.url + `/api/invoke/fn/${users.id}${users.basePath}`);
      break;
    }
    if (Date.now() > until) throw new Error(`demo did not load:\n${svc.output.join('')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 40000);

afterAll(async () => {
  await svc?.stop();
});

interface User {
  id: number;
  name: string;
  email: string;
  role: string;
}

describe('the demo Users API', () => {
  it('lists page 1 with limit 10 by default', async () => {
    const res = await svc.request('GET', base);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.json).toMatchObject({ page: 1, limit: 10 });
    expect(Number.isInteger(res.json.total)).toBe(true);
    expect(res.json.total).toBeGreaterThanOrEqual(10);
    expect(res.json.users).toHaveLength(10);
    for (const u of res.json.users as User[]) {
      expect(Object.keys(u).sort()).toEqual(['email', 'id', 'name', 'role']);
      expect(Number.isInteger(u.id)).toBe(true);
      expect(typeof u.name).toBe('string');
      expect(u.email).toMatch(/^[^\s@]+@[^\s@]+\.[^\s@]+$/);
      expect(typeof u.role).toBe('string');
    }
  });

  it('slices (page-1)*limit up to limit entries', async () => {
    const all = await svc.request('GET', `${base}?page=1&limit=100`);
    const everyone = all.json.users as User[];
    expect(everyone).toHaveLength(all.json.total);
    const res = await svc.request('GET', `${base}?page=2&limit=5`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ page: 2, limit: 5, total: all.json.total });
    expect(res.json.users).toEqual(everyone.slice(5, 10));
    const past = await svc.request('GET', `${base}?page=1000&limit=5`);
    expect(past.status).toBe(200);
    expect(past.json.users).toEqual([]);
  });

  it('creates a user: 201 with role defaulting to viewer and created_at', async () => {
    const res = await svc.request('POST', base, { name: 'Ada', email: 'ada@example.com' });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ name: 'Ada', email: 'ada@example.com', role: 'viewer' });
    expect(Number.isInteger(res.json.id)).toBe(true);
    expect(res.json.created_at).toMatch(ISO);
    const admin = await svc.request('POST', base, { name: 'Root', email: 'root@example.org', role: 'admin' });
    expect(admin.status).toBe(201);
    expect(admin.json.role).toBe('admin');
  });

  it.each([
    [{ email: 'a@example.com' }],
    [{ name: 'NoEmail' }],
    [{}],
    [{ name: 'Bad', email: 'not-an-email' }],
    [{ name: 'Bad', email: 'a b@example.com' }],
    [{ name: 'Bad', email: 'a@example' }],
  ])('answers 400 with an error for %j', async (body) => {
    const res = await svc.request('POST', base, body);
    expect(res.status).toBe(400);
    expect(typeof res.json.error).toBe('string');
  });

  it('gets one user with created_at and last_login', async () => {
    const res = await svc.request('GET', `${base}/42`);
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(42);
    expect(Object.keys(res.json).sort()).toEqual(['created_at', 'email', 'id', 'last_login', 'name', 'role']);
    expect(res.json.created_at).toMatch(ISO);
    expect(res.json.last_login).toMatch(ISO);
    expect(typeof res.json.name).toBe('string');
  });

  it('deletes a user', async () => {
    const res = await svc.request('DELETE', `${base}/42`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ deleted: true, id: 42 });
  });
});

describe('the demo webhook receiver', () => {
  const receive = (body: unknown, headers: Record<string, string>) =>
    svc.request('POST', `${base}/webhooks/receive`, body, headers);

  it('answers 401 with an error for a wrong or missing secret', async () => {
    for (const headers of [{ 'x-webhook-secret': 'wrong' }, {}] as Record<string, string>[]) {
      const res = await receive({ event: 'order.created', data: { id: 1 } }, headers);
      expect(res.status).toBe(401);
      expect(typeof res.json.error).toBe('string');
    }
  });

  it.each(['order.created', 'user.signup', 'payment.failed'])('processes %s', async (event) => {
    const res = await receive({ event, data: { id: 7, email: 'x@example.com' } }, { 'x-webhook-secret': SECRET });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ processed: event });
  });

  it('acknowledges an unknown event with received and event', async () => {
    const res = await receive({ event: 'invoice.paid', data: {} }, { 'x-webhook-secret': SECRET });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ received: true, event: 'invoice.paid' });
  });

  it('parses a body that arrives as a JSON string', async () => {
    const text = JSON.stringify({ event: 'user.signup', data: { email: 'a@b.co' } });
    const res = await receive(text, { 'x-webhook-secret': SECRET, 'content-type': 'text/plain' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ processed: 'user.signup' });
    const unknown = await receive(JSON.stringify({ event: 'x.y' }), { 'x-webhook-secret': SECRET, 'content-type': 'text/plain' });
    expect(unknown.json).toEqual({ received: true, event: 'x.y' });
  });
});

describe('the demo Lambda API: handlers written for AWS, deployed with handler and event_format', () => {
  it('is in the lines printed at start, at a route that answers', async () => {
    await until(async () => svc.output.join('').includes('with the demo loaded'), 'the start-up lines', 10_000);
    const printed = svc.output.join('');
    expect(printed).toContain(`  Lambda API: curl ${svc.url}${lambda}/hello\n`);
    expect(printed).toContain(`  curl ${svc.url}${lambda}/greet/Ada\n`);
  });

  it('app.lambdaHandler (SAM style, aws-v1) answers its JSON string body with the REST event facts', async () => {
    const res = await svc.request('GET', `${lambda}/hello?name=Ada`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.text).toBe('{"message":"hello Ada","resource":"/lambda/hello","stage":"$default","function":"lambda-hello"}');
  });

  it('notes (aws-v2) parses event.body, answers 201 with a location, then the note as a plain object', async () => {
    const created = await svc.request('POST', `${lambda}/notes`, { text: 'buy milk' });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/json');
    const note = created.json as { id: string; text: string };
    expect(note.text).toBe('buy milk');
    expect(created.headers.get('location')).toBe(`/lambda/notes/${note.id}`);
    const read = await svc.request('GET', `${lambda}/notes/${note.id}`);
    expect(read.status).toBe(200);
    expect(read.json).toEqual(note);
    const missing = await svc.request('GET', `${lambda}/notes/999999`);
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ message: 'no such note' });
    const bad = await svc.request('POST', `${lambda}/notes`, { text: '' });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ message: 'text is required' });
  });

  it('handler.greet (callback style, aws-v1) answers through the callback with the request id', async () => {
    const res = await svc.request('GET', `${lambda}/greet/Grace`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ greeting: 'Hello, Grace!', requestId: res.headers.get('x-request-id') });
  });

  it('signup (TypeScript with aws-lambda types, aws-v2) answers 201 with its cookie, 422 for a bad email', async () => {
    const res = await svc.request('POST', `${lambda}/signup`, { email: 'ada@example.com' });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({ email: 'ada@example.com', welcome: true });
    // The handler's Path=/ is kept to the API's own invoke path (docs/functions.md, "Headers Switchyard changes").
    expect(res.headers.getSetCookie()).toEqual([`signup=${res.headers.get('x-request-id')}; HttpOnly; Path=${lambda}`]);
    const bad = await svc.request('POST', `${lambda}/signup`, { email: 'nope' });
    expect(bad.status).toBe(422);
    expect(bad.json).toEqual({ message: 'a valid email is required' });
  });
});

describe('the demo webhook and the demo receiver', () => {
  it('agree on the payload: a fired delivery is processed as a user sign-up with an email, logged as such', async () => {
    const webhooks = (await svc.request('GET', '/api/webhooks')).json as Array<{ id: string; name: string }>;
    expect(webhooks).toHaveLength(1);
    const fired = await svc.request('POST', `/api/webhooks/${webhooks[0].id}/test`);
    expect(fired.status, fired.text).toBe(200);
    expect(fired.json.status, fired.text).toBe('succeeded');
    expect(JSON.parse(fired.json.response.body)).toEqual({ processed: 'user.signup' });
    const sent = JSON.parse(fired.json.request.body);
    expect(sent).toMatchObject({ source: 'switchyard-demo', event: 'user.signup', data: { id: 1 } });
    expect(sent.data.email).toMatch(/^[^\s@]+@[^\s@]+\.[^\s@]+$/);

    const logs = (await svc.request('GET', '/api/functions/webhook-receiver/logs')).json as Array<{ message: string }>;
    const signups = logs.map((l) => l.message).filter((m) => m.startsWith('user signed up'));
    expect(signups).toContain(`user signed up ${sent.data.email}`);
    expect(signups.filter((m) => m.includes('undefined'))).toEqual([]);
  });
});
