/**
 * How `switchyard dev` and `npm run demo` start, with the real processes:
 * - PORT and HOST in the environment are read as `serve` reads them, and
 *   `--port` / `--host` win over them (before, dev always took 3000 and
 *   127.0.0.1 unless given the flags);
 * - a second dev server on the same folder (the same database) is refused
 *   with one line naming the first one's URL and pid, and its database is
 *   left alone; with its own `--database-url` it starts; the lock goes with
 *   the first (Ctrl-C), and one left by a killed dev is taken over;
 * - `npm run demo` (scripts/demo.mjs) on an up-to-date dist/ starts dev on
 *   the examples without building (it used to run the whole build first),
 *   and passes the options after `--` on;
 * - dev shows a failing function's message to the caller (expose_errors on
 *   for every API whose file leaves it out).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staleReason } from '../../scripts/dist-stamp.mjs';
import { killLeftoverClis, runCli, runCliToEnd, writeProject, type CliRun } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'switchyard-dev-setup-'));
});

afterAll(() => {
  killLeftoverClis();
  rmSync(root, { recursive: true, force: true });
});

const project = (name: string) =>
  writeProject(root, name, {
    'switchyard.yaml': 'functions:\n  setup-fn:\n    file: fn.js\napis:\n  setup:\n    base_path: /setup\n    routes:\n      - { method: GET, path: /, function: setup-fn }\n',
    'fn.js': 'exports.handler = async () => ({ statusCode: 200, body: { ok: true } });',
  });

/** A port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

const serverUrl = async (run: CliRun) => (await run.waitForOutput(/Switchyard dev server at (http:\/\/[^\s]+)/, 30_000))[1];

describe('dev reads PORT and HOST', () => {
  it('PORT picks the port; --port wins over it', async () => {
    const port = await freePort();
    const dir = project('port-env');
    const run = runCli(['dev', dir], { PORT: String(port), NO_COLOR: '1' });
    try {
      expect(await serverUrl(run)).toBe(`http://127.0.0.1:${port}`);
      await run.waitForOutput(/Watching .* for changes/, 10_000);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    } finally {
      run.kill();
      await run.exit;
    }

    const flagPort = await freePort();
    const flagged = runCli(['dev', dir, '--port', String(flagPort)], { PORT: String(port), NO_COLOR: '1' });
    try {
      expect(await serverUrl(flagged)).toBe(`http://127.0.0.1:${flagPort}`);
    } finally {
      flagged.kill();
      await flagged.exit;
    }
  }, 90_000);

  it('HOST is read (a non-loopback one without an admin key is refused as serve refuses it); --host wins over it', async () => {
    const dir = project('host-env');
    const refused = await runCliToEnd(['dev', dir, '--port', '0'], { HOST: '0.0.0.0', NO_COLOR: '1' }, 20_000);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('HOST=0.0.0.0 is reachable from other machines');

    const run = runCli(['dev', dir, '--port', '0', '--host', '127.0.0.1'], { HOST: '0.0.0.0', NO_COLOR: '1' });
    try {
      expect(await serverUrl(run)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      run.kill();
    }
  }, 90_000);
});

describe('one dev server per folder', () => {
  it('refuses a second one on the same folder with one line naming the first, lets one with its own database start, and frees the folder on Ctrl-C', async () => {
    const dir = project('locked');
    const first = runCli(['dev', dir, '--port', '0'], { NO_COLOR: '1' });
    try {
      const url = await serverUrl(first);
      await first.waitForOutput(/Watching .* for changes/, 10_000);
      const lock = () => JSON.parse(readFileSync(join(dir, '.switchyard', 'dev.lock'), 'utf8')) as { pid: number; url: string };

      const second = await runCliToEnd(['dev', dir, '--port', '0'], { NO_COLOR: '1' }, 20_000);
      expect(second.code).toBe(1);
      expect(second.stdout).toBe('');
      expect(second.stderr).toBe(
        `switchyard: a dev server for ${dir} is already running at ${url} (pid ${first.pid}); use that one, stop it first, or give this one its own database with --database-url sqlite:<file>\n`,
      );
      // It started no server: the lock still names the first one.
      expect(lock()).toEqual({ pid: first.pid, url });

      const own = runCli(['dev', dir, '--port', '0', '--database-url', `sqlite:${join(root, 'locked-own.db')}`], { NO_COLOR: '1' });
      try {
        await own.waitForOutput(/Applied .*switchyard\.yaml/, 30_000);
      } finally {
        own.kill();
      }

      first.proc.kill('SIGINT');
      expect((await first.exit).code).toBe(0);
      expect(existsSync(join(dir, '.switchyard', 'dev.lock'))).toBe(false);
    } finally {
      first.kill();
    }
  }, 90_000);

  it('takes over the lock of a dev server that was killed', async () => {
    const dir = project('stale');
    const killed = runCli(['dev', dir, '--port', '0'], { NO_COLOR: '1' });
    await killed.waitForOutput(/Watching .* for changes/, 30_000);
    killed.kill();
    await killed.exit;
    // SIGKILL runs no exit handler: the lock stays, naming a pid that is gone.
    expect(JSON.parse(readFileSync(join(dir, '.switchyard', 'dev.lock'), 'utf8')).pid).toBe(killed.pid);

    const next = runCli(['dev', dir, '--port', '0'], { NO_COLOR: '1' });
    try {
      const url = await serverUrl(next);
      await until(() => JSON.parse(readFileSync(join(dir, '.switchyard', 'dev.lock'), 'utf8')).url === url, 'the lock naming the new dev server');
    } finally {
      next.kill();
    }
  }, 90_000);
});

describe('npm run demo', () => {
  it('on an up-to-date dist/ starts dev on the examples without building, with the options given after --', async () => {
    // npm test builds first; a stale dist/ here means the test run itself is out of date.
    expect(staleReason(ROOT), 'dist/ is older than the sources: run npm run build').toBeNull();
    const port = await freePort();
    // The in-memory database leaves examples/ untouched. Detached, so Ctrl-C can go to the whole group as a terminal sends it.
    const proc = spawn('npm', ['run', 'demo', '--', '--port', String(port), '--database-url', 'sqlite::memory:'], {
      cwd: ROOT,
      env: { PATH: `${dirname(process.execPath)}:${process.env.PATH}`, NO_COLOR: '1', HOME: process.env.HOME ?? root },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    proc.stdout.on('data', (c: Buffer) => (output += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<void>((done) => proc.once('exit', () => done()));
    try {
      await until(() => /Watching examples for changes/.test(output) || proc.exitCode !== null, 'the demo to start', 60_000);
      expect(output).toContain(`Switchyard dev server at http://127.0.0.1:${port} (database sqlite::memory:`);
      expect(output).toMatch(/Applied examples\/switchyard\.yaml in \d+ ms/);
      expect(output).not.toContain('Building first');
      expect(output).not.toMatch(/^> \S+ build$/m);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      // Ctrl-C: npm itself ends by the signal; the demo says it stops and lets the port go.
      process.kill(-proc.pid!, 'SIGINT');
      await exited;
      expect(output).toContain('Stopping the dev server...');
      await until(() => fetch(`http://127.0.0.1:${port}/healthz`).then(() => false, () => true), 'the port to be free');
    } finally {
      try {
        process.kill(-proc.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }, 90_000);
});

describe('error answers under dev', () => {
  it("shows a failing function's message to the caller, unless the file sets expose_errors: false", async () => {
    const dir = writeProject(root, 'expose', {
      'switchyard.yaml':
        'functions:\n  failing:\n    file: fn.js\napis:\n' +
        '  loud:\n    base_path: /loud\n    routes:\n      - { method: GET, path: /, function: failing }\n' +
        '  quiet:\n    base_path: /quiet\n    expose_errors: false\n    routes:\n      - { method: GET, path: /, function: failing }\n',
      'fn.js': "exports.handler = async () => { throw new Error('the cart is empty'); };",
    });
    const run = runCli(['dev', dir, '--port', '0'], { NO_COLOR: '1' });
    try {
      const url = await serverUrl(run);
      await run.waitForOutput(/Watching .* for changes/, 30_000);
      const apis = (await (await fetch(`${url}/api/apis`)).json()) as Array<{ id: string; name: string; exposeErrors: boolean }>;
      const byName = new Map(apis.map((a) => [a.name, a]));
      expect(byName.get('loud')?.exposeErrors).toBe(true);
      expect(byName.get('quiet')?.exposeErrors).toBe(false);
      const loud = await fetch(`${url}/api/invoke/fn/${byName.get('loud')!.id}/loud`);
      expect(loud.status).toBe(502);
      expect(((await loud.json()) as { error: string }).error).toContain('the cart is empty');
      const quiet = await fetch(`${url}/api/invoke/fn/${byName.get('quiet')!.id}/quiet`);
      expect(quiet.status).toBe(502);
      expect(await quiet.text()).not.toContain('the cart is empty');
    } finally {
      run.kill();
      await run.exit;
    }
  }, 90_000);
});
