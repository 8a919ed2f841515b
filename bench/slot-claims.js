// Slot claiming alone: how long the scheduler takes to claim a burst of cron
// webhooks all due in the same slot, with no delivery engine, on SQLite and on
// PostgreSQL (needs `npm run build` first; not part of `npm run bench`):
//   node bench/slot-claims.js [--webhooks 100000] [--schedulers 1] [--batch 500]
//                             [--no-postgres] [--postgres-url postgres://...]
// Fixture (not timed): one webhook made through the store, copied by SQL to
// the wanted count (ids `wh_` and a zero-padded number) and all made due at
// one past instant. Timed: Scheduler.tick() until nothing is due, with
// `--schedulers` schedulers on their own store connections racing each other.
// Checked: one delivery per webhook, every next_fire_at moved on.
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { assertPostgres, DEFAULT_PG_URL, dropSchema, freshSchema, schemaClient } from './pg.js';

const dist = (p) => import(new URL(`../dist/${p}`, import.meta.url).href);
const iso = (ms) => new Date(ms).toISOString();

const WEBHOOK = {
  name: 'burst',
  targetUrl: 'http://127.0.0.1:9/never',
  method: 'POST',
  headers: {},
  payloadTemplate: { event: '{{event}}', delivery: '{{delivery.id}}' },
  cron: '0 * * * *',
  timezone: 'UTC',
  mockEndpoint: null,
  events: [],
  enabled: true,
  secret: null,
  retry: { maxAttempts: 8, scheduleS: null },
  timeoutMs: 15_000,
};

async function sqliteDatabase() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-bench-slots-'));
  const file = path.join(dir, 'slots.db');
  return {
    name: 'SQLite',
    url: `sqlite:${file}`,
    async fill(id, count, due) {
      const db = new Database(file);
      try {
        db.pragma('busy_timeout = 5000');
        const columns = db.prepare('PRAGMA table_info(webhooks)').all().map((c) => c.name).filter((c) => c !== 'id').join(', ');
        db.prepare(`WITH RECURSIVE numbers(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM numbers WHERE n < ?)
          INSERT INTO webhooks (id, ${columns}) SELECT 'wh_' || printf('%020d', n), ${columns} FROM numbers, webhooks w WHERE w.id = ?`).run(count - 1, id);
        db.prepare('UPDATE webhooks SET next_fire_at = ?').run(iso(due));
      } finally {
        db.close();
      }
    },
    async counts() {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare(`SELECT (SELECT COUNT(*) FROM deliveries) AS deliveries,
          (SELECT COUNT(DISTINCT webhook_id) FROM deliveries) AS webhooks,
          (SELECT COUNT(*) FROM webhooks WHERE next_fire_at <= ?) AS due`).get(iso(Date.now()));
      } finally {
        db.close();
      }
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

async function postgresDatabase(baseUrl) {
  const { schema, url } = freshSchema(baseUrl, 'slots');
  const query = async (sql, params) => {
    const client = await schemaClient(baseUrl, schema);
    try {
      return (await client.query(sql, params)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    name: 'PostgreSQL',
    url,
    async fill(id, count, due) {
      const columns = (await query(`SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'webhooks' ORDER BY ordinal_position`, [schema]))
        .map((r) => r.column_name)
        .filter((c) => c !== 'id')
        .join(', ');
      await query(
        `INSERT INTO webhooks (id, ${columns}) SELECT 'wh_' || lpad(n::text, 20, '0'), ${columns}
         FROM generate_series(1, $1::int) n, webhooks w WHERE w.id = $2`,
        [count - 1, id],
      );
      await query('UPDATE webhooks SET next_fire_at = $1', [iso(due)]);
      // As autovacuum would on a live database: a schema filled seconds ago has no statistics.
      await query('ANALYZE webhooks');
    },
    async counts() {
      const [row] = await query(`SELECT (SELECT COUNT(*) FROM deliveries)::int AS deliveries,
        (SELECT COUNT(DISTINCT webhook_id) FROM deliveries)::int AS webhooks,
        (SELECT COUNT(*) FROM webhooks WHERE next_fire_at <= now())::int AS due`);
      return row;
    },
    cleanup: () => dropSchema(baseUrl, schema),
  };
}

async function claimBurst(database, { webhooks, schedulers, batch }) {
  const [{ openStore }, { Scheduler }, { systemClock }] = await Promise.all([
    dist('store/index.js'),
    dist('scheduler/scheduler.js'),
    dist('clock.js'),
  ]);
  const stores = [];
  try {
    for (let i = 0; i < schedulers; i++) stores.push(await openStore(database.url));
    const due = Date.now() - 1000;
    const first = await stores[0].createWebhook({ ...WEBHOOK, nextFireAt: iso(due) });
    const loadStarted = performance.now();
    await database.fill(first.id, webhooks, due);
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const log = { info: () => undefined, warn: () => undefined, error: (o, m) => console.error(m, o) };
    let claimed = 0;
    const runners = stores.map((store) => new Scheduler({ store, clock: systemClock, log, batch, onClaimed: () => claimed++ }));
    const t0 = performance.now();
    await Promise.all(
      runners.map(async (s) => {
        while ((await s.tick()) > 0);
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const counts = await database.counts();
    if (claimed !== webhooks || counts.deliveries !== webhooks || counts.webhooks !== webhooks || counts.due !== 0) {
      throw new Error(`${database.name}: expected ${webhooks} deliveries, one per webhook, none left due; got ${JSON.stringify({ claimed, ...counts })}`);
    }
    return { store: database.name, webhooks, schedulers, seconds, perSecond: webhooks / seconds, loadSeconds };
  } finally {
    for (const store of stores) await store.close();
    await database.cleanup();
  }
}

const { values } = parseArgs({
  options: {
    webhooks: { type: 'string', default: '100000' },
    schedulers: { type: 'string', default: '1' },
    batch: { type: 'string' },
    'no-postgres': { type: 'boolean', default: false },
    'postgres-url': { type: 'string', default: DEFAULT_PG_URL },
  },
});
const opts = {
  webhooks: Number(values.webhooks),
  schedulers: Number(values.schedulers),
  batch: values.batch === undefined ? undefined : Number(values.batch),
};
const results = [await claimBurst(await sqliteDatabase(), opts)];
if (!values['no-postgres']) {
  await assertPostgres(values['postgres-url']);
  results.push(await claimBurst(await postgresDatabase(values['postgres-url']), opts));
}
console.log('| store | webhooks due at once | schedulers | claimed in | slots/s |');
console.log('|---|---|---|---|---|');
for (const r of results) {
  console.log(`| ${r.store} | ${r.webhooks} | ${r.schedulers} | ${r.seconds.toFixed(2)} s | ${Math.round(r.perSecond)} |`);
}
