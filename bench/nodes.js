// Deliveries per second from real Switchyard processes sharing one PostgreSQL
// schema: one node, then two, each run on a fresh schema with the same backlog.
// Part of `npm run bench` (unless --no-postgres) and runnable alone:
//   node bench/nodes.js [--deliveries 10000] [--warmup 2000] [--nodes 1,2] [--postgres-url postgres://...] [--json]
// (needs `npm run build` first).
//
// Each run, for k nodes:
//   1. k × `node dist/cli.js` (default settings, DATABASE_URL on a fresh schema,
//      SWITCHYARD_ALLOW_PRIVATE_TARGETS=1, LOG_LEVEL=warn), and a receiver in its
//      own process (bench/receiver.js --track-ids);
//   2. one signed webhook subscribed to `bench.tick`, created through node 1's
//      management API (the same template and secret as the engine part);
//   3. the backlog: `createDelivery` through a store opened here, due a day
//      ahead, so the running nodes leave it alone while it is written;
//   4. release: one UPDATE makes all of it due at T (a second ahead); at T
//      every node gets `POST /api/events` `bench.tick` at once, which adds one
//      delivery per node and wakes its engine (an idle engine otherwise looks
//      only once a second, which would start the nodes up to 1 s apart);
//   5. timed from that wake to the receiver's last new `webhook-id`.
// A warm-up phase (same steps, fewer deliveries) runs first on the same nodes.
// Checks: every delivery in the database succeeded with one attempt and reached
// the receiver (none lost); duplicates (same webhook-id twice) are counted.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { assertPostgres, DEFAULT_PG_URL, dropAllSchemas, dropSchema, freshSchema, schemaClient } from './pg.js';
import { message, start, stop } from './webhooks.js';
import { EVENT_DATA, insertDeliveries, SECRET, TEMPLATE } from './webhooks-part.js';
import { killGroup, stopGracefully } from './processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'dist', 'cli.js');
const RECEIVER = path.join(ROOT, 'bench', 'receiver.js');

export const NODES_DEFAULTS = { deliveries: 10_000, warmup: 2_000, nodes: [1, 2], timeoutS: 180, targetLatencyMs: 0 };

// Same template, secret and event data as the engine part, so the rows compare.

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (n, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

// ---------------------------------------------------------------- node processes

/** Nodes started here, killed with their worker processes if this process exits early. */
const nodes = new Set();
process.on('exit', () => {
  for (const node of nodes) killGroup(node, 'SIGKILL');
});

/** A port free on loopback right now (the node binds it a moment later). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function startNode(databaseUrl, label, extraEnv = {}) {
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1',
    // One process per node: "N nodes" must mean N processes, whatever the core count.
    SWITCHYARD_PROCESSES: '1',
    ...extraEnv,
  };
  // A developer's own settings must not leak into the measured nodes.
  for (const name of ['SWITCHYARD_ADMIN_KEY', 'SWITCHYARD_DEMO', 'SWITCHYARD_TEST_HOOKS']) delete env[name];
  const child = spawn(process.execPath, [CLI], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const node = { child, group: true, label, baseUrl: `http://127.0.0.1:${port}`, tail: '', warnings: 0, errors: 0 };
  nodes.add(node);
  child.once('exit', () => nodes.delete(node));
  const keep = (chunk) => {
    const text = chunk.toString();
    node.tail = (node.tail + text).slice(-4000);
    // pino levels: 40 warn, 50 error, 60 fatal.
    node.warnings += (text.match(/"level":40/g) ?? []).length;
    node.errors += (text.match(/"level":[56]0/g) ?? []).length;
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  await untilReady(node);
  return node;
}

/** /readyz, not /healthz: ready means the node reaches the database. */
async function untilReady(node) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (node.child.exitCode !== null || node.child.signalCode !== null) {
      throw new Error(`${node.label} exited (${node.child.exitCode ?? node.child.signalCode}) before it was ready. Output:\n${node.tail}`);
    }
    try {
      const res = await fetch(`${node.baseUrl}/readyz`, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${node.label} was not ready within 30 s. Output:\n${node.tail}`);
    await sleep(100);
  }
}

/** SIGTERM (graceful: releases its leases), SIGKILL past 15 s; then no worker may outlive it. */
const stopNode = (node) => stopGracefully(node, 15_000);

/** One management or invoke call; throws unless the status is one of `expected`. JSON answers come back parsed. */
export async function call(baseUrl, method, url, body, expected = [200, 201, 202]) {
  const res = await fetch(baseUrl + url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (!expected.includes(res.status)) throw new Error(`${method} ${baseUrl}${url} answered ${res.status}: ${text}`);
  return text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text;
}

/** Attempts this node recorded as succeeded, from its own /metrics (who did how much). */
async function succeededOn(node) {
  const text = await call(node.baseUrl, 'GET', '/metrics');
  const m = /^switchyard_webhook_attempts_total\{outcome="succeeded"\} (\d+)/m.exec(text);
  return m ? Number(m[1]) : 0;
}

// ---------------------------------------------------------------- CPU by process kind

/**
 * CPU seconds used so far, summed by kind: the nodes (each node's process
 * group, workers included), PostgreSQL's processes, the receiver, and the
 * whole machine's busy time. Linux /proc only; null elsewhere. It shows which
 * side saturates the cores during a run.
 */
function cpuSnapshot(nodeList, receiverPid) {
  if (!existsSync('/proc/stat')) return null;
  const TICK = 100; // USER_HZ on Linux
  const groups = new Set(nodeList.map((n) => n.child.pid));
  const sum = { nodes: 0, postgres: 0, receiver: 0 };
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // f[0] is field 3 (state)
    const seconds = (Number(f[11]) + Number(f[12])) / TICK; // utime + stime
    if (groups.has(Number(f[2]))) sum.nodes += seconds; // field 5: process group
    else if (comm === 'postgres') sum.postgres += seconds;
    else if (Number(entry) === receiverPid) sum.receiver += seconds;
  }
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = cpu[3] + cpu[4]; // idle + iowait
  const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
  return { ...sum, busy: (total - idle) / TICK, total: total / TICK, at: Date.now() };
}

/** Cores used by each kind between two snapshots, and how busy the machine was. */
function cpuUse(a, b) {
  if (!a || !b) return null;
  const wall = (b.at - a.at) / 1000;
  return {
    nodes: (b.nodes - a.nodes) / wall,
    postgres: (b.postgres - a.postgres) / wall,
    receiver: (b.receiver - a.receiver) / wall,
    machineBusy: (b.busy - a.busy) / (b.total - a.total),
    // Everything else busy meanwhile (this process, the kernel, anything else on the machine): noise to know about.
    other: (b.busy - a.busy - (b.nodes - a.nodes) - (b.postgres - a.postgres) - (b.receiver - a.receiver)) / wall,
  };
}

// ---------------------------------------------------------------- one phase

/** Pending deliveries due a day ahead: written while the nodes run, untouched by them until released. */
const insertBacklog = (store, webhookId, n) =>
  insertDeliveries(store, webhookId, n, new Date(Date.now() + 86_400_000).toISOString());

async function receiverStats(receiver) {
  receiver.child.send({ type: 'stats' });
  return message(receiver, 'stats', 5000);
}

/**
 * Inserts `n` deliveries, releases them to every node at the same moment and
 * waits (at most `timeoutS`) until the receiver has seen each of them, plus
 * the one delivery each node's wake-up event adds.
 */
async function phase({ n, nodeList, store, db, webhookId, receiver, timeoutS }) {
  const insertStarted = performance.now();
  await insertBacklog(store, webhookId, n);
  const insertSeconds = (performance.now() - insertStarted) / 1000;
  const before = await Promise.all(nodeList.map(succeededOn));
  receiver.child.send({ type: 'mark' });
  await message(receiver, 'marked', 5000);

  // Fixture, not measured: one statement makes the whole backlog due at T.
  const T = Date.now() + 1000;
  await db.query(`UPDATE deliveries SET next_attempt_at = $1 WHERE status = 'pending'`, [new Date(T).toISOString()]);
  // Statistics as autovacuum keeps them on a live database: without them PostgreSQL
  // plans each claim as a sort of every due row (see bench/README.md).
  await db.query('ANALYZE deliveries');
  const lateRelease = Date.now() > T;
  await sleep(Math.max(0, T - Date.now()));

  const cpu0 = cpuSnapshot(nodeList, receiver.child.pid);
  const t0 = Date.now();
  await Promise.all(nodeList.map((node) => call(node.baseUrl, 'POST', '/api/events', { event: 'bench.tick', data: EVENT_DATA(-1) }, [202])));
  const expected = n + nodeList.length;
  let stats;
  for (;;) {
    stats = await receiverStats(receiver);
    if (stats.phase.unique >= expected) break;
    if (Date.now() - t0 > timeoutS * 1000) {
      throw new Error(`${nodeList.length} node(s): only ${stats.phase.unique} of ${expected} deliveries arrived within ${timeoutS} s`);
    }
    await sleep(50);
  }
  const cpu1 = cpuSnapshot(nodeList, receiver.child.pid);
  // A late duplicate (a second send of the same id) would land just after: give it a moment.
  await sleep(1000);
  stats = await receiverStats(receiver);
  const after = await Promise.all(nodeList.map(succeededOn));
  const seconds = (stats.phase.last - t0) / 1000;
  return {
    count: expected,
    seconds,
    perSecond: expected / seconds,
    firstMs: stats.phase.first - t0,
    perNode: after.map((a, i) => a - before[i]),
    duplicates: stats.phase.duplicates,
    insertSeconds,
    lateRelease,
    cpu: cpuUse(cpu0, cpu1),
  };
}

/** Every delivery the database holds succeeded once and reached the receiver. Returns what is wrong. */
async function verify(db, receiver, expectedRows) {
  const problems = [];
  const { rows: statuses } = await db.query('SELECT status, COUNT(*)::int AS n FROM deliveries GROUP BY status');
  const byStatus = Object.fromEntries(statuses.map((r) => [r.status, r.n]));
  const { rows: [{ n: attempts }] } = await db.query('SELECT COUNT(*)::int AS n FROM delivery_attempts');
  if (byStatus.succeeded !== expectedRows || attempts !== expectedRows) {
    problems.push(`expected ${expectedRows} deliveries succeeded with one attempt each, got ${JSON.stringify(byStatus)} and ${attempts} attempts`);
  }
  receiver.child.send({ type: 'ids' });
  const { ids } = await message(receiver, 'ids', 10_000);
  const seen = new Set(ids);
  const { rows } = await db.query('SELECT id FROM deliveries');
  const lost = rows.filter((r) => !seen.has(r.id)).length;
  if (lost) problems.push(`${lost} deliveries in the database never reached the receiver`);
  return { lost, problems };
}

// ---------------------------------------------------------------- one run

/** k nodes on a fresh schema: warm-up, then the measured backlog. The schema is dropped afterwards. */
async function runNodes(k, o, log) {
  // The built store, as the engine part uses it: the backlog goes in through the Store interface.
  const { openStore } = await import(new URL('../dist/store/index.js', import.meta.url).href);
  const { schema, url } = freshSchema(o.postgres, `nodes${k}`);
  const nodeList = [];
  let receiver = null;
  let store = null;
  let db = null;
  try {
    const delay = o.targetLatencyMs > 0 ? ['--delay-ms', String(o.targetLatencyMs)] : [];
    receiver = start(RECEIVER, ['--track-ids', ...delay], 'webhook receiver');
    const { port } = await message(receiver, 'listening', 10_000);
    // Started together, as a deployment would; migrations run once under their advisory lock.
    nodeList.push(...(await Promise.all(Array.from({ length: k }, (_, i) => startNode(url, `node ${i + 1} of ${k}`)))));
    const webhook = await call(nodeList[0].baseUrl, 'POST', '/api/webhooks', {
      name: 'bench',
      target_url: `http://127.0.0.1:${port}/hooks/bench`,
      method: 'POST',
      payload_template: TEMPLATE,
      events: ['bench.tick'],
      secret: SECRET,
    });
    store = await openStore(url);
    db = await schemaClient(o.postgres, schema);

    const common = { nodeList, store, db, webhookId: webhook.id, receiver, timeoutS: o.timeoutS };
    log(`nodes: ${k} node(s), warm-up ${o.warmup} deliveries`);
    await phase({ ...common, n: o.warmup });
    log(`nodes: ${k} node(s), ${o.deliveries} deliveries`);
    const result = await phase({ ...common, n: o.deliveries });
    const { lost, problems } = await verify(db, receiver, o.warmup + o.deliveries + 2 * k);
    const warnings = nodeList.reduce((a, n) => a + n.warnings, 0);
    const errors = nodeList.reduce((a, n) => a + n.errors, 0);
    return { nodes: k, ...result, lost, problems, warnings, errors };
  } finally {
    await Promise.all(nodeList.map(stopNode));
    if (receiver) await stop(receiver);
    await store?.close().catch(() => undefined);
    await db?.end().catch(() => undefined);
    await dropSchema(o.postgres, schema);
  }
}

/**
 * One run per entry of `options.nodes` (default 1 then 2). `options.postgres`
 * is the base URL of the PostgreSQL server. Returns the runs and the checks
 * that failed or deserve a note.
 */
export async function runNodesBench(options, log = console.log) {
  const o = { ...NODES_DEFAULTS, ...options };
  if (!o.postgres) throw new Error('runNodesBench needs options.postgres (a postgres:// URL)');
  if (!existsSync(CLI)) throw new Error('dist/ is missing: run `npm run build` first (npm run bench does)');
  const runs = [];
  for (const k of o.nodes) runs.push(await runNodes(k, o, log));
  const checks = [];
  for (const r of runs) {
    for (const p of r.problems) checks.push(`FAILED: ${r.nodes} node(s): ${p}`);
    if (r.duplicates) checks.push(`NOTE: ${r.nodes} node(s): ${r.duplicates} duplicate deliveries (same webhook-id twice)`);
    if (r.errors) checks.push(`FAILED: ${r.nodes} node(s) logged ${r.errors} errors`);
    if (r.warnings) checks.push(`NOTE: ${r.nodes} node(s) logged ${r.warnings} warnings`);
    if (r.lateRelease) checks.push(`NOTE: ${r.nodes} node(s): the release UPDATE took longer than its 1 s lead`);
  }
  return { options: o, runs, checks };
}

// ---------------------------------------------------------------- report

const cores = (v) => round(v, 2).toFixed(2);

/** Markdown lines for bench/README.md. */
export function renderNodes(r) {
  const { options: o, runs } = r;
  const lines = [
    '',
    `### ${runs.map((x) => x.nodes).join(' vs ')} Switchyard node(s) on one PostgreSQL schema, ${o.targetLatencyMs ? `a target answering in ${o.targetLatencyMs} ms` : 'a target answering at once'}`,
    '',
    `Each run: fresh schema, the receiver in its own process${o.targetLatencyMs ? ` answering each request ${o.targetLatencyMs} ms after reading it` : ''}, ${o.warmup} warm-up deliveries, then ${o.deliveries} pending deliveries released to every node at once (+1 wake-up event per node); timed from the wake-up to the receiver's last new \`webhook-id\`.`,
    '',
    '| nodes | deliveries | seconds | deliveries/s | per node | first after wake | duplicates | lost | cores used: nodes / PostgreSQL / receiver / other (machine busy) |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const x of runs) {
    const cpu = x.cpu
      ? `${cores(x.cpu.nodes)} / ${cores(x.cpu.postgres)} / ${cores(x.cpu.receiver)} / ${cores(Math.max(0, x.cpu.other))} (${Math.round(x.cpu.machineBusy * 100)}% of ${os.cpus().length})`
      : 'n/a';
    lines.push(
      `| ${x.nodes} | ${x.count} | ${round(x.seconds)} | ${Math.round(x.perSecond)} | ${x.perNode.join(' / ')} | ${x.firstMs} ms | ${x.duplicates} | ${x.lost} | ${cpu} |`,
    );
  }
  const one = runs.find((x) => x.nodes === 1);
  const two = runs.find((x) => x.nodes === 2);
  if (one && two) lines.push('', `**2 nodes / 1 node: ${round(two.perSecond / one.perSecond)}**.`);
  return lines;
}

// ---------------------------------------------------------------- standalone

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      deliveries: { type: 'string', default: String(NODES_DEFAULTS.deliveries) },
      warmup: { type: 'string', default: String(NODES_DEFAULTS.warmup) },
      nodes: { type: 'string', default: NODES_DEFAULTS.nodes.join(',') },
      'target-latency-ms': { type: 'string', default: '0' },
      'postgres-url': { type: 'string', default: DEFAULT_PG_URL },
      json: { type: 'boolean', default: false },
    },
  });
  const whole = (text, name, min) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be whole numbers >= ${min}, got "${text}"`);
    return n;
  };
  const stopAll = async () => {
    await Promise.all([...nodes].map(stopNode));
    await dropAllSchemas();
  };
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      stopAll().finally(() => process.exit(130));
    });
  }
  try {
    const postgres = values['postgres-url'];
    await assertPostgres(postgres);
    const r = await runNodesBench({
      postgres,
      deliveries: whole(values.deliveries, 'deliveries', 1),
      warmup: whole(values.warmup, 'warmup', 0),
      nodes: values.nodes.split(',').map((v) => whole(v, 'nodes', 1)),
      targetLatencyMs: whole(values['target-latency-ms'], 'target-latency-ms', 0),
    });
    console.log(values.json ? JSON.stringify(r, null, 2) : renderNodes(r).join('\n'));
    for (const c of r.checks) console.log(c);
    if (r.checks.some((c) => c.startsWith('FAILED'))) process.exitCode = 1;
  } catch (err) {
    console.error(`nodes bench failed: ${err.stack ?? err.message}`);
    process.exitCode = 1;
  } finally {
    await stopAll();
  }
}

export { startNode, stopNode, nodes as runningNodes };
