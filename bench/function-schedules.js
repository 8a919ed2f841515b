// Function schedules at scale: 100,000 schedules spread evenly over an hour
// (cron `m * * * *` with m = i % 60, so about 1,667 fire at each minute, 28 a
// second on average), one minute of that hour measured on the real clock.
// An hour-long run is not practical, so the store holds all the schedules and the
// bench measures the minute slot that comes next once the gateway is up: for each
// invocation of that slot, lateness = its first attempt's start - scheduled_for;
// it reports p50/p99/max lateness (goal: p99 under 1 s), how many ran, and the
// gateway's peak RSS (VmRSS of its process, and of its process tree, sampled every 100 ms).
//
// Setup (not measured): a real `node dist/cli.js` on a temporary SQLite file
// compiles one function through `POST /api/functions`; it is stopped, and the
// bench, in-process through the store (as bench/webhooks.js does), creates
// ceil(N / 20) functions with that compiled code, 20 schedules each (the API's
// maximum), with the first fire times the service computes (scheduleFires). Then
// the gateway starts again on that file and its scheduler sees every schedule.
// Invocations are read from the SQLite file afterwards (deliveries with a
// schedule_id, and their first attempt), not through thousands of HTTP calls.
//
// Runnable alone after `npm run build` (not part of `npm run bench`):
//   node bench/function-schedules.js [--schedules 100000] [--slots 2] [--per-function 20] [--lead 5] [--wait 120]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { freePort } from './nodes.js';
import { stopGracefully } from './processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'dist', 'cli.js');
const dist = (p) => import(new URL(`../dist/${p}`, import.meta.url).href);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const CODE = 'export const handler = async (event) => ({ ok: true, slot: event.time ?? null });';

const { values: opt } = parseArgs({
  options: {
    schedules: { type: 'string', default: '100000' },
    // Schedules per function: 20 is the API's maximum (MAX_SCHEDULES of src/functions/triggers.ts);
    // more (written past the API, through the store) puts the same load on fewer, warmer isolates.
    'per-function': { type: 'string', default: '20' },
    // The measured slot is the first minute boundary at least this many seconds after the gateway is ready.
    lead: { type: 'string', default: '5' },
    // How long after the slot to wait for its invocations before giving up.
    wait: { type: 'string', default: '120' },
    // Consecutive minute slots to measure: the first runs on cold isolates, the next ones on
    // the isolates the minute before left warm (schedule i of function f is minute (20f + k) % 60).
    slots: { type: 'string', default: '2' },
  },
});
const N = Number(opt.schedules);
const PER_FUNCTION = Number(opt['per-function']);
const SLOTS = Number(opt.slots);
const LEAD_MS = Number(opt.lead) * 1000;
const WAIT_MS = Number(opt.wait) * 1000;

const dir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-fsch-'));
const file = path.join(dir, 'bench.db');

function startGateway(port) {
  const child = spawn(process.execPath, [CLI], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'warn', SWITCHYARD_PROCESSES: '1' },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  return { child, group: true, label: 'bench gateway' };
}

async function ready(base) {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(base + '/readyz')).status === 200) return;
    } catch {
      // not listening yet
    }
    if (i > 600) throw new Error('the gateway did not start');
    await sleep(100);
  }
}

/** VmRSS of `pid` in bytes, or 0 once it is gone. */
function rssOf(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** `pid` and its descendants (the gateway's worker processes), through /proc/<pid>/task/<tid>/children. */
function tree(pid) {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const tid of readFileSync(`/proc/${out[i]}/task/${out[i]}/children`, 'utf8').trim().split(/\s+/)) {
        if (tid) out.push(Number(tid));
      }
    } catch {
      // gone, or no children file
    }
  }
  return out;
}

/** Samples the gateway's RSS every 100 ms; peaks are kept per phase. */
function rssSampler(pid) {
  const peaks = {};
  let phase = 'idle';
  const sample = () => {
    const main = rssOf(pid);
    const pids = tree(pid);
    const all = pids.reduce((sum, p) => sum + rssOf(p), 0);
    const peak = (peaks[phase] ??= { main: 0, all: 0, processes: 0 });
    peak.main = Math.max(peak.main, main);
    peak.all = Math.max(peak.all, all);
    peak.processes = Math.max(peak.processes, pids.length);
  };
  const timer = setInterval(sample, 100);
  sample();
  return {
    phase: (p) => {
      sample();
      phase = p;
    },
    stop: () => {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
}

const pct = (sorted, p) => (sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
const mb = (b) => `${(b / 1024 / 1024).toFixed(0)} MB`;
const sec = (ms) => (ms === null ? '-' : `${(ms / 1000).toFixed(3)} s`);

let gateway = null;
try {
  // 1. One function through the API, so its code is compiled and checked as a deploy does.
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  gateway = startGateway(port);
  await ready(base);
  const res = await fetch(base + '/api/functions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench-template', code: CODE }),
  });
  if (res.status >= 400) throw new Error(`POST /api/functions answered ${res.status}: ${await res.text()}`);
  await stopGracefully(gateway, 15_000);
  gateway = null;

  // 2. The schedules, in-process through the store, with the fire times the service writes.
  const [{ openStore }, { scheduleFires }] = await Promise.all([dist('store/index.js'), dist('functions/triggers.js')]);
  const loadStarted = performance.now();
  const store = await openStore(`sqlite:${file}`);
  try {
    const template = await store.getFunction('bench-template');
    const { version: _v, createdAt: _c, updatedAt: _u, ...fields } = template;
    for (let f = 0; f * PER_FUNCTION < N; f++) {
      const schedules = [];
      for (let i = f * PER_FUNCTION; i < Math.min(N, (f + 1) * PER_FUNCTION); i++) {
        schedules.push({ cron: `${i % 60} * * * *`, timezone: 'UTC', payload: { i } });
      }
      await store.createFunction({ ...fields, name: `bench-${f}`, schedules, scheduleFires: scheduleFires(schedules, Date.now()) });
    }
  } finally {
    await store.close();
  }
  const loadS = (performance.now() - loadStarted) / 1000;
  const functions = Math.ceil(N / PER_FUNCTION);

  // 3. The gateway again, on the full store; the first slot measured is the next minute
  // boundary past the lead, then the ones after it (--slots), each on its own.
  gateway = startGateway(port);
  await ready(base);
  const rss = rssSampler(gateway.child.pid);
  const first = Math.ceil((Date.now() + LEAD_MS) / 60_000) * 60_000;
  process.stderr.write(`${N} schedules on ${functions} functions written in ${loadS.toFixed(1)} s; first slot measured: ${new Date(first).toISOString()}\n`);

  const db = new Database(file, { readonly: true });
  db.pragma('busy_timeout = 5000');
  const firstAttempts = db.prepare(
    `SELECT d.scheduled_for, d.created_at, a.started_at FROM deliveries d
       JOIN delivery_attempts a ON a.delivery_id = d.id AND a.attempt = 1
     WHERE d.schedule_id IS NOT NULL AND d.scheduled_for = ?`,
  );
  const slotRows = db.prepare(
    `SELECT COUNT(*) AS n, SUM(status = 'succeeded') AS ok FROM deliveries WHERE schedule_id IS NOT NULL AND scheduled_for = ?`,
  );
  const earlier = db.prepare('SELECT COUNT(*) FROM deliveries WHERE schedule_id IS NOT NULL AND scheduled_for < ?').pluck();
  const results = [];
  for (let k = 0; k < SLOTS; k++) {
    const T = first + k * 60_000;
    const slot = new Date(T).toISOString();
    let expected = 0;
    for (let i = new Date(T).getUTCMinutes(); i < N; i += 60) expected++;
    await sleep(Math.max(0, T - 1000 - Date.now()));
    rss.phase(slot);
    // Whether this gateway ran a slot before this one (then most of its isolates are warm).
    const cold = earlier.get(slot) === 0;
    let rows = [];
    // Until every first attempt of the slot is recorded, or the next slot is about to fire (or the wait ends, for the last).
    const until = k + 1 < SLOTS ? T + 59_000 : T + WAIT_MS;
    while (Date.now() < until) {
      await sleep(250);
      rows = firstAttempts.all(slot);
      if (rows.length >= expected) break;
    }
    const { n: stored, ok: succeeded } = slotRows.get(slot);
    const lateness = rows.map((r) => Date.parse(r.started_at) - Date.parse(r.scheduled_for)).sort((a, b) => a - b);
    // When the scheduler wrote each invocation, against its slot: tells a late write from a late run.
    const written = rows.map((r) => Date.parse(r.created_at) - Date.parse(r.scheduled_for)).sort((a, b) => a - b);
    results.push({ slot, cold, expected, stored, succeeded: succeeded ?? 0, ran: rows.length, lateness, written });
  }
  const peaks = rss.stop();
  db.close();

  const cmd = `node bench/function-schedules.js --schedules ${N}${PER_FUNCTION === 20 ? '' : ` --per-function ${PER_FUNCTION}`}${SLOTS === 2 ? '' : ` --slots ${SLOTS}`}`;
  console.log(`function schedules, SQLite: ${N} schedules (cron m * * * *, m = i % 60, UTC) on ${functions} functions, one real gateway (default settings)`);
  console.log('lateness = first attempt started_at - scheduled_for; RSS peaks from 1 s before the slot until the next one');
  console.log('');
  console.log('| slot | due | ran | succeeded | p50 | p90 | p99 (goal < 1 s) | max | gateway RSS peak | process tree RSS peak |');
  console.log('| ---- | --- | --- | --------- | --- | --- | ---------------- | --- | ---------------- | --------------------- |');
  const idle = peaks.idle ?? { main: 0, all: 0, processes: 0 };
  console.log(`| up to 1 s before the first measured | - | - | - | - | - | - | - | ${mb(idle.main)} | ${mb(idle.all)} (${idle.processes} processes) |`);
  results.forEach((r) => {
    const p = peaks[r.slot] ?? { main: 0, all: 0, processes: 0 };
    const l = r.lateness;
    const label = `${r.slot.slice(11, 16)} UTC${r.cold ? ' (first slot run: cold isolates)' : ''}`;
    console.log(`| ${label} | ${r.expected} | ${r.ran} | ${r.succeeded} | ${sec(pct(l, 50))} | ${sec(pct(l, 90))} | ${sec(pct(l, 99))} | ${sec(l.at(-1) ?? null)} | ${mb(p.main)} | ${mb(p.all)} (${p.processes} processes) |`);
  });
  console.log('(process tree: the sum of VmRSS over the gateway and its worker processes; shared pages count once per process)');
  console.log('');
  for (const r of results) {
    // Started per half second after the slot, and when the scheduler had written them (p50 / p99 / max).
    const buckets = new Map();
    for (const ms of r.lateness) buckets.set(Math.floor(ms / 500) / 2, (buckets.get(Math.floor(ms / 500) / 2) ?? 0) + 1);
    const started = [...buckets].map(([at, n]) => `${at.toFixed(1)} s: ${n}`).join(', ');
    const w = r.written;
    console.log(`${r.slot.slice(11, 16)} UTC: written ${sec(pct(w, 50))} / ${sec(pct(w, 99))} / ${sec(w.at(-1) ?? null)} after the slot; first attempts started by half second: ${started}`);
  }
  console.log('');
  console.log(`command: ${cmd} (setup, not measured: ${loadS.toFixed(1)} s to write the schedules)`);
  if (results.some((r) => r.ran < r.expected)) process.exitCode = 1;
} finally {
  if (gateway) await stopGracefully(gateway, 15_000);
  await rm(dir, { recursive: true, force: true });
}
