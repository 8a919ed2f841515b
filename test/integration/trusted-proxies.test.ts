/**
 * SWITCHYARD_TRUSTED_PROXIES over real HTTP: with no setting, X-Forwarded-*
 * headers change nothing; with a hop count or a list of addresses, the
 * invocation's sourceIp (every event format) comes from X-Forwarded-For read
 * from the right, invokeUrl's scheme and host from X-Forwarded-Proto/-Host,
 * and wrong admin keys are slowed per client address, not per proxy. A peer
 * outside the list is not believed. Requests leave from 127.0.0.1 or 127.0.0.2
 * (all of 127.0.0.0/8 is this machine) to play a trusted or an untrusted peer.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';

const KEY = 'a-key-of-24-characters!!';
const FORMATS = ['switchyard', 'aws-v1', 'aws-v2'] as const;

/** Answers the client address it was given and the X-Forwarded-For it received, in any of the three formats. */
const WHO = `exports.handler = async (event) => {
  const h = event.headers ?? {};
  const sourceIp = event.requestContext.http ? event.requestContext.http.sourceIp
    : event.requestContext.identity ? event.requestContext.identity.sourceIp : event.requestContext.sourceIp;
  const xff = h['x-forwarded-for'] ?? h['X-Forwarded-For'] ?? null;
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sourceIp, xff }) };
};`;

interface Answer {
  status: number;
  json: any;
}

/** One request from the local address `from`, with `headers`. */
function call(
  svc: RunningService,
  method: string,
  path: string,
  opts: { from?: string; headers?: Record<string, string>; body?: unknown; admin?: boolean } = {},
): Promise<Answer> {
  const port = Number(new URL(opts.admin ? svc.adminUrl : svc.url).port);
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers = { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, localAddress: opts.from ?? '127.0.0.1', headers, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }));
    });
    req.end(body);
  });
}

/** Deploys WHO in each format and an API routing /<format> to it; returns the API's id. */
async function setUp(svc: RunningService, headers: Record<string, string> = {}): Promise<string> {
  for (const format of FORMATS) {
    const fn = await call(svc, 'POST', '/api/functions', { headers, body: { name: `who-${format}`, code: WHO, event_format: format } });
    expect(fn.status, JSON.stringify(fn.json)).toBe(201);
  }
  const api = await call(svc, 'POST', '/api/apis', {
    headers,
    body: { name: 'who', basePath: '/', routes: FORMATS.map((f) => ({ method: 'GET', path: `/${f}`, function: `who-${f}` })) },
  });
  expect(api.status, JSON.stringify(api.json)).toBe(201);
  return api.json.id;
}

/** What each format's function saw as sourceIp (and X-Forwarded-For) for one request. */
async function seen(svc: RunningService, apiId: string, opts: { from?: string; headers?: Record<string, string> }) {
  const out: Record<string, { sourceIp: string; xff: string | null }> = {};
  for (const format of FORMATS) {
    const res = await call(svc, 'GET', `/api/invoke/fn/${apiId}/${format}`, opts);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    out[format] = res.json;
  }
  return out;
}

const FORWARDED = { 'x-forwarded-for': '198.51.100.1, 203.0.113.7', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' };

describe('with no trusted proxies (the default)', () => {
  let svc: RunningService;
  let apiId: string;
  beforeAll(async () => {
    svc = await startService();
    apiId = await setUp(svc);
  });
  afterAll(() => svc?.stop());

  it('ignores X-Forwarded-For: sourceIp is the peer in every format', async () => {
    const got = await seen(svc, apiId, { headers: FORWARDED });
    for (const format of FORMATS) expect(got[format].sourceIp, format).toBe('127.0.0.1');
    // The AWS formats append the peer, as API Gateway does.
    expect(got['aws-v1'].xff).toBe('198.51.100.1, 203.0.113.7, 127.0.0.1');
    expect(got['aws-v2'].xff).toBe('198.51.100.1, 203.0.113.7, 127.0.0.1');
  });

  it('ignores X-Forwarded-Proto and -Host: invokeUrl is built from Host', async () => {
    const res = await call(svc, 'GET', `/api/apis/${apiId}`, { headers: FORWARDED });
    expect(res.json.invokeUrl).toBe(`${svc.url}/api/invoke/fn/${apiId}`);
  });
});

describe('SWITCHYARD_TRUSTED_PROXIES=1 (a hop count)', () => {
  let svc: RunningService;
  let apiId: string;
  const auth = { authorization: `Bearer ${KEY}` };
  beforeAll(async () => {
    // Other machines may reach it, so wrong admin keys are slowed per client address.
    svc = await startService({ env: { HOST: '0.0.0.0', SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_TRUSTED_PROXIES: '1' } });
    apiId = await setUp(svc, auth);
  });
  afterAll(() => svc?.stop());

  it("takes sourceIp from the rightmost X-Forwarded-For entry in every format; what the client wrote left of it is not believed", async () => {
    const got = await seen(svc, apiId, { headers: FORWARDED });
    for (const format of FORMATS) expect(got[format].sourceIp, format).toBe('203.0.113.7');
    // The proxy's own address is what the AWS formats append, not the client's again.
    expect(got['aws-v1'].xff).toBe('198.51.100.1, 203.0.113.7, 127.0.0.1');
    expect(got['aws-v2'].xff).toBe('198.51.100.1, 203.0.113.7, 127.0.0.1');
    // Without the header the peer is the client.
    const direct = await seen(svc, apiId, {});
    for (const format of FORMATS) expect(direct[format].sourceIp, format).toBe('127.0.0.1');
  });

  it('builds invokeUrl from X-Forwarded-Proto and -Host', async () => {
    const res = await call(svc, 'GET', `/api/apis/${apiId}`, { headers: { ...auth, ...FORWARDED } });
    expect(res.json.invokeUrl).toBe(`https://api.example.com/api/invoke/fn/${apiId}`);
    const list = await call(svc, 'GET', '/api/apis', { headers: { ...auth, ...FORWARDED } });
    expect(list.json[0].invokeUrl).toBe(`https://api.example.com/api/invoke/fn/${apiId}`);
  });

  it('slows wrong admin keys per forwarded client address, not per proxy', async () => {
    const from = (client: string, key: string) =>
      call(svc, 'GET', '/api/functions', { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': client } });
    for (let i = 0; i < 10; i++) expect((await from('192.0.2.10', `guess-${i}`)).status, `guess ${i}`).toBe(401);
    const slowed = await from('192.0.2.10', 'guess-10');
    expect(slowed.status).toBe(429);
    expect(slowed.json.code).toBe('too_many_failed_attempts');
    // Another client behind the same proxy keeps its own budget.
    expect((await from('192.0.2.11', 'guess-0')).status).toBe(401);
    expect((await from('192.0.2.11', KEY)).status).toBe(200);
  });
});

describe('--trusted-proxies 10.0.0.0/8,127.0.0.1,::1 (addresses and CIDRs)', () => {
  let svc: RunningService;
  let apiId: string;
  beforeAll(async () => {
    svc = await startService({ args: ['--trusted-proxies', '10.0.0.0/8,127.0.0.1,::1'] });
    apiId = await setUp(svc);
  });
  afterAll(() => svc?.stop());

  it('walks X-Forwarded-For from the right past every trusted hop', async () => {
    const oneInner = await seen(svc, apiId, { headers: { 'x-forwarded-for': '198.51.100.1, 10.1.2.3' } });
    for (const format of FORMATS) expect(oneInner[format].sourceIp, format).toBe('198.51.100.1');
    // The first untrusted address from the right is the client; what is left of it may be made up.
    const spoofed = await seen(svc, apiId, { headers: { 'x-forwarded-for': '198.51.100.1, 192.0.2.5, 10.1.2.3' } });
    for (const format of FORMATS) expect(spoofed[format].sourceIp, format).toBe('192.0.2.5');
  });

  it('believes nothing from a peer outside the list', async () => {
    const got = await seen(svc, apiId, { from: '127.0.0.2', headers: FORWARDED });
    for (const format of FORMATS) expect(got[format].sourceIp, format).toBe('127.0.0.2');
    const res = await call(svc, 'GET', `/api/apis/${apiId}`, { from: '127.0.0.2', headers: FORWARDED });
    expect(res.json.invokeUrl).toBe(`${svc.url}/api/invoke/fn/${apiId}`);
    // From the trusted peer the same headers count.
    const trusted = await call(svc, 'GET', `/api/apis/${apiId}`, { headers: FORWARDED });
    expect(trusted.json.invokeUrl).toBe(`https://api.example.com/api/invoke/fn/${apiId}`);
  });
});

describe('SWITCHYARD_TRUSTED_PROXIES with other settings', () => {
  it('keeps the public URL for invokeUrl', async () => {
    const svc = await startService({ env: { SWITCHYARD_TRUSTED_PROXIES: '1', SWITCHYARD_PUBLIC_URL: 'https://public.example.org' } });
    try {
      const api = await call(svc, 'POST', '/api/apis', { headers: FORWARDED, body: { name: 'p', basePath: '/', routes: [] } });
      expect(api.status, JSON.stringify(api.json)).toBe(201);
      expect(api.json.invokeUrl).toBe(`https://public.example.org/api/invoke/fn/${api.json.id}`);
    } finally {
      await svc.stop();
    }
  });

  it('with an admin listener, takes invokeUrl from a trusted X-Forwarded-Host rather than adding the public port', async () => {
    const svc = await startService({ env: { SWITCHYARD_TRUSTED_PROXIES: '127.0.0.1', SWITCHYARD_ADMIN_ADDRESS: '127.0.0.1:0' } });
    try {
      const api = await call(svc, 'POST', '/api/apis', { admin: true, headers: FORWARDED, body: { name: 'a', basePath: '/', routes: [] } });
      expect(api.status, JSON.stringify(api.json)).toBe(201);
      expect(api.json.invokeUrl).toBe(`https://api.example.com/api/invoke/fn/${api.json.id}`);
      // Reached directly: the name asked under, with the public port.
      const direct = await call(svc, 'GET', `/api/apis/${api.json.id}`, { admin: true });
      expect(direct.json.invokeUrl).toBe(`${svc.url}/api/invoke/fn/${api.json.id}`);
    } finally {
      await svc.stop();
    }
  });

  it('refuses a setting that is neither a hop count nor addresses, naming it', async () => {
    const err = await startService({ env: { SWITCHYARD_TRUSTED_PROXIES: '10.0.0.0/8,proxy.local' } }).then(
      async (s) => {
        await s.stop();
        throw new Error('started');
      },
      (e: Error) => e,
    );
    expect(err.message).toContain('SWITCHYARD_TRUSTED_PROXIES must be a hop count');
    expect(err.message).toContain('"proxy.local" is neither');
  });
});
