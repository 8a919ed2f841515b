#!/usr/bin/env node
/**
 * How long `switchyard dev` takes from a save to the new code answering.
 * Starts `node dist/cli.js dev` on a temporary project, then N times: writes
 * a new version of the function file and polls its route (every 5 ms) until
 * the answer carries that version. Prints each save's time and the median and
 * worst. Run after `npm run build`: node bench/dev-reload.mjs [--saves 20]
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const saves = Number(process.argv[process.argv.indexOf('--saves') + 1]) || 20;
const cli = resolve(import.meta.dirname, '..', 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'switchyard-bench-dev-'));
mkdirSync(join(dir, 'functions'));
writeFileSync(join(dir, 'switchyard.yaml'), 'functions:\n  reload:\n    file: functions/reload.js\napis:\n  bench:\n    base_path: /bench\n    routes:\n      - { method: GET, path: /, function: reload }\n');
const version = (v) => writeFileSync(join(dir, 'functions', 'reload.js'), `exports.handler = async () => ({ statusCode: 200, body: { v: ${v} } });\n`);
version(0);

const proc = spawn(process.execPath, [cli, 'dev', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
let output = '';
proc.stdout.on('data', (c) => (output += c));
proc.stderr.on('data', (c) => (output += c));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
try {
  let url;
  for (let waited = 0; !url; waited += 50) {
    if (waited > 30_000) throw new Error(`dev did not print its route:\n${output}`);
    url = /http:\/\/127\.0\.0\.1:\d+\/api\/invoke\/fn\/api_[0-9a-z]+\/bench\//.exec(output)?.[0];
    await sleep(50);
  }
  const times = [];
  for (let v = 1; v <= saves; v++) {
    await sleep(300);
    const started = performance.now();
    version(v);
    for (;;) {
      const body = await (await fetch(url)).json();
      if (body.v === v) break;
      if (performance.now() - started > 10_000) throw new Error(`version ${v} not live after 10 s`);
      await sleep(5);
    }
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const ms = (x) => `${x.toFixed(0)} ms`;
  console.log(`switchyard dev: save -> new code answering, ${saves} saves: median ${ms(times[Math.floor(times.length / 2)])}, best ${ms(times[0])}, worst ${ms(times.at(-1))}`);
} finally {
  proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
