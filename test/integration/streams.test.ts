/**
 * The server-sent event streams of function activity over real HTTP: console
 * lines (from the store, resumable by id) and invocation events on both the
 * per-function and the all-functions stream, another node's lines and
 * invocations, the admin key, unknown functions,
 * keep-alive comments, and a shutdown that an open stream does not hold up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';
import { openSse, type SseStream } from '../helpers/sse.js';
import { until } from '../helpers/until.js';

const KEY = 'stream-test-key';
const AUTH = { authorization: `Bearer ${KEY}` };
const TALKER = `exports.handler = async (event) => {
  console.log('hello ' + (event.body && event.body.n));
  console.warn('careful');
  return { statusCode: 200, body: { ok: true } };
};`;

let svc: RunningService;
let apiId: string;
const streams: SseStream[] = [];
const open = async (path: string, headers: Record<string, string> = AUTH) => {
  const s = await openSse(svc.url + path, headers);
  streams.push(s);
  return s;
};

beforeAll(async () => {
  svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY } });
  for (const name of ['talker', 'quiet']) {
    const res = await svc.request('POST', '/api/functions', { name, code: TALKER }, AUTH);
    expect(res.status, res.text).toBe(201);
  }
  const thrower = await svc.request('POST', '/api/functions', { name: 'thrower', code: `exports.handler = async () => { throw new Error('no'); };` }, AUTH);
  expect(thrower.status, thrower.text).toBe(201);
  const api = await svc.request(
    'POST',
    '/api/apis',
    {
      name: 'streams',
      basePath: '/s',
      routes: [
        { method: 'POST', path: '/talk', function: 'talker' },
        { method: 'GET', path: '/fail/:id', function: 'thrower' },
      ],
    },
    AUTH,
  );
  expect(api.status, api.text).toBe(201);
  apiId = api.json.id;
}, 30_000);

afterAll(async () => {
  for (const s of streams) s.close();
  await svc?.stop();
});

describe('log streams', () => {
  it('delivers the console lines and invocations of a function on its stream and on the all-functions stream', async () => {
    const own = await open('/api/functions/talker/logs/stream');
    const all = await open('/api/logs/stream');
    const other = await open('/api/logs/stream?function=quiet');
    for (const s of [own, all, other]) {
      expect(s.status).toBe(200);
      expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(s.headers.get('cache-control')).toBe('no-cache');
      expect(s.headers.get('x-accel-buffering')).toBe('no');
    }

    const viaGateway = await svc.request('POST', `/api/invoke/fn/${apiId}/s/talk`, { n: 1 });
    expect(viaGateway.status).toBe(200);
    const manual = await svc.request('POST', '/api/functions/talker/invoke', { body: { n: 2 } }, AUTH);
    expect(manual.status, manual.text).toBe(200);

    for (const s of [own, all]) {
      const line = await s.waitFor('hello 1', (e) => e.event === 'log' && e.json.message === 'hello 1');
      expect(line.json).toMatchObject({ function: 'talker', version: 1, level: 'log', request_id: viaGateway.headers.get('x-request-id') });
      expect(line.id).toBe(String(line.json.id));
      expect(typeof line.json.ts).toBe('string');
      await s.waitFor('hello 2', (e) => e.event === 'log' && e.json.message === 'hello 2');
      await s.waitFor('warn line', (e) => e.event === 'log' && e.json.level === 'warn');

      const gw = await s.waitFor('gateway invocation', (e) => e.event === 'invocation' && e.json.api_id === apiId);
      expect(gw.id).toBeNull();
      expect(gw.json).toMatchObject({
        function: 'talker',
        method: 'POST',
        path: '/s/talk',
        status: 200,
        outcome: 'ok',
        request_id: viaGateway.headers.get('x-request-id'),
        // The two console lines the call wrote, which a client may wait for (they come through the database).
        log_lines: 2,
      });
      expect(gw.json.duration_ms).toBeGreaterThanOrEqual(0);
      const inv = await s.waitFor('manual invocation', (e) => e.event === 'invocation' && e.json.api_id === null);
      expect(inv.json).toMatchObject({ function: 'talker', status: 200, outcome: 'ok', log_lines: 2 });
    }
    // Ids only grow along a stream.
    const ids = own.events.filter((e) => e.event === 'log').map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // A stream filtered to another function sees none of it.
    const quiet = await svc.request('POST', '/api/functions/quiet/invoke', { body: { n: 3 } }, AUTH);
    expect(quiet.status).toBe(200);
    await other.waitFor('quiet line', (e) => e.event === 'log' && e.json.message === 'hello 3');
    expect(other.events.filter((e) => e.json.function === 'talker')).toEqual([]);
  });

  it("reports a failed invocation with the gateway's status and the failure code", async () => {
    const s = await open('/api/logs/stream?function=thrower');
    const res = await svc.request('GET', `/api/invoke/fn/${apiId}/s/fail/7`);
    expect(res.status).toBe(502);
    const e = await s.waitFor('failed invocation', (x) => x.event === 'invocation');
    expect(e.json).toMatchObject({ function: 'thrower', method: 'GET', path: '/s/fail/7', status: 502, outcome: 'function_error' });
  });

  it('replays stored lines after Last-Event-ID or ?since, then streams live', async () => {
    const logs = await svc.request('GET', '/api/functions/talker/logs', undefined, AUTH);
    expect(logs.status).toBe(200);
    const first = logs.json.find((l: { message: string }) => l.message === 'hello 1');
    expect(first.id).toEqual(expect.any(Number));

    const resumed = await open('/api/functions/talker/logs/stream', { ...AUTH, 'last-event-id': String(first.id - 1) });
    const replayed = await resumed.waitFor('replayed line', (e) => e.event === 'log' && e.json.message === 'hello 1');
    expect(replayed.id).toBe(String(first.id));
    await resumed.waitFor('replayed second line', (e) => e.event === 'log' && e.json.message === 'hello 2');
    expect(resumed.events.some((e) => Number(e.id) < first.id)).toBe(false);

    const since = await open(`/api/logs/stream?since=${first.id}`);
    await since.waitFor('line after since', (e) => e.event === 'log' && e.json.message === 'careful');
    expect(since.events.some((e) => e.event === 'log' && Number(e.id) <= first.id)).toBe(false);

    // Then live.
    const res = await svc.request('POST', '/api/functions/talker/invoke', { body: { n: 'live' } }, AUTH);
    expect(res.status).toBe(200);
    await resumed.waitFor('live line', (e) => e.event === 'log' && e.json.message === 'hello live');
  });

  it("shows another node's console lines and invocations (both shared through the store)", async () => {
    const other = await startService({ dbUrl: svc.dbUrl, env: { SWITCHYARD_ADMIN_KEY: KEY } });
    try {
      const s = await open('/api/functions/talker/logs/stream');
      const res = await other.request('POST', '/api/functions/talker/invoke', { body: { n: 'elsewhere' } }, AUTH);
      expect(res.status, res.text).toBe(200);
      await s.waitFor('line from the other node', (e) => e.event === 'log' && e.json.message === 'hello elsewhere');
      // The other node learns that someone watches through the change feed (within a poll on SQLite):
      // call it until one of its invocations arrives.
      const sent = new Set<string>();
      await until(async () => {
        const call = await other.request('POST', `/api/invoke/fn/${apiId}/s/talk`, { n: 'remote' });
        expect(call.status).toBe(200);
        sent.add(call.headers.get('x-request-id')!);
        return s.events.some((e) => e.event === 'invocation' && sent.has(e.json.request_id));
      }, "an invocation event from the other node");
      const remote = s.events.find((e) => e.event === 'invocation' && sent.has(e.json.request_id))!;
      expect(remote.json).toMatchObject({ function: 'talker', api_id: apiId, method: 'POST', path: '/s/talk', status: 200, outcome: 'ok' });
      // Each invocation once: the other node's rows, and none of this node's own twice.
      const ids = s.events.filter((e) => e.event === 'invocation').map((e) => e.json.request_id);
      expect(new Set(ids).size).toBe(ids.length);
      // Once nobody watches, a node stops sharing after the announcement lapses; while one
      // stream is open the other node keeps being told (every 2 s), which this test does not wait for.
    } finally {
      await other.stop();
    }
  }, 60_000);

  it("does not repeat this node's own invocations through the store", async () => {
    const other = await startService({ dbUrl: svc.dbUrl, env: { SWITCHYARD_ADMIN_KEY: KEY } });
    try {
      // A stream on each node: both share their invocations while the other watches.
      const here = await open('/api/functions/talker/logs/stream');
      const there = await openSse(other.url + '/api/functions/talker/logs/stream', AUTH);
      streams.push(there);
      const sent: string[] = [];
      await until(async () => {
        const call = await svc.request('POST', `/api/invoke/fn/${apiId}/s/talk`, { n: 'both' });
        sent.push(call.headers.get('x-request-id')!);
        return there.events.some((e) => e.event === 'invocation' && sent.includes(e.json.request_id));
      }, 'this node\'s invocation on the other node\'s stream');
      const last = sent[sent.length - 1];
      await here.waitFor('the same invocation here', (e) => e.event === 'invocation' && e.json.request_id === last);
      // Give the store round trip time to (wrongly) bring it back, then count.
      await new Promise((r) => setTimeout(r, 800));
      expect(here.events.filter((e) => e.event === 'invocation' && e.json.request_id === last)).toHaveLength(1);
    } finally {
      await other.stop();
    }
  }, 60_000);

  it('sends keep-alive comments', async () => {
    const s = await open('/api/logs/stream?ping_ms=100');
    await until(() => s.comments.includes('ping'), 'a ping comment');
  });

  it('takes ping_ms from 100 to 99999 written plainly, and refuses anything else naming ping_ms', async () => {
    for (const good of ['100', '99999']) {
      const s = await open(`/api/logs/stream?ping_ms=${good}`);
      expect(s.status, good).toBe(200);
      s.close();
    }
    // 000 once meant about 900 pings a second per stream.
    for (const bad of ['000', '0', '099', '0100', '99', '100000', '1e3', '+100', '100.0', '%20100']) {
      for (const path of ['/api/logs/stream', '/api/functions/talker/logs/stream', '/api/deliveries/stream']) {
        const res = await svc.request('GET', `${path}?ping_ms=${bad}`, undefined, AUTH);
        expect(res.status, `${path} ping_ms=${bad}`).toBe(400);
        expect(res.json).toMatchObject({ code: 'invalid_request', details: { field: 'ping_ms' } });
      }
    }
  });

  it('refuses without the key, for an unknown function and for a bad cursor', async () => {
    const noKey = await open('/api/logs/stream', {});
    expect(noKey.status).toBe(401);
    expect(JSON.parse(noKey.text).code).toBe('unauthorized');
    const noKeyFn = await open('/api/functions/talker/logs/stream', {});
    expect(noKeyFn.status).toBe(401);
    const unknown = await open('/api/functions/nobody/logs/stream');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text).code).toBe('function_not_found');
    const bad = await open('/api/logs/stream', { ...AUTH, 'last-event-id': 'yesterday' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error).toContain('Last-Event-ID');
    const badFilter = await open('/api/logs/stream?function=a,,9x');
    expect(badFilter.status).toBe(400);
  });

  it('ends open streams when the server shuts down instead of waiting for them', async () => {
    const own = await startService({ env: { SWITCHYARD_SHUTDOWN_GRACE_MS: '120000' } });
    try {
      const s = await openSse(own.url + '/api/logs/stream');
      expect(s.status).toBe(200);
      expect(await own.stop()).toBe(0);
      await until(() => s.ended(), 'the stream to end');
    } finally {
      await own.stop('SIGKILL');
    }
  }, 60_000);
});
