/**
 * What a person sees from the real CLI: a start-up failure is exactly one line
 * on stderr naming the cause and the fix, and a non-zero exit (port in use,
 * database unreachable, a SQLite folder it may not write, a database from a
 * newer Switchyard); --help and --version; pretty logs on a terminal and
 * JSON otherwise, as LOG_FORMAT says; a 404 on
 * `GET /` that says where things are.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPTIONS } from '../../src/config.js';
import { killLeftoverClis, runCli, startCli, type CliRun } from '../helpers/cli.js';
import { childPids, closedPort, commandLine, waitFor } from '../helpers/receiver.js';
import { startService } from '../helpers/service.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-startup-'));
});
afterAll(() => {
  killLeftoverClis();
  rmSync(dir, { recursive: true, force: true });
});

let serial = 0;
const sqliteUrl = () => `sqlite:${join(dir, `db${++serial}`, 'switchyard.db')}`;

/** Runs the CLI to its exit; the failure line is everything it wrote to stderr. */
async function failure(env: Record<string, string>, opts: Parameters<typeof runCli>[2] = {}) {
  const run = runCli([], { DATABASE_URL: sqliteUrl(), ...env }, opts);
  const exit = await Promise.race([
    run.exit,
    new Promise<never>((_, reject) => setTimeout(() => (run.kill(), reject(new Error('still running after 20 s'))), 20_000)),
  ]);
  const stderr = run.stderr();
  expect(exit.code, stderr).not.toBe(0);
  expect(exit.code, stderr).not.toBeNull();
  const lines = stderr.split('\n').filter(Boolean);
  expect(lines, `stderr:\n${stderr}`).toHaveLength(1);
  expect(run.stdout(), 'nothing on stdout').toBe('');
  return lines[0];
}

describe('start-up failures: one line with the cause and the fix', () => {
  it('port in use: names the port and how to pick another', async () => {
    const blocker = net.createServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const line = await failure({ PORT: String(port) });
      expect(line).toMatch(new RegExp(`^switchyard: port ${port} is already in use`));
      expect(line).toContain('stop the other process');
      expect(line).toContain('PORT=');
      expect(line).toContain('--port');
    } finally {
      blocker.close();
    }
  }, 30_000);

  it('database unreachable: the URL without its password, and what to check', async () => {
    const port = await closedPort();
    const line = await failure({ DATABASE_URL: `postgres://user:secret@127.0.0.1:${port}/db` });
    expect(line).toContain(`cannot reach the database at postgres://user:***@127.0.0.1:${port}/db`);
    expect(line).toMatch(/PostgreSQL is running/);
    expect(line).toMatch(/host, port, user, password and database name/);
    expect(line).not.toContain('secret');
  }, 30_000);

  it('a database written by a newer Switchyard: says so and what to do', async () => {
    const url = sqliteUrl();
    const file = url.slice('sqlite:'.length);
    mkdirSync(join(file, '..'), { recursive: true });
    const db = new Database(file);
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(999, 'from-the-future', new Date().toISOString());
    db.close();
    const line = await failure({ DATABASE_URL: url });
    expect(line).toMatch(/^switchyard: The database was written by a newer Switchyard: .*Upgrade Switchyard/);
  }, 30_000);

  // Root may write anywhere: the server then runs as nobody.
  it.skipIf(process.platform !== 'linux')('a SQLite folder it may not write: names the file and the fix', async () => {
    const root = process.getuid!() === 0;
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    chmodSync(dir, 0o755);
    chmodSync(locked, 0o555);
    const file = join(locked, 'switchyard.db');
    const line = await failure({ DATABASE_URL: `sqlite:${file}` }, root ? { uid: 65534, gid: 65534 } : {});
    expect(line).toContain(`cannot open the SQLite database ${file}`);
    expect(line).toMatch(/may read and write it and create files in/);
    expect(line).toContain('DATABASE_URL');
  }, 30_000);

  it('a bad setting or an unknown option: one line, exit 2, naming it', async () => {
    const bad = runCli(['--prot', '1'], { DATABASE_URL: sqliteUrl() });
    expect((await bad.exit).code).toBe(2);
    expect(bad.stderr().trim().split('\n')).toHaveLength(1);
    expect(bad.stderr()).toContain('Unknown option --prot; did you mean --port?');
  }, 30_000);
});

describe('--help and --version', () => {
  it('--help lists every option with its variable and default, exit 0', async () => {
    const run = runCli(['--help'], {});
    expect((await run.exit).code).toBe(0);
    const out = run.stdout();
    expect(out).toMatch(/^Usage: switchyard \[options\]/);
    for (const o of OPTIONS) {
      expect(out).toContain(o.env);
      if (o.flag) expect(out).toContain(o.flag);
      expect(out).toContain(`default: ${o.defaultText ?? o.default}`);
    }
    expect(run.stderr()).toBe('');
  }, 30_000);

  it('--version prints the version of package.json, exit 0', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const run = runCli(['--version'], {});
    expect((await run.exit).code).toBe(0);
    expect(run.stdout()).toBe(`switchyard ${version}\n`);
  }, 30_000);
});

describe('log format', () => {
  const lines = (run: CliRun) => run.stdout().split('\n').filter(Boolean);
  const isJson = (line: string) => {
    try {
      return typeof JSON.parse(line) === 'object';
    } catch {
      return false;
    }
  };

  it('LOG_FORMAT=pretty (or --log-format pretty) writes readable lines, not JSON', async () => {
    for (const [args, env] of [[[], { LOG_FORMAT: 'pretty' }], [['--log-format', 'pretty'], {}]] as const) {
      const server = await startCli([...args], { DATABASE_URL: sqliteUrl(), ...env });
      process.kill(server.pid, 'SIGTERM');
      expect((await server.exit).code).toBe(0);
      expect(lines(server).length).toBeGreaterThan(1);
      for (const line of lines(server)) expect(isJson(line), line).toBe(false);
      expect(server.stdout()).toMatch(/INFO: listening on http:\/\/127\.0\.0\.1:\d+/);
    }
  }, 40_000);

  // util-linux's `script` runs the server on a pseudo-terminal, as a person's shell would.
  it.skipIf(!existsSync('/usr/bin/script'))('writes pretty lines by default on a terminal', async () => {
    const cli = join(import.meta.dirname, '..', '..', 'dist', 'cli.js');
    const term = spawn('/usr/bin/script', ['-qefc', `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(cli)}`, '/dev/null'], {
      env: { PATH: process.env.PATH, TERM: 'xterm', HOST: '127.0.0.1', PORT: '0', SWITCHYARD_WORKERS: '1', SWITCHYARD_PROCESSES: '1', DATABASE_URL: sqliteUrl() },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    term.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise((done) => term.once('exit', done));
    try {
      await waitFor(() => /listening on http/.test(out), 20_000);
      const server = childPids(term.pid!).find((pid) => commandLine(pid).includes('dist/cli.js'));
      expect(server).toBeDefined();
      process.kill(server!, 'SIGTERM');
      await exited;
      const text = out.replace(/\x1b\[[0-9;]*m/g, '');
      expect(text).toMatch(/INFO: listening on http:\/\/127\.0\.0\.1:\d+/);
      expect(text).toMatch(/INFO: stopped/);
      expect(text.split(/\r?\n/).filter((l) => l.trim().startsWith('{'))).toEqual([]);
    } finally {
      term.kill('SIGKILL');
    }
  }, 40_000);

  it('LOG_FORMAT=json (and the default off a terminal) writes one JSON object per line', async () => {
    for (const env of [{ LOG_FORMAT: 'json' }, {}] as Record<string, string>[]) {
      const server = await startCli([], { DATABASE_URL: sqliteUrl(), ...env });
      process.kill(server.pid, 'SIGTERM');
      expect((await server.exit).code).toBe(0);
      expect(lines(server).length).toBeGreaterThan(1);
      for (const line of lines(server)) expect(isJson(line), line).toBe(true);
    }
  }, 40_000);
});

describe('404 on an unknown path', () => {
  it('says where the management API, its OpenAPI document, the metrics and the dashboard are', async () => {
    const svc = await startService();
    try {
      for (const path of ['/nope', '/api/nope']) {
        const res = await svc.request('GET', path);
        expect(res.status).toBe(404);
        expect(res.json.code).toBe('not_found');
        expect(res.json.error).toContain(`No such endpoint: GET ${path}`);
        for (const where of ['/api/functions', '/api/apis', '/api/openapi.json', '/api/invoke/fn/', '/metrics', 'the dashboard is at /']) {
          expect(res.json.error).toContain(where);
        }
      }
      // `/` itself is the dashboard.
      const home = await fetch(`${svc.url}/`);
      expect(home.status).toBe(200);
      expect(home.headers.get('content-type')).toMatch(/^text\/html/);
    } finally {
      await svc.stop();
    }
  }, 30_000);
});
