/**
 * Opens a SQLite database for the Store: pragmas, migrations, then the store.
 * `location` is a file path (relative to the working directory) or `:memory:`.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Store } from '../store.js';
import { BackgroundCheckpointer, FALLBACK_AUTOCHECKPOINT_PAGES } from './checkpointer.js';
import { migrateSqlite } from './migrate.js';
import { createSqliteStore, type SqliteStoreOptions } from './store.js';

export { createSqliteStore, type SqliteStoreOptions } from './store.js';

export function openSqliteStore(location: string, opts: SqliteStoreOptions = {}): Store {
  const memory = location === ':memory:';
  const file = memory ? location : resolve(location);
  if (!memory) mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    // WAL lets readers run while one writer commits; NORMAL is durable across
    // process crashes in WAL mode, losing at most the last commits on power loss.
    if (!memory) db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    migrateSqlite(db, undefined, opts.now);
    if (memory) return createSqliteStore({ ...opts, db });
    // Checkpoints move to a worker thread (checkpointer.ts); this connection's own become the fallback.
    db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    return createSqliteStore({ ...opts, db, checkpointer: new BackgroundCheckpointer({ file }) });
  } catch (err) {
    db.close();
    throw err;
  }
}
