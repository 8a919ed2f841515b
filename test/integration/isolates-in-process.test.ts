/**
 * `--processes 2` with the default `--isolates auto`: each server process
 * hosts its isolates itself (src/runtime/in-process.ts), no worker
 * processes. What that must keep: a function sees none of the process's
 * secrets (the admin key, DATABASE_URL), and an isolate that aborts its
 * process (a V8 out-of-memory past isolated-vm's soft limit) loses only
 * that process's in-flight requests while the port keeps answering and the
 * primary forks a replacement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'node:http';
import { send, type Answer } from '../helpers/cluster-connections.js';
import { childPids, commandLine, waitFor } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const ADMIN_KEY = 'in-process-admin-key-0123456789abcdef';
const auth = { authorization: `Bearer ${ADMIN_KEY}` };

/** A kept-alive connection to one server process (the primary spreads connections round-robin). */
interface Conn {
  pid: number;
  req(method: string, path: string, body?: unknown): Promise<Answer>;
  close(): void;
}

async function connectTo(base: string, want: { pid?: number; not?: number } = {}): Promise<Conn> {
  for (let i = 0; i < 50; i++) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const health = await send(agent, base, 'GET', '/healthz');
    if (health.json.pid !== want.not && (want.pid === undefined || health.json.pid === want.pid)) {
      return { pid: health.json.pid, req: (m, p, b) => send(agent, base, m, p, b, auth), close: () => agent.destroy() };
    }
    agent.destroy();
  }
  throw new Error(`no connection reached ${JSON.stringify(want)}`);
}

describe.skipIf(process.platform !== 'linux')('isolates in the server processes (--processes 2)', () => {
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startService({
      env: { SWITCHYARD_PROCESSES: '2', SWITCHYARD_ADMIN_KEY: ADMIN_KEY, SWITCHYARD_TEST_HOOKS: '1' },
      startTimeoutMs: 40_000,
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop('SIGKILL');
  });

  /** Deploys `code` as `name` behind GET /<name>/ and returns the invoke path once both processes serve it. */
  async function deploy(name: string, code: string, extra: Record<string, unknown> = {}): Promise<string> {
    const any = await connectTo(svc.url);
    const other = await connectTo(svc.url, { not: any.pid });
    expect((await any.req('POST', '/api/functions', { name, code, ...extra })).status).toBe(201);
    const api = await any.req('POST', '/api/apis', { name, basePath: `/${name}`, routes: [{ method: 'GET', path: '/', function: name }] });
    expect(api.status).toBe(201);
    const path = `/api/invoke/fn/${api.json.id}/${name}`;
    await until(async () => (await other.req('GET', path + '?warm=1')).status !== 404, `${name} served by the other process`);
    any.close();
    other.close();
    return path;
  }

  it('runs no worker processes: the server processes host the isolates', async () => {
    const path = await deploy('hello', `exports.handler = async () => ({ statusCode: 200, body: { hello: 'world' } });`);
    const c = await connectTo(svc.url);
    expect((await c.req('GET', path)).json).toEqual({ hello: 'world' });
    c.close();
    const servers = childPids(svc.proc.pid!);
    expect(servers.length).toBe(2);
    for (const pid of servers) {
      expect(commandLine(pid)).toContain('--no-node-snapshot');
      expect(childPids(pid).filter((p) => commandLine(p).includes('worker.js'))).toEqual([]);
    }
  });

  it("gives a function neither the admin key nor DATABASE_URL: its process.env is its own env alone", async () => {
    const path = await deploy(
      'peek',
      `exports.handler = async () => {
        const seen = [JSON.stringify(process.env), String(process.env.SWITCHYARD_ADMIN_KEY), String(process.env.DATABASE_URL)];
        try { seen.push(String(globalThis.process && globalThis.process.env && Object.keys(globalThis.process.env))); } catch (e) { seen.push(String(e)); }
        return { statusCode: 200, body: { seen, admin: process.env.SWITCHYARD_ADMIN_KEY ?? null, db: process.env.DATABASE_URL ?? null, mine: process.env.MINE } };
      };`,
      { env: { MINE: 'yes' } },
    );
    const c = await connectTo(svc.url);
    const res = await c.req('GET', path);
    c.close();
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ admin: null, db: null, mine: 'yes' });
    const text = JSON.stringify(res.json);
    expect(text).not.toContain(ADMIN_KEY);
    expect(text).not.toContain(svc.dbUrl);
  });

  it("loses only the aborting process's in-flight requests; the port keeps answering and the process is replaced", async () => {
    // A Map doubling its table jumps past ivm's soft limit: V8 gives up, and the process with it.
    const bomb = await deploy(
      'mapbomb',
      `exports.handler = (e) => { if (!e.queryStringParameters || !e.queryStringParameters.bomb) return { statusCode: 200, body: 'ok' }; const m = new Map(); for (let i = 0; ; i++) m.set(i, { i }); };`,
      { memory_mb: 16 },
    );
    const slow = await deploy('slow', `exports.handler = async () => { await new Promise((r) => setTimeout(r, 2500)); return { statusCode: 200, body: { done: true } }; };`);
    const victim = await connectTo(svc.url);
    // A second connection to the same process: one connection serves its requests one at a time.
    const victimToo = await connectTo(svc.url, { pid: victim.pid });
    const survivor = await connectTo(svc.url, { not: victim.pid });
    const survivorPid = survivor.pid;

    const onSurvivor = survivor.req('GET', slow);
    const onVictim = victimToo.req('GET', slow).then(
      (r) => ({ answered: r.status }),
      (err: Error) => ({ lost: err.message }),
    );
    await new Promise((r) => setTimeout(r, 300)); // both slow calls are in their isolates
    const bombed = await victim.req('GET', bomb + '?bomb=1').then(
      (r) => ({ answered: r.status }),
      (err: Error) => ({ lost: err.message }),
    );
    expect(bombed).toHaveProperty('lost');
    expect(await onVictim).toHaveProperty('lost');
    // The other process's call was untouched.
    const kept = await onSurvivor;
    expect(kept.status).toBe(200);
    expect(kept.json).toEqual({ done: true });
    survivor.close();
    victim.close();
    victimToo.close();

    await waitFor(() => svc.output.join('').includes(`server process ${victim.pid} exited`), 10_000);
    // The port answers throughout: the survivor takes every connection while the replacement starts.
    for (let i = 0; i < 5; i++) expect((await send(false, svc.url, 'GET', '/healthz')).status).toBe(200);
    const replacement = await waitFor(async () => {
      // Until the replacement listens, every connection lands on the survivor.
      const c = await connectTo(svc.url, { not: survivorPid }).catch(() => null);
      c?.close();
      return c && c.pid !== victim.pid ? c.pid : undefined;
    }, 30_000);
    expect(replacement).not.toBe(svc.proc.pid);
    // And the bomb's function still serves when it does not explode, on either process.
    await until(async () => (await send(false, svc.url, 'GET', bomb)).status === 200, 'the bomb function answers again', 15_000);
    expect(svc.proc.exitCode).toBeNull();
  }, 90_000);
});
