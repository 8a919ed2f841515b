// A Switchyard gateway for the gateway benchmarks (processes-compare,
// hotpath-cpu, streams-watched): dist/cli.js as its own process group on a temp
// SQLite file, LOG_LEVEL=warn, no admin key, serving the example hello
// function at GET /bench/hello, warmed before it is handed over.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, freePort } from './nodes.js';
import { stopGracefully } from './processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'dist', 'cli.js');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const running = new Set();
// A benchmark that throws or is interrupted leaves no gateway behind.
process.on('exit', () => {
  for (const child of running) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

/**
 * Starts the gateway with `processes` server processes (and node's own `nodeArgs`);
 * `cli` runs another build's cli.js (an A/B of two builds); `env` adds settings
 * (e.g. SWITCHYARD_ISOLATES for bench/process-model.mjs).
 * Resolves once hello answers through every process's cache: `{ child, base, url, stop }`.
 */
export async function startHelloGateway({ processes = 1, nodeArgs = [], cli = CLI, env: extra = {} } = {}) {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  const port = await freePort();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-'));
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${path.join(dir, 'bench.db')}`,
    LOG_LEVEL: 'warn',
    SWITCHYARD_PROCESSES: String(processes),
  };
  for (const name of ['SWITCHYARD_ADMIN_KEY', 'SWITCHYARD_DEMO', 'SWITCHYARD_WORKERS', 'SWITCHYARD_ISOLATES']) delete env[name];
  Object.assign(env, extra);
  const child = spawn(process.execPath, [...nodeArgs, cli], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  running.add(child);
  const stop = async () => {
    await stopGracefully({ child, group: true }, 15_000);
    running.delete(child);
    await rm(dir, { recursive: true, force: true });
  };
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      if ((await fetch(`${base}/healthz`).then((r) => r.status, () => 0)) === 200) break;
      if (i > 300) throw new Error(`the gateway with ${processes} process(es) did not start`);
      await sleep(100);
    }
    const code = await readFile(path.join(ROOT, 'examples', 'functions', 'hello.js'), 'utf8');
    await call(base, 'POST', '/api/functions', { name: 'hello', code }, [201]);
    const api = await call(base, 'POST', '/api/apis', {
      name: 'bench',
      basePath: '/bench',
      routes: [{ method: 'GET', path: '/hello', function: 'hello' }],
    }, [201]);
    const url = `${base}/api/invoke/fn/${api.id}/bench/hello`;
    // A fresh connection each: every process's caches and isolates warm before a measurement.
    for (let i = 0; i < 20; i++) await fetch(url, { headers: { connection: 'close' } }).then((r) => r.text());
    return { child, base, url, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
