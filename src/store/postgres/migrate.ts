/**
 * Applies pending migrations to PostgreSQL under a session-level advisory lock,
 * so nodes starting together on one database take turns: the first applies each
 * step in its own transaction, the others then find nothing left to do.
 */
import type pg from 'pg';
import { planMigrations, type Migration } from '../migrations/plan.js';
import { POSTGRES_MIGRATIONS } from '../migrations/postgres.js';

/** Arbitrary but fixed: every Switchyard migrating any schema of the database waits on it. */
export const MIGRATION_LOCK_KEY = 7_301_974_113_502_461n;

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Returns the versions it applied. Creates `schema` first when given (the pool
 * puts it on every connection's search_path). Throws ConfigError when the
 * database was written by a newer Switchyard.
 */
export async function migratePostgres(
  pool: pg.Pool,
  schema: string | null,
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
  now: () => Date = () => new Date(),
): Promise<number[]> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    try {
      if (schema !== null) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)',
      );
      const applied = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
      const done: number[] = [];
      for (const m of planMigrations(migrations, applied.rows.map((r) => r.version))) {
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
            m.version,
            m.name,
            now().toISOString(),
          ]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
        done.push(m.version);
      }
      return done;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]).catch((err: Error) => {
        // A connection that cannot unlock must not go back to the pool still holding the lock.
        broken = err;
      });
    }
  } finally {
    client.release(broken);
  }
}
