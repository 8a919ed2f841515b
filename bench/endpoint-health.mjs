// `node bench/endpoint-health.mjs`: endpoint health's goals, measured against
// real Switchyard processes (SQLite) and a real receiver (bench/receiver.js).
// A benchmark, not a test: it prints what it measured and PASS or FAIL per
// goal, and exits 0 whatever the figures (non-zero only when it could not
// measure). Needs `npm run build` first.
//
//   lost     A target down (its port refuses connections) for the whole of a
//            run of --deliveries (200,000) deliveries, then up: every delivery
//            must arrive (counted by webhook-id at the receiver), none twice,
//            the held ones released in publish order (the order of their
//            first arrival against their ids, which follow publish order;
//            attempts in flight at once, up to a webhook's share of 500, may
//            overtake each other on the wire),
//            and the first held delivery must leave within 5 s of the breaker
//            closing (its probe succeeding).
//   release  A disabled webhook holding --held (10,000) deliveries, enabled
//            again: the first must leave within 5 s of the answer.
//   dead     A target dead for 60 minutes, on the hand-moved test clock (a
//            delivery published every 10 s of it): after its first 10 minutes
//            it must cost at most one attempt a minute.
//   rate     A webhook's rate limit at 10, 100 and 1000 per second (--rates),
//            two nodes of two processes each on one SQLite file, a backlog of
//            --rate-seconds (15) of sends released at once: at most 2 % over
//            the limit in any 10 s window, measured at the receiver.
//
// Options: --parts lost,release,dead,rate  --deliveries 200000  --held 10000
//          --rates 10,100,1000  --rate-seconds 15  --json <file>
import { fork, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openStore } from '../dist/store/index.js';
import { call, freePort } from './nodes.js';
import { killGroup, stopGracefully } from './processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'dist', 'cli.js');
const RECEIVER = path.join(ROOT, 'bench', 'receiver.js');
const { values: opt } = parseArgs({
  options: {
    parts: { type: 'string', default: 'lost,release,dead,rate' },
    deliveries: { type: 'string', default: '200000' },
    held: { type: 'string', default: '10000' },
    rates: { type: 'string', default: '10,100,1000' },
    'rate-seconds': { type: 'string', default: '15' },
    json: { type: 'string' },
  },
});
const parts = new Set(opt.parts.split(','));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (n, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const results = { machine: `${os.availableParallelism()} cores, Node ${process.versions.node}`, startedAt: new Date().toISOString() };
const goals = [];
const goal = (ok, text) => {
  goals.push(`${ok ? 'PASS' : 'FAIL'} goal: ${text}`);
  console.log(`${ok ? 'PASS' : 'FAIL'} goal: ${text}`);
};

// ---------------------------------------------------------------- processes

const running = new Set();
process.on('exit', () => {
  for (const p of running) killGroup(p, 'SIGKILL');
});

/**
 * A gateway (`node dist/cli.js`) on a temp or given SQLite file; resolves once
 * /healthz answers. `nice`: at a lower CPU priority than the receiver, which is
 * the instrument: on two shared cores a receiver starved for a moment stamps a
 * clump of arrivals at once, which reads as a burst the limiter never sent.
 */
async function gateway({ dbUrl, processes = 1, env = {}, nice = false }) {
  const port = await freePort();
  const childEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: dbUrl,
    LOG_LEVEL: 'warn',
    SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1',
    SWITCHYARD_PROCESSES: String(processes),
    ...env,
  };
  for (const name of ['SWITCHYARD_ADMIN_KEY', 'SWITCHYARD_DEMO']) delete childEnv[name];
  const [command, args] = nice ? ['nice', ['-n', '10', process.execPath, CLI]] : [process.execPath, [CLI]];
  const child = spawn(command, args, { cwd: ROOT, env: childEnv, stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  const entry = { child, group: true };
  running.add(entry);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if ((await fetch(`${base}/healthz`).then((r) => r.status, () => 0)) === 200) break;
    if (i > 600) throw new Error('a gateway did not start');
    await sleep(100);
  }
  return {
    base,
    async stop() {
      await stopGracefully(entry, 15_000);
      running.delete(entry);
    },
  };
}

/** bench/receiver.js in its own process; `port` to come up where a webhook already points. */
async function receiver(args = [], port = 0) {
  const child = fork(RECEIVER, ['--track-ids', ...args, ...(port ? ['--port', String(port)] : [])], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const listening = await new Promise((resolve, reject) => {
    child.once('message', (m) => (m.type === 'listening' ? resolve(m.port) : reject(new Error('receiver did not listen'))));
    child.once('exit', (code) => reject(new Error(`receiver exited ${code}`)));
  });
  const ask = (type) =>
    new Promise((resolve) => {
      const on = (m) => {
        if (m.type !== type) return;
        child.off('message', on);
        resolve(m);
      };
      child.on('message', on);
      child.send({ type });
    });
  return { port: listening, url: `http://127.0.0.1:${listening}`, ask, stop: () => child.kill('SIGTERM') };
}

function tempDb() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-health-bench-'));
  return { url: `sqlite:${path.join(dir, 'bench.db')}`, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const webhookBody = (name, targetUrl, extra = {}) => ({
  name,
  target_url: targetUrl,
  method: 'POST',
  payload_template: { n: '{{data.n}}', delivery: '{{delivery.id}}' },
  events: [`${name}.tick`],
  ...extra,
});

/** Writes `n` held deliveries of a webhook straight into the store (publishing 200,000 events over HTTP takes minutes here). */
async function insertHeld(dbUrl, webhookId, n, event) {
  const store = await openStore(dbUrl);
  try {
    const at = new Date().toISOString();
    for (let i = 0; i < n; i++) {
      await store.createDelivery({ webhookId, trigger: 'event', scheduledFor: null, event, eventData: { n: i }, nextAttemptAt: at, held: true });
    }
  } finally {
    await store.close();
  }
}

/** How far arrivals stray from publish order: ids are made in publish order, so their sorted order is it. */
function orderOf(ids) {
  const rank = new Map([...ids].sort().map((id, i) => [id, i]));
  let maxShift = 0;
  let inOrder = 0;
  ids.forEach((id, i) => {
    maxShift = Math.max(maxShift, Math.abs(rank.get(id) - i));
    if (i > 0 && rank.get(id) > rank.get(ids[i - 1])) inOrder++;
  });
  return { maxShift, inOrderPairs: ids.length > 1 ? inOrder / (ids.length - 1) : 1 };
}

async function health(base, id) {
  return (await call(base, 'GET', `/api/webhooks/${id}`)).health;
}

// ---------------------------------------------------------------- parts

async function lost() {
  const n = Number(opt.deliveries);
  const db = tempDb();
  const gw = await gateway({ dbUrl: db.url });
  const downPort = await freePort();
  try {
    const hook = await call(gw.base, 'POST', '/api/webhooks', webhookBody('down', `http://127.0.0.1:${downPort}/in`), [201]);
    const started = Date.now();
    // The outage: what is published fails until the breaker opens, then is held.
    for (let i = 0; i < 100; i++) await call(gw.base, 'POST', '/api/events', { event: 'down.tick', data: { n: i } }, [202]);
    const published = Date.now();
    const opened = await (async () => {
      for (;;) {
        const h = await health(gw.base, hook.id);
        if (h.state !== 'closed') return h;
        await sleep(200);
      }
    })();
    const openedAt = Date.now();
    await insertHeld(db.url, hook.id, n - 100, 'down.tick');
    const h = await health(gw.base, hook.id);
    console.log(`  lost: 100 events published in ${round((published - started) / 1000)} s, the breaker ${opened.state} ${round((openedAt - published) / 1000)} s later; ${h.held} held of ${n} once written`);
    // Up again where the webhook points; the next probe closes the breaker.
    const rx = await receiver([], downPort);
    let closedAt = null;
    for (;;) {
      const now = await health(gw.base, hook.id);
      if (now.state === 'closed') {
        closedAt = Date.now();
        break;
      }
      await sleep(100);
    }
    const firstAfterClose = await (async () => {
      for (;;) {
        const s = (await rx.ask('stats')).unique;
        if (s > 1) return Date.now();
        await sleep(20);
      }
    })();
    const deadline = Date.now() + 30 * 60_000;
    for (;;) {
      const s = await rx.ask('stats');
      if (s.unique >= n || Date.now() > deadline) break;
      await sleep(500);
    }
    const stats = await rx.ask('stats');
    const { ids } = await rx.ask('ids');
    // The probe and any attempt before the breaker opened left first: the order of the rest is the release's.
    const order = orderOf(ids.slice(1));
    const took = (Date.now() - closedAt) / 1000;
    rx.stop();
    results.lost = {
      deliveries: n,
      received: stats.unique,
      duplicates: stats.duplicates,
      lost: n - stats.unique,
      heldAtPeak: h.held,
      firstReleasedAfterCloseS: round((firstAfterClose - closedAt) / 1000, 2),
      drainS: round(took),
      perSecond: Math.round(n / took),
      maxShift: order.maxShift,
      inOrderPairs: round(order.inOrderPairs * 100, 2),
    };
    console.log('  lost:', results.lost);
    goal(stats.unique === n && stats.duplicates === 0, `nothing lost with the target down for the whole run: ${stats.unique} of ${n} arrived, ${stats.duplicates} twice`);
    // Released and claimed in publish order; what overtakes on the wire is what is in flight at once,
    // at most a webhook's largest share of a node's attempts (500, src/deliveries/concurrency-limit.ts).
    goal(
      order.maxShift <= 500,
      `held deliveries released in publish order: ${results.lost.inOrderPairs} % of neighbours arrived in order, none more than ${order.maxShift} places from its own (at most 500: attempts in flight at once overtake each other)`,
    );
    goal(results.lost.firstReleasedAfterCloseS <= 5, `the first held delivery left ${results.lost.firstReleasedAfterCloseS} s after the breaker closed (at most 5 s)`);
  } finally {
    await gw.stop();
    db.remove();
  }
}

async function release() {
  const n = Number(opt.held);
  const db = tempDb();
  const gw = await gateway({ dbUrl: db.url });
  const rx = await receiver();
  try {
    const hook = await call(gw.base, 'POST', '/api/webhooks', webhookBody('off', `${rx.url}/in`, { enabled: false }), [201]);
    await insertHeld(db.url, hook.id, n, 'off.tick');
    const asked = Date.now();
    await call(gw.base, 'PUT', `/api/webhooks/${hook.id}`, { enabled: true });
    const answered = Date.now();
    for (;;) {
      if ((await rx.ask('stats')).unique > 0) break;
      await sleep(10);
    }
    const first = Date.now();
    for (;;) {
      if ((await rx.ask('stats')).unique >= n) break;
      await sleep(200);
    }
    const all = Date.now();
    results.release = { held: n, answerMs: answered - asked, firstAfterAnswerS: round((first - answered) / 1000, 2), allS: round((all - answered) / 1000) };
    console.log('  release:', results.release);
    goal(results.release.firstAfterAnswerS <= 5, `re-enabled with ${n} held, the first left ${results.release.firstAfterAnswerS} s after the answer (at most 5 s)`);
  } finally {
    rx.stop();
    await gw.stop();
    db.remove();
  }
}

async function dead() {
  const db = tempDb();
  const gw = await gateway({ dbUrl: db.url, env: { SWITCHYARD_TEST_HOOKS: '1' } });
  const downPort = await freePort();
  const rx = await receiver([], 0);
  try {
    // The attempts are counted by the store (each one's start on the test clock): the dead port keeps no list.
    const hook = await call(gw.base, 'POST', '/api/webhooks', webhookBody('dead', `http://127.0.0.1:${downPort}/in`), [201]);
    const start = Date.parse((await call(gw.base, 'GET', '/api/_test/clock')).now);
    for (let s = 0; s < 3600; s += 10) {
      await call(gw.base, 'POST', '/api/events', { event: 'dead.tick', data: { n: s } }, [202]);
      await call(gw.base, 'PUT', '/api/_test/clock', { advance_ms: 10_000 });
      await sleep(15);
    }
    await sleep(1500);
    const attempts = [];
    let after;
    for (;;) {
      const page = await call(gw.base, 'GET', `/api/webhooks/${hook.id}/deliveries?limit=100${after ? `&after=${after}` : ''}`);
      for (const d of page) for (const a of d.attempts) attempts.push(Date.parse(a.started_at) - start);
      if (page.length < 100) break;
      after = page[page.length - 1].id;
    }
    const perMinute = Array.from({ length: 60 }, (_, m) => attempts.filter((t) => t >= m * 60_000 && t < (m + 1) * 60_000).length);
    const late = perMinute.slice(10);
    const h = await health(gw.base, hook.id);
    results.dead = { attempts: attempts.length, firstTenMinutes: perMinute.slice(0, 10), worstMinuteAfterTen: Math.max(...late), afterTen: late.reduce((a, b) => a + b, 0), held: h.held, state: h.state };
    console.log('  dead:', results.dead);
    goal(results.dead.worstMinuteAfterTen <= 1, `a dead target after its first 10 minutes: at most ${results.dead.worstMinuteAfterTen} attempt(s) in any minute (at most 1), ${results.dead.afterTen} in 50 minutes`);
  } finally {
    rx.stop();
    await gw.stop();
    db.remove();
  }
}

async function rate() {
  const seconds = Number(opt['rate-seconds']);
  results.rate = [];
  for (const perSecond of opt.rates.split(',').map(Number)) {
    const db = tempDb();
    const nodes = [await gateway({ dbUrl: db.url, processes: 2, nice: true }), await gateway({ dbUrl: db.url, processes: 2, nice: true })];
    const rx = await receiver(['--times']);
    try {
      const n = perSecond * seconds;
      const hook = await call(nodes[0].base, 'POST', '/api/webhooks', webhookBody(`rate${perSecond}`, `${rx.url}/in`, { enabled: false, rate_limit: { per_second: perSecond } }), [201]);
      await insertHeld(db.url, hook.id, n, `rate${perSecond}.tick`);
      await call(nodes[1].base, 'PUT', `/api/webhooks/${hook.id}`, { enabled: true });
      const deadline = Date.now() + (seconds * 4 + 60) * 1000;
      for (;;) {
        if ((await rx.ask('stats')).unique >= n || Date.now() > deadline) break;
        await sleep(250);
      }
      const { times } = await rx.ask('times');
      times.sort((a, b) => a - b);
      const burst = hook.rate_limit.burst;
      // How clumped the arrivals are: the busiest tenth of a second against a tenth of the rate.
      let clump = 0;
      for (let i = 0, j = 0; i < times.length; i++) {
        while (j < times.length && times[j] < times[i] + 100) j++;
        clump = Math.max(clump, j - i);
      }
      // The most in any 10 s window starting at an arrival, against what the bucket allows in 10 s.
      let most = 0;
      for (let i = 0, j = 0; i < times.length; i++) {
        while (j < times.length && times[j] < times[i] + 10_000) j++;
        most = Math.max(most, j - i);
      }
      const spanS = (times.at(-1) - times[0]) / 1000;
      const windowed = spanS >= 10;
      const allowed = perSecond * 10;
      const over = ((most - allowed) / allowed) * 100;
      const row = {
        perSecond,
        burst,
        deliveries: n,
        received: times.length,
        spanS: round(spanS),
        mostIn10s: most,
        allowedIn10s: allowed,
        overPercent: round(over, 2),
        measuredRate: round(times.length / spanS, 1),
        mostIn100ms: clump,
        // Arrivals long after the rate allowed them (a delivery whose lease ran out before it was sent).
        late: times.filter((t) => t > times[0] + ((n / perSecond) * 1.5 + 5) * 1000).length,
      };
      results.rate.push(row);
      if (process.env.BENCH_DUMP_TIMES) writeFileSync(`${process.env.BENCH_DUMP_TIMES}-${perSecond}.json`, JSON.stringify(times));
      console.log('  rate:', row);
      goal(windowed && over <= 2, `rate limit ${perSecond}/s on 2 nodes x 2 processes: ${most} in the busiest 10 s (${allowed} allowed, ${round(over, 2)} % over; at most 2 %)`);
    } finally {
      rx.stop();
      for (const node of nodes) await node.stop();
      db.remove();
    }
  }
}

if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first');
console.log(`endpoint health, ${results.machine}, load average ${os.loadavg()[0].toFixed(1)} at start`);
for (const [name, run] of Object.entries({ lost, release, dead, rate })) {
  if (!parts.has(name)) continue;
  const t = Date.now();
  await run();
  console.log(`  (${name}: ${round((Date.now() - t) / 1000)} s)`);
}
results.goals = goals;
if (opt.json) writeFileSync(opt.json, JSON.stringify(results, null, 2));
process.exit(0);
