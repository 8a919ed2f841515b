/**
 * Keeps a test run's private PostgreSQL and temporary folders, and removes them
 * however the run ends. test/helpers/postgres-server.ts spawns this as a
 * separate process (plain JavaScript, so any Node 22+ runs it as it is): it
 * outlives the test process only to clean up, and it notices that process
 * ending through its stdin, which closes even when the test process is killed
 * with SIGKILL or exits on Ctrl-C without running its teardown.
 *
 * argv[2] is a JSON object: { dirs: string[], postgres?: { initdb, postgres,
 * relocatableRoot?, dir } }. With `postgres`, it runs initdb in `dir` and
 * postgres on a free 127.0.0.1 port (fsync off, trust auth, user postgres).
 * Run as root, both run as uid/gid 65534 (PostgreSQL refuses root); when that
 * user cannot run the binaries where they are (a checkout under a 0700 home),
 * a relocatable install (`relocatableRoot`, the folder holding bin/ lib/ share/)
 * is copied into `dir` first.
 *
 * Protocol: one JSON line on stdout per event ({"event":"ready",url,version},
 * {"event":"restarted"}, {"event":"error",message}); stdin lines "restart" and
 * "stop"; stdin closing means stop. Stopping shuts PostgreSQL down (fast, then
 * immediate, then SIGKILL) and removes every folder in `dirs`, then exits.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, cpSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';

const config = JSON.parse(process.argv[2]);
/** nobody/nogroup on Debian and most Linux systems. */
const UNPRIVILEGED = 65534;
const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const ids = asRoot ? { uid: UNPRIVILEGED, gid: UNPRIVILEGED } : {};
/** What PostgreSQL needs from the environment; PG* variables of the caller must not steer it. */
const env = { PATH: process.env.PATH ?? '', LC_ALL: 'C', LANG: 'C', ...(process.env.TZ ? { TZ: process.env.TZ } : {}) };

let postgres = null;
let postgresArgs = null;
let postgresLog = [];
let stopping = null;

function send(event) {
  process.stdout.write(JSON.stringify(event) + '\n');
}

function remember(chunk) {
  postgresLog.push(...chunk.toString().split('\n').filter(Boolean));
  if (postgresLog.length > 40) postgresLog = postgresLog.slice(-40);
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

function run(file, args) {
  const result = spawnSync(file, args, { ...ids, env, encoding: 'utf8' });
  if (result.error) throw new Error(`${file}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${file} ${args.join(' ')} exited with ${result.status}:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** The binaries to run: where they are, or a copy the unprivileged user can read. */
function usableBinaries(pgConfig) {
  const probe = spawnSync(pgConfig.initdb, ['--version'], { ...ids, env });
  if (probe.status === 0) return pgConfig;
  if (!asRoot || !pgConfig.relocatableRoot) {
    throw new Error(`${pgConfig.initdb} --version failed${asRoot ? ` as uid ${UNPRIVILEGED}` : ''}: ${probe.error?.message ?? probe.stderr}`);
  }
  const copy = join(pgConfig.dir, 'native');
  cpSync(pgConfig.relocatableRoot, copy, { recursive: true, verbatimSymlinks: true });
  const moved = (file) => join(copy, relative(pgConfig.relocatableRoot, file));
  return { ...pgConfig, initdb: moved(pgConfig.initdb), postgres: moved(pgConfig.postgres) };
}

function spawnPostgres() {
  postgres = spawn(postgresArgs.file, postgresArgs.args, { ...ids, env, stdio: ['ignore', 'pipe', 'pipe'] });
  postgres.stdout.on('data', remember);
  postgres.stderr.on('data', remember);
  postgres.on('error', (err) => remember(String(err)));
  return postgres;
}

/** Resolves once a client can connect; rejects if postgres exits first. */
async function waitUntilReady(url, proc) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`postgres exited with ${proc.exitCode ?? proc.signalCode}:\n${postgresLog.join('\n')}`);
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      const { rows } = await client.query('SHOW server_version');
      return rows[0].server_version;
    } catch {
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections within 60 s:\n${postgresLog.join('\n')}`);
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

async function startPostgres(pgConfig) {
  mkdirSync(pgConfig.dir, { recursive: true });
  if (asRoot) chownSync(pgConfig.dir, UNPRIVILEGED, UNPRIVILEGED);
  const bins = usableBinaries(pgConfig);
  const data = join(pgConfig.dir, 'data');
  run(bins.initdb, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  // A port found free can be taken before postgres binds it: try a few.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    postgresArgs = {
      file: bins.postgres,
      port,
      args: [
        '-D', data,
        '-p', String(port),
        '-c', 'listen_addresses=127.0.0.1',
        '-c', `unix_socket_directories=${pgConfig.dir}`,
        '-c', 'fsync=off',
        '-c', 'synchronous_commit=off',
        '-c', 'full_page_writes=off',
        '-c', 'max_connections=300',
      ],
    };
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    try {
      const version = await waitUntilReady(url, spawnPostgres());
      return { url, version };
    } catch (err) {
      if (attempt >= 5 || !postgresLog.some((line) => line.includes('Address already in use'))) throw err;
      postgresLog = [];
    }
  }
}

/** Fast shutdown, then immediate, then SIGKILL: never leave a server running. */
async function stopPostgres() {
  const proc = postgres;
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  for (const [signal, waitMs] of [['SIGINT', 15_000], ['SIGQUIT', 5_000], ['SIGKILL', 5_000]]) {
    try {
      proc.kill(signal);
    } catch {
      // already gone
    }
    const timer = new Promise((r) => setTimeout(r, waitMs, 'timeout'));
    if ((await Promise.race([exited, timer])) !== 'timeout') return;
  }
}

async function restart() {
  await stopPostgres();
  postgresLog = [];
  const url = `postgres://postgres@127.0.0.1:${postgresArgs.port}/postgres`;
  await waitUntilReady(url, spawnPostgres());
}

function stop() {
  stopping ??= (async () => {
    await stopPostgres();
    for (const dir of config.dirs) {
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
      } catch (err) {
        process.stderr.write(`postgres-guard: could not remove ${dir}: ${err.message}\n`);
      }
    }
    process.exit(0);
  })();
  return stopping;
}

// A parent that is gone makes writes fail: that is no reason to skip the cleanup.
process.stdout.on('error', () => undefined);
process.on('uncaughtException', (err) => {
  process.stderr.write(`postgres-guard: ${err.stack ?? err}\n`);
  void stop();
});
// The test process's own Ctrl-C reaches this process too: clean up instead of dying mid-way.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stop());
const commands = createInterface({ input: process.stdin });
commands.on('line', (line) => {
  if (line === 'stop') void stop();
  else if (line === 'restart') {
    restart().then(
      () => send({ event: 'restarted' }),
      (err) => send({ event: 'error', message: err.message }),
    );
  }
});
commands.on('close', () => void stop());

try {
  if (config.postgres) send({ event: 'ready', ...(await startPostgres(config.postgres)) });
  else send({ event: 'ready' });
} catch (err) {
  send({ event: 'error', message: err instanceof Error ? err.message : String(err) });
  await stop();
}
