/**
 * A Node.js older than package.json's `engines` is stopped early with one
 * clear line, at both doors a newcomer meets:
 * - the executable: `dist/cli.js` run by a Node 20 (this machine's
 *   /usr/bin/node, found by looking, skipped with the reason when there is
 *   none) prints the one line and exits 1. Without the check it crashes on
 *   the native modules built for the newer Node: `switchyard` (serve) exits
 *   139 with nothing printed, `dev` exits 139 or 1 with nothing printed, so
 *   the assertions on the line fail;
 * - the install: `npm ci` in a copy of package.json, the lock and .npmrc,
 *   run by npm under Node 20, refuses with EBADENGINE naming the version
 *   found and the one needed, before it fetches or compiles anything (the
 *   same copy without .npmrc goes ahead, so .npmrc's engine-strict is what
 *   refuses). `--dry-run` keeps it from installing anything anywhere.
 * And every Node that `engines` admits still installs: the Node running the
 * tests, and npm told it runs the minimum itself (npm reads the version to
 * check from `process.version`, set here before npm loads), which shows
 * that no dependency needs more than the minimum (commander and
 * eventsource-parser need 22.12, the OpenTelemetry SDK 22.15, hence `>=22.15`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimumOf } from '../../src/node-version.js';
import { writeProject } from '../helpers/cli.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const RANGE = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
const MINIMUM = minimumOf(RANGE)!;

/** A Node older than the minimum on this machine, or why there is none. */
function oldNode(): { bin: string; version: string } | string {
  const candidates = [process.env.SWITCHYARD_OLD_NODE, '/usr/bin/node', '/usr/local/bin/node'].filter((c): c is string => Boolean(c));
  for (const bin of candidates) {
    if (!existsSync(bin)) continue;
    const version = spawnSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    const [major, minor] = version.split('.').map(Number);
    const [minMajor, minMinor] = MINIMUM.split('.').map(Number);
    if (major < minMajor || (major === minMajor && minor < minMinor)) return { bin, version };
  }
  return `no Node.js older than ${MINIMUM} on this machine (looked at ${candidates.join(', ')}; set SWITCHYARD_OLD_NODE to one)`;
}

/** npm's own entry point, run with a chosen node: `npm` on PATH is a script that runs whichever node comes first. */
function npmCli(): string {
  const npm = execFileSync('bash', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
  return join(dirname(realpathSync(npm)), 'npm-cli.js');
}

const old = oldNode();
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-node-version-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the executable on an older Node', () => {
  const runOld = (args: string[]) => {
    if (typeof old === 'string') throw new Error(old);
    return spawnSync(old.bin, [CLI, ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: dir, PORT: '0', DATABASE_URL: 'sqlite::memory:' },
      timeout: 30_000,
    });
  };
  const expectRefusal = (r: ReturnType<typeof runOld>) => {
    if (typeof old === 'string') return;
    expect(r.stderr).toBe(
      `switchyard: Node.js ${old.version} is too old: Switchyard needs Node.js ${RANGE}; install the current LTS release from https://nodejs.org/ or with nvm (nvm install --lts) and run switchyard with it\n`,
    );
    expect(r.stdout).toBe('');
    expect(r.signal).toBeNull();
    expect(r.status).toBe(1);
  };

  it('`switchyard` (serve) prints one line naming the version found, the one needed and how to get it, and exits 1', (ctx) => {
    ctx.skip(typeof old === 'string', typeof old === 'string' ? old : undefined);
    expectRefusal(runOld([]));
  });

  it('`switchyard dev` does the same before it loads anything', (ctx) => {
    ctx.skip(typeof old === 'string', typeof old === 'string' ? old : undefined);
    const project = writeProject(dir, 'dev-project', {
      'switchyard.yaml': 'functions:\n  f:\n    file: f.js\n',
      'f.js': 'exports.handler = async () => ({ statusCode: 200 });',
    });
    expectRefusal(runOld(['dev', project, '--port', '0']));
  });
});

describe('npm ci', () => {
  /** A folder holding copies of package.json, the lock and (when asked) .npmrc; nothing is ever installed into it. */
  const copy = (name: string, withNpmrc: boolean) => {
    const to = join(dir, name);
    mkdirSync(to);
    for (const f of ['package.json', 'package-lock.json', ...(withNpmrc ? ['.npmrc'] : [])]) copyFileSync(join(ROOT, f), join(to, f));
    return to;
  };
  const npmCi = (node: string, cwd: string, preload: string[] = []) =>
    spawnSync(node, [...preload, npmCli(), 'ci', '--dry-run', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], {
      cwd,
      encoding: 'utf8',
      env: { PATH: `${dirname(node)}:${process.env.PATH}`, HOME: process.env.HOME ?? dir },
      timeout: 120_000,
    });
  /** npm as if it ran on Node `version`. */
  const asVersion = (version: string) => [`--import=data:text/javascript,Object.defineProperty(process,"version",{value:"v${version}"})`];

  it('refuses on an older Node with EBADENGINE naming the version found and the one needed, before installing anything', (ctx) => {
    ctx.skip(typeof old === 'string', typeof old === 'string' ? old : undefined);
    if (typeof old === 'string') return;
    const r = npmCi(old.bin, copy('strict', true));
    const said = r.stdout + r.stderr;
    expect(r.status, said).toBe(1);
    expect(said).toContain('EBADENGINE');
    expect(said).toContain(`Required: {"node":"${RANGE}"}`);
    expect(said).toContain(`"node":"v${old.version}"`);
    expect(said).not.toMatch(/added \d+ packages/);

    // Without .npmrc the same install goes ahead (with a warning), as it did before: .npmrc is what refuses.
    const loose = npmCi(old.bin, copy('loose', false));
    expect(loose.status, loose.stdout + loose.stderr).toBe(0);
    expect(loose.stdout + loose.stderr).toMatch(/added \d+ packages/);
  }, 120_000);

  it('installs on the Node running these tests and on the minimum the engines admit, and refuses just below it', () => {
    const here = npmCi(process.execPath, copy('current', true));
    expect(here.status, here.stdout + here.stderr).toBe(0);
    expect(here.stdout + here.stderr).toMatch(/added \d+ packages/);

    const atMinimum = npmCi(process.execPath, copy('minimum', true), asVersion(MINIMUM));
    expect(atMinimum.status, atMinimum.stdout + atMinimum.stderr).toBe(0);

    const [major, minor, patch] = MINIMUM.split('.').map(Number);
    const justBelow = patch > 0 ? `${major}.${minor}.${patch - 1}` : minor > 0 ? `${major}.${minor - 1}.99` : `${major - 1}.99.99`;
    const below = npmCi(process.execPath, copy('below', true), asVersion(justBelow));
    expect(below.status).toBe(1);
    expect(below.stdout + below.stderr).toContain(`"node":"v${justBelow}"`);
  }, 120_000);
});
