/**
 * Secret rotation with overlap and ed25519 signatures against a real server
 * (hand-moved test clock) and a real local receiver: receivers holding the old
 * and the new secret verify with the stock `standardwebhooks` and `svix`
 * packages during the overlap, only the new one after it; `v1a` (ed25519)
 * signatures verify with node:crypto, as neither package checks `v1a`.
 */
import { createPublicKey, verify as edVerify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { startReceiver, type ReceivedRequest, type Receiver } from '../helpers/receiver.js';
import { connect, connectTo } from '../helpers/cluster-connections.js';
import { flushedOutput, startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const OLD = 'whsec_' + Buffer.from('rotation-test-old-secret-of-32-by').toString('base64');
const HOUR = 3_600_000;

let svc: RunningService;
let rx: Receiver;

beforeAll(async () => {
  rx = await startReceiver();
  svc = await startService({ env: { SWITCHYARD_TEST_HOOKS: '1', SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
});

afterAll(async () => {
  await svc?.stop();
  await rx?.close();
});

const advance = (ms: number) => svc.request('PUT', '/api/_test/clock', { advance_ms: ms });

async function createHook(name: string, secret: string): Promise<{ id: string; secret?: string; public_key: string | null }> {
  const res = await svc.request('POST', '/api/webhooks', {
    name,
    target_url: `${rx.url}/${name}`,
    method: 'POST',
    payload_template: { hello: '{{delivery.id}}' },
    secret,
  });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

/** Test-fires the webhook and answers the request its target received. */
async function fire(id: string, name: string): Promise<ReceivedRequest> {
  const before = rx.requests.length;
  const res = await svc.request('POST', `/api/webhooks/${id}/test`);
  expect(res.status, res.text).toBe(200);
  const got = rx.requests.slice(before).filter((r) => r.url === `/${name}`);
  expect(got).toHaveLength(1);
  return got[0];
}

const headersOf = (req: ReceivedRequest) => ({
  'webhook-id': String(req.headers['webhook-id']),
  'webhook-timestamp': String(req.headers['webhook-timestamp']),
  'webhook-signature': String(req.headers['webhook-signature']),
});

/**
 * Whether a receiver holding `secret` accepts the request, with each stock library.
 * The receiver's own time is the request's (the server's clock was moved by hand), so the libraries' 5-minute tolerance holds.
 */
function verifiers(req: ReceivedRequest, secret: string): { standardwebhooks: boolean; svix: boolean } {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Number(req.headers['webhook-timestamp']) * 1000);
  try {
    const attempt = (f: () => unknown) => {
      try {
        f();
        return true;
      } catch {
        return false;
      }
    };
    return {
      standardwebhooks: attempt(() => new StandardWebhook(secret).verify(req.body, headersOf(req))),
      svix: attempt(() => new SvixWebhook(secret).verify(req.body, headersOf(req))),
    };
  } finally {
    vi.useRealTimers();
  }
}

/** The spec's `v1a` check by hand: any ed25519 signature in the header that verifies under the `whpk_` key. */
function verifiesEd25519(req: ReceivedRequest, publicKey: string): boolean {
  const raw = Buffer.from(publicKey.slice('whpk_'.length), 'base64');
  const key = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]), format: 'der', type: 'spki' });
  const h = headersOf(req);
  const content = Buffer.from(`${h['webhook-id']}.${h['webhook-timestamp']}.${req.body}`);
  return h['webhook-signature']
    .split(' ')
    .filter((s) => s.startsWith('v1a,'))
    .some((s) => edVerify(null, content, key, Buffer.from(s.slice(4), 'base64')));
}

describe('secret rotation', () => {
  it('signs with the old and the new secret during the overlap, and only the new one after it', async () => {
    const hook = await createHook('rotating', OLD);
    const rotated = await svc.request('POST', `/api/webhooks/${hook.id}/rotate-secret`, { overlap_s: 3600 });
    expect(rotated.status, rotated.text).toBe(200);
    const NEW = rotated.json.secret as string;
    expect(NEW).toMatch(/^whsec_/);
    expect(rotated.json.secrets).toMatchObject([
      { kind: 'hmac', expires_at: null, public_key: null },
      { kind: 'hmac', expires_at: expect.any(String) },
    ]);
    // Write-only: no answer carries a value again.
    const shown = await svc.request('GET', `/api/webhooks/${hook.id}`);
    expect(shown.json.secret).toBeUndefined();
    expect(shown.text).not.toContain(OLD.slice(6, 20));
    expect(shown.text).not.toContain(NEW.slice(6, 20));
    expect(shown.json.secrets).toHaveLength(2);

    const during = await fire(hook.id, 'rotating');
    const signatures = String(during.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures.every((s) => s.startsWith('v1,'))).toBe(true);
    expect(verifiers(during, OLD)).toEqual({ standardwebhooks: true, svix: true });
    expect(verifiers(during, NEW)).toEqual({ standardwebhooks: true, svix: true });

    // A manual retry of that delivery is signed the same way, with both secrets.
    const retried = await svc.request('POST', `/api/deliveries/${during.headers['webhook-id']}/retry`);
    expect(retried.status, retried.text).toBe(200);
    const again = rx.requests.filter((r) => r.url === '/rotating').at(-1)!;
    expect(String(again.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifiers(again, OLD)).toEqual({ standardwebhooks: true, svix: true });

    // The overlap ends by the clock: nothing had to remove the old secret.
    await advance(HOUR + 1000);
    const after = await fire(hook.id, 'rotating');
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifiers(after, OLD)).toEqual({ standardwebhooks: false, svix: false });
    expect(verifiers(after, NEW)).toEqual({ standardwebhooks: true, svix: true });
    expect((await svc.request('GET', `/api/webhooks/${hook.id}`)).json.secrets).toHaveLength(1);
    // Nor do the server's logs carry either value.
    const output = await flushedOutput(svc);
    expect(output).not.toContain(NEW.slice(6));
    expect(output).not.toContain(OLD.slice(6));
  });

  it('takes a given secret, an overlap of 0 replaces at once, and it keeps at most 10 secrets', async () => {
    const hook = await createHook('many', OLD);
    const given = 'whsec_' + Buffer.from('rotation-test-given-secret-32-byt').toString('base64');
    const res = await svc.request('POST', `/api/webhooks/${hook.id}/rotate-secret`, { secret: given, overlap_s: 0 });
    expect(res.status, res.text).toBe(200);
    expect(res.json.secret).toBeUndefined();
    expect(res.json.secrets).toHaveLength(1);
    const only = await fire(hook.id, 'many');
    expect(verifiers(only, given).standardwebhooks).toBe(true);
    expect(verifiers(only, OLD).standardwebhooks).toBe(false);

    for (let i = 0; i < 12; i++) {
      const r = await svc.request('POST', `/api/webhooks/${hook.id}/rotate-secret`, {});
      expect(r.status, r.text).toBe(200);
    }
    const last = await svc.request('GET', `/api/webhooks/${hook.id}`);
    expect(last.json.secrets).toHaveLength(10);
    const sent = await fire(hook.id, 'many');
    expect(String(sent.headers['webhook-signature']).split(' ')).toHaveLength(10);
  });

  it('refuses bad input naming the field', async () => {
    const hook = await createHook('refusals', OLD);
    const cases: Array<[unknown, string]> = [
      [{ overlap_s: 30 * 86_400 + 1 }, 'overlap_s'],
      [{ secret: 'whsec_short' }, 'secret'],
      [{ secret: OLD }, 'secret'],
      [{ secret: 'whsec_' + Buffer.alloc(32, 7).toString('base64'), kind: 'ed25519' }, 'kind'],
    ];
    for (const [body, field] of cases) {
      const res = await svc.request('POST', `/api/webhooks/${hook.id}/rotate-secret`, body);
      expect(res.status, res.text).toBe(400);
      expect(res.text).toContain(field);
    }
    expect((await svc.request('POST', '/api/webhooks/wh_missing/rotate-secret', {})).status).toBe(404);
  });
});

describe('ed25519', () => {
  it('signs v1a with a generated private key and shows only the public key', async () => {
    const hook = await createHook('ed', 'generate_ed25519');
    expect(hook.secret).toMatch(/^whsk_/);
    expect(hook.public_key).toMatch(/^whpk_/);
    const shown = await svc.request('GET', `/api/webhooks/${hook.id}`);
    expect(shown.json.public_key).toBe(hook.public_key);
    expect(shown.json.secrets).toMatchObject([{ kind: 'ed25519', public_key: hook.public_key }]);
    expect(shown.text).not.toContain(hook.secret!.slice(5));

    const req = await fire(hook.id, 'ed');
    expect(String(req.headers['webhook-signature'])).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(verifiesEd25519(req, hook.public_key!)).toBe(true);
    // The stock packages check only `v1` signatures: a v1a-only header verifies with neither.
    expect(verifiers(req, OLD)).toEqual({ standardwebhooks: false, svix: false });
    // A tampered body does not verify.
    expect(verifiesEd25519({ ...req, body: req.body + ' ' }, hook.public_key!)).toBe(false);
  });

  it('moves from HMAC to ed25519 with both signatures sent during the overlap', async () => {
    const hook = await createHook('to-ed', OLD);
    const res = await svc.request('POST', `/api/webhooks/${hook.id}/rotate-secret`, { kind: 'ed25519' });
    expect(res.status, res.text).toBe(200);
    expect(res.json.secret).toMatch(/^whsk_/);
    const publicKey = res.json.public_key as string;
    expect(res.json.secrets).toMatchObject([{ kind: 'ed25519', public_key: publicKey }, { kind: 'hmac' }]);

    const during = await fire(hook.id, 'to-ed');
    const sigs = String(during.headers['webhook-signature']).split(' ');
    expect(sigs.map((s) => s.split(',')[0])).toEqual(['v1a', 'v1']);
    expect(verifiesEd25519(during, publicKey)).toBe(true);
    expect(verifiers(during, OLD)).toEqual({ standardwebhooks: true, svix: true });

    await advance(24 * HOUR + 1000);
    const after = await fire(hook.id, 'to-ed');
    expect(String(after.headers['webhook-signature'])).toMatch(/^v1a,[^ ]+$/);
    expect(verifiesEd25519(after, publicKey)).toBe(true);
    expect(verifiers(after, OLD).standardwebhooks).toBe(false);
  });
});

describe('PUT of a new secret', () => {
  it('replaces at once by default, or rotates with secret_overlap_s', async () => {
    const hook = await createHook('put', OLD);
    const second = 'whsec_' + Buffer.alloc(32, 2).toString('base64');
    const third = 'whsec_' + Buffer.alloc(32, 3).toString('base64');
    expect((await svc.request('PUT', `/api/webhooks/${hook.id}`, { secret: second })).json.secrets).toHaveLength(1);
    const replaced = await fire(hook.id, 'put');
    expect(verifiers(replaced, OLD).standardwebhooks).toBe(false);
    const res = await svc.request('PUT', `/api/webhooks/${hook.id}`, { secret: third, secret_overlap_s: 600 });
    expect(res.status, res.text).toBe(200);
    expect(res.json.secrets).toHaveLength(2);
    const both = await fire(hook.id, 'put');
    expect(verifiers(both, second).standardwebhooks).toBe(true);
    expect(verifiers(both, third).standardwebhooks).toBe(true);
    const refused = await svc.request('PUT', `/api/webhooks/${hook.id}`, { secret_overlap_s: 600 });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('secret_overlap_s');
  });
});

describe.skipIf(process.platform !== 'linux')('a rotation on a server of two processes', () => {
  let cluster: RunningService;
  let events: Receiver;

  beforeAll(async () => {
    events = await startReceiver();
    cluster = await startService({
      env: { SWITCHYARD_PROCESSES: '2', SWITCHYARD_WORKERS: '1', SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' },
      startTimeoutMs: 60_000,
    });
  }, 90_000);

  afterAll(async () => {
    await cluster?.stop();
    await events?.close();
  });

  it('reaches the other process before it answers: its next event deliveries carry both signatures', async () => {
    const a = await connect(cluster.url);
    const b = await connectTo(cluster.url, { not: a.pid });
    try {
      const created = await a.request('POST', '/api/webhooks', {
        name: 'two-processes',
        target_url: `${events.url}/two`,
        method: 'POST',
        payload_template: { n: '{{data.n}}' },
        events: ['rotation.two'],
        secret: OLD,
      });
      expect(created.status).toBe(201);
      const id = created.json.id as string;
      const got = () => events.requests.filter((r) => r.url === '/two');
      // Each process sends one, so each holds the webhook as just read (its cache keeps it for a second).
      for (const [n, c] of [a, b].entries()) expect((await c.request('POST', '/api/events', { event: 'rotation.two', data: { n } })).status).toBe(202);
      await until(() => got().length === 2, 'the two first deliveries');

      const rotated = await a.request('POST', `/api/webhooks/${id}/rotate-secret`, {});
      expect(rotated.status).toBe(200);
      for (const [n, c] of [b, a, b, a].entries()) {
        expect((await c.request('POST', '/api/events', { event: 'rotation.two', data: { n: n + 2 } })).status).toBe(202);
      }
      await until(() => got().length === 6, 'the deliveries after the rotation');
      for (const req of got().slice(2)) {
        expect(String(req.headers['webhook-signature']).split(' ')).toHaveLength(2);
        expect(verifiers(req, rotated.json.secret).standardwebhooks).toBe(true);
        expect(verifiers(req, OLD).svix).toBe(true);
      }
    } finally {
      a.close();
      b.close();
    }
  }, 60_000);
});
