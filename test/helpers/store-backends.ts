/**
 * The databases the store conformance suite runs on. Each backend hands out
 * fresh, private databases: a temp SQLite file, or a fresh schema on the
 * test PostgreSQL (test/helpers/test-database.ts: the private server the run
 * started, or TEST_DATABASE_URL). Without one its suites are skipped with a
 * message, except under CI, where they fail.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, it } from 'vitest';
import { dropPgSchemas, pgSchemaUrl, postgresUnavailable } from './test-database.js';
import { openStore, type OpenStoreOptions } from '../../src/store/index.js';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import type { Store } from '../../src/store/store.js';

export interface StoreBackend {
  name: string;
  /** A store on a fresh database nobody else uses. */
  open(opts?: OpenStoreOptions): Promise<Store>;
  /** A DATABASE_URL for a fresh database, for tests that reopen it (restart). */
  freshUrl(): Promise<string>;
  /** Runs raw SQL against the database behind `url`, bypassing the store. */
  exec(url: string, sql: string): Promise<void>;
  /** Runs one raw query against the database behind `url` and returns its rows. */
  query(url: string, sql: string): Promise<Array<Record<string, unknown>>>;
}

let tempDir: string | null = null;

function sqliteUrl(): string {
  tempDir ??= mkdtempSync(join(tmpdir(), 'switchyard-store-'));
  return `sqlite:${join(tempDir, `${randomBytes(6).toString('hex')}.db`)}`;
}

const sqliteBackend: StoreBackend = {
  name: 'sqlite',
  open: (opts) => openStore(sqliteUrl(), opts),
  freshUrl: async () => sqliteUrl(),
  async exec(url, sql) {
    const db = new Database(url.slice('sqlite:'.length));
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
  },
  async query(url, sql) {
    const db = new Database(url.slice('sqlite:'.length));
    try {
      return db.prepare(sql).all() as Array<Record<string, unknown>>;
    } finally {
      db.close();
    }
  },
};

/** Probed once per test file, at import. */
const pgUnavailable: string | null = await postgresUnavailable();

/** A URL on a fresh schema, dropped by removeTempDatabases (or, failing that, after the file). */
const pgSchemas = new Set<string>();

function pgUrl(): string {
  if (pgUnavailable) throw new Error(`${pgUnavailable}; CI is set, so the PostgreSQL suites fail instead of skipping`);
  const { url, schema } = pgSchemaUrl('store');
  pgSchemas.add(schema);
  return url;
}

/** A single connection to the schema behind a pgUrl(). */
async function withPgClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const { connectionString, options } = parsePostgresUrl(url);
  const client = new pg.Client({ connectionString, options });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const postgresBackend: StoreBackend = {
  name: 'postgres',
  open: (opts) => openStore(pgUrl(), opts),
  freshUrl: async () => pgUrl(),
  exec: (url, sql) => withPgClient(url, async (c) => void (await c.query(sql))),
  query: (url, sql) => withPgClient(url, async (c) => (await c.query(sql)).rows as Array<Record<string, unknown>>),
};

/** Runs `fn` on a store of `backend` opened for it, closed afterwards whatever happens. */
export async function withStore(backend: StoreBackend, fn: (store: Store) => Promise<void>): Promise<void> {
  const store = await backend.open();
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

export function backends(): StoreBackend[] {
  const list: StoreBackend[] = [sqliteBackend];
  if (!pgUnavailable || process.env.CI) {
    list.push(postgresBackend);
  } else {
    // Registered in the calling test file, so the report shows what was skipped and why.
    describe.skip(`store on postgres: ${pgUnavailable}`, () => {
      it('every case of this file', () => undefined);
    });
  }
  return list;
}


/** Removes the temp files and schemas of every database handed out; call from afterAll. */
export async function removeTempDatabases(): Promise<void> {
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  tempDir = null;
  childBundle = null;
  const schemas = [...pgSchemas];
  pgSchemas.clear();
  await dropPgSchemas(schemas);
}

let childBundle: Promise<string> | null = null;

/**
 * Bundles a tiny program that opens `openStore(url)` and runs a job on it, so a
 * test can race real OS processes on one database (better-sqlite3 is synchronous:
 * two connections in one process never truly interleave). esbuild bundles the
 * current sources each run; the database drivers stay external and are found
 * through NODE_PATH.
 */
function bundleChild(): Promise<string> {
  childBundle ??= (async () => {
    const { build } = await import('esbuild');
    const root = join(import.meta.dirname, '..', '..');
    tempDir ??= mkdtempSync(join(tmpdir(), 'switchyard-store-'));
    const outfile = join(tempDir, `store-child-${randomBytes(4).toString('hex')}.cjs`);
    await build({
      stdin: {
        contents: `
          import { openStore } from './src/store/index.js';
          const [url, jobFile, arg] = process.argv.slice(2);
          (async () => {
            const store = await openStore(url);
            try {
              const job = require(jobFile);
              const result = await job(store, JSON.parse(arg));
              process.stdout.write(JSON.stringify(result ?? null));
            } finally {
              await store.close();
            }
          })().catch((err) => { console.error(err); process.exit(1); });`,
        resolveDir: root,
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: ['better-sqlite3', 'pg', 'pg-native'],
      outfile,
      logLevel: 'error',
    });
    return outfile;
  })();
  return childBundle;
}

/**
 * Runs `job` (a CommonJS function source: `async (store, arg) => result`) in a
 * separate Node process on the store behind `url`; resolves with its JSON result.
 */
export async function runStoreJobInChild<T>(url: string, jobSource: string, arg: unknown): Promise<T> {
  const bundle = await bundleChild();
  const jobFile = join(tempDir!, `job-${randomBytes(4).toString('hex')}.cjs`);
  writeFileSync(jobFile, `module.exports = ${jobSource};\n`);
  const root = join(import.meta.dirname, '..', '..');
  return new Promise<T>((resolvePromise, reject) => {
    const child = spawn(process.execPath, [bundle, url, jobFile, JSON.stringify(arg)], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        NODE_PATH: join(root, 'node_modules'),
        // libpq-style settings (PGPASSWORD, PGSSLMODE, ...) the test URL may rely on.
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('PG'))),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`store child exited with ${code}:\n${err}`));
      else resolvePromise(JSON.parse(out) as T);
    });
  });
}
