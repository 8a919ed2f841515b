// Crashes and duplicates (issue 27 item 2), runnable alone and from bench/run.js:
//   node bench/crash-duplicates.mjs [--deliveries 1000] [--reps 2] [--no-postgres]
//        [--postgres-url postgres://...] [--failover-deliveries 4000] [--throughput 5000] [--json]
// (needs `npm run build` first). Real nodes (dist/cli.js, one server process
// each), a receiver in this process that counts each `webhook-id` and the
// requests it holds open:
//   1. kill -9 mid-burst (SQLite, one node): N deliveries released at once (a
//      paused webhook resumed), the node SIGKILLed when 40 % arrived, started
//      again on the same file. Deliveries received twice against the attempts
//      in flight at the kill: the dead node's leases (claimed, not recorded),
//      the requests the receiver held open, and those answered but not recorded.
//   2. failover (PostgreSQL, two nodes): a target answering in 1 s, one node
//      SIGKILLed mid-burst: seconds until the survivor re-sends the first and
//      the last of the dead node's in-flight attempts (heartbeat timeout 10 s).
//   3. throughput and CPU per delivery: the raw undici loop of bench/webhooks.js
//      against the same receiver process, then deliveries through the public
//      API of one node (SQLite), in the same run.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { call, startNode, stopNode } from './nodes.js';
import { assertPostgres, DEFAULT_PG_URL, dropSchema, freshSchema } from './pg.js';
import { childrenOf, cpuUs } from './proc-cpu.mjs';
import { killGroup } from './processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (n, d = 1) => (n === null || n === undefined ? null : Math.round(n * 10 ** d) / 10 ** d);

export const CRASH_DEFAULTS = { deliveries: 1000, reps: 2, failoverDeliveries: 4000, throughput: 5000, postgres: DEFAULT_PG_URL };

// ---------------------------------------------------------------- the receiver

/** Counts each webhook-id, the requests held open now, and when each id first and again arrived. */
function startCountingReceiver(delayMs) {
  const state = { seen: new Map(), open: 0, received: 0, duplicates: 0, dupTimes: [], delayMs };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      state.received++;
      const n = (state.seen.get(id) ?? 0) + 1;
      state.seen.set(id, n);
      if (n > 1) {
        state.duplicates++;
        state.dupTimes.push(Date.now());
      }
      state.open++;
      const answer = () => {
        state.open--;
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 });
        res.end('ok');
      };
      if (state.delayMs > 0) setTimeout(answer, state.delayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ state, url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => (server.closeAllConnections(), server.close(r))) }),
    ),
  );
}

async function until(probe, what, ms = 60_000, step = 20) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(step);
  }
}

/** Webhooks to the receiver, paused; `perHook` events each (held), so a resume releases them all at once. */
async function heldBurst(node, url, webhooks, perHook) {
  const ids = [];
  for (let w = 0; w < webhooks; w++) {
    const hook = await call(node.baseUrl, 'POST', '/api/webhooks', {
      name: `burst ${w}`,
      target_url: `${url}/w${w}`,
      method: 'POST',
      payload_template: { n: '{{data.n}}' },
      events: [`burst.w${w}`],
      timeout_ms: 30_000,
    });
    await call(node.baseUrl, 'POST', `/api/webhooks/${hook.id}/pause`);
    ids.push(hook.id);
  }
  // Eight publishes at a time: the held rows are written well before the timed part.
  let next = 0;
  const total = webhooks * perHook;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      await call(node.baseUrl, 'POST', '/api/events', { event: `burst.w${i % webhooks}`, data: { n: i } });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return { hooks: ids, total, resume: () => Promise.all(ids.map((id) => call(node.baseUrl, 'POST', `/api/webhooks/${id}/resume`))) };
}

const killNode = async (node) => {
  const exited = new Promise((r) => node.child.once('exit', r));
  killGroup(node, 'SIGKILL');
  await exited;
};

// ---------------------------------------------------------------- 1. kill -9 on SQLite

async function killMidBurst({ deliveries, delayMs }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sy-crash-'));
  const file = path.join(dir, 'switchyard.db');
  const receiver = await startCountingReceiver(delayMs);
  let node = await startNode(`sqlite:${file}`, 'crash node');
  try {
    const burst = await heldBurst(node, receiver.url, 1, deliveries);
    await burst.resume();
    await until(() => receiver.state.seen.size >= deliveries * 0.4, '40 % received', 60_000, 1);
    const openAtKill = receiver.state.open;
    await killNode(node);
    // Counted once the node is gone: what reached the receiver up to its last moment.
    const receivedAtKill = receiver.state.seen.size;
    const db = new Database(file, { readonly: true });
    const leased = db.prepare(`SELECT COUNT(*) FROM deliveries WHERE status = 'pending' AND lease_owner IS NOT NULL`).pluck().get();
    const recorded = db.prepare(`SELECT COUNT(*) FROM deliveries WHERE attempt_count > 0`).pluck().get();
    db.close();
    node = await startNode(`sqlite:${file}`, 'crash node, restarted');
    await until(() => receiver.state.seen.size >= deliveries, 'every delivery received after the restart', 120_000);
    await sleep(500);
    return {
      deliveries,
      delayMs,
      leasedAtKill: leased,
      openAtKill,
      receivedAtKill,
      recordedAtKill: recorded,
      // Reached the receiver before the kill, outcome not durable: what a restart must send again.
      unrecordedAtKill: receivedAtKill - recorded,
      duplicates: receiver.state.duplicates,
      lost: deliveries - receiver.state.seen.size,
    };
  } finally {
    await stopNode(node);
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- 2. failover on PostgreSQL

async function failover({ deliveries, baseUrl }) {
  const { schema, url } = freshSchema(baseUrl, 'failover');
  const receiver = await startCountingReceiver(1000);
  const nodes = [];
  try {
    nodes.push(await startNode(url, 'failover node A'));
    nodes.push(await startNode(url, 'failover node B'));
    const [a, b] = nodes;
    const webhooks = 10;
    const burst = await heldBurst(a, receiver.url, webhooks, Math.ceil(deliveries / webhooks));
    await burst.resume();
    await until(() => receiver.state.seen.size >= burst.total * 0.25, 'a quarter received', 120_000, 5);
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      await killNode(a);
      const killedAt = Date.now();
      const dupsBefore = receiver.state.duplicates;
      const [{ n }] = (
        await client.query(`SELECT count(*)::int AS n FROM "${schema}".deliveries WHERE status = 'pending' AND lease_owner LIKE $1`, [
          `%:${a.child.pid}:%`,
        ])
      ).rows;
      await until(() => receiver.state.seen.size >= burst.total, 'every delivery received', 300_000, 20);
      await until(async () => {
        const [{ p }] = (await client.query(`SELECT count(*)::int AS p FROM "${schema}".deliveries WHERE status = 'pending'`)).rows;
        return p === 0;
      }, 'nothing pending', 60_000, 200);
      const after = receiver.state.dupTimes.slice(dupsBefore);
      return {
        deliveries: burst.total,
        targetMs: 1000,
        inflightAtKill: n,
        firstResendS: after.length ? (after[0] - killedAt) / 1000 : null,
        lastResendS: after.length ? (after[after.length - 1] - killedAt) / 1000 : null,
        duplicates: receiver.state.duplicates,
        lost: burst.total - receiver.state.seen.size,
        survivorWarnings: b.warnings,
      };
    } finally {
      await client.end();
    }
  } finally {
    for (const node of nodes) await stopNode(node);
    await receiver.close();
    await dropSchema(baseUrl, schema).catch(() => undefined);
  }
}

// ---------------------------------------------------------------- 3. throughput and CPU per delivery

function rawLoop(url, count) {
  const child = fork(path.join(ROOT, 'bench', 'webhooks-part.js'), ['raw', JSON.stringify({ url, count, concurrency: 50, warmup: 1000 })], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => (m.type === 'result' ? resolve(m.result) : reject(new Error(m.message))));
    child.once('exit', (code) => code !== 0 && reject(new Error(`raw loop exited with ${code}`)));
  });
}

/** utime + stime of a node's processes (the server and its isolate workers), µs. */
function nodeCpuUs(node) {
  const pids = [node.child.pid, ...childrenOf(node.child.pid)];
  return pids.reduce((sum, pid) => {
    try {
      return sum + cpuUs(pid);
    } catch {
      return sum;
    }
  }, 0);
}

async function throughput({ count }) {
  const receiver = await startCountingReceiver(0);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sy-tput-'));
  let node = null;
  try {
    const raw = await rawLoop(receiver.url, count);
    node = await startNode(`sqlite:${path.join(dir, 'switchyard.db')}`, 'throughput node');
    const burst = await heldBurst(node, receiver.url, 1, count);
    const before = receiver.state.seen.size;
    const cpu0 = nodeCpuUs(node);
    const t0 = performance.now();
    await burst.resume();
    await until(() => receiver.state.seen.size - before >= count, 'every delivery received', 300_000, 5);
    const seconds = (performance.now() - t0) / 1000;
    const cpuUs = nodeCpuUs(node) - cpu0;
    return {
      count,
      raw: { perSecond: raw.perSecond, cpuUsPerSend: raw.cpuUsPerSend },
      api: { perSecond: count / seconds, cpuUsPerDelivery: cpuUs / count, seconds },
      ratio: count / seconds / raw.perSecond,
      cpuRatio: cpuUs / count / raw.cpuUsPerSend,
    };
  } finally {
    if (node) await stopNode(node);
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- all, and the README section

export async function runCrashBench(options = {}, log = console.log) {
  const o = { ...CRASH_DEFAULTS, ...options };
  const kills = [];
  for (const delayMs of [0, 50]) {
    for (let i = 0; i < o.reps; i++) {
      log(`crash: kill -9 mid-burst, ${o.deliveries} deliveries, target answering after ${delayMs} ms (run ${i + 1} of ${o.reps})`);
      kills.push(await killMidBurst({ deliveries: o.deliveries, delayMs }));
    }
  }
  let fail = null;
  if (o.postgres) {
    log(`crash: failover of two nodes on PostgreSQL, ${o.failoverDeliveries} deliveries to a target answering in 1 s`);
    await assertPostgres(o.postgres);
    fail = await failover({ deliveries: o.failoverDeliveries, baseUrl: o.postgres });
  }
  log(`crash: throughput, ${o.throughput} deliveries through the public API against the raw undici loop`);
  const tput = await throughput({ count: o.throughput });
  return { options: o, kills, failover: fail, throughput: tput };
}

export function renderCrash(r) {
  const lines = [
    `### Crashes: duplicates after kill -9, failover, deliveries against the raw loop`,
    '',
    `\`node bench/crash-duplicates.mjs\` (${r.kills.length} kills, one node on SQLite, ${r.options.deliveries} deliveries released at once, SIGKILL when 40 % arrived, restarted on the same file):`,
    '',
    '| target answers after | in flight at the kill: leased / held open by the receiver | received, not recorded | received twice | lost |',
    '|---|---|---|---|---|',
    ...r.kills.map((k) => `| ${k.delayMs} ms | ${k.leasedAtKill} / ${k.openAtKill} | ${k.unrecordedAtKill} | ${k.duplicates} | ${k.lost} |`),
  ];
  if (r.failover) {
    const f = r.failover;
    lines.push(
      '',
      `Failover, two nodes on one PostgreSQL, ${f.deliveries} deliveries to 10 webhooks whose target answers in 1 s, node A SIGKILLed when a quarter arrived (heartbeat timeout 10 s): A had ${f.inflightAtKill} attempts in flight; the survivor re-sent the first of them ${round(f.firstResendS)} s and the last ${round(f.lastResendS)} s after the kill; received twice ${f.duplicates}, lost ${f.lost}.`,
    );
  }
  const t = r.throughput;
  lines.push(
    '',
    `Throughput, same run, same receiver: raw undici loop ${Math.round(t.raw.perSecond)}/s at ${round(t.raw.cpuUsPerSend)} µs CPU a send; ${t.count} deliveries through the public API of one node (SQLite, released at once) ${Math.round(t.api.perSecond)}/s at ${round(t.api.cpuUsPerDelivery)} µs CPU a delivery (server and workers). **Deliveries / raw: ${round(t.ratio, 2)}** (goal 0.6); CPU per delivery ${round(t.cpuRatio, 1)}x the raw send's.`,
  );
  return lines;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      deliveries: { type: 'string', default: String(CRASH_DEFAULTS.deliveries) },
      reps: { type: 'string', default: String(CRASH_DEFAULTS.reps) },
      'failover-deliveries': { type: 'string', default: String(CRASH_DEFAULTS.failoverDeliveries) },
      throughput: { type: 'string', default: String(CRASH_DEFAULTS.throughput) },
      'no-postgres': { type: 'boolean', default: false },
      'postgres-url': { type: 'string', default: DEFAULT_PG_URL },
      json: { type: 'boolean', default: false },
    },
  });
  const r = await runCrashBench({
    deliveries: Number(values.deliveries),
    reps: Number(values.reps),
    failoverDeliveries: Number(values['failover-deliveries']),
    throughput: Number(values.throughput),
    postgres: values['no-postgres'] ? null : values['postgres-url'],
  });
  console.log(values.json ? JSON.stringify(r, null, 2) : renderCrash(r).join('\n'));
  process.exit(0);
}
