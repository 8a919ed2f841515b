/**
 * The package as users get it: `npm pack` of this checkout, installed into an
 * empty folder from the tarball (its dependencies from the registry, as a
 * user's install fetches them), then `npx switchyard dev` on a project in
 * that folder answers on its route, and the `switchyard-gateway/client`
 * export resolves. Catches a file missing from `files`, a dependency listed
 * only in devDependencies, or a bin that does not start outside the repo.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { until } from '../helpers/until.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..', '..');
let dir: string;
let tarball: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-pack-'));
  // dist/ is built by `npm test` already: skip `prepare`, which would build it again.
  await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT });
  tarball = join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz'))!);
  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'pack-test-app', version: '1.0.0', private: true }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: app, timeout: 240_000 });
}, 300_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

it('the packed tarball installs in an empty folder and `npx switchyard dev` serves a project', async () => {
  const app = join(dir, 'app');
  writeFileSync(join(app, 'switchyard.yaml'), 'functions:\n  packed:\n    file: packed.js\napis:\n  packed:\n    base_path: /packed\n    routes:\n      - { method: GET, path: /, function: packed }\n');
  writeFileSync(join(app, 'packed.js'), "exports.handler = async () => ({ statusCode: 200, body: { from: 'the packed tarball' } });");
  const proc = spawn('npx', ['switchyard', 'dev', '.', '--port', '0'], {
    cwd: app,
    env: { PATH: `${dirname(process.execPath)}:${process.env.PATH}`, HOME: process.env.HOME ?? dir, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  proc.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  try {
    const url = await new Promise<string>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no route printed within 60 s:\n${output}`)), 60_000);
      const check = () => {
        const m = /http:\/\/127\.0\.0\.1:\d+\/api\/invoke\/fn\/api_[0-9a-z]+\/packed\//.exec(output);
        if (m) (clearTimeout(timer), done(m[0]));
      };
      proc.stdout!.on('data', check);
      proc.stderr!.on('data', check);
      proc.once('exit', () => (clearTimeout(timer), fail(new Error(`exited:\n${output}`))));
    });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ from: 'the packed tarball' });
  } finally {
    try {
      process.kill(-proc.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  const client = await run(process.execPath, ['--input-type=module', '-e', "import { createClient } from 'switchyard-gateway/client'; console.log(typeof createClient);"], { cwd: app });
  expect(client.stdout.trim()).toBe('function');
}, 120_000);

// `npm install <path to a clone>` (README, "Using it"): npm links the folder
// instead of copying it, so the command runs the clone's dist/ with the
// clone's node_modules. npm also runs the clone's `prepare` (a full build,
// a minute); the test run has built dist/ already, so it is skipped here.
it('`npm install <path to a clone>` in an empty folder gives it `npx switchyard`, which serves a project there', async () => {
  const app = join(dir, 'from-clone');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'clone-test-app', version: '1.0.0', private: true }));
  const env = { PATH: `${dirname(process.execPath)}:${process.env.PATH}`, HOME: process.env.HOME ?? dir, NO_COLOR: '1' };
  await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ROOT], { cwd: app, env, timeout: 120_000 });
  expect(realpathSync(join(app, 'node_modules', 'switchyard-gateway'))).toBe(realpathSync(ROOT));
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  expect((await run('npx', ['switchyard', '--version'], { cwd: app, env })).stdout.trim()).toBe(`switchyard ${version}`);

  writeFileSync(join(app, 'switchyard.yaml'), 'functions:\n  cloned:\n    file: cloned.js\napis:\n  cloned:\n    base_path: /cloned\n    routes:\n      - { method: GET, path: /, function: cloned }\n');
  writeFileSync(join(app, 'cloned.js'), "exports.handler = async () => ({ statusCode: 200, body: { from: 'the clone' } });");
  const proc = spawn('npx', ['switchyard', 'dev', '--port', '0'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  proc.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  try {
    await until(() => /Watching \. for changes/.test(output) || proc.exitCode !== null, 'dev to start', 60_000);
    const route = /http:\/\/127\.0\.0\.1:\d+\/api\/invoke\/fn\/api_[0-9a-z]+\/cloned\//.exec(output);
    expect(route, output).not.toBeNull();
    expect(await (await fetch(route![0])).json()).toEqual({ from: 'the clone' });
  } finally {
    try {
      process.kill(-proc.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}, 180_000);
