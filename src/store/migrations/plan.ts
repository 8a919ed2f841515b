/**
 * Database-agnostic half of the migration runner: which numbered migrations a
 * database still needs, and the refusal to run on a schema newer than this code.
 * Each backend applies the plan its own way (SQLite: one IMMEDIATE transaction
 * per migration; PostgreSQL: the same under an advisory lock).
 */
import { ConfigError } from '../../errors.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The migrations not yet applied, in order. Throws ConfigError when the database is ahead of the code. */
export function planMigrations(known: readonly Migration[], applied: Iterable<number>): Migration[] {
  for (let i = 1; i < known.length; i++) {
    // A mis-numbered list would silently skip or reorder schema changes.
    if (known[i].version <= known[i - 1].version) {
      throw new Error(`Migrations out of order: ${known[i - 1].version} then ${known[i].version}`);
    }
  }
  const done = new Set(applied);
  const codeMax = known.length ? known[known.length - 1].version : 0;
  const dbMax = Math.max(0, ...done);
  if (dbMax > codeMax) {
    throw new ConfigError(
      `The database was written by a newer Switchyard: its schema is at version ${dbMax}, ` +
        `this Switchyard knows versions up to ${codeMax}. Upgrade Switchyard, or point DATABASE_URL at another database.`,
    );
  }
  return known.filter((m) => !done.has(m.version));
}
