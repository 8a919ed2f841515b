/**
 * What every part of the SQLite store shares: the connection, its
 * transactions, the clock for stored times, the bounds on what it holds, and
 * which constraint a driver error reports (shared/errors.ts says what it means).
 */
import type Database from 'better-sqlite3';
import type { ResourceLimits } from '../../errors.js';
import { driverCode, type Constraint } from '../shared/errors.js';

export interface SqliteDb {
  readonly db: Database.Database;
  /** Runs `fn` in one transaction: its reads see one snapshot. */
  read<T>(fn: () => T): T;
  /** IMMEDIATE takes the write lock first, so a read-then-write never fails on a stale WAL snapshot. */
  write<T>(fn: () => T): T;
  /** Now, as stored (ISO). */
  stamp(): string;
  /** Bounds on what the store holds (shared/limits.ts); null: none. */
  readonly limits: ResourceLimits | null;
}

export function sqliteDb(deps: { db: Database.Database; now?: () => Date; limits?: ResourceLimits | null }): SqliteDb {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  // One transaction function for every part: nested calls become savepoints of the outer one.
  const tx = db.transaction((fn: () => unknown) => fn());
  return {
    db,
    read: <T>(fn: () => T) => tx(fn) as T,
    write: <T>(fn: () => T) => tx.immediate(fn) as T,
    stamp: () => now().toISOString(),
    limits: deps.limits ?? null,
  };
}

export function constraintOf(err: unknown): Constraint {
  const code = driverCode(err);
  if (code === 'SQLITE_CONSTRAINT_UNIQUE') return 'unique';
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return 'foreign_key';
  return null;
}
