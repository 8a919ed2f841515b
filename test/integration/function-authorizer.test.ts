/**
 * Function (Lambda) authorizers over real HTTP, written in the idioms of AWS's
 * samples: a TOKEN authorizer with a callback and an IAM policy answer, a
 * REQUEST authorizer (payload 1.0) reading headers and query strings, and a
 * payload 2.0 authorizer with simple responses. Allow and Deny, Unauthorized,
 * a failing authorizer, the context reaching aws-v1, aws-v2 and switchyard
 * functions where API Gateway puts it, and the answer cache: each answer
 * carries a nonce made when the authorizer runs, so a repeated nonce is a
 * cached answer and a new one a run. SQLite, or PostgreSQL with TEST_STORE=postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';

const FUNCTIONS: Record<string, { code: string; event_format?: string }> = {
  // The blueprint's shape: a switch on the token, a policy built by a helper, callback style.
  'token-auth': {
    code: `
exports.handler = function (event, context, callback) {
  var token = event.authorizationToken;
  switch (token) {
    case 'allow':
      callback(null, policyFor('user|a1', 'Allow', event.methodArn));
      break;
    case 'allow-all':
      // Every method and path of the API: what a cached policy must say to serve other routes.
      callback(null, policyFor('user|a2', 'Allow', event.methodArn.split('/').slice(0, 2).join('/') + '/*'));
      break;
    case 'deny':
      callback(null, policyFor('user|a1', 'Deny', event.methodArn));
      break;
    case 'unauthorized':
      callback('Unauthorized');
      break;
    default:
      callback('Error: Invalid token');
  }
};

function policyFor(principalId, effect, resource) {
  var authResponse = { principalId: principalId };
  if (effect && resource) {
    authResponse.policyDocument = {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }],
    };
  }
  authResponse.context = { tier: 'gold', quota: 42, beta: true, nonce: String(Math.random()) };
  return authResponse;
}`,
  },
  // A REQUEST authorizer as the REST samples write one: identity from a header and a query string.
  'request-auth': {
    code: `
export const handler = async (event) => {
  const tenant = event.headers['X-Tenant'];
  const key = event.queryStringParameters && event.queryStringParameters.key;
  if (tenant === 'acme' && key === 'k-1') return generateAllow('tenant-acme', event.methodArn, event);
  if (tenant === 'acme') throw new Error('Unauthorized');
  return generateDeny('tenant-' + tenant, event.methodArn, event);
};

const generatePolicy = (principalId, effect, resource, event) => ({
  principalId,
  policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }] },
  context: {
    nonce: String(Math.random()),
    type: event.type,
    resource: event.resource,
    method: event.httpMethod,
    id: event.pathParameters.id,
    methodArn: event.methodArn,
  },
});
const generateAllow = (p, r, e) => generatePolicy(p, 'Allow', r, e);
const generateDeny = (p, r, e) => generatePolicy(p, 'Deny', r, e);`,
  },
  // Payload 2.0 with simple responses, as the HTTP API samples write one.
  'simple-auth': {
    code: `
export const handler = async (event) => {
  let response = { isAuthorized: false, context: { nonce: String(Math.random()) } };
  if (event.headers.authorization === 'secretToken') {
    response = {
      isAuthorized: true,
      context: {
        user: 'u-9',
        nonce: String(Math.random()),
        routeArn: event.routeArn,
        identity: event.identitySource.join(','),
        version: event.version,
        type: event.type,
        routeKey: event.routeKey,
      },
    };
  }
  return response;
};`,
  },
  'echo-v1': {
    code: `exports.handler = async (event) => ({ statusCode: 200, body: JSON.stringify(event.requestContext.authorizer ?? null) });`,
    event_format: 'aws-v1',
  },
  'echo-v2': {
    code: `exports.handler = async (event) => ({ statusCode: 200, body: JSON.stringify(event.requestContext.authorizer ?? null) });`,
    event_format: 'aws-v2',
  },
  'echo-sy': { code: `exports.handler = async (event) => ({ statusCode: 200, body: { authorizer: event.requestContext.authorizer ?? null } });` },
};

let svc: RunningService;
let apiId = '';

async function call(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${svc.url}/api/invoke/fn/${apiId}${path}`, { headers });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, json, text };
}

beforeAll(async () => {
  svc = await startService({ env: { SWITCHYARD_TEST_HOOKS: '1' } });
  for (const [name, body] of Object.entries(FUNCTIONS)) {
    const res = await svc.request('POST', '/api/functions', { name, ...body });
    expect(res.status, res.text).toBe(201);
  }
  const fn = (name: string, fields: Record<string, unknown>) => ({ name, type: 'function', ...fields });
  const res = await svc.request('POST', '/api/apis', {
    name: 'lambda-auth',
    basePath: '/',
    authorizers: [
      fn('token', { function: 'token-auth', payloadFormatVersion: '1.0', kind: 'TOKEN', identitySources: ['method.request.header.Authorization'] }),
      fn('request', {
        function: 'request-auth',
        payloadFormatVersion: '1.0',
        kind: 'REQUEST',
        identitySources: ['method.request.header.X-Tenant', 'method.request.querystring.key'],
        resultTtlSeconds: 0,
      }),
      fn('simple', { function: 'simple-auth', payloadFormatVersion: '2.0', enableSimpleResponses: true, identitySources: ['$request.header.Authorization'] }),
      fn('simple-nocache', { function: 'simple-auth', payloadFormatVersion: '2.0', enableSimpleResponses: true, resultTtlSeconds: 0 }),
    ],
    routes: [
      { method: 'GET', path: '/v1/pets', function: 'echo-v1', authorizer: 'token' },
      { method: 'GET', path: '/v1/other', function: 'echo-v1', authorizer: 'token' },
      { method: 'GET', path: '/sy', function: 'echo-sy', authorizer: 'token' },
      { method: 'GET', path: '/v1/req/{id}', function: 'echo-v1', authorizer: 'request' },
      { method: 'GET', path: '/v2/items', function: 'echo-v2', authorizer: 'simple' },
      { method: 'GET', path: '/v2/fresh', function: 'echo-v2', authorizer: 'simple-nocache' },
      { method: 'GET', path: '/open', function: 'echo-v2' },
    ],
  });
  expect(res.status, res.text).toBe(201);
  apiId = res.json.id;
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

const arnOf = (method: string, path: string) => `arn:aws:execute-api:us-east-1:123456789012:${apiId}/$default/${method}/${path}`;

describe('a TOKEN authorizer (payload 1.0)', () => {
  it('admits with an Allow policy and passes principalId and context to an aws-v1 function', async () => {
    const res = await call('/v1/pets', { authorization: 'allow' });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ principalId: 'user|a1', tier: 'gold', quota: 42, beta: true });
    expect(typeof res.json.nonce).toBe('string');
    expect(typeof res.json.integrationLatency).toBe('number');
  });

  it('answers 403 for Deny, 401 for Unauthorized or no token, 500 for another error', async () => {
    const denied = await call('/v1/pets', { authorization: 'deny' });
    expect(denied.status, denied.text).toBe(403);
    expect(denied.json.code).toBe('invocation_forbidden');
    const unauthorized = await call('/v1/pets', { authorization: 'unauthorized' });
    expect(unauthorized.status, unauthorized.text).toBe(401);
    expect(unauthorized.json.code).toBe('invocation_unauthorized');
    expect((await call('/v1/pets')).status).toBe(401);
    const failed = await call('/v1/pets', { authorization: 'garbage' });
    expect(failed.status, failed.text).toBe(500);
    expect(failed.json.code).toBe('authorizer_failed');
  });

  it('keeps an answer per token for its TTL: the authorizer runs once, then again after the TTL', async () => {
    const first = await call('/sy', { authorization: 'allow-all' });
    expect(first.status, first.text).toBe(200);
    const nonce = first.json.authorizer.nonce;
    for (let i = 0; i < 3; i++) {
      const again = await call('/sy', { authorization: 'allow-all' });
      expect(again.json.authorizer.nonce).toBe(nonce);
      expect(again.json.authorizer.integrationLatency).toBe(0);
    }
    // Another token is another identity: the authorizer runs for it.
    const other = await call('/v1/pets', { authorization: 'allow' });
    expect(other.json.nonce).not.toBe(nonce);
    await svc.request('PUT', '/api/_test/clock', { advance_ms: 301_000 });
    const later = await call('/sy', { authorization: 'allow-all' });
    expect(later.status).toBe(200);
    expect(later.json.authorizer.nonce).not.toBe(nonce);
  });

  it("judges a cached policy against each request's method ARN, wildcards included", async () => {
    // The policy of `allow` names /v1/pets only: kept, it does not open another route.
    expect((await call('/v1/pets', { authorization: 'allow' })).status).toBe(200);
    const other = await call('/v1/other', { authorization: 'allow' });
    expect(other.status, other.text).toBe(403);
    // Each ARN's verdict holds on the next requests with the same kept answer, in either order.
    expect((await call('/v1/pets', { authorization: 'allow' })).status).toBe(200);
    expect((await call('/v1/other', { authorization: 'allow' })).status).toBe(403);
    // `allow-all` says <api>/* : every route.
    expect((await call('/v1/other', { authorization: 'allow-all' })).status).toBe(200);
    expect((await call('/v1/pets', { authorization: 'allow-all' })).status).toBe(200);
  });

  it('passes the context to a switchyard function as to aws-v1', async () => {
    const res = await call('/sy', { authorization: 'allow-all' });
    expect(res.json.authorizer).toMatchObject({ principalId: 'user|a2', tier: 'gold', quota: 42, beta: true });
  });
});

describe('a REQUEST authorizer (payload 1.0)', () => {
  it("gets the request's fields and methodArn, and its context reaches the function", async () => {
    const res = await call('/v1/req/7?key=k-1', { 'X-Tenant': 'acme' });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      principalId: 'tenant-acme',
      type: 'REQUEST',
      resource: '/v1/req/{id}',
      method: 'GET',
      id: '7',
      methodArn: arnOf('GET', 'v1/req/7'),
    });
  });

  it('runs for every request with a TTL of 0', async () => {
    const a = await call('/v1/req/7?key=k-1', { 'X-Tenant': 'acme' });
    const b = await call('/v1/req/7?key=k-1', { 'X-Tenant': 'acme' });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.json.nonce).not.toBe(b.json.nonce);
  });

  it('answers 401 when an identity source is missing (without running) or it throws Unauthorized, 403 on Deny', async () => {
    expect((await call('/v1/req/7', { 'X-Tenant': 'acme' })).status).toBe(401);
    expect((await call('/v1/req/7?key=k-1')).status).toBe(401);
    expect((await call('/v1/req/7?key=wrong', { 'X-Tenant': 'acme' })).status).toBe(401);
    expect((await call('/v1/req/7?key=k-1', { 'X-Tenant': 'globex' })).status).toBe(403);
  });
});

describe('a payload 2.0 authorizer with simple responses', () => {
  it('admits isAuthorized: true and puts the context under requestContext.authorizer.lambda', async () => {
    const res = await call('/v2/items', { authorization: 'secretToken' });
    expect(res.status, res.text).toBe(200);
    expect(res.json.lambda).toMatchObject({
      user: 'u-9',
      routeArn: arnOf('GET', 'v2/items'),
      identity: 'secretToken',
      version: '2.0',
      type: 'REQUEST',
      routeKey: 'GET /v2/items',
    });
    // Cached for the same identity.
    const again = await call('/v2/items', { authorization: 'secretToken' });
    expect(again.json.lambda.nonce).toBe(res.json.lambda.nonce);
  });

  it('refuses isAuthorized: false with 403, and a request without the identity with 401', async () => {
    const res = await call('/v2/items', { authorization: 'wrong' });
    expect(res.status, res.text).toBe(403);
    expect((await call('/v2/items')).status).toBe(401);
  });

  it('runs every time with a TTL of 0', async () => {
    const a = await call('/v2/fresh', { authorization: 'secretToken' });
    const b = await call('/v2/fresh', { authorization: 'secretToken' });
    expect(a.status, a.text).toBe(200);
    expect(a.json.lambda.nonce).not.toBe(b.json.lambda.nonce);
  });

  it('leaves routes without an authorizer open', async () => {
    const res = await call('/open');
    expect(res.status).toBe(200);
    expect(res.json).toBeNull();
  });
});

describe('function authorizers through the management API', () => {
  const base = { name: 'bad', basePath: '/', routes: [] };
  it('refuses an authorizer naming a function that does not exist', async () => {
    const res = await svc.request('POST', '/api/apis', { ...base, authorizers: [{ name: 'x', type: 'function', function: 'no-such-function' }] });
    expect(res.status, res.text).toBe(400);
    expect(res.json.code).toBe('unknown_function');
    expect(res.json.error).toMatch(/^authorizers\[0\]\.function: /);
  });

  it.each([
    [{ name: 'x', type: 'function', function: 'token-auth', payloadFormatVersion: '1.0', kind: 'TOKEN', identitySources: ['$request.header.A', '$request.header.B'] }, 'authorizers[0].identitySources'],
    [{ name: 'x', type: 'function', function: 'token-auth', resultTtlSeconds: 3601 }, 'authorizers[0].resultTtlSeconds'],
    [{ name: 'x', type: 'function', function: 'token-auth', identitySources: [] }, 'authorizers[0].identitySources'],
    [{ name: 'x', type: 'function', function: 'token-auth', payloadFormatVersion: '2.0', kind: 'TOKEN' }, 'authorizers[0].kind'],
    [{ name: 'x', type: 'function', function: 'token-auth', payloadFormatVersion: '1.0', enableSimpleResponses: true }, 'authorizers[0].enableSimpleResponses'],
    [{ name: 'x', type: 'function', function: 'token-auth', issuer: 'https://a' }, 'authorizers[0].issuer'],
    [{ name: 'x', type: 'function', function: 'token-auth', identitySources: ['$context.identity.sourceIp'] }, 'authorizers[0].identitySources[0]'],
  ])('refuses an authorizer (%#) with a 400 naming the field', async (authorizer, field) => {
    const res = await svc.request('POST', '/api/apis', { ...base, authorizers: [authorizer] });
    expect(res.status, res.text).toBe(400);
    expect(res.json.details.field).toBe(field);
  });

  it('answers the authorizers with their defaults filled in', async () => {
    const got = await svc.request('GET', `/api/apis/${apiId}`);
    expect(got.json.authorizers[0]).toEqual({
      name: 'token',
      type: 'function',
      function: 'token-auth',
      payloadFormatVersion: '1.0',
      kind: 'TOKEN',
      identitySources: ['method.request.header.Authorization'],
      resultTtlSeconds: 300,
      enableSimpleResponses: false,
    });
    expect(got.json.authorizers[3].identitySources).toEqual(['$request.header.Authorization']);
  });
});
