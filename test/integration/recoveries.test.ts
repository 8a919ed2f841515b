/**
 * Recovering after a target was fixed, over real HTTP against real servers
 * and receivers: `POST /api/webhooks/{id}/recover` (a dry run's count, filters
 * by status and event, the job followed to done), a bulk retry across
 * webhooks, a job that outlives a kill -9 of its node and resends each
 * delivery once; and a webhook's rate limit held by two nodes of two
 * processes each, counted at the receiver. SQLite, or PostgreSQL with
 * TEST_STORE=postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type ReceivedRequest, type Receiver } from '../helpers/receiver.js';
import { startService, tempDbUrl, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const ENV = { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' };
let failing = true;
let receiver: Receiver;
const services: RunningService[] = [];

async function serve(env: Record<string, string> = {}, dbUrl?: string): Promise<RunningService> {
  // Two processes each on two shared cores take a while to start when the suite is busy.
  const svc = await startService({ env: { ...ENV, ...env }, dbUrl, startTimeoutMs: 60_000 });
  services.push(svc);
  return svc;
}

async function webhook(svc: RunningService, name: string, extra: Record<string, unknown> = {}) {
  const res = await svc.request('POST', '/api/webhooks', {
    name,
    target_url: `${receiver.url}/${name}`,
    method: 'POST',
    payload_template: { n: '{{data.n}}' },
    events: [`${name}.a`, `${name}.b`],
    retry: { max_attempts: 1 },
    ...extra,
  });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string };
}

async function publish(svc: RunningService, event: string, count: number) {
  for (let i = 0; i < count; i++) expect((await svc.request('POST', '/api/events', { event, data: { n: i } })).status).toBe(202);
}

const gotBy = (name: string) => receiver.requests.filter((r) => r.url === `/${name}`);
/** How many times each delivery (its webhook-id) reached the receiver. */
const timesEach = (reqs: ReceivedRequest[]) => {
  const n = new Map<string, number>();
  for (const r of reqs) n.set(String(r.headers['webhook-id']), (n.get(String(r.headers['webhook-id'])) ?? 0) + 1);
  return n;
};

async function finishedJob(svc: RunningService, id: string) {
  return until(async () => {
    const job = (await svc.request('GET', `/api/recoveries/${id}`)).json;
    return job.status === 'done' ? job : null;
  }, 'the recovery job to finish', 30_000);
}

beforeAll(async () => {
  receiver = await startReceiver((req) => (failing && req.url !== '/limited' ? { status: 500, body: 'down' } : { status: 200, body: '{"ok":true}' }));
});

afterAll(async () => {
  for (const svc of services) await svc.stop().catch(() => undefined);
  await receiver?.close();
});

describe('recover since a time', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await serve();
  });

  it('counts first (dry run), then resends the failed deliveries the filter selects, each once', async () => {
    failing = true;
    const since = new Date(Date.now() - 1000).toISOString();
    const hook = await webhook(svc, 'fixed');
    await publish(svc, 'fixed.a', 4);
    await publish(svc, 'fixed.b', 2);
    await until(async () => {
      const list = (await svc.request('GET', `/api/webhooks/${hook.id}/deliveries?status=failed`)).json;
      return list.length === 6;
    }, 'six failed deliveries');
    failing = false;

    const dry = await svc.request('POST', `/api/webhooks/${hook.id}/recover?dry_run=true`, { since });
    expect(dry.status).toBe(200);
    expect(dry.json).toEqual({ count: 6, dry_run: true });
    expect((await svc.request('POST', `/api/webhooks/${hook.id}/recover?dry_run=true`, { since, events: ['fixed.b'] })).json.count).toBe(2);
    expect((await svc.request('POST', `/api/webhooks/${hook.id}/recover?dry_run=true`, { since, statuses: ['succeeded'] })).json.count).toBe(0);
    // Nothing was resent by the dry runs.
    expect(gotBy('fixed')).toHaveLength(6);

    const started = await svc.request('POST', `/api/webhooks/${hook.id}/recover`, { since, events: ['fixed.a'] });
    expect(started.status, started.text).toBe(202);
    expect(started.json).toMatchObject({ webhook_id: hook.id, status: 'running', total: 4, filter: { statuses: ['failed'], events: ['fixed.a'] } });
    const job = await finishedJob(svc, started.json.id);
    expect(job).toMatchObject({ status: 'done', total: 4, resent: 4, progress: 1 });
    // Received first, recorded a moment later: wait for the records.
    const ok = await until(async () => {
      const list = (await svc.request('GET', `/api/webhooks/${hook.id}/deliveries?status=succeeded`)).json as Array<{ event: string; attempts: unknown[] }>;
      return list.length === 4 ? list : null;
    }, 'the four resends to be recorded');
    expect(gotBy('fixed')).toHaveLength(10);
    expect(ok.map((d) => d.event)).toEqual(['fixed.a', 'fixed.a', 'fixed.a', 'fixed.a']);
    expect(ok.every((d) => d.attempts.length === 2)).toBe(true);
    expect([...timesEach(gotBy('fixed')).values()].sort()).toEqual([1, 1, 2, 2, 2, 2]);
    // The job is listed with the webhook's, and a finished one cannot be cancelled.
    expect((await svc.request('GET', `/api/recoveries?webhook_id=${hook.id}`)).json.map((j: { id: string }) => j.id)).toEqual([job.id]);
    const cancel = await svc.request('POST', `/api/recoveries/${job.id}/cancel`);
    expect(cancel.status).toBe(409);
    expect(cancel.json.code).toBe('recovery_finished');
  });

  it('a bulk retry resends the failed deliveries of every webhook, or of those named', async () => {
    failing = true;
    const since = new Date(Date.now() - 1000).toISOString();
    const one = await webhook(svc, 'bulk-one');
    const two = await webhook(svc, 'bulk-two');
    await publish(svc, 'bulk-one.a', 2);
    await publish(svc, 'bulk-two.a', 3);
    await until(() => gotBy('bulk-one').length + gotBy('bulk-two').length === 5, 'the failures');
    await until(async () => (await svc.request('POST', '/api/recoveries?dry_run=true', { since, webhook_ids: [one.id, two.id] })).json.count === 5, 'them to finish failing');
    failing = false;
    const onlyOne = await svc.request('POST', '/api/recoveries', { since, webhook_ids: [one.id] });
    expect(onlyOne.status, onlyOne.text).toBe(202);
    expect(onlyOne.json).toMatchObject({ webhook_id: null, total: 2 });
    await finishedJob(svc, onlyOne.json.id);
    await until(() => gotBy('bulk-one').length === 4, "the first webhook's resends");
    expect(gotBy('bulk-two')).toHaveLength(3);
    const all = await svc.request('POST', '/api/recoveries', { since });
    await finishedJob(svc, all.json.id);
    await until(() => gotBy('bulk-two').length === 6, "the second's");
    const bad = await svc.request('POST', '/api/recoveries', { since, webhook_ids: ['wh_missing'] });
    expect(bad.status).toBe(400);
    expect(bad.json.details).toEqual({ field: 'webhook_ids[0]' });
    const backwards = await svc.request('POST', `/api/webhooks/${one.id}/recover`, { since, until: new Date(Date.parse(since) - 60_000).toISOString() });
    expect(backwards.status).toBe(400);
    expect(backwards.json.details).toEqual({ field: 'since' });
  });

  it('a job outlives a kill -9 of its node: after the restart it finishes, each delivery resent once', async () => {
    failing = true;
    const dbUrl = tempDbUrl();
    const first = await serve({}, dbUrl);
    // Its breaker off: six hundred failures in a row would open it, and the rest would be held, not failed.
    const hook = await webhook(first, 'survivor', { breaker: { enabled: false } });
    await publish(first, 'survivor.a', 600);
    await until(async () => (await first.request('POST', `/api/webhooks/${hook.id}/recover?dry_run=true`, { since: '2020-01-01T00:00:00Z' })).json.count === 600, 'six hundred failures', 60_000);
    failing = false;
    const started = await first.request('POST', `/api/webhooks/${hook.id}/recover`, { since: '2020-01-01T00:00:00Z' });
    expect(started.status).toBe(202);
    first.proc.kill('SIGKILL');
    await new Promise((done) => first.proc.once('exit', done));

    const second = await serve({}, dbUrl);
    const job = await finishedJob(second, started.json.id);
    expect(job).toMatchObject({ total: 600, resent: 600 });
    await until(async () => {
      const list = (await second.request('GET', `/api/webhooks/${hook.id}/deliveries?status=succeeded&limit=100`)).json;
      return list.length === 100;
    }, 'the resends to succeed', 60_000);
    // Each delivery reopened once: one failed attempt, one that succeeded, never a third.
    let after: string | undefined;
    let seen = 0;
    for (;;) {
      const page = (await second.request('GET', `/api/webhooks/${hook.id}/deliveries?limit=100${after ? `&after=${after}` : ''}`)).json as Array<{ id: string; status: string; attempts: unknown[] }>;
      for (const d of page) {
        expect(d.attempts.length, d.id).toBeLessThanOrEqual(2);
        seen++;
      }
      if (page.length < 100) break;
      after = page[page.length - 1].id;
    }
    expect(seen).toBe(600);
    await until(async () => (await second.request('GET', `/api/webhooks/${hook.id}/deliveries?status=pending&limit=1`)).json.length === 0, 'nothing pending', 60_000);
    expect((await second.request('GET', `/api/webhooks/${hook.id}/deliveries?status=failed&limit=1`)).json).toEqual([]);
  }, 180_000);
});

describe('rate limit across two nodes of two processes each', () => {
  it('never sends faster than the limit, counted at the receiver, and loses nothing', async () => {
    failing = false;
    const arrivals: number[] = [];
    const counting = await startReceiver(() => {
      arrivals.push(Date.now());
      return { status: 200, body: '{"ok":true}' };
    });
    try {
      const dbUrl = tempDbUrl();
      const a = await serve({ SWITCHYARD_PROCESSES: '2' }, dbUrl);
      const b = await serve({ SWITCHYARD_PROCESSES: '2' }, dbUrl);
      const perSecond = 20;
      const burst = 2;
      const res = await a.request('POST', '/api/webhooks', {
        name: 'limited',
        target_url: `${counting.url}/limited`,
        method: 'POST',
        payload_template: { n: '{{data.n}}' },
        events: ['limited.a'],
        rate_limit: { per_second: perSecond, burst },
        enabled: false,
      });
      expect(res.status, res.text).toBe(201);
      // Held while disabled, then released at once: the whole backlog is due together on all four processes.
      await publish(a, 'limited.a', 80);
      await a.request('PUT', `/api/webhooks/${res.json.id}`, { enabled: true });
      await until(() => arrivals.length === 80, 'every delivery', 60_000).catch(async (err) => {
        // Where the rest were (their statuses and due times), and what the four processes warned of.
        const list = (await a.request('GET', `/api/webhooks/${res.json.id}/deliveries?limit=100`)).json as Array<Record<string, unknown>>;
        const rows = list.filter((d) => d.status !== 'succeeded').map((d) => `${d.id} ${d.status} next=${d.next_attempt_at} attempts=${(d.attempts as unknown[]).length}`);
        const logs = [...a.output, ...b.output].filter((l) => /"level":[45]0/.test(l)).slice(-40);
        throw new Error(`${(err as Error).message}: ${arrivals.length} of 80 arrived\n${rows.join('\n')}\n${logs.join('\n')}`);
      });
      // In any second: the rate, the burst, and at most one leased token per process (src/limits/leased-buckets.ts).
      const bound = perSecond + burst + 4;
      const sorted = [...arrivals].sort((x, y) => x - y);
      for (let i = 0; i < sorted.length; i++) {
        const inWindow = sorted.filter((t) => t >= sorted[i] && t < sorted[i] + 1000).length;
        expect(inWindow, `arrivals in the second from ${sorted[i]}`).toBeLessThanOrEqual(bound);
      }
      // And the whole backlog took at least what the limit allows, less the burst and those tokens.
      expect(sorted[sorted.length - 1] - sorted[0]).toBeGreaterThanOrEqual(((80 - burst - 4) / perSecond) * 1000 - 100);
    } finally {
      await counting.close();
    }
  }, 120_000);
});
