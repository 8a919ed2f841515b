/**
 * The nginx configuration of docs/deploy.md, run for real: three Switchyard
 * nodes on one fresh PostgreSQL schema behind Debian's /usr/sbin/nginx, run as
 * a child process on a config whose http block ends with the doc's block
 * (between its `nginx-config:begin/end` markers) with only the node ports and
 * the `listen` address substituted. So the doc is literally what is tested.
 *
 * Outside CI the file is skipped with a message when nginx or PostgreSQL is
 * missing; under CI=true it fails instead (.ci/run installs nginx).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';
import { openSse } from '../helpers/sse.js';
import { pgSchemaUrl, postgresUnavailable } from '../helpers/test-database.js';
import { sleep, until } from '../helpers/until.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const DOC = join(ROOT, 'docs', 'deploy.md');
const NGINX = process.env.NGINX_BIN ?? '/usr/sbin/nginx';
/** Switchyard's default SWITCHYARD_BODY_LIMIT; the doc's client_max_body_size (1m) must equal it. */
const BODY_LIMIT = 1024 * 1024;
/** How long a node keeps an idle keep-alive connection (Node's default 5 s; closed within about 6 s). */
const NODE_IDLE_CLOSE_MS = 6_000;

/** Why this file cannot run here, or null. */
const missing: string | null = await (async () => {
  if (!existsSync(NGINX)) return `${NGINX} is missing (apt-get install nginx, or set NGINX_BIN)`;
  return postgresUnavailable();
})();

/** The nginx block of docs/deploy.md, between its markers. */
function docNginxBlock(): string {
  const m = /<!-- nginx-config:begin -->\s*```nginx\n([\s\S]*?)```\s*<!-- nginx-config:end -->/.exec(readFileSync(DOC, 'utf8'));
  if (!m) throw new Error(`${DOC} has no \`\`\`nginx block between <!-- nginx-config:begin --> and <!-- nginx-config:end -->`);
  return m[1];
}

/**
 * The doc's block with its upstream servers pointed at `ports` (in order; a
 * server whose index is in `down` gets nginx's `down` flag) and its `listen` at
 * 127.0.0.1:`listenPort`. Throws when the block does not have the shape this
 * substitution expects, rather than test something else.
 */
function substitute(block: string, ports: number[], listenPort: number, down: number[] = []): string {
  let i = 0;
  const out = block
    .replace(/^(\s*server\s+)127\.0\.0\.1:\d+([^;]*);/gm, (_all, head: string, params: string) => {
      if (i >= ports.length) throw new Error(`the doc's upstream has more than ${ports.length} servers`);
      const flag = down.includes(i) ? ' down' : '';
      return `${head}127.0.0.1:${ports[i++]}${params}${flag};`;
    })
    .replace(/^(\s*listen\s+)[^;]+;/gm, (_all, head: string) => `${head}127.0.0.1:${listenPort};`);
  if (i !== ports.length) throw new Error(`the doc's upstream has ${i} servers on 127.0.0.1, expected ${ports.length}`);
  if ((out.match(/^\s*listen\s/gm) ?? []).length !== 1) throw new Error('expected exactly one listen directive in the doc block');
  return out;
}

/** What the test adds around the doc's block: paths inside `dir`, and an access log naming the upstreams tried. */
function nginxConf(dir: string, block: string): string {
  return `# Written by test/integration/nginx.test.ts; the end of the http block is docs/deploy.md's.
worker_processes 1;
pid ${dir}/nginx.pid;
lock_file ${dir}/nginx.lock;
error_log ${dir}/error.log notice;
events { worker_connections 512; }
http {
    log_format sy '$request_id $status $request_method $request_uri upstream="$upstream_addr" upstream_status="$upstream_status"';
    access_log ${dir}/access.log sy;
    client_body_temp_path ${dir}/body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;

${block}
}
`;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
  });
}

const portOf = (url: string) => Number(new URL(url).port);

/** Sum of a node's `switchyard_function_invocations_total` for one function, read from that node directly. */
async function invocationsOn(node: RunningService, fn: string): Promise<number> {
  const text = (await node.request('GET', '/metrics')).text;
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('switchyard_function_invocations_total{') && line.includes(`function="${fn}"`)) {
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return sum;
}

/** IPv4 TCP sockets in TIME_WAIT whose local port is one of `ports` (closed first by that side), as "local>remote". */
function timeWaitFrom(ports: number[]): Set<string> {
  const found = new Set<string>();
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const [, local, remote, state] = line.trim().split(/\s+/);
    if (state !== '06' || !local) continue;
    if (ports.includes(parseInt(local.split(':')[1], 16))) found.add(`${local}>${remote}`);
  }
  return found;
}

/** Process ids whose parent is `ppid` (nginx's workers), from /proc. */
function childrenOf(ppid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid) pids.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return pids;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Answers what it saw; a POST also leaves a console line (stored with its request id: proof it ran). */
const WHO = `exports.handler = async (event, context) => {
  if (event.httpMethod === 'POST') console.log('ran');
  return {
    statusCode: 200,
    body: {
      requestId: context.requestId,
      host: event.headers.host,
      forwardedFor: event.headers['x-forwarded-for'] ?? null,
      sourceIp: event.requestContext.sourceIp,
      length: typeof event.body === 'string' ? event.body.length : null,
    },
  };
};`;

/** SWITCHYARD_TRUSTED_PROXIES as the doc sets it: nginx's address. */
const ENV = { SWITCHYARD_WORKERS: '1', SWITCHYARD_SHUTDOWN_GRACE_MS: '5000', SWITCHYARD_TRUSTED_PROXIES: '127.0.0.1' };

const skipped = missing !== null && !process.env.CI;
if (skipped) console.warn(`test/integration/nginx.test.ts skipped: ${missing}`);

describe.skipIf(skipped)(skipped ? `nginx config of docs/deploy.md: skipped, ${missing}` : 'nginx config of docs/deploy.md', { timeout: 30_000 }, () => {
  let dbUrl = '';
  let dir = '';
  let ports: number[] = [];
  let listenPort = 0;
  let nodes: RunningService[] = [];
  const stopped: RunningService[] = [];
  let nginx: ChildProcess | null = null;
  let nginxOutput = '';
  let base = '';
  let invokeUrl = '';

  const via = async (method: string, path: string, body?: string, headers: Record<string, string> = {}) => {
    const res = await fetch(path.startsWith('http') ? path : base + path, { method, body, headers });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: one of nginx's own pages */
    }
    return { status: res.status, headers: res.headers, text, json };
  };
  const viaJson = (method: string, path: string, value: unknown) =>
    via(method, path, JSON.stringify(value), { 'content-type': 'application/json' });
  const readOr = (file: string) => (existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8') : '');
  const accessLog = () => readOr('access.log');
  const diagnostics = () => `nginx output:\n${nginxOutput}\nerror.log:\n${readOr('error.log')}`;
  const nginxArgs = () => ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'];

  /** Writes nginx.conf from the doc's block and checks it with `nginx -t`. */
  function writeConf(down: number[] = []): void {
    const conf = nginxConf(dir, substitute(docNginxBlock(), ports, listenPort, down));
    writeFileSync(join(dir, 'nginx.conf'), conf);
    const check = spawnSync(NGINX, ['-t', ...nginxArgs()], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`nginx -t refused the config:\n${check.stderr}\n${conf}`);
  }

  /** `nginx -s reload`, then waits until the old worker has finished and exited. */
  async function reload(down: number[]): Promise<void> {
    writeConf(down);
    const old = childrenOf(nginx!.pid!);
    expect(old.length).toBeGreaterThan(0);
    nginx!.kill('SIGHUP');
    await until(() => old.every((pid) => !alive(pid)) && childrenOf(nginx!.pid!).length > 0, `nginx reload\n${diagnostics()}`);
    // The old worker closed our idle keep-alive connections to it on its way out; let fetch see
    // those closes before it picks a connection again (else: "other side closed", client side).
    await sleep(200);
  }

  /** Invocations through nginx from 4 clients (2 GET, 2 POST) until `done` resolves. */
  async function loadUntil(done: Promise<unknown>) {
    let stop = false;
    const result = { ok: 0, get: [] as string[], post: [] as string[] };
    const client = async (method: 'GET' | 'POST') => {
      while (!stop) {
        const res = await (method === 'GET' ? via('GET', invokeUrl) : via('POST', invokeUrl, 'x', { 'content-type': 'text/plain' })).catch(
          (err) => ({ status: 0, text: `${err} (${(err as Error).cause ?? 'no cause'})`, json: undefined }),
        );
        if (res.status === 200) result.ok++;
        else (method === 'GET' ? result.get : result.post).push(`${res.status} ${res.text.replace(/\s+/g, ' ').slice(0, 160)}`);
      }
    };
    const clients = (['GET', 'GET', 'POST', 'POST'] as const).map(client);
    await done;
    stop = true;
    await Promise.all(clients);
    return result;
  }

  /**
   * The POST invocations nginx logged after `from` (an access log offset): each one
   * it answered 200 ran exactly once (one console line with its id), each other one
   * never ran. Returns how many failed.
   */
  async function postsRanOnceOrNever(from: number): Promise<{ ok: number; failed: string[] }> {
    const posts = [...accessLog().slice(from).matchAll(/^(\S+) (\d+) POST \/api\/invoke\/\S+ (.*)$/gm)];
    const ok = posts.filter((m) => m[2] === '200').map((m) => m[1]);
    const failed = posts.filter((m) => m[2] !== '200');
    const ran = new Map<string, number>();
    await until(async () => {
      ran.clear();
      const lines = (await via('GET', '/api/functions/who/logs?limit=1000')).json as Array<{ request_id: string }>;
      for (const line of lines) ran.set(line.request_id, (ran.get(line.request_id) ?? 0) + 1);
      return ok.every((id) => ran.has(id));
    }, 'the console line of every POST answered 200');
    for (const id of ok) expect(ran.get(id), id).toBe(1);
    for (const m of failed) expect(ran.get(m[1]), `${m[0]}: it ran`).toBeUndefined();
    return { ok: ok.length, failed: failed.map((m) => m[0]) };
  }

  beforeAll(async () => {
    if (missing) throw new Error(`${missing}; CI is set, so this test fails instead of skipping`);
    dbUrl = pgSchemaUrl('ngx').url; // dropped after the file (test/setup-file.ts)
    // The run's temp folder goes at its end; one to keep must live outside it.
    dir = mkdtempSync(join(process.env.KEEP_NGINX_DIR ? '/tmp' : tmpdir(), 'switchyard-nginx-'));
    // Run as root, nginx's workers drop to nobody: they must reach the temp paths inside `dir`.
    chmodSync(dir, 0o755);
    // One first (it runs the migrations), then the others.
    nodes.push(await startService({ dbUrl, env: ENV }));
    nodes.push(...(await Promise.all([0, 1].map(() => startService({ dbUrl, env: ENV })))));
    ports = nodes.map((n) => portOf(n.url));
    listenPort = await freePort();
    base = `http://127.0.0.1:${listenPort}`;
    writeConf();

    nginx = spawn(NGINX, nginxArgs(), { stdio: ['ignore', 'pipe', 'pipe'] });
    nginx.stdout!.on('data', (c: Buffer) => (nginxOutput += c.toString()));
    nginx.stderr!.on('data', (c: Buffer) => (nginxOutput += c.toString()));
    await until(async () => {
      if (nginx!.exitCode !== null) throw new Error(`nginx exited with ${nginx!.exitCode}\n${diagnostics()}`);
      return fetch(base + '/healthz').then((r) => r.ok, () => false);
    }, `nginx answering on ${base}\n${diagnostics()}`);
  });

  afterAll(async () => {
    if (nginx && nginx.exitCode === null && nginx.signalCode === null) {
      const exited = new Promise((r) => nginx!.once('exit', r));
      nginx.kill('SIGTERM'); // fast shutdown of master and worker
      await Promise.race([exited, sleep(5_000)]);
      if (nginx.exitCode === null && nginx.signalCode === null) nginx.kill('SIGKILL');
    }
    await Promise.all([...nodes, ...stopped].map((n) => n.stop('SIGKILL')));
    if (process.env.KEEP_NGINX_DIR) console.log(`nginx test files kept in ${dir}`);
    else if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("deploys a function and creates an API through nginx; the invokeUrl it answers is nginx's", async () => {
    const fn = await viaJson('POST', '/api/functions', { name: 'who', code: WHO });
    expect(fn.status, fn.text).toBe(201);
    // Management answers carry nginx's $request_id (32 hex digits; a node makes 24).
    expect(fn.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    const api = await viaJson('POST', '/api/apis', {
      name: 'who',
      basePath: '/who',
      routes: [
        { method: 'GET', path: '/', function: 'who' },
        { method: 'POST', path: '/', function: 'who' },
      ],
    });
    expect(api.status, api.text).toBe(201);
    invokeUrl = `${base}/api/invoke/fn/${api.json.id}/who`;
    // Built from the Host header nginx passes on, which must keep the port the client used.
    expect(api.json.invokeUrl).toBe(invokeUrl);
  });

  it("gives functions the client's address as sourceIp, not nginx's nor one the client wrote", async () => {
    // From 127.0.0.2 (all of 127.0.0.0/8 is this machine): nginx appends it; 127.0.0.1 (nginx) is the trusted hop.
    const answer = await new Promise<any>((done, fail) => {
      const req = http.request(invokeUrl, { localAddress: '127.0.0.2', agent: false, headers: { 'x-forwarded-for': '203.0.113.9' } });
      req.on('error', fail);
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => done(JSON.parse(text)));
      });
      req.end();
    });
    expect(answer.forwardedFor).toBe('203.0.113.9, 127.0.0.2');
    expect(answer.sourceIp).toBe('127.0.0.2');
  });

  it("spreads invocations over every node; each carries nginx's $request_id end to end", async () => {
    const before = await Promise.all(nodes.map((n) => invocationsOn(n, 'who')));
    const ids = new Set<string>();
    const N = 30;
    for (let i = 0; i < N; i++) {
      // A client's own X-Request-Id is replaced by nginx's.
      const res = await via('GET', invokeUrl, undefined, { 'x-request-id': 'client-chosen' });
      expect(res.status, res.text).toBe(200);
      const id = res.headers.get('x-request-id')!;
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      expect(res.json).toEqual({ requestId: id, host: `127.0.0.1:${listenPort}`, forwardedFor: '127.0.0.1', sourceIp: '127.0.0.1', length: null });
      ids.add(id);
    }
    expect(ids.size).toBe(N);
    const served = (await Promise.all(nodes.map((n) => invocationsOn(n, 'who')))).map((after, i) => after - before[i]);
    expect(served.reduce((a, b) => a + b, 0)).toBe(N);
    for (const count of served) expect(count, `invocations per node: ${served.join(', ')}`).toBeGreaterThan(0);
    // nginx's log agrees: the ids are the ones it generated, answered by all three upstreams.
    const log = await until(() => {
      const text = accessLog();
      return [...ids].every((id) => text.includes(`${id} 200 GET`)) && text;
    }, 'every request id in the access log');
    const upstreams = new Set([...log.matchAll(/upstream="127\.0\.0\.1:(\d+)"/g)].map((m) => Number(m[1])));
    expect([...upstreams].sort()).toEqual([...ports].sort());
  });

  it("streams every node's invocations on one log stream through nginx, as they happen", async () => {
    // The stream lands on one node; the other two share their invocations once they hear someone watches.
    const stream = await openSse(`${base}/api/functions/who/logs/stream`);
    try {
      expect(stream.status).toBe(200);
      const upstreamOf = (id: string) => new RegExp(`^${id} 200 GET \\S+ upstream="127\\.0\\.0\\.1:(\\d+)"`, 'm').exec(accessLog())?.[1];
      const streamedFrom = () =>
        new Set(stream.events.filter((e) => e.event === 'invocation').map((e) => upstreamOf(e.json.request_id)).filter((p) => p !== undefined).map(Number));
      await until(async () => {
        for (let i = 0; i < 6; i++) expect((await via('GET', invokeUrl)).status).toBe(200);
        return streamedFrom().size === 3;
      }, 'invocations served by all three nodes on the stream');
      expect([...streamedFrom()].sort()).toEqual([...ports].sort());
    } finally {
      stream.close();
    }
  });

  it('passes a body of exactly client_max_body_size (= SWITCHYARD_BODY_LIMIT) and refuses one byte more itself (413)', async () => {
    const atLimit = await via('POST', invokeUrl, 'a'.repeat(BODY_LIMIT), { 'content-type': 'text/plain' });
    expect(atLimit.status, atLimit.text.slice(0, 200)).toBe(200);
    expect(atLimit.json.length).toBe(BODY_LIMIT);

    const over = await via('POST', invokeUrl, 'a'.repeat(BODY_LIMIT + 1), { 'content-type': 'text/plain' });
    expect(over.status).toBe(413);
    expect(over.headers.get('server')).toMatch(/^nginx/);
    const big = await viaJson('POST', '/api/functions', { name: 'big', code: `// ${'x'.repeat(BODY_LIMIT)}` });
    expect(big.status).toBe(413);
    // Never sent to a node (nginx logs a refused request once it has drained the body).
    await until(() => /^\S+ 413 POST \/api\/functions upstream="-" /m.test(accessLog()), 'the 413 in the access log');
    expect(accessLog()).toMatch(/^\S+ 413 POST \/api\/invoke\/fn\/\S+ upstream="-" /m);
  });

  it('reuses upstream connections and closes idle ones before a node does (keepalive_timeout)', async () => {
    // A node closing an idle connection races nginx reusing it: a POST sent just then fails with 502.
    const before = timeWaitFrom(ports);
    for (let i = 0; i < 30; i++) expect((await via('GET', invokeUrl)).status).toBe(200);
    await sleep(NODE_IDLE_CLOSE_MS + 1_000);
    // A connection closed by a node leaves a TIME_WAIT socket on the node's port.
    // None: every connection stayed open across requests and nginx closed it first.
    const closedByNodes = [...timeWaitFrom(ports)].filter((s) => !before.has(s));
    expect(closedByNodes).toEqual([]);
  });

  /** Load through nginx while `victim` is stopped with SIGTERM 300 ms in (it must exit 0). */
  const sigtermUnderLoad = (victim: RunningService) =>
    loadUntil(
      (async () => {
        await sleep(300);
        expect(await victim.stop('SIGTERM')).toBe(0);
        stopped.push(victim);
        await sleep(300);
      })(),
    );

  it('restarts a node with a bare SIGTERM: GETs retried (http_503, error), POSTs that fail never ran', async () => {
    const victim = nodes[0];
    const from = accessLog().length;
    const result = await sigtermUnderLoad(victim);
    expect(result.get, `GET failures (${result.ok} succeeded)`).toEqual([]);
    // POST is not idempotent: nginx retries it only when it could not send it. What it sent to the
    // node as it closed comes back as 503 shutting_down or 502 (the node reset an idle connection).
    for (const failure of result.post) expect(failure).toMatch(/^(503 \{"error":"Switchyard is shutting down"|502 <html>)/);
    const posts = await postsRanOnceOrNever(from);
    expect(posts.failed).toHaveLength(result.post.length);
    console.log(
      `[nginx] bare SIGTERM under load: ${result.ok} invocations succeeded, ${result.post.length} POSTs failed` +
        result.post.map((f) => `\n  ${f}`).join(''),
    );
    expect(result.ok).toBeGreaterThan(20);
    // The replacement, on the same port (nginx's config does not change).
    nodes[0] = await startService({ dbUrl, env: { ...ENV, PORT: String(ports[0]) } });
  });

  it('restarts a node the way the doc says (down, reload, SIGTERM): no request fails, POST included', async () => {
    await reload([1]);
    const victim = nodes[1];
    const from = accessLog().length;
    const result = await sigtermUnderLoad(victim);
    expect([...result.get, ...result.post], `failures (${result.ok} succeeded)`).toEqual([]);
    expect((await postsRanOnceOrNever(from)).failed).toEqual([]);
    expect(result.ok).toBeGreaterThan(20);
    nodes[1] = await startService({ dbUrl, env: { ...ENV, PORT: String(ports[1]) } });
    await reload([]);
    // Back in the rotation: the replacements serve (nginx retries a failed server after fail_timeout).
    await until(async () => {
      await via('GET', invokeUrl);
      return (await invocationsOn(nodes[1], 'who')) > 0 && (await invocationsOn(nodes[0], 'who')) > 0;
    }, 'both replacements serving through nginx', 15_000);
  });

  it('keeps answering, GET and POST, when a node is killed; tries the dead one at most max_fails times', async () => {
    const victim = nodes[2];
    await victim.stop('SIGKILL');
    stopped.push(victim);
    const from = accessLog().length;
    for (let i = 0; i < 15; i++) {
      const get = await via('GET', invokeUrl);
      expect(get.status, get.text).toBe(200);
      const post = await via('POST', invokeUrl, 'hi', { 'content-type': 'text/plain' });
      expect(post.status, post.text).toBe(200);
      expect(post.json.length).toBe(2);
    }
    expect((await via('GET', '/api/functions')).status).toBe(200);
    const triedDead = accessLog()
      .slice(from)
      .split('\n')
      .filter((line) => line.includes(`127.0.0.1:${ports[2]}`));
    expect(triedDead.length, triedDead.join('\n')).toBeGreaterThan(0);
    expect(triedDead.length, triedDead.join('\n')).toBeLessThanOrEqual(2);
  });
});
