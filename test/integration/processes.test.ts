/**
 * `--processes 2`: one port, two server processes under a node:cluster primary
 * (src/cluster.ts), on a SQLite file or (TEST_STORE=postgres) PostgreSQL. Both
 * answer; a change made through one is served by the other; a log stream
 * shows both processes' invocations; each cron slot
 * fires once; a killed process is replaced while the port keeps answering;
 * SIGTERM to the primary drains a request in flight and exits 0.
 *
 * Connections are spread round-robin by the primary: a test that must reach a
 * given process opens connections until one lands there (`connectTo`), and
 * keeps to that connection.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, connectTo, send } from '../helpers/cluster-connections.js';
import { startReceiver, waitFor, type Receiver } from '../helpers/receiver.js';
import { startService, tempDbUrl, type RunningService } from '../helpers/service.js';
import { openSse } from '../helpers/sse.js';
import { until } from '../helpers/until.js';

const ENV = {
  SWITCHYARD_PROCESSES: '2',
  SWITCHYARD_WORKERS: '1',
  SWITCHYARD_TEST_HOOKS: '1',
  SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1',
};

/** The pids answering /healthz over `tries` fresh connections. */
async function answeringPids(base: string, tries = 10): Promise<Set<number>> {
  const pids = new Set<number>();
  for (let i = 0; i < tries; i++) {
    const res = await send(false, base, 'GET', '/healthz');
    expect(res.status).toBe(200);
    pids.add(res.json.pid);
  }
  return pids;
}

describe.skipIf(process.platform !== 'linux')('two server processes on one port', () => {
  let svc: RunningService;
  let receiver: Receiver;
  let first: number[];

  beforeAll(async () => {
    receiver = await startReceiver();
    // Two processes each loading isolated-vm: on a loaded 2-core machine (the PostgreSQL run of CI) 20 s was not always enough.
    svc = await startService({ env: ENV, startTimeoutMs: 60_000 });
  }, 90_000);
  afterAll(async () => {
    await svc?.stop('SIGKILL');
    await receiver?.close();
  });

  it('answers from both processes, neither of them the primary', async () => {
    expect(svc.output.join('')).toContain('with 2 server processes');
    const pids = await until(async () => {
      const seen = await answeringPids(svc.url);
      return seen.size === 2 ? seen : null;
    }, 'answers from two processes');
    first = [...pids];
    expect(first).not.toContain(svc.proc.pid);
  });

  it('serves a function deployed through one process from the other', async () => {
    const a = await connectTo(svc.url, {});
    const b = await connectTo(svc.url, { not: a.pid });
    const code = (v: number) => `exports.handler = async () => ({ statusCode: 200, body: { v: ${v}, pid: process.pid } });`;
    expect((await a.request('POST', '/api/functions', { name: 'shared', code: code(1) })).status).toBe(201);
    const api = await a.request('POST', '/api/apis', {
      name: 'shared',
      basePath: '/shared',
      routes: [{ method: 'GET', path: '/', function: 'shared' }],
    });
    expect(api.status).toBe(201);
    const path = `/api/invoke/fn/${api.json.id}/shared`;
    await until(async () => (await b.request('GET', path)).json?.v === 1, 'the function through the other process');
    expect((await a.request('PUT', '/api/functions/shared', { code: code(2) })).status).toBe(200);
    await until(async () => (await b.request('GET', path)).json?.v === 2, 'the new version through the other process', 5000);
    a.close();
    b.close();
  });

  it("answers /metrics for the whole node: every process's series added up", async () => {
    const a = await connectTo(svc.url, {});
    const b = await connectTo(svc.url, { not: a.pid });
    expect((await a.request('POST', '/api/functions', { name: 'counted', code: 'exports.handler = async () => ({ statusCode: 200, body: {} });' })).status).toBe(201);
    const api = await a.request('POST', '/api/apis', { name: 'counted', basePath: '/counted', routes: [{ method: 'GET', path: '/', function: 'counted' }] });
    expect(api.status).toBe(201);
    const path = `/api/invoke/fn/${api.json.id}/counted`;
    await until(async () => (await b.request('GET', path)).status === 200, 'the route through the other process');
    const served = async () => {
      const text = (await send(false, svc.url, 'GET', '/metrics')).json as string;
      expect(text).toMatch(/^switchyard_server_processes 2$/m);
      let sum = 0;
      for (const m of text.matchAll(/^switchyard_http_requests_total\{api="([^"]+)",[^}]*status="200"\} (\d+)$/gm)) if (m[1] === api.json.id) sum += Number(m[2]);
      return sum;
    };
    const before = await served();
    for (let i = 0; i < 5; i++) {
      expect((await a.request('GET', path)).status).toBe(200);
      expect((await b.request('GET', path)).status).toBe(200);
    }
    // Whichever process takes the scrape, it counts the other's five too.
    expect(await served()).toBe(before + 10);
    a.close();
    b.close();
  });

  it('adds up both processes\' requests in one GET /api/stats', async () => {
    const a = await connectTo(svc.url, {});
    const b = await connectTo(svc.url, { not: a.pid });
    expect((await a.request('POST', '/api/functions', { name: 'charted', code: 'exports.handler = async () => ({ statusCode: 200, body: {} });' })).status).toBe(201);
    const api = await a.request('POST', '/api/apis', { name: 'charted', basePath: '/charted', routes: [{ method: 'GET', path: '/', function: 'charted' }] });
    expect(api.status).toBe(201);
    const path = `/api/invoke/fn/${api.json.id}/charted`;
    // Until the other process knows the API it answers 404, which no route counts.
    await until(async () => (await b.request('GET', path)).status === 200, 'the route through the other process');
    for (let i = 0; i < 5; i++) {
      expect((await a.request('GET', path)).status).toBe(200);
      expect((await b.request('GET', path)).status).toBe(200);
    }
    // The answering process writes its own counts first; the other's arrive with its next flush (every 5 s).
    const total = async () => {
      const res = await a.request('GET', '/api/stats?minutes=10');
      expect(res.status).toBe(200);
      return res.json.routes.find((r: any) => r.api_id === api.json.id)?.total.count ?? 0;
    };
    await until(async () => (await total()) === 11, 'both processes counted', 20_000);
    a.close();
    b.close();
  }, 30_000);

  it("streams both processes' invocations on one log stream, whichever process holds it", async () => {
    const a = await connectTo(svc.url, {});
    const b = await connectTo(svc.url, { not: a.pid });
    expect((await a.request('POST', '/api/functions', { name: 'watched', code: 'exports.handler = async () => ({ statusCode: 200, body: {} });' })).status).toBe(201);
    // One route called only through process a, one only through process b: the event's path says which served it.
    const api = await a.request('POST', '/api/apis', {
      name: 'watched',
      basePath: '/watched',
      routes: [
        { method: 'GET', path: '/a', function: 'watched' },
        { method: 'GET', path: '/b', function: 'watched' },
      ],
    });
    expect(api.status).toBe(201);
    const base = `/api/invoke/fn/${api.json.id}/watched`;
    await until(async () => (await b.request('GET', `${base}/b`)).status === 200, 'the route through the other process');
    const stream = await openSse(svc.url + '/api/functions/watched/logs/stream');
    try {
      expect(stream.status).toBe(200);
      // The process without the stream shares its invocations once it hears that someone
      // watches (the change feed): call through both until each one's invocation arrives.
      const paths = () => new Set(stream.events.filter((e) => e.event === 'invocation').map((e) => e.json.path));
      await until(async () => {
        expect((await a.request('GET', `${base}/a`)).status).toBe(200);
        expect((await b.request('GET', `${base}/b`)).status).toBe(200);
        return paths().size === 2;
      }, 'invocations of both processes on the stream');
      expect([...paths()].sort()).toEqual(['/watched/a', '/watched/b']);
    } finally {
      stream.close();
      a.close();
      b.close();
    }
  });

  it('fires each cron slot once with two processes', async () => {
    const start = Date.parse('2026-07-01T10:00:30.000Z');
    const setClock = async (at: number) => {
      for (const pid of first) {
        const c = await connectTo(svc.url, { pid });
        expect((await c.request('PUT', '/api/_test/clock', { now: new Date(at).toISOString() })).status).toBe(200);
        c.close();
      }
    };
    await setClock(start);
    for (let i = 0; i < 10; i++) {
      const res = await send(false, svc.url, 'POST', '/api/webhooks', {
        name: `tick ${i}`,
        target_url: `${receiver.url}/tick/${i}`,
        method: 'POST',
        payload_template: { i },
        cron: '* * * * *',
      });
      expect(res.status).toBe(201);
    }
    for (let minute = 1; minute <= 2; minute++) {
      await setClock(start + minute * 60_000);
      await until(() => receiver.requests.length >= 10 * minute, `slot ${minute} on every webhook`, 20_000);
    }
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.requests).toHaveLength(20);
    const perWebhook = new Map<string, number>();
    for (const req of receiver.requests) perWebhook.set(req.url, (perWebhook.get(req.url) ?? 0) + 1);
    expect([...perWebhook.values()]).toEqual(Array(10).fill(2));
  }, 60_000);

  it('replaces a killed process while the port keeps answering', async () => {
    const [victim, survivor] = first;
    process.kill(victim, 'SIGKILL');
    await waitFor(() => svc.output.join('').includes(`server process ${victim} exited`), 5000);
    // While its replacement starts, the survivor answers every connection (none is refused).
    const after = await answeringPids(svc.url, 5);
    expect([...after].every((pid) => pid === survivor || !first.includes(pid))).toBe(true);
    const replacement = await waitFor(async () => [...(await answeringPids(svc.url, 4))].find((pid) => !first.includes(pid)), 15_000);
    expect(replacement).toBeGreaterThan(0);
    expect(replacement).not.toBe(svc.proc.pid);
  }, 30_000);
});

describe.skipIf(process.platform !== 'linux')('two nodes of two server processes each on one database', () => {
  let nodes: RunningService[] = [];
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    const dbUrl = tempDbUrl();
    nodes = [await startService({ dbUrl, env: ENV, startTimeoutMs: 60_000 }), await startService({ dbUrl, env: ENV, startTimeoutMs: 60_000 })];
    // Two clusters one after the other: on a loaded 2-core machine each takes 12-16 s to listen.
  }, 150_000);
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop('SIGKILL')));
    await receiver?.close();
  });

  it('fires each cron slot of 200 webhooks once and sends each delivery once across the four processes', async () => {
    // Every process keeps its own test clock: all four are moved together.
    const pids = new Map<string, number[]>();
    for (const node of nodes) {
      const seen = await until(async () => {
        const found = await answeringPids(node.url);
        return found.size === 2 ? [...found] : null;
      }, 'answers from two processes');
      pids.set(node.url, seen);
    }
    // One process at a time: connections go to a node's processes in turn, so two searches at once
    // can each keep landing on the other's process (CI saw all 50 tries of one miss).
    const setClock = async (at: number) => {
      const now = new Date(at).toISOString();
      for (const [url, list] of pids) {
        for (const pid of list) {
          const c = await connectTo(url, { pid });
          expect((await c.request('PUT', '/api/_test/clock', { now })).status).toBe(200);
          c.close();
        }
      }
    };
    const start = Date.parse('2026-07-01T10:00:30.000Z');
    await setClock(start);
    const count = 200;
    const ids: string[] = [];
    for (let i = 0; i < count; i += 20) {
      const created = await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          send(false, nodes[(i / 20) % 2]!.url, 'POST', '/api/webhooks', {
            name: `burst ${i + j}`,
            target_url: `${receiver.url}/burst/${i + j}`,
            method: 'POST',
            payload_template: { i: i + j },
            cron: '* * * * *',
          }),
        ),
      );
      for (const res of created) {
        expect(res.status).toBe(201);
        ids.push(res.json.id);
      }
    }
    for (let minute = 1; minute <= 2; minute++) {
      await setClock(start + minute * 60_000);
      await until(() => receiver.requests.length >= count * minute, `slot ${minute} on every webhook`, 30_000);
    }
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.requests).toHaveLength(2 * count);
    // Each delivery reached the target once (its webhook-id once), each webhook once per slot.
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(2 * count);
    const perWebhook = new Map<string, number>();
    for (const req of receiver.requests) perWebhook.set(req.url, (perWebhook.get(req.url) ?? 0) + 1);
    expect(perWebhook.size).toBe(count);
    expect([...perWebhook.values()].every((n) => n === 2)).toBe(true);
    for (const id of [ids[0], ids[count - 1]]) {
      const deliveries = (await send(false, nodes[1]!.url, 'GET', `/api/webhooks/${id}/deliveries`)).json;
      expect(deliveries.map((d: { scheduled_for: string }) => d.scheduled_for).sort()).toEqual([
        '2026-07-01T10:01:00.000Z',
        '2026-07-01T10:02:00.000Z',
      ]);
    }
  }, 120_000);
});

describe.skipIf(process.platform !== 'linux')('stopping two server processes', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => receiver?.close());

  it('SIGTERM to the primary finishes a request in flight (200), stops every process and exits 0', async () => {
    const svc = await startService({ env: ENV });
    try {
      expect((await svc.request('POST', '/api/functions', {
        name: 'slow',
        code: `exports.handler = async () => {
          await fetch(${JSON.stringify(`${receiver.url}/started`)});
          await new Promise((r) => setTimeout(r, 1500));
          return { statusCode: 200, body: { finished: true } };
        };`,
      })).status).toBe(201);
      const api = await svc.request('POST', '/api/apis', { name: 'slow', basePath: '/', routes: [{ method: 'GET', path: '/slow', function: 'slow' }] });
      const pids = await until(async () => {
        const seen = await answeringPids(svc.url);
        return seen.size === 2 ? [...seen] : null;
      }, 'answers from two processes');
      const answer = send(false, svc.url, 'GET', `/api/invoke/fn/${api.json.id}/slow`);
      answer.catch(() => undefined);
      await waitFor(() => receiver.requests.some((r) => r.url === '/started'));
      const code = await svc.stop('SIGTERM');
      const res = await answer;
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ finished: true });
      expect(code).toBe(0);
      expect(svc.output.join('')).toContain('shutting down on SIGTERM');
      await waitFor(() => pids.every((pid) => !alive(pid)), 5000);
    } finally {
      await svc.stop('SIGKILL');
    }
  }, 40_000);
});

describe.skipIf(process.platform !== 'linux')('where several processes cannot serve', () => {
  it('runs one process on sqlite::memory: and says why', async () => {
    const svc = await startService({ dbUrl: 'sqlite::memory:', env: { SWITCHYARD_PROCESSES: '2' } });
    try {
      const out = svc.output.join('');
      expect(out).toContain('with 1 server process');
      expect(out).toMatch(/sqlite::memory:.*cannot be shared: serving from 1 process instead of 2/);
      expect([...(await answeringPids(svc.url, 4))]).toEqual([svc.proc.pid]);
    } finally {
      await svc.stop();
    }
  });

  it('takes the server processes down with the primary when it is killed outright (SIGKILL)', async () => {
    const svc = await startService({ env: ENV });
    const pids = await until(async () => {
      const seen = await answeringPids(svc.url);
      return seen.size === 2 ? [...seen] : null;
    }, 'answers from two processes');
    process.kill(svc.proc.pid!, 'SIGKILL');
    await waitFor(() => pids.every((pid) => !alive(pid)), 5000);
    await svc.stop('SIGKILL');
  }, 30_000);
});

/** Gone, or a zombie nobody reaped yet (in a container, pid 1 may never reap it). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
