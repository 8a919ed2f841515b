/**
 * What every part of the PostgreSQL store shares: the pool, its
 * transactions, the clock for stored times, the bounds on what it holds, and
 * which constraint a driver error reports (shared/errors.ts says what it means),
 * and the SQL that reads a delivery with its attempts in one statement.
 */
import type pg from 'pg';
import type { ResourceLimits } from '../../errors.js';
import type { AttemptRow, DeliveryRow } from '../shared/delivery-rows.js';
import { driverCode, type Constraint } from '../shared/errors.js';
import { checkRoom, PG_LIMIT_LOCK } from '../shared/limits.js';

export type Queryable = pg.Pool | pg.PoolClient;

export interface PgDb {
  readonly pool: pg.Pool;
  /** The rows of one statement, on the pool or inside a transaction (`on`). */
  rows<R>(sql: string, values?: unknown[], on?: Queryable): Promise<R[]>;
  /** How many rows one statement changed. */
  changes(sql: string, values?: unknown[], on?: Queryable): Promise<number>;
  /**
   * Runs `fn` in a READ COMMITTED transaction on one pooled connection. Writers
   * that read before they write lock the row first (`FOR UPDATE`).
   */
  tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T>;
  /** Now, as stored (ISO). */
  stamp(): string;
  /** Bounds on what the store holds (shared/limits.ts); null: none. */
  readonly limits: ResourceLimits | null;
  /**
   * Inside a transaction about to create one of `kind`: waits for any other
   * creator of that kind on this schema (advisory lock, released at commit),
   * then refuses when the bound is reached. Nothing when there are no bounds.
   */
  checkRoomFor(c: pg.PoolClient, kind: keyof typeof PG_LIMIT_LOCK): Promise<void>;
}

export function pgDb(deps: { pool: pg.Pool; now?: () => Date; limits?: ResourceLimits | null }): PgDb {
  const { pool } = deps;
  const now = deps.now ?? (() => new Date());
  const limits = deps.limits ?? null;
  return {
    pool,
    limits,
    stamp: () => now().toISOString(),
    async rows<R>(sql: string, values: unknown[] = [], on: Queryable = pool) {
      return (await on.query(sql, values)).rows as R[];
    },
    async changes(sql: string, values: unknown[] = [], on: Queryable = pool) {
      return (await on.query(sql, values)).rowCount ?? 0;
    },
    async tx<T>(fn: (c: pg.PoolClient) => Promise<T>) {
      const c = await pool.connect();
      let broken: Error | undefined;
      try {
        await c.query('BEGIN');
        const result = await fn(c);
        await c.query('COMMIT');
        return result;
      } catch (err) {
        await c.query('ROLLBACK').catch((rollbackErr: Error) => {
          broken = rollbackErr; // a connection in an unknown state must not be reused
        });
        throw err;
      } finally {
        c.release(broken);
      }
    },
    async checkRoomFor(c, kind) {
      if (!limits) return;
      await c.query(`SELECT pg_advisory_xact_lock(${PG_LIMIT_LOCK[kind]}, hashtext(current_schema()))`);
      const [{ n }] = (await c.query(`SELECT COUNT(*)::int AS n FROM ${kind}`)).rows as Array<{ n: number }>;
      checkRoom(limits, kind, n);
    },
  };
}

const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';

export function constraintOf(err: unknown): Constraint {
  const code = driverCode(err);
  if (code === UNIQUE_VIOLATION) return 'unique';
  if (code === FOREIGN_KEY_VIOLATION) return 'foreign_key';
  return null;
}

/** An instant as the ISO text the type parser produces for plain columns (UTC, milliseconds, `Z`). */
export const isoSql = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A delivery row with its attempts, aggregated by attemptsOfSql. */
export type DeliveryWithAttemptsRow = DeliveryRow & { attempts: AttemptRow[] };

/**
 * The JSON object of one attempt row `a`, keyed like AttemptRow; `withResponse`
 * (the single-delivery read only) adds its response_json, kept as text.
 */
export const attemptJsonSql = (a: string, withResponse = false) =>
  `json_build_object('delivery_id', ${a}.delivery_id, 'attempt', ${a}.attempt, 'started_at', ${isoSql(`${a}.started_at`)},
    'duration_ms', ${a}.duration_ms, 'response_status', ${a}.response_status, 'error', ${a}.error,
    'outcome', ${a}.outcome, 'request_id', ${a}.request_id${withResponse ? `, 'response_json', ${a}.response_json, 'sent_json', ${a}.sent_json` : ''})`;

/** The `attempts` column for delivery alias `d`: its attempts in order, as of the statement's snapshot. */
export const attemptsOfSql = (d: string, withResponses = false) =>
  `COALESCE((SELECT json_agg(${attemptJsonSql('a', withResponses)} ORDER BY a.attempt) FROM delivery_attempts a
    WHERE a.delivery_id = ${d}.id), '[]'::json) AS attempts`;
