/**
 * The databases the store conformance suite runs on. Each backend hands out
 * fresh, private databases; the PostgreSQL backend will join this list.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { openStore, type OpenStoreOptions } from '../../src/store/index.js';
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

export function backends(): StoreBackend[] {
  return [
    {
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
    },
  ];
}

/** Removes the temp files of every database handed out; call from afterAll. */
export function removeTempDatabases(): void {
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  tempDir = null;
  childBundle = null;
}

let childBundle: Promise<string> | null = null;

/**
 * Bundles a tiny program that opens `openStore(url)` and runs a job on it, so a
 * test can race real OS processes on one database (better-sqlite3 is synchronous:
 * two connections in one process never truly interleave). esbuild bundles the
 * current sources each run; better-sqlite3 stays external and is found through
 * NODE_PATH.
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
      external: ['better-sqlite3'],
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
      env: { PATH: process.env.PATH, NODE_PATH: join(root, 'node_modules') },
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
