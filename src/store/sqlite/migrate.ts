/**
 * Applies pending migrations to a SQLite database, each in its own IMMEDIATE
 * transaction (the write lock is taken up front, so two processes starting on
 * one file serialize instead of both applying the same step).
 */
import type Database from 'better-sqlite3';
import { planMigrations, type Migration } from '../migrations/plan.js';
import { SQLITE_MIGRATIONS } from '../migrations/sqlite.js';

/** Returns the versions it applied. Throws ConfigError when the file was written by a newer Switchyard. */
export function migrateSqlite(
  db: Database.Database,
  migrations: readonly Migration[] = SQLITE_MIGRATIONS,
  now: () => Date = () => new Date(),
): number[] {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?');
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const applied = db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[];

  const done: number[] = [];
  const apply = db.transaction((m: Migration) => {
    if (isApplied.get(m.version)) return; // another process got there first
    db.exec(m.sql);
    record.run(m.version, m.name, now().toISOString());
    done.push(m.version);
  });
  for (const m of planMigrations(migrations, applied)) apply.immediate(m);
  return done;
}
