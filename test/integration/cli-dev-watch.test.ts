/**
 * `switchyard dev` sees every kind of save, with the real binary against a
 * project folder: a save in place, a save that replaces the file by a rename
 * (`sed -i`, editors' atomic "safe write": write a temporary file, rename it
 * over the old one), a delete and re-create, a new folder holding a new
 * function file that the project file then names, and a syntax error saved
 * after a rename. Each case goes on with a save in place afterwards: a watcher
 * that followed the old file (Node's recursive fs.watch on Linux did) sees
 * the first replacement and then nothing more, silently.
 *
 * What the server answers is the proof, polled until it changes: not how long
 * the reload took.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killLeftoverClis, runCli, writeProject, type CliRun } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'switchyard-dev-watch-'));
});

afterAll(() => {
  killLeftoverClis();
  rmSync(root, { recursive: true, force: true });
});

const PROJECT = `functions:
  watched:
    file: functions/hello.js
apis:
  watch:
    base_path: /w
    routes:
      - { method: GET, path: /hello, function: watched }
`;

const version = (v: number) => `exports.handler = async () => ({ statusCode: 200, body: { v: ${v} } });\n`;
const BROKEN = 'exports.handler = async () => { return { statusCode: 200, body: \n';

interface Dev {
  dir: string;
  run: CliRun;
  /** The invoke URL of the API's base path (`.../w`). */
  base: string;
}

async function startDev(name: string): Promise<Dev> {
  const dir = writeProject(root, name, { 'switchyard.yaml': PROJECT, 'functions/hello.js': version(1) });
  const run = runCli(['dev', dir, '--port', '0'], { NO_COLOR: '1' });
  const [, base] = await run.waitForOutput(/(http:\/\/127\.0\.0\.1:\d+\/api\/invoke\/fn\/api_[0-9a-z]+\/w)\/hello/, 30_000);
  // Changes made before the watcher is ready are nobody's to see: the line says it is.
  await run.waitForOutput(/Watching .* for changes/, 10_000);
  return { dir, run, base };
}

/** Polls the route until it answers `{v}`; fails naming what dev printed if it never does. */
async function answers(dev: Dev, v: number, path = '/hello'): Promise<void> {
  try {
    await until(async () => {
      const res = await fetch(dev.base + path);
      if (res.status !== 200) return false;
      return ((await res.json()) as { v?: number }).v === v;
    }, `${path} answering v${v}`, 20_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}; dev printed:\n${dev.run.stdout()}${dev.run.stderr()}`);
  }
}

/** How sed -i and editors' safe write save: a new file beside, renamed over the old one. */
function renameSave(dir: string, rel: string, text: string, temp = 'sedX4bq9Z'): void {
  const tmp = join(dir, rel, '..', temp);
  writeFileSync(tmp, text);
  renameSync(tmp, join(dir, rel));
}

const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;

describe('switchyard dev sees every save', () => {
  it('a save in place, then another', async () => {
    const dev = await startDev('in-place');
    try {
      await answers(dev, 1);
      writeFileSync(join(dev.dir, 'functions/hello.js'), version(2));
      await answers(dev, 2);
      writeFileSync(join(dev.dir, 'functions/hello.js'), version(3));
      await answers(dev, 3);
      expect(count(dev.run.stderr(), /updated function watched \(code\)/)).toBe(2);
    } finally {
      dev.run.kill();
    }
  }, 90_000);

  it('a save by rename over the file (sed -i, atomic safe write), then saves in place and by rename again', async () => {
    const dev = await startDev('rename-over');
    try {
      await answers(dev, 1);
      renameSave(dev.dir, 'functions/hello.js', version(2));
      await answers(dev, 2);
      // The old watcher stopped here: the file it followed is gone, the new one was never watched.
      writeFileSync(join(dev.dir, 'functions/hello.js'), version(3));
      await answers(dev, 3);
      renameSave(dev.dir, 'functions/hello.js', version(4), '.hello.js.swp');
      await answers(dev, 4);
      writeFileSync(join(dev.dir, 'functions/hello.js'), version(5));
      await answers(dev, 5);
    } finally {
      dev.run.kill();
    }
  }, 90_000);

  it('a delete and re-create of the file, then a save in place', async () => {
    const dev = await startDev('delete-recreate');
    try {
      await answers(dev, 1);
      unlinkSync(join(dev.dir, 'functions/hello.js'));
      // The missing file is said; the server keeps the last good version.
      await dev.run.waitForOutput(/server keeps the last good version[^\n]*\n[^\n]*cannot read functions\/hello\.js/, 10_000);
      await answers(dev, 1);
      writeFileSync(join(dev.dir, 'functions/hello.js'), version(2));
      await answers(dev, 2);
      writeFileSync(join(dev.dir, 'functions/hello.js'), version(3));
      await answers(dev, 3);
    } finally {
      dev.run.kill();
    }
  }, 90_000);

  it('a new folder with a new function file that the project file then names, then a save of that file', async () => {
    const dev = await startDev('new-folder');
    try {
      await answers(dev, 1);
      mkdirSync(join(dev.dir, 'lib', 'extra'), { recursive: true });
      writeFileSync(join(dev.dir, 'lib/extra/extra.js'), version(10));
      renameSave(
        dev.dir,
        'switchyard.yaml',
        PROJECT.replace('apis:', '  extra:\n    file: lib/extra/extra.js\napis:') + '      - { method: GET, path: /extra, function: extra }\n',
        '.switchyard.yaml.tmp',
      );
      await answers(dev, 10, '/extra');
      writeFileSync(join(dev.dir, 'lib/extra/extra.js'), version(11));
      await answers(dev, 11, '/extra');
      writeFileSync(join(dev.dir, 'functions/hello.js'), version(2));
      await answers(dev, 2);
    } finally {
      dev.run.kill();
    }
  }, 90_000);

  it('a syntax error saved after a rename-save is reported, and the fix after it is applied', async () => {
    const dev = await startDev('syntax-after-rename');
    try {
      await answers(dev, 1);
      renameSave(dev.dir, 'functions/hello.js', version(2));
      await answers(dev, 2);
      writeFileSync(join(dev.dir, 'functions/hello.js'), BROKEN);
      await dev.run.waitForOutput(/server keeps the last good version/, 10_000);
      await answers(dev, 2);
      renameSave(dev.dir, 'functions/hello.js', BROKEN.replace('body:', 'body: 1,'));
      await until(() => count(dev.run.stderr(), /server keeps the last good version/) >= 2, 'the second syntax error reported', 20_000);
      renameSave(dev.dir, 'functions/hello.js', version(3));
      await answers(dev, 3);
    } finally {
      dev.run.kill();
    }
  }, 90_000);
});
