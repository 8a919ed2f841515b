/**
 * Webhooks end to end over real HTTP: a real server (with the hand-moved test
 * clock) and real local receivers. Receivers are on 127.0.0.1, so the main
 * service allows private targets; one service without the flag checks refusal.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const SECRET = 'whsec_' + Buffer.from('switchyard-test-secret-of-32-byte').toString('base64');

let svc: RunningService;
let ok: Receiver;
let failing: Receiver;

function hook(overrides: Record<string, unknown> = {}) {
  return {
    name: 'test hook',
    target_url: ok.url + '/hook',
    method: 'POST',
    headers: { 'x-source': 'switchyard-test', authorization: 'Bearer <API_KEY>' },
    payload_template: { source: 'tests', event: 'user.created', timestamp: '{{timestamp}}', data: { id: 7 } },
    ...overrides,
  };
}

beforeAll(async () => {
  ok = await startReceiver();
  failing = await startReceiver(() => ({ status: 500, body: 'nope' }));
  svc = await startService({ env: { SWITCHYARD_TEST_HOOKS: '1', SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
});

afterAll(async () => {
  await svc?.stop();
  await ok?.close();
  await failing?.close();
});

describe('webhook management', () => {
  it('creates with defaults, reveals a generated secret once, and never returns it again', async () => {
    const res = await svc.request('POST', '/api/webhooks', hook({ secret: 'generate' }));
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      name: 'test hook',
      method: 'POST',
      timezone: 'UTC',
      cron: null,
      mock_endpoint: null,
      events: [],
      enabled: true,
      has_secret: true,
      retry: { max_attempts: 8 },
      timeout_ms: 15000,
      next_fire_at: null,
    });
    expect(res.json.id).toMatch(/^wh_/);
    expect(res.json.secret).toMatch(/^whsec_/);
    const got = await svc.request('GET', `/api/webhooks/${res.json.id}`);
    expect(got.json.secret).toBeUndefined();
    expect(got.text).not.toContain(res.json.secret);
    expect(got.json.has_secret).toBe(true);
    const list = await svc.request('GET', '/api/webhooks');
    expect(list.json.some((w: { id: string }) => w.id === res.json.id)).toBe(true);
    expect(list.text).not.toContain(res.json.secret);
  });

  it.each([
    [{ target_url: 'not a url' }, 'target_url'],
    [{ target_url: 'ftp://example.com/x' }, 'target_url'],
    [{ method: 'FETCH' }, 'method'],
    [{ headers: { 'webhook-id': 'x' } }, 'headers'],
    [{ headers: { 'bad name': 'x' } }, 'headers'],
    [{ payload_template: [1, 2] }, 'payload_template'],
    [{ cron: '* * * *' }, 'cron'],
    [{ cron: '0 0 31 2 *' }, 'cron'],
    [{ cron: '0 0 L * *' }, 'cron'],
    [{ cron: '* * * * *', timezone: 'Mars/Olympus' }, 'timezone'],
    [{ mock_endpoint: { api_id: 'api_missing', path: '/x' } }, 'mock_endpoint'],
    [{ secret: 'hunter2' }, 'secret'],
    [{ retry: { max_attempts: 31 } }, 'retry'],
    [{ timeout_ms: 10 }, 'timeout_ms'],
    [{ events: ['bad event'] }, 'events'],
  ])('400 naming the field for %j', async (overrides, field) => {
    const res = await svc.request('POST', '/api/webhooks', hook(overrides));
    expect(res.status).toBe(400);
    expect(res.json.error).toContain(field);
  });

  it('computes next_fire_at and the next five fires for a cron webhook; PUT reschedules; null clears', async () => {
    await svc.request('PUT', '/api/_test/clock', { now: '2026-03-02T10:07:30.000Z' });
    const res = await svc.request('POST', '/api/webhooks', hook({ cron: '*/15 * * * *', enabled: false }));
    expect(res.json.next_fire_at).toBeNull();
    const on = await svc.request('PUT', `/api/webhooks/${res.json.id}`, { enabled: true });
    expect(on.status).toBe(200);
    expect(on.json.next_fire_at).toBe('2026-03-02T10:15:00.000Z');
    const got = await svc.request('GET', `/api/webhooks/${res.json.id}`);
    expect(got.json.next_fires).toEqual([
      '2026-03-02T10:15:00.000Z',
      '2026-03-02T10:30:00.000Z',
      '2026-03-02T10:45:00.000Z',
      '2026-03-02T11:00:00.000Z',
      '2026-03-02T11:15:00.000Z',
    ]);
    const tz = await svc.request('PUT', `/api/webhooks/${res.json.id}`, { cron: '0 9 * * *', timezone: 'Asia/Kolkata' });
    expect(tz.json.next_fire_at).toBe('2026-03-03T03:30:00.000Z');
    const cleared = await svc.request('PUT', `/api/webhooks/${res.json.id}`, { cron: null, timezone: null });
    expect(cleared.json).toMatchObject({ cron: null, timezone: 'UTC', next_fire_at: null });
    expect((await svc.request('PUT', `/api/webhooks/${res.json.id}`, { name: null })).status).toBe(400);
    await svc.request('DELETE', `/api/webhooks/${res.json.id}`);
  });

  it('404 for unknown webhooks and deliveries', async () => {
    for (const [m, p] of [
      ['GET', '/api/webhooks/wh_nope'],
      ['PUT', '/api/webhooks/wh_nope'],
      ['DELETE', '/api/webhooks/wh_nope'],
      ['POST', '/api/webhooks/wh_nope/test'],
      ['GET', '/api/webhooks/wh_nope/deliveries'],
      ['GET', '/api/deliveries/dlv_nope'],
      ['POST', '/api/deliveries/dlv_nope/retry'],
    ]) {
      const res = await svc.request(m, p, m === 'PUT' ? { name: 'x' } : undefined);
      expect(res.status, `${m} ${p}`).toBe(404);
    }
  });
});

describe('sending', () => {
  it('test-fire sends exactly the template and the headers, signed, and answers the finished delivery', async () => {
    // webhook-timestamp follows the service clock; the stock verifier wants it near real time.
    await svc.request('PUT', '/api/_test/clock', { now: new Date().toISOString() });
    const created = (await svc.request('POST', '/api/webhooks', hook({ secret: SECRET }))).json;
    const before = ok.requests.length;
    const res = await svc.request('POST', `/api/webhooks/${created.id}/test`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ webhook_id: created.id, trigger: 'test', status: 'succeeded', error: null });
    expect(res.json.attempts).toHaveLength(1);
    expect(res.json.attempts[0]).toMatchObject({ attempt: 1, response_status: 200, error: null });
    expect(res.json.response).toMatchObject({ status: 200, body: '{"ok":true}' });

    const got = ok.requests.slice(before);
    expect(got).toHaveLength(1);
    const req = got[0];
    expect(req.method).toBe('POST');
    const body = JSON.parse(req.body);
    expect(body).toEqual({ source: 'tests', event: 'user.created', timestamp: res.json.created_at, data: { id: 7 } });
    expect(req.headers['x-source']).toBe('switchyard-test');
    expect(req.headers.authorization).toBe('Bearer <API_KEY>');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toMatch(/Switchyard/);
    expect(req.headers['webhook-id']).toBe(res.json.id);
    // The stock verifier accepts it...
    const verified = new StandardWebhook(SECRET).verify(req.body, {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    });
    expect(verified).toEqual(body);
    // ...and so does the spec's formula computed here.
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key)
      .update(`${req.headers['webhook-id']}.${req.headers['webhook-timestamp']}.${req.body}`)
      .digest('base64');
    expect(req.headers['webhook-signature']).toBe(`v1,${expected}`);
    expect(JSON.stringify(res.json)).not.toContain(SECRET.slice(6));
  });

  it('a failing test-fire is one attempt, failed, and a manual retry resends the same id and bytes', async () => {
    const created = (await svc.request('POST', '/api/webhooks', hook({ target_url: failing.url + '/x' }))).json;
    const before = failing.requests.length;
    const res = await svc.request('POST', `/api/webhooks/${created.id}/test`);
    expect(res.json.status).toBe('failed');
    expect(res.json.attempts).toHaveLength(1);
    expect(res.json.attempts[0].response_status).toBe(500);
    const retried = await svc.request('POST', `/api/deliveries/${res.json.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.json.attempts).toHaveLength(2);
    expect(retried.json.status).toBe('failed');
    const got = failing.requests.slice(before);
    expect(got).toHaveLength(2);
    expect(got[0].headers['webhook-id']).toBe(got[1].headers['webhook-id']);
    expect(got[0].body).toBe(got[1].body);
    const fetched = await svc.request('GET', `/api/deliveries/${res.json.id}`);
    expect(fetched.json.attempts).toHaveLength(2);
    const list = await svc.request('GET', `/api/webhooks/${created.id}/deliveries`);
    expect(list.json[0].id).toBe(res.json.id);
  });

  it("GET /api/deliveries/{id} shows each attempt's own response; lists leave it out", async () => {
    let calls = 0;
    const flaky = await startReceiver((): { status: number; body: string; headers: Record<string, string> } =>
      ++calls === 1
        ? { status: 500, body: 'down for maintenance', headers: { 'x-session-token': 'tok-123', 'content-type': 'text/plain' } }
        : { status: 200, body: 'ok', headers: { 'content-type': 'text/plain' } },
    );
    try {
      const created = (await svc.request('POST', '/api/webhooks', hook({ target_url: flaky.url + '/hook' }))).json;
      const fired = (await svc.request('POST', `/api/webhooks/${created.id}/test`)).json;
      expect(fired.status).toBe('failed');
      const retried = await svc.request('POST', `/api/deliveries/${fired.id}/retry`);
      expect(retried.json.status).toBe('succeeded');

      const got = await svc.request('GET', `/api/deliveries/${fired.id}`);
      expect(got.status).toBe(200);
      const [first, second] = got.json.attempts;
      expect(got.json.attempts).toHaveLength(2);
      expect(first.response.status).toBe(500);
      expect(first.response.body).toContain('down');
      // Masked like the delivery's own response.
      expect(first.response.headers['x-session-token']).toBe('***');
      expect(second.response).toMatchObject({ status: 200, body: 'ok' });
      // The delivery-level response stays the latest one.
      expect(got.json.response).toMatchObject({ status: 200, body: 'ok' });

      // Lists (and the retry's own answer) carry no response per attempt: a body each would grow them.
      const list = await svc.request('GET', `/api/webhooks/${created.id}/deliveries`);
      const listed = list.json.find((d: { id: string }) => d.id === fired.id);
      expect(listed.attempts).toHaveLength(2);
      for (const a of listed.attempts) expect(a).not.toHaveProperty('response');
      for (const a of retried.json.attempts) expect(a).not.toHaveProperty('response');
    } finally {
      await flaky.close();
    }
  });

  it('lists each webhook with its health over its 20 newest deliveries', async () => {
    const fires = (id: string) => svc.request('POST', `/api/webhooks/${id}/test`);
    // The outcome figures of the health (its endpoint half is endpoint-health.test.ts's).
    const healthOf = async (id: string) => {
      const list = await svc.request('GET', '/api/webhooks?limit=1000');
      expect(list.status).toBe(200);
      const { last_outcome, failures_in_a_row, pending, retrying, window } = list.json.find((w: { id: string }) => w.id === id).health;
      return { last_outcome, failures_in_a_row, pending, retrying, window };
    };
    // A retry an hour away (on the hand-moved clock): an event delivery that fails stays pending.
    // The target answers 500 while `down`: the webhook's URL stays (the engine caches a webhook a moment).
    let down = false;
    const target = await startReceiver(() => (down ? { status: 500, body: 'down' } : { status: 200, body: '{"ok":true}' }));
    const watched = (
      await svc.request('POST', '/api/webhooks', hook({ name: 'health', target_url: target.url + '/health', events: ['health.checked'], retry: { max_attempts: 3, schedule_s: [3600] } }))
    ).json;
    const quiet = (await svc.request('POST', '/api/webhooks', hook({ name: 'quiet' }))).json;
    expect(await healthOf(quiet.id)).toEqual({ last_outcome: null, failures_in_a_row: 0, pending: 0, retrying: 0, window: 20 });

    expect((await fires(watched.id)).json.status).toBe('succeeded');
    expect(await healthOf(watched.id)).toEqual({ last_outcome: 'succeeded', failures_in_a_row: 0, pending: 0, retrying: 0, window: 20 });

    // The target goes down: a delivery whose attempt failed and waits for its retry is failing now, not "not finished".
    down = true;
    expect((await svc.request('POST', '/api/events', { event: 'health.checked' })).status).toBe(202);
    await until(async () => {
      const [newest] = (await svc.request('GET', `/api/webhooks/${watched.id}/deliveries?limit=1`)).json;
      return newest?.trigger === 'event' && newest.status === 'pending' && newest.attempts.length === 1;
    }, 'the event delivery failed once and waits for its retry');
    expect(await healthOf(watched.id)).toEqual({ last_outcome: 'failed', failures_in_a_row: 1, pending: 1, retrying: 1, window: 20 });

    for (let i = 0; i < 21; i++) expect((await fires(watched.id)).json.status).toBe('failed');
    // 21 failures after the retrying one: the window holds 20 of them, and neither it nor the success.
    expect(await healthOf(watched.id)).toEqual({ last_outcome: 'failed', failures_in_a_row: 20, pending: 0, retrying: 0, window: 20 });

    down = false;
    expect((await fires(watched.id)).json.status).toBe('succeeded');
    expect(await healthOf(watched.id)).toEqual({ last_outcome: 'succeeded', failures_in_a_row: 0, pending: 0, retrying: 0, window: 20 });
    await target.close();
    // The webhook's own answer carries the same.
    expect((await svc.request('GET', `/api/webhooks/${watched.id}`)).json.health).toMatchObject({ last_outcome: 'succeeded', failures_in_a_row: 0, window: 20 });
    for (const id of [watched.id, quiet.id]) await svc.request('DELETE', `/api/webhooks/${id}`);
  });

  it('fills data from the mock endpoint through the gateway, in-process', async () => {
    await svc.request('POST', '/api/functions', {
      name: 'mock-users',
      code: `exports.handler = async (e) => ({ statusCode: 200, body: { users: [{ id: 1 }], page: e.queryStringParameters?.page ?? null } });`,
    });
    const api = (
      await svc.request('POST', '/api/apis', {
        name: 'mock api',
        basePath: '/mock',
        routes: [{ method: 'GET', path: '/users', function: 'mock-users' }],
      })
    ).json;
    const created = (
      await svc.request('POST', '/api/webhooks', hook({ mock_endpoint: { api_id: api.id, path: '/mock/users?page=2' } }))
    ).json;
    const before = ok.requests.length;
    const res = await svc.request('POST', `/api/webhooks/${created.id}/test`);
    expect(res.json.status).toBe('succeeded');
    const body = JSON.parse(ok.requests.slice(before)[0].body);
    expect(body.data).toEqual({ users: [{ id: 1 }], page: '2' });
    expect(body.source).toBe('tests');

    const templated = (
      await svc.request(
        'POST',
        '/api/webhooks',
        hook({
          mock_endpoint: { api_id: api.id, path: '/mock/users' },
          payload_template: { first: '{{mock.users.0.id}}', text: 'hook {{webhook.name}} via {{trigger}}', keep: '{{nope}}' },
        }),
      )
    ).json;
    const before2 = ok.requests.length;
    await svc.request('POST', `/api/webhooks/${templated.id}/test`);
    expect(JSON.parse(ok.requests.slice(before2)[0].body)).toEqual({
      first: 1,
      text: 'hook test hook via test',
      keep: '{{nope}}',
    });

    const inUse = await svc.request('DELETE', `/api/apis/${api.id}`);
    expect(inUse.status).toBe(409);
    expect(inUse.json.code).toBe('api_in_use');
  });
});

describe('events', () => {
  it('fans out to subscribed webhooks (by name and by *), not to others', async () => {
    const byName = (await svc.request('POST', '/api/webhooks', hook({ name: 'by-name', events: ['order.created'], payload_template: { e: '{{event}}', d: '{{data}}' } }))).json;
    const star = (await svc.request('POST', '/api/webhooks', hook({ name: 'star', events: ['*'] }))).json;
    const other = (await svc.request('POST', '/api/webhooks', hook({ name: 'other', events: ['user.deleted'] }))).json;
    const off = (await svc.request('POST', '/api/webhooks', hook({ name: 'off', events: ['order.created'], enabled: false }))).json;
    const res = await svc.request('POST', '/api/events', { event: 'order.created', data: { id: 42 } });
    expect(res.status).toBe(202);
    expect(res.json.event).toBe('order.created');
    // The disabled webhook's is held, not dropped: it is sent once the webhook is enabled again.
    expect(res.json.deliveries).toHaveLength(3);
    const mine = await until(async () => {
      const list = (await svc.request('GET', `/api/webhooks/${byName.id}/deliveries`)).json;
      return list.length === 1 && list[0].status === 'succeeded' ? list[0] : null;
    }, 'the event delivery');
    expect(mine.trigger).toBe('event');
    expect(JSON.parse(mine.request.body)).toEqual({ e: 'order.created', d: { id: 42 } });
    expect((await svc.request('GET', `/api/webhooks/${star.id}/deliveries`)).json).toHaveLength(1);
    expect((await svc.request('GET', `/api/webhooks/${other.id}/deliveries`)).json).toHaveLength(0);
    expect((await svc.request('GET', `/api/webhooks/${off.id}/deliveries`)).json.map((d: { status: string }) => d.status)).toEqual(['held']);
    expect((await svc.request('POST', '/api/events', { event: 'switchyard.api.created' })).status).toBe(400);
    for (const id of [byName.id, star.id, other.id, off.id]) await svc.request('DELETE', `/api/webhooks/${id}`);
  });

  it('functions publish with emit(), and the service publishes switchyard.* events', async () => {
    const emitted = (await svc.request('POST', '/api/webhooks', hook({ name: 'emitted', events: ['invoice.paid'] }))).json;
    const ops = (await svc.request('POST', '/api/webhooks', hook({ name: 'ops', events: ['switchyard.function.created'], payload_template: { e: '{{event}}', name: '{{data.name}}' } }))).json;
    await svc.request('POST', '/api/functions', {
      name: 'emitter',
      code: `exports.handler = async () => { emit('invoice.paid', { amount: 5 }); return { statusCode: 200, body: { ok: true } }; };`,
    });
    await svc.request('POST', '/api/functions/emitter/invoke', {});
    const d = await until(async () => {
      const list = (await svc.request('GET', `/api/webhooks/${emitted.id}/deliveries`)).json;
      return list.length === 1 && list[0].status === 'succeeded' ? list[0] : null;
    }, 'the emitted event');
    expect(d.event).toBe('invoice.paid');
    expect(JSON.parse(d.request.body).data).toEqual({ amount: 5 });
    const op = await until(async () => {
      const list = (await svc.request('GET', `/api/webhooks/${ops.id}/deliveries`)).json;
      return list.find((x: { status: string; request: { body: string } | null }) => x.status === 'succeeded' && x.request?.body.includes('emitter'));
    }, 'switchyard.function.created');
    expect(JSON.parse(op.request.body)).toEqual({ e: 'switchyard.function.created', name: 'emitter' });
    await svc.request('DELETE', `/api/webhooks/${emitted.id}`);
    await svc.request('DELETE', `/api/webhooks/${ops.id}`);
  });
});

describe('schedules on the test clock', () => {
  it('fires each minute slot once as the clock advances, and stops when deleted', async () => {
    await svc.request('PUT', '/api/_test/clock', { now: '2026-05-01T12:00:30.000Z' });
    const created = (await svc.request('POST', '/api/webhooks', hook({ name: 'every minute', cron: '* * * * *' }))).json;
    expect(created.next_fire_at).toBe('2026-05-01T12:01:00.000Z');
    const slots: string[] = [];
    for (let minute = 1; minute <= 3; minute++) {
      await svc.request('PUT', '/api/_test/clock', { advance_ms: 60_000 });
      const list = await until(async () => {
        const l = (await svc.request('GET', `/api/webhooks/${created.id}/deliveries`)).json;
        return l.length === minute && l.every((d: { status: string }) => d.status === 'succeeded') ? l : null;
      }, `slot ${minute}`);
      slots.push(list[0].scheduled_for);
    }
    expect(slots).toEqual(['2026-05-01T12:01:00.000Z', '2026-05-01T12:02:00.000Z', '2026-05-01T12:03:00.000Z']);
    const list = (await svc.request('GET', `/api/webhooks/${created.id}/deliveries`)).json;
    expect(list.every((d: { trigger: string }) => d.trigger === 'schedule')).toBe(true);
    expect(JSON.parse(list[0].request.body).timestamp).toBe('2026-05-01T12:03:00.000Z');

    await svc.request('DELETE', `/api/webhooks/${created.id}`);
    await svc.request('PUT', '/api/_test/clock', { advance_ms: 5 * 60_000 });
    await new Promise((r) => setTimeout(r, 500));
    expect((await svc.request('GET', `/api/webhooks/${created.id}/deliveries`)).status).toBe(404);
  });
});

describe('private targets', () => {
  it('refuses a literal private target at create time when not allowed', async () => {
    const strict = await startService();
    try {
      for (const url of ['http://127.0.0.1:9/x', 'http://2130706433/x', 'http://[::1]/x', 'http://169.254.169.254/latest']) {
        const res = await strict.request('POST', '/api/webhooks', hook({ target_url: url }));
        expect(res.status, url).toBe(400);
        expect(res.json.code).toBe('private_target');
      }
    } finally {
      await strict.stop();
    }
  });
});

describe('durability', () => {
  it('a process killed with pending deliveries delivers them after a restart', async () => {
    const http = await import('node:http');
    // A port with nothing listening: attempts fail with connection refused and stay pending.
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));

    const first = await startService({ env: { SWITCHYARD_TEST_HOOKS: '1', SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
    let second: RunningService | undefined;
    const received: string[] = [];
    const target = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push(String(req.headers['webhook-id']));
        res.end('ok');
      });
    });
    try {
      const created = (
        await first.request('POST', '/api/webhooks', hook({ target_url: `http://127.0.0.1:${port}/in`, events: ['job.done'] }))
      ).json;
      const published = (await first.request('POST', '/api/events', { event: 'job.done', data: { n: 1 } })).json;
      const published2 = (await first.request('POST', '/api/events', { event: 'job.done', data: { n: 2 } })).json;
      const ids = [...published.deliveries, ...published2.deliveries];
      expect(ids).toHaveLength(2);
      await until(async () => {
        const list = (await first.request('GET', `/api/webhooks/${created.id}/deliveries`)).json;
        return list.length === 2 && list.every((d: { attempts: unknown[]; status: string }) => d.attempts.length >= 1 && d.status === 'pending');
      }, 'failed first attempts');
      first.proc.kill('SIGKILL');
      await new Promise((r) => first.proc.once('exit', r));

      await new Promise<void>((r) => target.listen(port, '127.0.0.1', r));
      second = await startService({
        dbUrl: first.dbUrl,
        env: { SWITCHYARD_TEST_HOOKS: '1', SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' },
      });
      await second.request('PUT', '/api/_test/clock', { advance_ms: 10 * 60_000 });
      await until(async () => {
        const list = (await second!.request('GET', `/api/webhooks/${created.id}/deliveries`)).json;
        return list.length === 2 && list.every((d: { status: string }) => d.status === 'succeeded');
      }, 'deliveries after restart', 20_000);
      expect(received.sort()).toEqual([...ids].sort());
    } finally {
      if (first.proc.exitCode === null && first.proc.signalCode === null) await first.stop();
      await second?.stop();
      await new Promise<void>((r) => target.close(() => r()));
    }
  });
});
