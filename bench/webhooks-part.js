// One part of the webhook benchmark, in a fresh process so that its timings
// and its RSS are its own. Started by bench/webhooks.js with fork():
//   node bench/webhooks-part.js <raw|engine|schedule> '<json options>'
// Sends {type: 'result', result} over IPC (or prints it when run by hand) and
// exits non-zero on failure. Always removes its temp directory; a PostgreSQL
// schema (engine part with `pg`) is named and dropped by the orchestrator, so
// it goes even when this process is killed.
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dist = (p) => import(new URL(`../dist/${p}`, import.meta.url).href);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const iso = (ms) => new Date(ms).toISOString();

export function percentile(values, q) {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

/** Samples process RSS every 100 ms; `mark()` starts a new phase whose peak is kept separately. */
function rssSampler() {
  const peaks = {};
  let phase = 'start';
  const sample = () => {
    const rss = process.memoryUsage().rss;
    peaks[phase] = Math.max(peaks[phase] ?? 0, rss);
  };
  sample();
  const timer = setInterval(sample, 100);
  return {
    mark(name) {
      sample();
      phase = name;
      sample();
    },
    stop() {
      sample();
      clearInterval(timer);
      return peaks;
    },
  };
}

function quietLog(counts) {
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (o, m) => {
      counts.warn++;
      if (counts.warn <= 3) console.error('warn:', m, JSON.stringify(o));
    },
    error: (o, m) => {
      counts.error++;
      if (counts.error <= 3) console.error('error:', m, o?.err?.stack ?? JSON.stringify(o));
    },
  };
}

/** The signing secret of every benchmark webhook: the engine and node rows sign alike. */
export const SECRET = 'whsec_' + Buffer.alloc(32, 7).toString('base64');

/** The event data of the i-th benchmark delivery. */
export const EVENT_DATA = (i) => ({ order: i, items: [{ sku: 'A-1', qty: 2 }] });

/**
 * `n` pending `bench.tick` deliveries of one webhook, due at `nextAttemptAt`
 * (ISO), through the Store interface. A few inserts in flight: on PostgreSQL
 * one at a time waits a commit flush each (~1 ms); SQLite serializes them
 * anyway. Fixtures: never timed.
 */
export async function insertDeliveries(store, webhookId, n, nextAttemptAt) {
  let next = 0;
  const inserter = async () => {
    while (next < n) {
      const i = next++;
      await store.createDelivery({
        webhookId,
        trigger: 'event',
        scheduledFor: null,
        event: 'bench.tick',
        eventData: EVENT_DATA(i),
        nextAttemptAt,
      });
    }
  };
  await Promise.all(Array.from({ length: 8 }, inserter));
}

// A ~200-byte body once rendered: about what the raw loop posts.
export const TEMPLATE = {
  source: 'switchyard-bench',
  event: '{{event}}',
  delivery: '{{delivery.id}}',
  timestamp: '{{timestamp}}',
  data: '{{data}}',
};

function webhookFields(targetUrl, overrides = {}) {
  return {
    name: 'bench',
    targetUrl,
    method: 'POST',
    headers: {},
    payloadTemplate: TEMPLATE,
    cron: null,
    timezone: 'UTC',
    mockEndpoint: null,
    events: [],
    enabled: true,
    // Signed, as most real webhooks are: one HMAC per attempt is part of the cost.
    secret: SECRET,
    retry: { maxAttempts: 8, scheduleS: null },
    timeoutMs: 15_000,
    nextFireAt: null,
    ...overrides,
  };
}

async function withTempDir(fn) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-wh-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The pipeline's engine with its webhook target, as server.ts builds them (`modules`: loadEngine's). */
function newEngine({ DeliveryEngine, WebhookTarget }, store, clock, counts, owner) {
  const log = quietLog(counts);
  const target = new WebhookTarget({
    store,
    clock,
    allowPrivateTargets: true,
    connections: 1000,
    fetchMock: async () => {
      throw new Error('the benchmark webhooks have no mock endpoint');
    },
    log,
  });
  return new DeliveryEngine({ store, clock, owner, targets: { webhook: target }, log });
}

const loadEngine = async () => {
  const [{ DeliveryEngine }, { WebhookTarget }] = await Promise.all([dist('deliveries/engine.js'), dist('webhooks/target.js')]);
  return { DeliveryEngine, WebhookTarget };
};

/** Polls until the store has no pending delivery; the time at which it saw 0. */
async function untilNoPending(store, deadline, every = 50) {
  for (;;) {
    if ((await store.countPendingDeliveries()) === 0) return performance.now();
    if (performance.now() > deadline) return null;
    await sleep(every);
  }
}

// ---------------------------------------------------------------- 1a: raw loop

async function raw({ url, count, concurrency, warmup }) {
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 60_000, pipelining: 1 });
  let failures = 0;
  let bodyBytes = 0;
  const run = async (n, offset) => {
    let next = 0;
    const worker = async () => {
      while (next < n) {
        const i = offset + next++;
        const body = JSON.stringify({
          source: 'switchyard-bench',
          event: 'bench.tick',
          delivery: `dlv_${i.toString(16).padStart(28, '0')}`,
          timestamp: new Date().toISOString(),
          data: { order: i, items: [{ sku: 'A-1', qty: 2 }], note: 'x'.repeat(16) },
        });
        bodyBytes = Buffer.byteLength(body);
        const res = await request(url, {
          dispatcher: agent,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        await res.body.text();
        if (res.statusCode !== 200) failures++;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  };
  try {
    await run(warmup, 0);
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    await run(count, warmup);
    const seconds = (performance.now() - t0) / 1000;
    // CPU of the sending loop alone (user + system), for CPU per delivery against the engine's (crash-duplicates.mjs).
    const cpu = process.cpuUsage(cpu0);
    return { count, seconds, perSecond: count / seconds, failures, bodyBytes, warmup, cpuUsPerSend: (cpu.user + cpu.system) / count };
  } finally {
    await agent.close();
  }
}

// ---------------------------------------------------------------- 1b: the delivery engine

/**
 * Read-only checks on what a part wrote, in SQL both databases accept. Values
 * come back as each driver hands them out (a timestamp is an ISO string from
 * SQLite, a Date from pg): callers go through `new Date(...)`.
 */
function sqliteInspector(file) {
  const db = new Database(file, { readonly: true });
  return { all: async (sql) => db.prepare(sql).all(), close: async () => db.close() };
}

async function pgInspector({ baseUrl, schema }) {
  const { schemaClient } = await import('./pg.js');
  const client = await schemaClient(baseUrl, schema);
  return { all: async (sql) => (await client.query(sql)).rows, close: () => client.end() };
}

/**
 * Fresh planner statistics for the backlog, as autovacuum keeps them on a live
 * database: a schema filled seconds ago has none, and PostgreSQL then plans
 * each claim as a sort of every due row instead of a walk of the due index.
 */
async function analyzeDeliveries({ baseUrl, schema }) {
  const { schemaClient } = await import('./pg.js');
  const client = await schemaClient(baseUrl, schema);
  try {
    await client.query('ANALYZE deliveries');
  } finally {
    await client.end();
  }
}

/**
 * The database a part measures: a temp SQLite file (removed afterwards), or
 * the fresh PostgreSQL schema the orchestrator named (and drops afterwards).
 */
async function benchDatabase(pgTarget, name) {
  if (pgTarget) {
    return {
      kind: 'postgres',
      url: pgTarget.url,
      inspect: () => pgInspector(pgTarget),
      settle: () => analyzeDeliveries(pgTarget),
      cleanup: async () => undefined,
    };
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-wh-'));
  const file = path.join(dir, `${name}.db`);
  return {
    kind: 'sqlite',
    url: `sqlite:${file}`,
    inspect: async () => sqliteInspector(file),
    settle: async () => undefined,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Checks that every delivery succeeded with exactly one attempt; returns figures read back from the store. */
async function engineOutcome(database, expected) {
  const db = await database.inspect();
  try {
    const rows = await db.all('SELECT status, CAST(COUNT(*) AS INTEGER) AS n FROM deliveries GROUP BY status');
    const statuses = Object.fromEntries(rows.map((r) => [r.status, r.n]));
    const [{ t: lastDone }] = await db.all('SELECT MAX(completed_at) AS t FROM deliveries');
    const [{ n: attempts }] = await db.all('SELECT CAST(COUNT(*) AS INTEGER) AS n FROM delivery_attempts');
    const [{ r: sample }] = await db.all('SELECT request_json AS r FROM deliveries LIMIT 1');
    if (statuses.succeeded !== expected || attempts !== expected) {
      throw new Error(`engine: expected ${expected} succeeded deliveries with one attempt each, got ${JSON.stringify(statuses)}, ${attempts} attempts`);
    }
    return { lastDoneMs: new Date(lastDone).getTime(), bodyBytes: Buffer.byteLength(JSON.parse(sample).body) };
  } finally {
    await db.close();
  }
}

/** `pg`: {baseUrl, schema, url} of a fresh PostgreSQL schema; absent for a temp SQLite file. */
async function engine({ url, count, warmup, timeoutS, pg = null }) {
  const [{ openStore }, engineModules, { systemClock }] = await Promise.all([
    dist('store/index.js'),
    loadEngine(),
    dist('clock.js'),
  ]);
  const database = await benchDatabase(pg, 'engine');
  try {
    const store = await openStore(database.url);
    const counts = { warn: 0, error: 0 };
    try {
      const webhook = await store.createWebhook(webhookFields(url, { events: ['bench.tick'] }));
      const insert = (n) => insertDeliveries(store, webhook.id, n, iso(Date.now()));

      // Warm-up with a throwaway engine (JIT, connections of the receiver), not timed.
      await insert(warmup);
      const warm = newEngine(engineModules, store, systemClock, counts, 'bench-warmup');
      warm.start();
      if ((await untilNoPending(store, performance.now() + timeoutS * 1000)) === null) {
        throw new Error(`warm-up: ${warmup} deliveries not done within ${timeoutS} s`);
      }
      await warm.stop(1000);

      const insertStarted = performance.now();
      await insert(count);
      const insertSeconds = (performance.now() - insertStarted) / 1000;
      await database.settle();

      const measured = newEngine(engineModules, store, systemClock, counts, 'bench');
      const startedWall = Date.now();
      const t0 = performance.now();
      measured.start();
      const t1 = await untilNoPending(store, t0 + timeoutS * 1000);
      await measured.stop(5000);
      if (t1 === null) throw new Error(`engine: ${count} deliveries not done within ${timeoutS} s`);
      const seconds = (t1 - t0) / 1000;

      const { lastDoneMs, bodyBytes } = await engineOutcome(database, warmup + count);
      // The poll adds up to 50 ms; the last completion time is the exact end.
      const exactSeconds = (lastDoneMs - startedWall) / 1000;
      return {
        store: database.kind,
        count,
        seconds,
        perSecond: count / seconds,
        exactSeconds,
        exactPerSecond: count / exactSeconds,
        insertSeconds,
        bodyBytes,
        warmup,
        warnings: counts.warn,
        errors: counts.error,
      };
    } finally {
      await store.close();
    }
  } finally {
    await database.cleanup();
  }
}

// ---------------------------------------------------------------- 2: one minute, many webhooks

async function schedule({ url, count, leadMs, cutoffS }) {
  const [{ openStore }, engineModules, { systemClock }, { Scheduler }] = await Promise.all([
    dist('store/index.js'),
    loadEngine(),
    dist('clock.js'),
    dist('scheduler/scheduler.js'),
  ]);
  const rss = rssSampler();
  return withTempDir(async (dir) => {
    const file = path.join(dir, 'schedule.db');
    const store = await openStore(`sqlite:${file}`);
    const counts = { warn: 0, error: 0 };
    let scheduler = null;
    let engineInstance = null;
    try {
      rss.mark('load');
      // Placeholder slot far ahead; moved to the real one right before the run (see below).
      const placeholder = iso(Date.now() + 3_600_000);
      const loadStarted = performance.now();
      for (let i = 0; i < count; i++) {
        await store.createWebhook(webhookFields(url, { name: `bench ${i}`, cron: '* * * * *', nextFireAt: placeholder }));
      }
      const loadSeconds = (performance.now() - loadStarted) / 1000;

      // The load takes seconds, so the common slot T is set once it is done, in one
      // statement on a second connection (fixture only, not measured): T = now + lead.
      // The slot is deliberately not a minute boundary, so that everything below runs
      // on the real clock: the scheduler fires a slot when it is due, whatever its
      // second, and records it as the delivery's scheduled_for.
      const T = Date.now() + leadMs;
      const fixture = new Database(file);
      try {
        fixture.pragma('busy_timeout = 5000');
        fixture.prepare('UPDATE webhooks SET next_fire_at = ?').run(iso(T));
      } finally {
        fixture.close();
      }

      let claimed = 0;
      let claimedAllAt = null;
      let resolveClaimed;
      const allClaimed = new Promise((r) => (resolveClaimed = r));
      engineInstance = newEngine(engineModules, store, systemClock, counts, 'bench');
      scheduler = new Scheduler({
        store,
        clock: systemClock,
        log: quietLog(counts),
        onClaimed: () => {
          claimed++;
          engineInstance.wake();
          if (claimed === count) {
            claimedAllAt = Date.now();
            resolveClaimed();
          }
        },
      });
      engineInstance.start();
      scheduler.start();
      rss.mark('fire');

      const cutoffAt = T + cutoffS * 1000;
      const cutoff = sleep(Math.max(0, cutoffAt - Date.now())).then(() => 'cutoff');
      if ((await Promise.race([allClaimed.then(() => 'claimed'), cutoff])) === 'claimed') {
        // Every webhook fired once; the next slot is the next minute, which must not fire here.
        await scheduler.stop();
      }
      let doneAt = null;
      for (;;) {
        if (claimed >= count && (await store.countPendingDeliveries()) === 0) {
          doneAt = Date.now();
          break;
        }
        if (Date.now() > cutoffAt) break;
        await sleep(100);
      }
      await scheduler.stop();
      await engineInstance.stop(2000);
      const peaks = rss.stop();

      const db = new Database(file, { readonly: true });
      try {
        const started = db
          .prepare('SELECT started_at FROM delivery_attempts WHERE attempt = 1')
          .pluck()
          .all()
          .map((s) => Date.parse(s) - T);
        const deliveries = db.prepare('SELECT COUNT(*) FROM deliveries').pluck().get();
        const succeeded = db.prepare(`SELECT COUNT(*) FROM deliveries WHERE status = 'succeeded'`).pluck().get();
        const slots = db.prepare('SELECT COUNT(DISTINCT scheduled_for) FROM deliveries').pluck().get();
        const complete = doneAt !== null;
        if (complete && (deliveries !== count || succeeded !== count || started.length !== count)) {
          throw new Error(`schedule: expected ${count} deliveries, all succeeded, got ${deliveries} (${succeeded} succeeded, ${started.length} attempted)`);
        }
        const mb = (b) => (b === undefined ? null : Math.round(b / 2 ** 20));
        return {
          count,
          loadSeconds,
          loadPerSecond: count / loadSeconds,
          claimed,
          claimSeconds: claimedAllAt === null ? null : (claimedAllAt - T) / 1000,
          complete,
          cutoffS,
          deliveries,
          succeeded,
          attempted: started.length,
          distinctSlots: slots,
          allDoneSeconds: complete ? (doneAt - T) / 1000 : null,
          deliveredPerSecond: complete ? count / ((doneAt - T) / 1000) : null,
          lateness: {
            p50: percentile(started, 0.5),
            p99: percentile(started, 0.99),
            max: started.length ? Math.max(...started) : null,
          },
          rssMb: { start: mb(peaks.start), load: mb(peaks.load), fire: mb(peaks.fire) },
          warnings: counts.warn,
          errors: counts.error,
        };
      } finally {
        db.close();
      }
    } finally {
      rss.stop();
      await scheduler?.stop();
      await engineInstance?.stop(0);
      await store.close();
    }
  });
}

// ---------------------------------------------------------------- main

const PARTS = { raw, engine, schedule };

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [part, json = '{}'] = process.argv.slice(2);
  const fn = PARTS[part];
  try {
    if (!fn) throw new Error(`usage: node bench/webhooks-part.js <${Object.keys(PARTS).join('|')}> '<json options>'`);
    const result = await fn(JSON.parse(json));
    if (process.send) process.send({ type: 'result', result });
    else console.log(JSON.stringify(result, null, 2));
    process.exitCode = 0;
  } catch (err) {
    console.error(`bench part ${part} failed: ${err.stack ?? err}`);
    process.send?.({ type: 'error', message: String(err.message ?? err) });
    process.exitCode = 1;
  }
  // Nothing may hold the process open once the result is out (a stray socket or timer).
  process.disconnect?.();
  setTimeout(() => process.exit(process.exitCode), 200).unref();
}

export { ROOT };
