/**
 * The example functions against the behaviour docs/functions.md gives them,
 * run in plain Node: each file is transpiled to CommonJS with esbuild (as the
 * gateway does at deploy) and evaluated with `new Function`. That is acceptable only here, in a test of
 * our own files; production runs user code in isolates.
 */
import { readFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import { describe, expect, it } from 'vitest';

const FUNCTIONS_DIR = fileURLToPath(new URL('../../examples/functions/', import.meta.url));
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

type Result = { statusCode: number; body: any };
type Handler = (event: Record<string, unknown>) => Promise<Result>;

function load(file: string, env: Record<string, string> = {}): Handler {
  const src = readFileSync(path.join(FUNCTIONS_DIR, file), 'utf8');
  const { code } = transformSync(src, { loader: file.endsWith('.ts') ? 'ts' : 'js', format: 'cjs' });
  const module = { exports: {} as Record<string, unknown> };
  // Stand-ins give each load its own env, like a function's isolate, and keep console lines out of the output.
  const quiet = { log() {}, info() {}, warn() {}, error() {}, debug() {} };
  new Function('exports', 'module', 'process', 'console', code)(module.exports, module, { env }, quiet);
  const handler = module.exports.handler;
  expect(typeof handler).toBe('function');
  return handler as Handler;
}

/**
 * A Lambda-style example's export, called as Lambda calls it: with a context
 * and a callback, answered by the first of the callback and the promise.
 */
function loadLambda(file: string, exportName: string) {
  const src = readFileSync(path.join(FUNCTIONS_DIR, file), 'utf8');
  const { code } = transformSync(src, { loader: file.endsWith('.ts') ? 'ts' : 'js', format: 'cjs' });
  const module = { exports: {} as Record<string, unknown> };
  new Function('exports', 'module', code)(module.exports, module);
  const fn = module.exports[exportName] as (event: unknown, context: unknown, callback: unknown) => unknown;
  expect(typeof fn).toBe('function');
  const context = { functionName: 'example', awsRequestId: 'req-1' };
  return (event: unknown) =>
    new Promise<any>((resolve, reject) => {
      const returned = fn(event, context, (err: unknown, result: unknown) => (err ? reject(err) : resolve(result)));
      if (returned instanceof Promise) returned.then(resolve, reject);
    });
}

function event(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { queryStringParameters: null, pathParameters: null, body: null, headers: {}, ...over };
}

describe('hello', () => {
  it('answers {hello: world}', async () => {
    expect(await load('hello.js')(event())).toEqual({ statusCode: 200, body: { hello: 'world' } });
  });
});

describe('users-list', () => {
  const list = load('users-list.js');

  it('defaults to page 1, limit 10 when there is no query at all', async () => {
    const res = await list(event({ queryStringParameters: null }));
    expect(res.statusCode).toBe(200);
    expect(res.body.page).toBe(1);
    expect(res.body.limit).toBe(10);
    expect(res.body.total).toBe(25);
    expect(res.body.users.map((u: { id: number }) => u.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const u of res.body.users) {
      expect(Object.keys(u).sort()).toEqual(['email', 'id', 'name', 'role']);
      expect(Number.isInteger(u.id)).toBe(true);
    }
  });

  it('slices from (page-1)*limit: page=2&limit=5 is ids 6..10, as integers', async () => {
    const res = await list(event({ queryStringParameters: { page: '2', limit: '5' } }));
    expect(res.statusCode).toBe(200);
    expect(res.body.page).toBe(2);
    expect(res.body.limit).toBe(5);
    expect(res.body.users.map((u: { id: number }) => u.id)).toEqual([6, 7, 8, 9, 10]);
  });

  it('returns the short last page and an empty page past the end', async () => {
    const last = await list(event({ queryStringParameters: { page: '3' } }));
    expect(last.body.users.map((u: { id: number }) => u.id)).toEqual([21, 22, 23, 24, 25]);
    const past = await list(event({ queryStringParameters: { page: '9', limit: '10' } }));
    expect(past.statusCode).toBe(200);
    expect(past.body.users).toEqual([]);
    expect(past.body.total).toBe(25);
  });

  it('treats an empty value as absent', async () => {
    const res = await list(event({ queryStringParameters: { page: '', limit: '3' } }));
    expect(res.body.page).toBe(1);
    expect(res.body.users).toHaveLength(3);
  });

  it.each([
    ['page', '0'],
    ['page', '-1'],
    ['page', 'abc'],
    ['limit', '1.5'],
    ['limit', '0'],
  ])('rejects %s=%s with 400 {error}', async (key, value) => {
    const res = await list(event({ queryStringParameters: { [key]: value } }));
    expect(res.statusCode).toBe(400);
    expect(res.body.error).toContain(key);
  });
});

describe('users-create', () => {
  it('answers 201 with an integer id, role viewer by default and an ISO created_at', async () => {
    const create = load('users-create.js');
    const res = await create(event({ body: { name: 'Ada', email: 'ada@example.com' } }));
    expect(res.statusCode).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'email', 'id', 'name', 'role']);
    expect(Number.isInteger(res.body.id)).toBe(true);
    expect(res.body).toMatchObject({ name: 'Ada', email: 'ada@example.com', role: 'viewer' });
    expect(res.body.created_at).toMatch(ISO);
    const next = await create(event({ body: { name: 'Bo', email: 'bo@example.com' } }));
    expect(next.body.id).toBe(res.body.id + 1);
  });

  it('keeps a given role and accepts the body as a JSON string', async () => {
    const res = await load('users-create.js')(
      event({ body: JSON.stringify({ name: 'Ada', email: 'ada@example.com', role: 'admin' }) }),
    );
    expect(res.statusCode).toBe(201);
    expect(res.body.role).toBe('admin');
  });

  it.each([
    [{ email: 'ada@example.com' }],
    [{ name: 'Ada' }],
    [{}],
    [null],
  ])('400 when name or email is missing: %j', async (body) => {
    const res = await load('users-create.js')(event({ body }));
    expect(res.statusCode).toBe(400);
    expect(res.body).toEqual({ error: 'name and email are required' });
  });

  it.each(['a b@x.com', 'ab.com', 'a@b', 'a@b .com', '@x.com'])('400 invalid email for %j', async (email) => {
    const res = await load('users-create.js')(event({ body: { name: 'Ada', email } }));
    expect(res.statusCode).toBe(400);
    expect(res.body).toEqual({ error: 'invalid email' });
  });

  it('400 for a string body that is not JSON', async () => {
    const res = await load('users-create.js')(event({ body: 'name=Ada' }));
    expect(res.statusCode).toBe(400);
    expect(typeof res.body.error).toBe('string');
  });
});

describe('users-get (TypeScript)', () => {
  const get = load('users-get.ts');

  it('answers the single-user shape with the id from the path as an integer', async () => {
    const res = await get(event({ pathParameters: { id: '42' } }));
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'email', 'id', 'last_login', 'name', 'role']);
    expect(res.body.id).toBe(42);
    expect(res.body.created_at).toMatch(ISO);
    expect(res.body.last_login).toMatch(ISO);
  });

  it('agrees with users-list for the sample users', async () => {
    const listed = (await load('users-list.js')(event())).body.users[2];
    const single = (await get(event({ pathParameters: { id: '3' } }))).body;
    expect({ id: single.id, name: single.name, email: single.email, role: single.role }).toEqual(listed);
  });

  it('400 {error} when id is missing or not a positive integer', async () => {
    for (const pathParameters of [null, {}, { id: '' }, { id: 'abc' }, { id: '0' }]) {
      const res = await get(event({ pathParameters }));
      expect(res.statusCode).toBe(400);
      expect(typeof res.body.error).toBe('string');
    }
  });
});

describe('users-delete', () => {
  const del = load('users-delete.js');

  it('answers {deleted: true, id} with an integer id', async () => {
    const res = await del(event({ pathParameters: { id: '7' } }));
    expect(res).toEqual({ statusCode: 200, body: { deleted: true, id: 7 } });
  });

  it('400 {error} when id is missing', async () => {
    for (const pathParameters of [null, {}, { id: 'x' }]) {
      const res = await del(event({ pathParameters }));
      expect(res.statusCode).toBe(400);
      expect(typeof res.body.error).toBe('string');
    }
  });
});

describe('webhook-receiver', () => {
  const order = { event: 'order.created', data: { id: 1 } };

  it('401 {error: invalid secret} on a wrong or missing secret when WEBHOOK_SECRET is set', async () => {
    const receive = load('webhook-receiver.js', { WEBHOOK_SECRET: 's3cret' });
    for (const headers of [{ 'x-webhook-secret': 'wrong' }, {}, { 'x-webhook-secret': 's3cre' }]) {
      expect(await receive(event({ headers, body: order }))).toEqual({
        statusCode: 401,
        body: { error: 'invalid secret' },
      });
    }
    const ok = await receive(event({ headers: { 'x-webhook-secret': 's3cret' }, body: order }));
    expect(ok).toEqual({ statusCode: 200, body: { processed: 'order.created' } });
  });

  it('accepts any request when no secret is configured', async () => {
    const res = await load('webhook-receiver.js')(event({ body: order }));
    expect(res).toEqual({ statusCode: 200, body: { processed: 'order.created' } });
  });

  it('handles a JSON string body like an object body', async () => {
    const receive = load('webhook-receiver.js');
    const fromString = await receive(event({ body: JSON.stringify({ event: 'user.signup', data: {} }) }));
    const fromObject = await receive(event({ body: { event: 'user.signup', data: {} } }));
    expect(fromString).toEqual({ statusCode: 200, body: { processed: 'user.signup' } });
    expect(fromObject).toEqual(fromString);
  });

  it.each(['order.created', 'user.signup', 'payment.failed'])('acknowledges %s as processed', async (name) => {
    const res = await load('webhook-receiver.js')(event({ body: { event: name, data: {} } }));
    expect(res).toEqual({ statusCode: 200, body: { processed: name } });
  });

  it('acknowledges an unknown event with received and its name', async () => {
    const res = await load('webhook-receiver.js')(event({ body: { event: 'invoice.paid', data: {} } }));
    expect(res).toEqual({ statusCode: 200, body: { received: true, event: 'invoice.paid' } });
  });

  it('verifies a Standard Webhooks signature when WEBHOOK_SIGNING_SECRET is set', async () => {
    const keyB64 = Buffer.from('0123456789abcdef0123456789abcdef').toString('base64');
    const receive = load('webhook-receiver.js', { WEBHOOK_SIGNING_SECRET: `whsec_${keyB64}` });
    const raw = JSON.stringify(order);
    const id = 'msg_1';
    const ts = String(Math.floor(Date.now() / 1000));
    const sig = createHmac('sha256', Buffer.from(keyB64, 'base64')).update(`${id}.${ts}.${raw}`).digest('base64');
    const headers = { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1,bogus v1,${sig}` };

    expect(await receive(event({ headers, body: order }))).toEqual({ statusCode: 200, body: { processed: 'order.created' } });
    expect(await receive(event({ headers, body: raw }))).toEqual({ statusCode: 200, body: { processed: 'order.created' } });

    const tampered = await receive(event({ headers, body: { ...order, data: { id: 2 } } }));
    expect(tampered).toEqual({ statusCode: 401, body: { error: 'invalid signature' } });
    const stale = await receive(event({ headers: { ...headers, 'webhook-timestamp': String(Number(ts) - 3600) }, body: order }));
    expect(stale.statusCode).toBe(401);
    const unsigned = await receive(event({ body: order }));
    expect(unsigned.statusCode).toBe(401);
  });
});

describe('the Lambda-style project (examples/functions/lambda)', () => {
  it('app.mjs lambdaHandler answers a JSON string body from the REST event', async () => {
    const res = await loadLambda('lambda/app.mjs', 'lambdaHandler')({
      queryStringParameters: { name: 'Ada' },
      resource: '/lambda/hello',
      requestContext: { stage: '$default' },
    });
    expect(res).toEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body: '{"message":"hello Ada","resource":"/lambda/hello","stage":"$default","function":"example"}',
    });
    const anonymous = await loadLambda('lambda/app.mjs', 'lambdaHandler')({ queryStringParameters: null, requestContext: {} });
    expect(JSON.parse(anonymous.body).message).toBe('hello world');
  });

  it('notes.mjs stores a note from a JSON string body and reads it back as a plain object', async () => {
    const notes = loadLambda('lambda/notes.mjs', 'handler');
    const created = await notes({ routeKey: 'POST /lambda/notes', rawPath: '/lambda/notes', body: '{"text":"tea"}' });
    expect(created).toEqual({ statusCode: 201, headers: { location: '/lambda/notes/1' }, body: '{"id":"1","text":"tea"}' });
    expect(await notes({ routeKey: 'GET /lambda/notes/{id}', pathParameters: { id: '1' } })).toEqual({ id: '1', text: 'tea' });
    expect((await notes({ routeKey: 'GET /lambda/notes/{id}', pathParameters: { id: '2' } })).statusCode).toBe(404);
    expect(await notes({ routeKey: 'POST /lambda/notes', body: 'not json' })).toEqual({ statusCode: 400, body: '{"message":"body must be JSON"}' });
  });

  it('greet.js answers through the callback', async () => {
    const greet = loadLambda('lambda/greet.js', 'greet');
    expect(await greet({ pathParameters: { name: 'Grace' } })).toEqual({
      statusCode: 200,
      body: '{"greeting":"Hello, Grace!","requestId":"req-1"}',
    });
    expect((await greet({ pathParameters: { name: 'x'.repeat(41) } })).statusCode).toBe(400);
  });

  it('signup.ts answers 201 with a cookie, 422 without a valid email', async () => {
    const signup = loadLambda('lambda/signup.ts', 'handler');
    expect(await signup({ body: '{"email":"ada@example.com"}' })).toEqual({
      statusCode: 201,
      cookies: ['signup=req-1; Path=/; HttpOnly'],
      body: '{"email":"ada@example.com","welcome":true}',
    });
    expect((await signup({ body: '{"email":"nope"}' })).statusCode).toBe(422);
    expect((await signup({})).statusCode).toBe(422);
  });
});
