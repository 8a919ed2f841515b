// Webhook delivery benchmark, part of `npm run bench` and runnable alone:
//   node bench/webhooks.js [--deliveries 10000] [--webhooks 100000] [--cutoff 90] [--json]
//                          [--no-postgres] [--postgres-url postgres://...] [--schedule-only]
// (needs `npm run build` first). A keep-alive node:http receiver runs in its
// own process (bench/receiver.js); each measured part runs in a fresh process
// (bench/webhooks-part.js) so its timings and RSS are its own:
//   1a. raw: undici `request`, 50-connection keep-alive Agent, concurrency 50;
//   1b. engine: Switchyard's DeliveryEngine on a temp SQLite store, N pending deliveries;
//   1c. the same on PostgreSQL, in a fresh schema dropped afterwards (unless --no-postgres);
//   2.  schedule: many cron webhooks due in the same slot, Scheduler + DeliveryEngine
//       (`--schedule-only` runs this part alone).
// Standalone it prints the figures (and writes nothing); bench/run.js puts
// them in bench/README.md.
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { assertPostgres, DEFAULT_PG_URL, dropAllSchemas, dropSchema, freshSchema } from './pg.js';
import { stopGracefully } from './processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PART = path.join(ROOT, 'bench', 'webhooks-part.js');
const RECEIVER = path.join(ROOT, 'bench', 'receiver.js');

export const WEBHOOK_DEFAULTS = {
  deliveries: 10_000,
  webhooks: 100_000,
  cutoff: 90,
  warmup: 2_000,
  concurrency: 50,
  postgres: null,
  scheduleOnly: false,
};

const round = (n, d = 2) => (n === null || n === undefined ? null : Math.round(n * 10 ** d) / 10 ** d);

/** Children started here, so an error or Ctrl-C in the middle never leaves one behind. */
const children = new Set();
process.on('exit', killChildren);

/** SIGKILLs every helper still running (an interrupted run, before its schemas are dropped). */
export function killChildren() {
  for (const child of children) child.kill('SIGKILL');
}

/** Forks a bench helper (receiver, part); its output is kept for error messages. */
export function start(file, args, label) {
  const child = fork(file, args, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  children.add(child);
  let tail = '';
  const keep = (chunk) => {
    tail = (tail + chunk.toString()).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  exited.then(() => children.delete(child));
  return { child, label, exited, tail: () => tail };
}

/** SIGTERM, SIGKILL after 5 s (a forked helper leads no process group). */
export const stop = (proc) => stopGracefully(proc, 5000);

/** The next IPC message of `type` from `proc`; rejects on its 'error' message, its exit, or the timeout. */
export function message(proc, type, timeoutMs) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${proc.label}: no '${type}' within ${timeoutMs / 1000} s. Output:\n${proc.tail()}`));
    }, timeoutMs);
    const onMessage = (m) => {
      if (m?.type === type) {
        cleanup();
        resolve(m);
      } else if (m?.type === 'error') {
        cleanup();
        reject(new Error(`${proc.label}: ${m.message}\n${proc.tail()}`));
      }
    };
    const onExit = (code) => {
      cleanup();
      reject(new Error(`${proc.label} exited (${code}) before '${type}'. Output:\n${proc.tail()}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      proc.child.off('message', onMessage);
      proc.child.off('exit', onExit);
    };
    proc.child.on('message', onMessage);
    proc.child.once('exit', onExit);
  });
}

async function receivedSoFar(receiver) {
  receiver.child.send({ type: 'count' });
  return (await message(receiver, 'count', 5000)).received;
}

/** Runs one part in a fresh process; kills it past `timeoutS`. */
async function part(name, opts, timeoutS) {
  const proc = start(PART, [name, JSON.stringify(opts)], `bench part '${name}'`);
  try {
    const { result } = await message(proc, 'result', timeoutS * 1000);
    const code = await proc.exited;
    if (code !== 0) throw new Error(`${proc.label} exited with ${code}. Output:\n${proc.tail()}`);
    return result;
  } finally {
    await stop(proc);
  }
}

/** The engine part on a fresh PostgreSQL schema, dropped whatever happens. */
async function enginePostgres(baseUrl, opts) {
  const { schema, url } = freshSchema(baseUrl, 'engine');
  try {
    return await part('engine', { ...opts, pg: { baseUrl, schema, url } }, 300);
  } finally {
    await dropSchema(baseUrl, schema);
  }
}

/**
 * Runs every part once against one receiver. `options.postgres` is the base
 * URL of the PostgreSQL to measure the engine on as well (null: SQLite only).
 * Returns the figures and a list of failed checks (empty when all went as expected).
 */
export async function runWebhookBench(options = {}, log = console.log) {
  const o = { ...WEBHOOK_DEFAULTS, ...options };
  if (!existsSync(path.join(ROOT, 'dist', 'deliveries', 'engine.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first (npm run bench does)');
  }
  const receiver = start(RECEIVER, [], 'webhook receiver');
  const checks = [];
  try {
    const { port } = await message(receiver, 'listening', 10_000);
    const url = `http://127.0.0.1:${port}/hooks/bench`;
    const expectReceived = async (label, before, expected) => {
      const got = (await receivedSoFar(receiver)) - before;
      if (got !== expected) checks.push(`FAILED: ${label}: the receiver got ${got} requests, expected ${expected}`);
    };

    let raw = null;
    let engine = null;
    let enginePg = null;
    let before;
    if (!o.scheduleOnly) {
      log(`webhooks 1a: raw undici loop, ${o.deliveries} posts (after ${o.warmup} warm-up), concurrency ${o.concurrency}`);
      before = await receivedSoFar(receiver);
      raw = await part('raw', { url, count: o.deliveries, concurrency: o.concurrency, warmup: o.warmup }, 120);
      await expectReceived('raw loop', before, o.warmup + o.deliveries);
      if (raw.failures) checks.push(`FAILED: raw loop: ${raw.failures} non-200 answers`);

      log(`webhooks 1b: delivery engine, ${o.deliveries} pending deliveries (after ${o.warmup} warm-up)`);
      before = await receivedSoFar(receiver);
      engine = await part('engine', { url, count: o.deliveries, warmup: o.warmup, timeoutS: 120 }, 300);
      await expectReceived('engine', before, o.warmup + o.deliveries);
      if (engine.errors) checks.push(`FAILED: engine logged ${engine.errors} errors`);

      if (o.postgres) {
        log(`webhooks 1c: delivery engine on PostgreSQL, ${o.deliveries} pending deliveries (after ${o.warmup} warm-up)`);
        before = await receivedSoFar(receiver);
        enginePg = await enginePostgres(o.postgres, { url, count: o.deliveries, warmup: o.warmup, timeoutS: 120 });
        await expectReceived('engine on PostgreSQL', before, o.warmup + o.deliveries);
        if (enginePg.errors) checks.push(`FAILED: engine on PostgreSQL logged ${enginePg.errors} errors`);
      }
    }

    log(`webhooks 2: ${o.webhooks} webhooks due in the same slot (cut-off ${o.cutoff} s after the slot)`);
    before = await receivedSoFar(receiver);
    const schedule = await part('schedule', { url, count: o.webhooks, leadMs: 3000, cutoffS: o.cutoff }, o.cutoff + 600);
    await expectReceived('schedule', before, schedule.attempted);
    if (schedule.errors) checks.push(`FAILED: scheduler/engine logged ${schedule.errors} errors`);
    if (schedule.claimed !== o.webhooks) checks.push(`NOTE: only ${schedule.claimed} of ${o.webhooks} slots claimed before the cut-off`);

    return { options: o, raw, engine, enginePg, ratio: engine ? engine.perSecond / raw.perSecond : null, schedule, checks };
  } finally {
    await stop(receiver);
  }
}

const ms = (v) => (v === null ? 'n/a' : `${Math.round(v)} ms`);
const s = (v) => (v === null ? 'n/a' : `${round(v, 2)} s`);

/** Markdown lines for bench/README.md. */
export function renderWebhooks(r) {
  return [...renderDeliveries(r), ...renderSchedule(r.schedule)];
}

function renderDeliveries(r) {
  const { options: o, raw, engine, enginePg } = r;
  return [
    '',
    '### Webhook deliveries',
    '',
    `Receiver: a keep-alive \`node:http\` server in its own process answering 200 at once. ${o.warmup} warm-up deliveries before each timed run.`,
    '',
    '| sender | deliveries | seconds | deliveries/s |',
    '|---|---|---|---|',
    `| raw loop: undici \`request\`, ${o.concurrency}-connection keep-alive Agent, concurrency ${o.concurrency}, ${raw.bodyBytes} B JSON | ${raw.count} | ${round(raw.seconds)} | ${Math.round(raw.perSecond)} |`,
    `| Switchyard DeliveryEngine, SQLite (WAL), one signed webhook, ${engine.bodyBytes} B rendered body | ${engine.count} | ${round(engine.seconds)} | ${Math.round(engine.perSecond)} |`,
    ...(enginePg
      ? [
          `| Switchyard DeliveryEngine, PostgreSQL (local, fresh schema, pool 10), same webhook and body | ${enginePg.count} | ${round(enginePg.seconds)} | ${Math.round(enginePg.perSecond)} |`,
        ]
      : []),
    '',
    `**Engine / raw: ${round(r.ratio)}** (target >= 0.5)${enginePg ? `; **PostgreSQL engine / raw: ${round(enginePg.perSecond / raw.perSecond)}**, PostgreSQL / SQLite: ${round(enginePg.perSecond / engine.perSecond)}` : ''}. Engine time runs from \`start()\` with all ${engine.count} deliveries due until \`countPendingDeliveries()\` reads 0 (polled every 50 ms; the last \`completed_at\` gives ${Math.round(engine.exactPerSecond)}/s${enginePg ? ` on SQLite, ${Math.round(enginePg.exactPerSecond)}/s on PostgreSQL` : ''}). Inserting them (\`createDelivery\`, not timed) took ${round(engine.insertSeconds)} s${enginePg ? ` on SQLite, ${round(enginePg.insertSeconds)} s on PostgreSQL` : ''}.`,
  ];
}

function renderSchedule(sc) {
  return [
    '',
    `### ${sc.count.toLocaleString('en-US')} cron webhooks due in the same slot`,
    '',
    '| measure | value |',
    '|---|---|',
    `| load: ${sc.count} \`createWebhook\` calls | ${round(sc.loadSeconds)} s (${Math.round(sc.loadPerSecond)}/s) |`,
    `| slot -> all ${sc.count} slots claimed (scheduler) | ${sc.claimSeconds === null ? `not all: ${sc.claimed} claimed in ${sc.cutoffS} s` : s(sc.claimSeconds)} |`,
    `| slot -> all delivered | ${sc.complete ? `${s(sc.allDoneSeconds)} (${Math.round(sc.deliveredPerSecond)} deliveries/s)` : `cut off at ${sc.cutoffS} s: ${sc.attempted} of ${sc.count} attempted`} |`,
    `| first-attempt lateness p50 / p99 / max${sc.complete ? '' : ` (of the ${sc.attempted} attempted)`} | ${ms(sc.lateness.p50)} / ${ms(sc.lateness.p99)} / ${ms(sc.lateness.max)} (target p99 <= 1 s) |`,
    `| RSS peak: before load / during load / slot to done | ${sc.rssMb.start} / ${sc.rssMb.load} / ${sc.rssMb.fire} MB (target <= 300 MB) |`,
  ];
}

// ---------------------------------------------------------------- standalone

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      deliveries: { type: 'string', default: String(WEBHOOK_DEFAULTS.deliveries) },
      webhooks: { type: 'string', default: String(WEBHOOK_DEFAULTS.webhooks) },
      cutoff: { type: 'string', default: String(WEBHOOK_DEFAULTS.cutoff) },
      json: { type: 'boolean', default: false },
      'no-postgres': { type: 'boolean', default: false },
      'postgres-url': { type: 'string', default: DEFAULT_PG_URL },
      'schedule-only': { type: 'boolean', default: false },
    },
  });
  const num = (name) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number >= 1, got "${values[name]}"`);
    return n;
  };
  const stopAll = () => {
    for (const child of children) child.kill('SIGKILL');
  };
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      stopAll();
      dropAllSchemas().finally(() => process.exit(130));
    });
  }
  try {
    const scheduleOnly = values['schedule-only'];
    const postgres = values['no-postgres'] || scheduleOnly ? null : values['postgres-url'];
    if (postgres) await assertPostgres(postgres);
    const r = await runWebhookBench({ deliveries: num('deliveries'), webhooks: num('webhooks'), cutoff: num('cutoff'), postgres, scheduleOnly });
    const text = scheduleOnly ? renderSchedule(r.schedule) : renderWebhooks(r);
    console.log(values.json ? JSON.stringify(r, null, 2) : text.join('\n'));
    for (const c of r.checks) console.log(c);
    if (r.checks.some((c) => c.startsWith('FAILED'))) process.exitCode = 1;
  } catch (err) {
    console.error(`webhook bench failed: ${err.stack ?? err.message}`);
    process.exitCode = 1;
  } finally {
    stopAll();
  }
}
