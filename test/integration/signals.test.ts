/**
 * Stopping the real CLI the way terminals and service managers do: Ctrl-C
 * signals the whole foreground process group, systemd's default stop signals
 * every process of the unit's cgroup, `kill` signals the main process alone.
 * Every way lets a request in flight finish (200) and exits 0; a second
 * Ctrl-C exits at once; no worker process outlives the server.
 * The server runs `detached`, leading its own group as a terminal's job does.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killLeftoverClis, startCli, type CliRun } from '../helpers/cli.js';
import { childPids, commandLine, startReceiver, waitFor, type Receiver } from '../helpers/receiver.js';
import { sleep } from '../helpers/until.js';

const WORKERS = 2;
let receiver: Receiver;
let dir: string;

beforeAll(async () => {
  receiver = await startReceiver();
  dir = mkdtempSync(join(tmpdir(), 'switchyard-signals-'));
});
afterAll(async () => {
  killLeftoverClis();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
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

let serial = 0;

/** A server with a function that tells the receiver it started, then takes `ms`; its worker pids. */
async function serverWithSlowFunction(ms: number, env: Record<string, string> = {}) {
  const server = await startCli([], {
    DATABASE_URL: `sqlite:${join(dir, `s${++serial}.db`)}`,
    SWITCHYARD_WORKERS: String(WORKERS),
    SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1',
    ...env,
  }, { detached: true });
  const post = async (path: string, body: unknown): Promise<{ id: string }> => {
    const res = await fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()) as { id: string };
  };
  const tag = `started-${serial}`;
  await post('/api/functions', {
    name: 'slow',
    code: `exports.handler = async () => {
      await fetch(${JSON.stringify(`${receiver.url}/${tag}`)});
      await new Promise((r) => setTimeout(r, ${ms}));
      return { statusCode: 200, body: { finished: true } };
    };`,
  });
  const api = await post('/api/apis', { name: 'slow', basePath: '/', routes: [{ method: 'GET', path: '/slow', function: 'slow' }] });
  const workers = (await waitFor(() => {
    // Not every child: esbuild runs its own process for compiling.
    const pids = childPids(server.pid).filter((pid) => commandLine(pid).includes('runtime/worker.js'));
    return pids.length === WORKERS ? pids : null;
  })) as number[];
  /** Sends the request and resolves once the function is running in its worker (with the answer to come, unawaited). */
  const inFlight = async (): Promise<{ answer: Promise<{ status: number; text: string }> }> => {
    const answer = fetch(`${server.url}/api/invoke/fn/${api.id}/slow`).then(async (res) => ({ status: res.status, text: await res.text() }));
    answer.catch(() => undefined);
    await waitFor(() => receiver.requests.some((r) => r.url === `/${tag}`));
    return { answer };
  };
  return { server, workers, inFlight };
}

async function expectWorkersGone(workers: number[]) {
  expect(workers.length).toBe(WORKERS);
  await waitFor(() => workers.every((pid) => !alive(pid)), 5000).catch(() => {
    throw new Error(`worker processes outlived the server: ${workers.filter(alive).join(', ')}`);
  });
}

async function expectGracefulStop(server: CliRun, answer: Promise<{ status: number; text: string }>, workers: number[], signal: RegExp) {
  const res = await answer;
  expect(res.status, res.text).toBe(200);
  expect(JSON.parse(res.text)).toEqual({ finished: true });
  expect(await server.exit).toEqual({ code: 0, signal: null });
  expect(server.stdout()).toMatch(new RegExp(`shutting down on ${signal.source}`));
  expect(server.stdout() + server.stderr()).not.toContain('function_crashed');
  await expectWorkersGone(workers);
}

describe.skipIf(process.platform !== 'linux')('stop signals', () => {
  it('Ctrl-C (SIGINT to the whole process group) finishes the request in flight, then exits 0', async () => {
    const { server, workers, inFlight } = await serverWithSlowFunction(1500);
    const { answer } = await inFlight();
    process.kill(-server.pid, 'SIGINT');
    await expectGracefulStop(server, answer, workers, /SIGINT/);
  }, 40_000);

  it('SIGTERM to the main process only finishes the request in flight, then exits 0', async () => {
    const { server, workers, inFlight } = await serverWithSlowFunction(1500);
    const { answer } = await inFlight();
    process.kill(server.pid, 'SIGTERM');
    await expectGracefulStop(server, answer, workers, /SIGTERM/);
  }, 40_000);

  it("systemd's stop (SIGTERM, then SIGHUP, to every process of the unit) finishes the request in flight, then exits 0", async () => {
    const { server, workers, inFlight } = await serverWithSlowFunction(1500);
    const { answer } = await inFlight();
    // KillMode=control-group signals each process of the cgroup, whatever its process group.
    for (const pid of [server.pid, ...workers]) process.kill(pid, 'SIGTERM');
    for (const pid of [server.pid, ...workers]) process.kill(pid, 'SIGHUP');
    // Pending together, the two may arrive in either order; neither is "stop at once".
    await expectGracefulStop(server, answer, workers, /SIG(TERM|HUP)/);
  }, 40_000);

  it('a second Ctrl-C exits at once, non-zero, saying so in one line', async () => {
    const { server, workers, inFlight } = await serverWithSlowFunction(20_000, { SWITCHYARD_SHUTDOWN_GRACE_MS: '30000' });
    const { answer } = await inFlight();
    process.kill(-server.pid, 'SIGINT');
    await server.waitForOutput(/shutting down on SIGINT/);
    // The first Ctrl-C left the call running: its worker is still there and it has no answer yet.
    let settled = false;
    void answer.then(() => (settled = true), () => (settled = true));
    await sleep(300);
    expect(settled).toBe(false);
    expect(workers.filter(alive)).toEqual(workers);
    const second = Date.now();
    process.kill(-server.pid, 'SIGINT');
    const exit = await server.exit;
    // Generous: "at once" against a function that would take 20 s and a grace period of 30 s.
    expect(Date.now() - second).toBeLessThan(5000);
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    const lines = server.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/second stop signal \(SIGINT\): exiting now/);
    await answer.then(
      (res) => expect(res.status).not.toBe(200),
      () => undefined, // the connection was cut: as expected
    );
    await expectWorkersGone(workers);
  }, 40_000);

  it('drains first with SWITCHYARD_DRAIN_DELAY_MS: /readyz answers 503 while new requests are still served, then it stops', async () => {
    const { server, workers } = await serverWithSlowFunction(0, { SWITCHYARD_DRAIN_DELAY_MS: '3000' });
    const readyz = async () => {
      const res = await fetch(`${server.url}/readyz`);
      return { status: res.status, body: (await res.json()) as { status: string; code?: string } };
    };
    expect((await readyz()).status).toBe(200);
    const apis = (await (await fetch(`${server.url}/api/apis`)).json()) as Array<{ id: string }>;
    process.kill(server.pid, 'SIGTERM');
    const draining = await waitFor(async () => {
      const r = await readyz();
      return r.status === 503 ? r : null;
    });
    expect(draining?.body).toEqual({ status: 'draining', error: 'Switchyard is shutting down: draining connections', code: 'shutting_down' });
    // A request that arrives during the drain is served, not refused with shutting_down.
    const late = await fetch(`${server.url}/api/invoke/fn/${apis[0].id}/slow`);
    expect(late.status, await late.clone().text()).toBe(200);
    expect(await server.exit).toEqual({ code: 0, signal: null });
    expect(server.stdout()).toMatch(/draining: \/readyz answers 503 for 3000 ms/);
    await expectWorkersGone(workers);
  });

  it('the worker processes exit when the main process is killed outright (SIGKILL)', async () => {
    const { server, workers } = await serverWithSlowFunction(10);
    process.kill(server.pid, 'SIGKILL');
    expect((await server.exit).signal).toBe('SIGKILL');
    await expectWorkersGone(workers);
  }, 40_000);
});
