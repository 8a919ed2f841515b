/**
 * The databases the store conformance suite runs on. Each backend hands out
 * fresh, private databases; the PostgreSQL backend will join this list.
 */
import { mkdtempSync, rmSync } from 'node:fs';
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
    },
  ];
}

/** Removes the temp files of every database handed out; call from afterAll. */
export function removeTempDatabases(): void {
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  tempDir = null;
}
