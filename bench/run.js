// `npm run bench`: the gateway against bare node:http in the same run (on
// SQLite, then on PostgreSQL; with default settings, one server process per
// core, and with --processes 1; on a machine with more than 2 cores also
// against a bare node:http cluster of one process per core), then cold start, then webhook deliveries
// (bench/webhooks.js, the engine on both stores), then 1 vs 2 real nodes on one
// PostgreSQL schema (bench/nodes.js). Absolute numbers drift between runs and
// machines; the ratios are the figures worth comparing. Results go to the
// console and to the marked section of bench/README.md.
// Not run here: bench/function-schedules.js (100,000 function schedules, one
// minute slot measured on the real clock; runnable alone, see bench/README.md).
//
// Options (defaults are what the README figures use):
//   --duration <s> (10)  --warmup <s> (2)  --cold <n> (20)
//   --connections <n>    (50; 200 on a machine with more than 2 cores)
//   --load-threads <n>   autocannon worker threads (none; cores / 4, at most 4,
//                        on a machine with more than 2 cores: one thread cannot
//                        load a cluster)
//   --deliveries <n> (10000)  --webhooks <n> (100000)  --cutoff <s> (90)
//   --bare-only          measure only the node:http baseline (no build needed)
//   --no-webhooks        skip the webhook parts (engine, cron, nodes)
//   --no-policy          skip the gateway policy goals (bench/policy.mjs)
//   --no-health          skip endpoint health's goals (bench/endpoint-health.mjs:
//                        a 200,000-delivery outage, rate limits on 2 x 2 processes;
//                        about 10 minutes on 2 cores)
//   --no-postgres        skip every PostgreSQL figure; without it the run fails
//                        at once when PostgreSQL does not answer
//   --postgres-url <url> the server to use (default BENCH_DATABASE_URL or
//                        postgres://postgres@127.0.0.1:5432/test); each part
//                        works in a fresh schema and drops it
//   --no-write           leave bench/README.md alone
//   --no-issue26         skip issue 26's standalone benches (event schema, payload
//                        filters, signing, transformations; each runnable alone)
//   --no-issue27         skip issue 27's standalone benches (CPU per request of every
//                        process against bare node:http and idle RSS, warm isolate
//                        cost, the cold first slot of 10,000 schedules)
//   --only issue26|issue27  run only that section (prints it, leaves the README alone)
import autocannon from 'autocannon';
import { fork, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { call, freePort, renderNodes, runNodesBench, runningNodes, stopNode } from './nodes.js';
import { killGroup, stopGracefully } from './processes.js';
import { assertPostgres, DEFAULT_PG_URL, dropAllSchemas, dropSchema, freshSchema, redact } from './pg.js';
import { killChildren, renderWebhooks, runWebhookBench, WEBHOOK_DEFAULTS } from './webhooks.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'dist', 'cli.js');
const README = path.join(ROOT, 'bench', 'README.md');
const START = '<!-- bench:start -->';
const END = '<!-- bench:end -->';
/** The slow targets of the second and third node comparisons: a webhook receiver that takes this long to answer. */
const SLOW_TARGET_MS = 50;
/** The machine's cores, printed beside every figure: a ratio means little without it. */
const CORES = os.availableParallelism();
/** Other work on the machine skews every figure: the report says how busy it was. */
const loadAtStart = Math.round(os.loadavg()[0] * 10) / 10;
const MANY_CORES = CORES > 2;
/** What `--processes auto` gives the gateway on this machine (src/config.ts, MAX_AUTO_PROCESSES). */
const DEFAULT_PROCESSES = Math.min(CORES, 8);
const SLOWER_TARGET_MS = 200;

const { values: opt } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: MANY_CORES ? '200' : '50' },
    'load-threads': { type: 'string', default: String(MANY_CORES ? Math.min(4, Math.floor(CORES / 4)) : 0) },
    cold: { type: 'string', default: '20' },
    deliveries: { type: 'string', default: String(WEBHOOK_DEFAULTS.deliveries) },
    webhooks: { type: 'string', default: String(WEBHOOK_DEFAULTS.webhooks) },
    cutoff: { type: 'string', default: String(WEBHOOK_DEFAULTS.cutoff) },
    'bare-only': { type: 'boolean', default: false },
    'no-webhooks': { type: 'boolean', default: false },
    'no-policy': { type: 'boolean', default: false },
    'no-health': { type: 'boolean', default: false },
    'no-postgres': { type: 'boolean', default: false },
    'postgres-url': { type: 'string', default: DEFAULT_PG_URL },
    'no-write': { type: 'boolean', default: false },
    'no-issue26': { type: 'boolean', default: false },
    'no-issue27': { type: 'boolean', default: false },
    only: { type: 'string' },
  },
});
const DURATION = positive('duration');
const WARMUP = positive('warmup');
const CONNECTIONS = positive('connections');
const LOAD_THREADS = Number(opt['load-threads']);
if (!Number.isInteger(LOAD_THREADS) || LOAD_THREADS < 0) throw new Error(`--load-threads must be a whole number >= 0, got "${opt['load-threads']}"`);
const COLD_N = positive('cold');
const WEBHOOK_OPTS = { deliveries: positive('deliveries'), webhooks: positive('webhooks'), cutoff: positive('cutoff') };
/** Base URL of the PostgreSQL to measure on, or null when its figures are skipped. */
const POSTGRES = opt['no-postgres'] || opt['bare-only'] ? null : opt['postgres-url'];

function positive(name) {
  const n = Number(opt[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number >= 1, got "${opt[name]}"`);
  return n;
}

// ---------------------------------------------------------------- children

/** Every process we started, so they are stopped on success, error and Ctrl-C alike. */
const children = new Set();

function track(child, label) {
  const entry = { child, label, tail: '' };
  const keep = (chunk) => {
    entry.tail = (entry.tail + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  children.add(entry);
  child.once('exit', () => children.delete(entry));
  return entry;
}

const stop = (entry) => stopGracefully(entry, 5000);

async function stopAll() {
  await Promise.all([...children].map(stop));
  // Everything that may hold a schema goes first: a schema cannot be dropped under its users.
  killChildren();
  await Promise.all([...runningNodes].map(stopNode));
  await dropAllSchemas();
}

process.on('exit', () => {
  for (const entry of children) killGroup(entry, 'SIGKILL');
});
/** Set on Ctrl-C: whatever fails in main() afterwards is the cleanup pulling the rug, not a finding. */
let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    interrupted = true;
    console.error(`\n${sig}: stopping child processes and dropping bench schemas`);
    stopAll().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------- helpers

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (n, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

function percentile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

async function measure(label, url) {
  const common = { url, connections: CONNECTIONS, pipelining: 1, ...(LOAD_THREADS ? { workers: LOAD_THREADS } : {}) };
  console.log(`${label}: warm-up ${WARMUP} s, then ${DURATION} s at ${CONNECTIONS} connections${LOAD_THREADS ? ` from ${LOAD_THREADS} thread${LOAD_THREADS > 1 ? 's' : ''}` : ''} (${CORES} cores) -> ${url}`);
  await autocannon({ ...common, duration: WARMUP });
  const r = await autocannon({ ...common, duration: DURATION });
  return {
    label,
    rps: r.requests.mean,
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

// ---------------------------------------------------------------- targets

/** Bare node:http: one process, or a node:cluster of `processes` sharing the port. */
async function startBare(processes = 1) {
  const child = fork(path.join(ROOT, 'bench', 'bare-server.js'), ['--processes', String(processes)], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const entry = track(child, 'bare node:http');
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('bare node:http server did not start within 10 s')), 10_000);
    child.once('message', (m) => {
      clearTimeout(timer);
      resolve(m.port);
    });
    child.once('exit', (code) => reject(new Error(`bare node:http server exited (${code}): ${entry.tail}`)));
  });
  return { entry, url: `http://127.0.0.1:${port}/` };
}

/**
 * The gateway on a temp SQLite file, or on `databaseUrl` (a fresh PostgreSQL
 * schema) when given; default settings unless `processes` says how many server processes.
 */
async function startGateway(databaseUrl = null, processes = null) {
  if (!existsSync(CLI)) {
    throw new Error(`${path.relative(ROOT, CLI)} is missing: run \`npm run build\` first (npm run bench does)`);
  }
  const port = await freePort();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-'));
  databaseUrl ??= `sqlite:${path.join(dir, 'bench.db')}`;
  const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' };
  // A developer's own settings must not leak into the measured server.
  delete env.SWITCHYARD_ADMIN_KEY;
  delete env.SWITCHYARD_DEMO;
  delete env.SWITCHYARD_PROCESSES;
  if (processes) env.SWITCHYARD_PROCESSES = String(processes);
  const child = spawn(process.execPath, [CLI], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const entry = track(child, 'gateway');
  entry.group = true;
  const baseUrl = `http://127.0.0.1:${port}`;

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`gateway exited (${child.exitCode ?? child.signalCode}) before answering /healthz. Output:\n${entry.tail}`);
    }
    try {
      const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      throw new Error(`gateway did not answer 200 on ${baseUrl}/healthz within 30 s. Output:\n${entry.tail}`);
    }
    await sleep(100);
  }
  return { entry, baseUrl, dir };
}

function managementApi(baseUrl) {
  return (method, url, body, expected = [200, 201]) => call(baseUrl, method, url, body, expected);
}

function invokeBase(baseUrl, api) {
  if (/^https?:\/\//.test(api.invokeUrl ?? '')) return api.invokeUrl;
  return `${baseUrl}/api/invoke/fn/${api.id}${api.basePath}`;
}

async function setupHello(baseUrl, code) {
  const call = managementApi(baseUrl);
  await call('POST', '/api/functions', { name: 'hello', code });
  const api = await call('POST', '/api/apis', {
    name: 'bench',
    basePath: '/bench',
    routes: [{ method: 'GET', path: '/hello', function: 'hello' }],
  });
  const url = `${invokeBase(baseUrl, api)}/hello`;
  const res = await fetch(url);
  const body = await res.text();
  if (res.status !== 200 || body !== '{"hello":"world"}') {
    throw new Error(`hello route answered ${res.status} ${body}, expected 200 {"hello":"world"}`);
  }
  return { api, url };
}

/** Deploy -> first answer, per function, sequentially so they do not queue behind each other. */
async function coldStart(baseUrl, api, code) {
  const call = managementApi(baseUrl);
  const samples = [];
  for (let i = 0; i < COLD_N; i++) {
    const name = `cold${i}`;
    const t0 = performance.now();
    await call('POST', '/api/functions', { name, code });
    const deployed = performance.now();
    await call('POST', `/api/apis/${api.id}/routes`, { method: 'GET', path: `/cold/${i}`, function: name });
    const url = `${invokeBase(baseUrl, api)}/cold/${i}`;

    let first;
    for (let attempt = 0; ; attempt++) {
      const t1 = performance.now();
      const res = await fetch(url);
      await res.arrayBuffer();
      const t2 = performance.now();
      if (res.status === 200) {
        first = { latency: t2 - t1, createToFirst: t2 - t0 };
        break;
      }
      if (attempt >= 200) throw new Error(`${url} still answers ${res.status} after 200 tries`);
      await sleep(5);
    }

    const warm = [];
    for (let k = 0; k < 5; k++) {
      const t1 = performance.now();
      const res = await fetch(url);
      await res.arrayBuffer();
      warm.push(performance.now() - t1);
    }
    const warmMedian = percentile(warm, 0.5);
    samples.push({
      deploy: deployed - t0,
      createToFirst: first.createToFirst,
      first: first.latency,
      warm: warmMedian,
      extra: first.latency - warmMedian,
    });
  }
  const stat = (key) => ({ p50: percentile(samples.map((s) => s[key]), 0.5), p90: percentile(samples.map((s) => s[key]), 0.9) });
  return {
    deploy: stat('deploy'),
    createToFirst: stat('createToFirst'),
    first: stat('first'),
    warm: stat('warm'),
    extra: stat('extra'),
  };
}

// ---------------------------------------------------------------- report

function machine() {
  const cpus = os.cpus();
  return {
    cpu: `${cpus[0]?.model.trim() ?? 'unknown CPU'} x ${cpus.length}`,
    memory: `${round(os.totalmem() / 2 ** 30, 1)} GiB`,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

function command() {
  const args = process.argv.slice(2);
  return args.length ? `\`node bench/run.js ${args.join(' ')}\`` : '`npm run bench` (= `npm run build && node bench/run.js`)';
}

function render({ bare, bareCluster, gateway, gatewaySingle, gatewayPg, cold, webhooks, nodes, issue26, issue27, date, seconds, checks, notes }) {
  const m = machine();
  const row = (r) =>
    `| ${r.label} | ${CORES} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.total} | ${r.non2xx} | ${r.errors + r.timeouts} |`;
  const ratio = (a, b) => `${round(a.rps / b.rps)} (p99 ${a.p99} ms vs ${b.p99} ms: ${round(a.p99 / Math.max(b.p99, 1))}x)`;
  const onCores = `on ${CORES} cores`;
  const lines = [
    START,
    `Generated by \`npm run bench\` on ${date}.`,
    '',
    `- Machine: **${CORES} cores** (${m.cpu}), ${m.memory} RAM, ${m.os}, Node ${m.node}; load average (1 min) ${loadAtStart} at the start, ${round(os.loadavg()[0], 1)} at the end: other work on the machine moves every figure`,
    `- Command: ${command()}: autocannon, ${CONNECTIONS} connections${LOAD_THREADS ? ` from ${LOAD_THREADS} thread${LOAD_THREADS > 1 ? 's' : ''}` : ''}, pipelining 1, ${WARMUP} s warm-up then ${DURATION} s per target, loopback; gateway with default settings, a temp SQLite file and LOG_LEVEL=warn${gatewayPg ? `, then the same on a fresh schema of PostgreSQL at \`${redact(POSTGRES)}\`` : ''}${webhooks ? `; then \`bench/webhooks.js\` (${webhooks.options.deliveries} deliveries, ${webhooks.options.webhooks} cron webhooks, cut-off ${webhooks.options.cutoff} s)` : ''}${nodes ? `; then \`bench/nodes.js\` (${nodes[0].options.nodes.join(' vs ')} nodes, ${nodes[0].options.deliveries} deliveries, a target answering at once, then ones answering in ${SLOW_TARGET_MS} and ${SLOWER_TARGET_MS} ms)` : ''}`,
    `- Whole run: ${round(seconds / 60, 1)} min${POSTGRES ? '' : '; PostgreSQL figures skipped (--no-postgres)'}`,
    '',
    '| target | cores | req/s (mean) | p50 ms | p99 ms | requests | non-2xx | errors |',
    '|---|---|---|---|---|---|---|---|',
    ...[bare, bareCluster, gateway, gatewaySingle, gatewayPg].filter(Boolean).map(row),
  ];
  if (gateway) {
    lines.push('');
    if (bareCluster) {
      lines.push(`**Gateway (default settings) / bare node:http cluster of ${CORES} processes, ${onCores}: ${ratio(gateway, bareCluster)}** (goal: at least 0.6, p99 at most 2x).`);
    }
    lines.push(`Gateway (default settings) / bare node:http single process, ${onCores}: **${ratio(gateway, bare)}**.`);
    if (gatewaySingle) lines.push(`Gateway with \`--processes 1\` / bare node:http single process, ${onCores}: **${ratio(gatewaySingle, bare)}**.`);
    if (gatewayPg) {
      lines.push(
        `On PostgreSQL (default settings), ${onCores}: **gateway / bare ${round(gatewayPg.rps / bare.rps)}**, PostgreSQL / SQLite throughput ${round(gatewayPg.rps / gateway.rps)}, p99 ${gatewayPg.p99} ms vs ${gateway.p99} ms.`,
      );
    }
  } else {
    lines.push('', 'Gateway not measured in this run.');
  }
  if (cold) {
    const c = (label, s) => `| ${label} | ${round(s.p50)} | ${round(s.p90)} |`;
    lines.push(
      '',
      `Cold start, ${onCores}, ${COLD_N} new functions deployed one after another to a gateway with \`--processes 1\` (same hello code, each bound to its own route):`,
      '',
      '| measure | p50 ms | p90 ms |',
      '|---|---|---|',
      c('`POST /api/functions` (compile, validate in a throwaway isolate, store)', cold.deploy),
      c('create -> first 200 (deploy + add route + first invoke)', cold.createToFirst),
      c('first invoke', cold.first),
      c('warm invoke (median of 5)', cold.warm),
      c('first - warm (isolate creation + compile + first run)', cold.extra),
    );
  }
  if (webhooks) lines.push(...renderWebhooks(webhooks), '', ...WEBHOOK_PROSE);
  else if (!opt['bare-only']) lines.push('', 'Webhook deliveries not measured in this run.');
  if (nodes) lines.push(...nodes.flatMap((r) => renderNodes(r)), '', ...NODES_PROSE);
  if (issue26) lines.push(...renderIssue26(issue26));
  if (issue27) lines.push(...renderIssue26(issue27, ISSUE27_TITLE));
  lines.push('', `Checks: ${checks.length ? checks.join('; ') : 'all responses 2xx, no errors'}.`);
  if (notes.length) lines.push('', `Notes: ${notes.join('; ')}.`);
  lines.push(END);
  // Every section's heading carries the core count too: parts of it are pasted on their own.
  return lines.map((l) => (l.startsWith('### ') ? `${l} (${CORES} cores)` : l)).join('\n');
}

async function writeReadme(section) {
  let text = existsSync(README) ? await readFile(README, 'utf8') : '# Benchmarks\n\n';
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  if (a !== -1 && b > a) text = text.slice(0, a) + section + text.slice(b + END.length);
  else text = `${text.trimEnd()}\n\n${section}\n`;
  await writeFile(README, text);
}

const WEBHOOK_PROSE = [
  '**What the webhook figures measure.** The *raw loop* is the ceiling for sending webhooks from one Node',
  'process on this machine: undici posting ~200 B JSON bodies to a keep-alive `node:http` receiver in another',
  'process, nothing stored. The *engine* row is Switchyard\'s durable path on the same receiver: each delivery is a',
  'SQLite row claimed under a lease (in batches), rendered and signed once, sent, then recorded with its attempt',
  '(outcomes that finish together share one transaction); its ratio to the raw loop is the cost of durability.',
  'The *PostgreSQL engine* row is the same process, webhook, body and receiver with the store on a fresh schema of',
  'the local PostgreSQL (pool of 10, `FOR UPDATE SKIP LOCKED` claims, one multi-row statement per batch of outcomes).',
  'The *cron* table (SQLite) loads that many webhooks all due in the same slot T (a real-time slot ~3 s ahead, so',
  'lateness is real), then runs a `Scheduler` and a `DeliveryEngine` in one process: *claimed* is T until the',
  'scheduler has created every slot\'s delivery (one transaction per 500 webhooks, sent while later ones are claimed); *lateness* is each',
  'first attempt\'s `started_at` minus T, so with one process it is bounded below by count / delivery rate;',
  '*RSS* is `process.memoryUsage().rss`, sampled every 100 ms.',
];

const NODES_PROSE = [
  '**What the node figures measure.** Real `node dist/cli.js` processes (default settings, `LOG_LEVEL=warn`,',
  '`SWITCHYARD_ALLOW_PRIVATE_TARGETS=1`) sharing one fresh PostgreSQL schema, sending to the same receiver process.',
  'The webhook is created through the management API; the backlog goes in through the store\'s `createDelivery`',
  'due a day ahead (so the running nodes leave it alone), then one UPDATE makes it due at T and, at T, every node',
  'gets `POST /api/events` at once, which adds one delivery each and wakes its engine (an idle engine polls only',
  'once a second). Time runs from that wake-up to the last new `webhook-id` at the receiver; *per node* is each',
  'node\'s own `switchyard_webhook_attempts_total{outcome="succeeded"}`; *lost* compares every delivery id in the',
  'database with the ids the receiver saw; *cores used* is CPU time from `/proc` over the timed window, by process',
  'kind (a node counts with its worker processes), with *other* for everything else busy on the machine meanwhile.',
  'All of it, nodes, PostgreSQL, receiver, shares this machine\'s cores: when they are saturated a second node can',
  'only take CPU from the others, so the ratio says how far a second process helps *here*, not across machines.',
  `The second and third pairs repeat this with a receiver that answers ${SLOW_TARGET_MS} ms, then ${SLOWER_TARGET_MS} ms, after reading each`,
  'request, as real targets take time: throughput is then deliveries in flight / latency. A node starts a webhook at',
  '50 in flight and raises that while the latency holds, up to 500 (docs/webhooks.md), so one node is bound by its CPU',
  `or by 500 / ${SLOWER_TARGET_MS} ms = ${Math.round(500000 / SLOWER_TARGET_MS)}/s, and a second node brings its own share.`,
];

// ---------------------------------------------------------------- main

/** The same function and settings with the gateway on a fresh PostgreSQL schema, dropped afterwards. */
async function measureGatewayPg(code) {
  const { schema, url: databaseUrl } = freshSchema(POSTGRES, 'gateway');
  try {
    const gw = await startGateway(databaseUrl);
    try {
      const { url } = await setupHello(gw.baseUrl, code);
      return await measure('gateway, hello function, PostgreSQL', url);
    } finally {
      await stop(gw.entry);
      await rm(gw.dir, { recursive: true, force: true });
    }
  } finally {
    await dropSchema(POSTGRES, schema);
  }
}

// Issue 26's benches, each a script runnable alone: run one after another as children and
// their reports kept whole (their own tables), so run.js shows them without re-deriving them.
// Short settings: the standalone defaults are what bench/README.md's sections record.
const ISSUE26_BENCHES = [
  ['bench/event-schema.mjs', ['--duration', '3', '--rounds', '1']],
  ['bench/event-filters.mjs', []],
  ['bench/signing-micro.mjs', ['3']],
  ['bench/transformations.mjs', ['--rounds', '1']],
];

// Issue 27's: CPU per hello request of every Switchyard process added up against bare
// node:http over a fixed number of requests (steadier than req/s on a shared machine), with
// the idle RSS of each process tree; a warm isolate's cost; the first slot after a start.
const ISSUE27_BENCHES = [
  ['bench/process-model.mjs', ['--rounds', '2']],
  ['bench/isolate-density.mjs', ['--isolates', '100', '--rounds', '1']],
  ['bench/function-schedules.js', ['--schedules', '10000', '--wait', '60']],
];

const ISSUE27_TITLE = 'Issue 27 benches (CPU per request of all processes vs bare node:http, idle RSS, warm isolate cost, cold first slot)';

async function runIssue26(list = ISSUE26_BENCHES) {
  const results = [];
  for (const [script, args] of list) {
    console.log(`${script} ${args.join(' ')}`);
    const child = spawn(process.execPath, [path.join(ROOT, script), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (c) => (text += c));
    const exit = await new Promise((done) => child.once('exit', done));
    process.stdout.write(text);
    results.push({ script, args, ok: exit === 0, text: text.trim() });
  }
  return results;
}

function renderIssue26(results, title = 'Issue 26 benches (event schema, payload filters, signing, transformations)') {
  const lines = ['', `### ${title}`];
  for (const r of results) {
    lines.push('', `\`node ${r.script}${r.args.length ? ` ${r.args.join(' ')}` : ''}\`${r.ok ? '' : ' **FAILED**'}:`, '');
    // Markdown tables pass through as they are; other lines become a plain list.
    for (const l of r.text.split('\n')) {
      if (!l.trim()) continue;
      const table = l.startsWith('|');
      // A table needs a blank line after a list item to render as one.
      if (table !== lines.at(-1).startsWith('|') && lines.at(-1) !== '') lines.push('');
      lines.push(table ? l : `- ${l.trim()}`);
    }
  }
  return lines;
}

async function main() {
  if (opt.only !== undefined) {
    if (opt.only !== 'issue26' && opt.only !== 'issue27') throw new Error(`--only knows: issue26, issue27, got "${opt.only}"`);
    const results = opt.only === 'issue26' ? await runIssue26() : await runIssue26(ISSUE27_BENCHES);
    console.log((opt.only === 'issue26' ? renderIssue26(results) : renderIssue26(results, ISSUE27_TITLE)).join('\n'));
    if (results.some((r) => !r.ok)) process.exitCode = 1;
    return;
  }
  const date = new Date().toISOString();
  const started = performance.now();
  const code = await readFile(path.join(ROOT, 'examples', 'functions', 'hello.js'), 'utf8');
  // Fail in seconds, not after minutes of SQLite figures.
  if (POSTGRES) await assertPostgres(POSTGRES);

  const bareServer = await startBare();
  const bare = await measure('bare node:http, 1 process', bareServer.url);
  await stop(bareServer.entry);
  let bareCluster = null;
  if (MANY_CORES) {
    const clusterServer = await startBare(CORES);
    bareCluster = await measure(`bare node:http, cluster of ${CORES} processes`, clusterServer.url);
    await stop(clusterServer.entry);
  }

  let gateway = null;
  let gatewaySingle = null;
  let cold = null;
  if (!opt['bare-only']) {
    const gw = await startGateway();
    try {
      const { url } = await setupHello(gw.baseUrl, code);
      gateway = await measure(`gateway, default settings (${DEFAULT_PROCESSES} server process${DEFAULT_PROCESSES > 1 ? 'es' : ''}), hello function, SQLite`, url);
    } finally {
      await stop(gw.entry);
      await rm(gw.dir, { recursive: true, force: true });
    }
    // One server process: the figure to hold against bare node:http's single process, and the
    // gateway cold start is timed on (with several, a deploy reaches the others through the change feed).
    const single = await startGateway(null, 1);
    try {
      const { api, url } = await setupHello(single.baseUrl, code);
      if (DEFAULT_PROCESSES > 1) gatewaySingle = await measure('gateway, --processes 1, hello function, SQLite', url);
      console.log(`cold start: ${COLD_N} functions`);
      cold = await coldStart(single.baseUrl, api, code);
    } finally {
      await stop(single.entry);
      await rm(single.dir, { recursive: true, force: true });
    }
  }
  const gatewayPg = gateway && POSTGRES ? await measureGatewayPg(code) : null;

  let webhooks = null;
  let nodes = null;
  if (!opt['bare-only'] && !opt['no-webhooks']) {
    webhooks = await runWebhookBench({ ...WEBHOOK_OPTS, postgres: POSTGRES });
    if (POSTGRES) {
      // Three times: a target that answers at once (CPU-bound: every process shares this machine's
      // cores), then ones that take 50 and 200 ms, as real ones do (bound by deliveries in flight).
      nodes = [];
      for (const targetLatencyMs of [0, SLOW_TARGET_MS, SLOWER_TARGET_MS]) {
        nodes.push(await runNodesBench({ postgres: POSTGRES, deliveries: WEBHOOK_OPTS.deliveries, targetLatencyMs }));
      }
    }
  }

  // Background runs against synchronous invokes of one function (bench/functions.js, runnable alone).
  let functionRuns = null;
  if (!opt['bare-only'] && !opt['no-webhooks']) {
    const child = spawn(process.execPath, [path.join(ROOT, 'bench', 'functions.js')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (c) => (text += c));
    const code = await new Promise((done) => child.once('exit', done));
    process.stdout.write(text);
    functionRuns = code === 0 ? text.trim() : null;
  }

  // Issue 23's policy goals: the same hello route with and without policy, in one run (bench/policy.mjs, runnable alone).
  let policy = null;
  if (!opt['bare-only'] && !opt['no-policy']) {
    const child = spawn(process.execPath, [path.join(ROOT, 'bench', 'policy.mjs')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (c) => (text += c));
    const exit = await new Promise((done) => child.once('exit', done));
    process.stdout.write(text);
    policy = exit === 0 ? text.split('\n').filter((l) => /^(PASS|FAIL) goal:/.test(l)) : null;
  }

  // Endpoint health's goals (bench/endpoint-health.mjs, runnable alone).
  let health = null;
  if (!opt['bare-only'] && !opt['no-health'] && !opt['no-webhooks']) {
    const child = spawn(process.execPath, [path.join(ROOT, 'bench', 'endpoint-health.mjs')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (c) => (text += c));
    const exit = await new Promise((done) => child.once('exit', done));
    process.stdout.write(text);
    health = exit === 0 ? text.split('\n').filter((l) => /^(PASS|FAIL) goal:/.test(l)) : null;
  }

  const issue26 = !opt['bare-only'] && !opt['no-issue26'] ? await runIssue26() : null;
  const issue27 = !opt['bare-only'] && !opt['no-issue27'] ? await runIssue26(ISSUE27_BENCHES) : null;

  const checks = [];
  const notes = [];
  for (const r of [...(issue26 ?? []), ...(issue27 ?? [])]) if (!r.ok) checks.push(`FAILED: ${r.script} did not finish`);
  // A goal missed is a figure to read, not a broken run: noted, as the script itself exits 0.
  if (policy) notes.push(...policy.map((l) => `bench/policy.mjs: ${l}`));
  else if (!opt['bare-only'] && !opt['no-policy']) checks.push('FAILED: bench/policy.mjs did not finish');
  if (health) notes.push(...health.map((l) => `bench/endpoint-health.mjs: ${l}`));
  else if (!opt['bare-only'] && !opt['no-health'] && !opt['no-webhooks']) checks.push('FAILED: bench/endpoint-health.mjs did not finish');
  if (functionRuns) notes.push(`bench/functions.js: ${functionRuns.replace(/\n\s*/g, '; ')}`);
  else if (!opt['bare-only'] && !opt['no-webhooks']) checks.push('FAILED: bench/functions.js did not finish');
  for (const c of [...(webhooks?.checks ?? []), ...(nodes ?? []).flatMap((r) => r.checks)]) (c.startsWith('FAILED') ? checks : notes).push(c);
  for (const r of [bare, bareCluster, gateway, gatewaySingle, gatewayPg].filter(Boolean)) {
    if (r.non2xx || r.errors || r.timeouts) {
      checks.push(`FAILED: ${r.label} had ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
    }
  }
  if (!opt['bare-only'] && !opt['no-webhooks']) await crashSection(opt, checks);
  const seconds = (performance.now() - started) / 1000;
  const section = render({ bare, bareCluster, gateway, gatewaySingle, gatewayPg, cold, webhooks, nodes, issue26, issue27, date, seconds, checks, notes });
  console.log(`\n${section.split('\n').slice(1, -1).join('\n')}\n`);
  if (!opt['no-write'] && !opt['bare-only']) {
    await writeReadme(section);
    console.log(`wrote ${path.relative(ROOT, README)}`);
  }
  if (checks.length) process.exitCode = 1;
}

// ---------------------------------------------------------------- crashes (issue 27 item 2)

const CRASH_START = '<!-- bench:crash:start -->';
const CRASH_END = '<!-- bench:crash:end -->';

/**
 * bench/crash-duplicates.mjs: duplicates after kill -9 against the attempts in
 * flight, failover of two nodes on PostgreSQL, deliveries through the public
 * API against the raw undici loop. Its own marked block of bench/README.md,
 * so the main section's layout stays the main section's.
 */
async function crashSection(opt, checks) {
  const { runCrashBench, renderCrash } = await import('./crash-duplicates.mjs');
  let r;
  try {
    r = await runCrashBench({ postgres: opt['no-postgres'] ? null : POSTGRES });
  } catch (err) {
    checks.push(`FAILED: bench/crash-duplicates.mjs: ${err.message}`);
    return;
  }
  for (const k of r.kills) {
    if (k.lost > 0) checks.push(`FAILED: crash: ${k.lost} deliveries lost after kill -9`);
    if (k.duplicates > k.leasedAtKill) checks.push(`FAILED: crash: ${k.duplicates} received twice, more than the ${k.leasedAtKill} in flight`);
  }
  const block = `${CRASH_START}\n${renderCrash(r).join('\n')}\n${CRASH_END}`;
  console.log(`\n${block}\n`);
  if (opt['no-write']) return;
  let text = await readFile(README, 'utf8');
  const a = text.indexOf(CRASH_START);
  const b = text.indexOf(CRASH_END);
  text = a !== -1 && b > a ? text.slice(0, a) + block + text.slice(b + CRASH_END.length) : `${text.trimEnd()}\n\n${block}\n`;
  await writeFile(README, text);
}

try {
  await main();
} catch (err) {
  if (!interrupted) console.error(`bench failed: ${err.message}`);
  process.exitCode = 1;
} finally {
  await stopAll();
}
