/**
 * JWT authorizers over real HTTP: tokens signed here with jose, keys served by
 * a local JWKS server (node:http) that the gateway fetches, caches and fetches
 * again for a kid it does not know (keys rotated). Valid, expired, wrong
 * audience, wrong issuer, missing scope; an HS256 secret that answers never
 * show; the claims in each event format where API Gateway puts them; names
 * checked at write time. SQLite, or PostgreSQL with TEST_STORE=postgres.
 */
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const ISSUER = 'https://issuer.example.com/';
const AUDIENCE = 'orders-api';
const SECRET = 's3cret-s3cret-s3cret-s3cret-s3cret-42';

const FUNCTIONS: Record<string, { code: string; eventFormat?: string }> = {
  'jwt-echo': { code: `exports.handler = async (event) => ({ statusCode: 200, body: { authorizer: event.requestContext.authorizer ?? null } });` },
  'jwt-echo-v1': {
    code: `exports.handler = async (event) => ({ statusCode: 200, body: JSON.stringify(event.requestContext.authorizer ?? null) });`,
    eventFormat: 'aws-v1',
  },
  'jwt-echo-v2': {
    code: `exports.handler = async (event) => ({ statusCode: 200, body: JSON.stringify(event.requestContext.authorizer ?? null) });`,
    eventFormat: 'aws-v2',
  },
};

interface SigningKey {
  kid: string;
  alg: string;
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  jwk: JWK;
}

async function makeKey(kid: string, alg: 'RS256' | 'ES256' | 'EdDSA'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

let svc: RunningService;
let jwks: Receiver;
/** What the JWKS server serves now: tests rotate it. */
let served: SigningKey[] = [];
let apiId = '';
let now = 0;

async function clockNow(): Promise<number> {
  const res = await svc.request('GET', '/api/_test/clock');
  return Math.floor(Date.parse(res.json.now) / 1000);
}

async function sign(key: SigningKey | 'secret', claims: Record<string, unknown>, opts: { exp?: number; iat?: number; nbf?: number } = {}): Promise<string> {
  const jwt = new SignJWT(claims)
    .setIssuedAt(opts.iat ?? now)
    .setExpirationTime(opts.exp ?? now + 600);
  if (opts.nbf !== undefined) jwt.setNotBefore(opts.nbf);
  if (key === 'secret') return jwt.setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
  return jwt.setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
}

const good = (extra: Record<string, unknown> = {}) => ({ iss: ISSUER, aud: AUDIENCE, sub: 'user-7', scope: 'orders:read profile', ...extra });

async function call(path: string, token?: string, id = apiId) {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const res = await fetch(`${svc.url}/api/invoke/fn/${id}${path}`, { headers });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, json, text };
}

let rsa: SigningKey;
let ec: SigningKey;
let ed: SigningKey;

beforeAll(async () => {
  [rsa, ec, ed] = await Promise.all([makeKey('rsa-1', 'RS256'), makeKey('ec-1', 'ES256'), makeKey('ed-1', 'EdDSA')]);
  served = [rsa, ec, ed];
  jwks = await startReceiver(() => ({
    status: 200,
    body: JSON.stringify({ keys: served.map((k) => k.jwk) }),
    headers: { 'content-type': 'application/json' },
  }));
  svc = await startService({ env: { SWITCHYARD_TEST_HOOKS: '1', SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
  for (const [name, { code, eventFormat }] of Object.entries(FUNCTIONS)) {
    const res = await svc.request('POST', '/api/functions', { name, code, ...(eventFormat ? { event_format: eventFormat } : {}) });
    expect(res.status, res.text).toBe(201);
  }
  const res = await svc.request('POST', '/api/apis', {
    name: 'jwt-api',
    basePath: '/',
    authorizers: [
      { name: 'idp', type: 'jwt', issuer: ISSUER, audience: [AUDIENCE, 'other-client'], jwksUrl: `${jwks.url}/.well-known/jwks.json` },
      { name: 'shared', type: 'jwt', issuer: ISSUER, audience: [AUDIENCE], secret: SECRET },
    ],
    defaultAuthorizer: 'idp',
    routes: [
      { method: 'GET', path: '/me', function: 'jwt-echo' },
      { method: 'GET', path: '/orders', function: 'jwt-echo', authorizationScopes: ['orders:read', 'orders:admin'] },
      { method: 'GET', path: '/admin', function: 'jwt-echo', authorizationScopes: ['orders:admin'] },
      { method: 'GET', path: '/v1', function: 'jwt-echo-v1' },
      { method: 'GET', path: '/v2', function: 'jwt-echo-v2' },
      { method: 'GET', path: '/health', function: 'jwt-echo', authorizer: 'NONE' },
      { method: 'GET', path: '/hs', function: 'jwt-echo', authorizer: 'shared' },
    ],
  });
  expect(res.status, res.text).toBe(201);
  apiId = res.json.id;
  now = await clockNow();
}, 60_000);

afterAll(async () => {
  await svc?.stop();
  await jwks?.close();
});

describe('a JWT authorizer with a JWKS URL', () => {
  it('admits a valid token of each key type and passes its claims to the function', async () => {
    for (const key of [rsa, ec, ed]) {
      const res = await call('/me', await sign(key, good()));
      expect(res.status, res.text).toBe(200);
      expect(res.json.authorizer.claims).toMatchObject({ sub: 'user-7', iss: ISSUER, aud: AUDIENCE, exp: now + 600 });
      expect(res.json.authorizer.scopes).toEqual(['orders:read', 'profile']);
    }
  });

  it('refuses a request without a token, or with a broken one, with 401 and WWW-Authenticate', async () => {
    for (const token of [undefined, 'not-a-jwt', (await sign(rsa, good())).slice(0, -4) + 'AAAA']) {
      const res = await call('/me', token);
      expect(res.status, res.text).toBe(401);
      expect(res.json.code).toBe('invocation_unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('refuses an expired token, one not valid yet, and one past the leeway', async () => {
    const expired = await call('/me', await sign(rsa, good(), { iat: now - 3600, exp: now - 60 }));
    expect(expired.status).toBe(401);
    expect(expired.json.error).toMatch(/expired/);
    const early = await call('/me', await sign(rsa, good(), { nbf: now + 120 }));
    expect(early.status).toBe(401);
    // Within the default leeway of 5 s, an exp just past still passes.
    const justPast = await call('/me', await sign(rsa, good(), { iat: now - 60, exp: now - 2 }));
    expect(justPast.status, justPast.text).toBe(200);
  });

  it('refuses a token for another audience or from another issuer', async () => {
    expect((await call('/me', await sign(rsa, good({ aud: 'someone-else' })))).status).toBe(401);
    expect((await call('/me', await sign(rsa, good({ iss: 'https://evil.example.com/' })))).status).toBe(401);
    // A list of audiences with one of ours, or an access token's client_id, is ours.
    expect((await call('/me', await sign(rsa, good({ aud: ['x', 'other-client'] })))).status).toBe(200);
    const { aud: _aud, ...noAud } = good();
    expect((await call('/me', await sign(rsa, { ...noAud, client_id: AUDIENCE }))).status).toBe(200);
  });

  it("checks the route's scopes: 403 when the token has none of them", async () => {
    expect((await call('/orders', await sign(rsa, good()))).status).toBe(200);
    const admin = await call('/admin', await sign(rsa, good()));
    expect(admin.status, admin.text).toBe(403);
    expect(admin.json.code).toBe('invocation_forbidden');
    // `scp` as a list counts as well.
    const { scope: _s, ...noScope } = good();
    expect((await call('/admin', await sign(rsa, { ...noScope, scp: ['orders:admin'] }))).status).toBe(200);
    expect((await call('/admin', await sign(rsa, noScope))).status).toBe(403);
  });

  it('leaves a NONE route open under the default authorizer', async () => {
    const res = await call('/health');
    expect(res.status, res.text).toBe(200);
    expect(res.json.authorizer).toBeNull();
  });

  it('puts the claims where API Gateway does for aws-v1 and aws-v2 functions (as strings)', async () => {
    const token = await sign(rsa, good({ groups: ['a', 'b'], admin: true }));
    const v1 = await call('/v1', token);
    expect(v1.status, v1.text).toBe(200);
    expect(v1.json.claims).toMatchObject({ sub: 'user-7', exp: String(now + 600), groups: '[a b]', admin: 'true' });
    expect(v1.json.scopes).toEqual(['orders:read', 'profile']);
    const v2 = await call('/v2', token);
    expect(v2.status, v2.text).toBe(200);
    expect(v2.json.jwt.claims).toMatchObject({ sub: 'user-7', exp: String(now + 600), groups: '[a b]' });
    expect(v2.json.jwt.scopes).toEqual(['orders:read', 'profile']);
  });

  it('refuses an unknown kid, then fetches the rotated keys when a token names a new one', async () => {
    const stranger = await makeKey('stranger', 'RS256');
    const unknown = await call('/me', await sign(stranger, good()));
    expect(unknown.status).toBe(401);
    const fetchesBefore = jwks.requests.length;
    // The key server rotates: the old keys are gone, a new one is served.
    const rotated = await makeKey('rsa-2', 'RS256');
    served = [rotated];
    // One fetch per cooldown at most: a burst of forged kids cannot turn the gateway on the key server.
    await svc.request('PUT', '/api/_test/clock', { advance_ms: 31_000 });
    now = await clockNow();
    const res = await call('/me', await sign(rotated, good()));
    expect(res.status, res.text).toBe(200);
    expect(jwks.requests.length).toBe(fetchesBefore + 1);
    // Known kids are served from the cache: no fetch per request.
    for (let i = 0; i < 3; i++) expect((await call('/me', await sign(rotated, good()))).status).toBe(200);
    expect(jwks.requests.length).toBe(fetchesBefore + 1);
    served = [rsa, ec, ed, rotated];
  });

  it('remembers a verified token for at most 5 minutes: a key taken out of the JWKS stops admitting its tokens then', async () => {
    // Past the fetch cooldown of the test before, whose rotation left rsa out of the keys the gateway holds.
    await svc.request('PUT', '/api/_test/clock', { advance_ms: 31_000 });
    now = await clockNow();
    const token = await sign(rsa, good({ exp: now + 3600 }));
    expect((await call('/me', token)).status).toBe(200);
    // The key server drops rsa, and the gateway learns it (a new kid makes it fetch again).
    const next = await makeKey('rsa-3', 'RS256');
    served = [next];
    await svc.request('PUT', '/api/_test/clock', { advance_ms: 31_000 });
    now = await clockNow();
    expect((await call('/me', await sign(next, good()))).status).toBe(200);
    // A token of rsa that was never seen is refused; the one verified before is remembered.
    expect((await call('/me', await sign(rsa, good({ sub: 'someone-new' })))).status).toBe(401);
    expect((await call('/me', token)).status).toBe(200);
    await svc.request('PUT', '/api/_test/clock', { advance_ms: 5 * 60_000 + 1000 });
    now = await clockNow();
    const forgotten = await call('/me', token);
    expect(forgotten.status, forgotten.text).toBe(401);
    served = [rsa, ec, ed, next];
    // Past the fetch cooldown, so a later test's rsa token fetches the keys again.
    await svc.request('PUT', '/api/_test/clock', { advance_ms: 31_000 });
    now = await clockNow();
    expect((await call('/me', await sign(rsa, good()))).status).toBe(200);
  });
});

describe('a JWT authorizer with a shared secret', () => {
  it('admits an HS256 token signed with it and refuses an RS256 one', async () => {
    const res = await call('/hs', await sign('secret', good()));
    expect(res.status, res.text).toBe(200);
    expect(res.json.authorizer.claims.sub).toBe('user-7');
    expect((await call('/hs', await sign(rsa, good()))).status).toBe(401);
  });

  it('never shows the secret, and keeps it on an update that sends the mask back', async () => {
    const got = await svc.request('GET', `/api/apis/${apiId}`);
    const shared = got.json.authorizers.find((a: { name: string }) => a.name === 'shared');
    expect(shared.secret).toBe('****');
    expect(got.text).not.toContain(SECRET);
    // What GET answered, sent back as is: the secret stays.
    const put = await svc.request('PUT', `/api/apis/${apiId}`, { authorizers: got.json.authorizers });
    expect(put.status, put.text).toBe(200);
    expect(put.text).not.toContain(SECRET);
    expect((await call('/hs', await sign('secret', good()))).status).toBe(200);
    const listed = await svc.request('GET', '/api/apis');
    expect(listed.text).not.toContain(SECRET);
  });
});

describe('authorizers through the management API', () => {
  const base = { name: 'jwt-bad', basePath: '/', routes: [] as unknown[] };
  const jwt = { name: 'a', type: 'jwt', issuer: ISSUER, audience: [AUDIENCE], secret: SECRET };
  it.each([
    [{ ...base, routes: [{ method: 'GET', path: '/x', function: 'jwt-echo', authorizer: 'missing' }] }, 'routes[0].authorizer'],
    [{ ...base, authorizers: [jwt], defaultAuthorizer: 'missing' }, 'defaultAuthorizer'],
    [{ ...base, authorizers: [jwt, jwt] }, 'authorizers[1].name'],
    [{ ...base, authorizers: [{ ...jwt, secret: 'short' }] }, 'authorizers[0].secret'],
    [{ ...base, authorizers: [{ ...jwt, jwksUrl: 'https://idp.example.com/jwks' }] }, 'authorizers[0].jwksUrl'],
    [{ ...base, authorizers: [{ ...jwt, audience: [] }] }, 'authorizers[0].audience'],
    [{ ...base, authorizers: [{ ...jwt, identitySource: '$context.authorizer' }] }, 'authorizers[0].identitySource'],
    [{ ...base, authorizers: [{ ...jwt, function: 'jwt-echo' }] }, 'authorizers[0].function'],
    [{ ...base, authorizers: [{ ...jwt, secret: undefined, keys: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }] }, 'authorizers[0].keys.keys[0].k'],
    [{ ...base, authorizers: [{ ...jwt, leewaySeconds: 301 }] }, 'authorizers[0].leewaySeconds'],
    [{ ...base, authorizers: Array.from({ length: 11 }, (_, i) => ({ ...jwt, name: `a${i}` })) }, 'authorizers'],
    [{ ...base, authorizers: [{ ...jwt, name: 'NONE' }] }, 'authorizers[0].name'],
    [{ ...base, routes: [{ method: 'GET', path: '/x', function: 'jwt-echo', authorizationScopes: ['a'] }] }, 'routes[0].authorizationScopes'],
  ])('refuses %j with a 400 naming the field', async (body, field) => {
    const res = await svc.request('POST', '/api/apis', body);
    expect(res.status, res.text).toBe(400);
    expect(res.json.details.field).toBe(field);
  });

  it('refuses a JWKS URL on a private address unless the server allows them', async () => {
    const strict = await startService();
    try {
      const res = await strict.request('POST', '/api/apis', {
        ...base,
        authorizers: [{ name: 'idp', type: 'jwt', issuer: ISSUER, audience: [AUDIENCE], jwksUrl: 'http://169.254.169.254/jwks' }],
      });
      expect(res.status, res.text).toBe(400);
      expect(res.json.code).toBe('private_target');
      expect(res.json.details.field).toBe('authorizers[0].jwksUrl');
    } finally {
      await strict.stop();
    }
  });

  it('refuses a route added with an authorizer the API does not have', async () => {
    const res = await svc.request('POST', `/api/apis/${apiId}/routes`, { method: 'GET', path: '/new', function: 'jwt-echo', authorizer: 'nope' });
    expect(res.status, res.text).toBe(400);
    expect(res.json.details.field).toBe('route.authorizer');
  });

  it('refuses removing an authorizer that routes still name', async () => {
    const res = await svc.request('PUT', `/api/apis/${apiId}`, { authorizers: [] });
    expect(res.status, res.text).toBe(400);
    expect(res.json.details.field).toBe('defaultAuthorizer');
  });

  it('answers the route policy fields and the defaults filled in', async () => {
    const got = await svc.request('GET', `/api/apis/${apiId}`);
    expect(got.json.defaultAuthorizer).toBe('idp');
    expect(got.json.authorizers[0]).toEqual({
      name: 'idp',
      type: 'jwt',
      issuer: ISSUER,
      audience: [AUDIENCE, 'other-client'],
      jwksUrl: `${jwks.url}/.well-known/jwks.json`,
      identitySource: '$request.header.Authorization',
      leewaySeconds: 5,
    });
    const orders = got.json.routes.find((r: { path: string }) => r.path === '/orders');
    expect(orders.authorizationScopes).toEqual(['orders:read', 'orders:admin']);
    const health = got.json.routes.find((r: { path: string }) => r.path === '/health');
    expect(health.authorizer).toBe('NONE');
  });
});
