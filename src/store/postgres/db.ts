/**
 * Pool and transaction plumbing shared by every part of the PostgreSQL store,
 * and the SQLSTATEs it turns into typed errors.
 */
import type pg from 'pg';
import type { ResourceLimits } from '../../errors.js';
import { checkRoom, PG_LIMIT_LOCK } from '../limits.js';

export const UNIQUE_VIOLATION = '23505';
export const FOREIGN_KEY_VIOLATION = '23503';

export function pgCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

export type Queryable = pg.Pool | pg.PoolClient;

export class PgBase {
  protected readonly now: () => Date;

  constructor(
    protected readonly pool: pg.Pool,
    now: (() => Date) | undefined,
    /** Bounds on what the store holds (limits.ts); null: none. */
    protected readonly limits: ResourceLimits | null = null,
  ) {
    this.now = now ?? (() => new Date());
  }

  /**
   * Inside a transaction about to create one of `kind`: waits for any other
   * creator of that kind on this schema (advisory lock, released at commit),
   * then refuses when the bound is reached. Nothing when there are no bounds.
   */
  protected async checkRoomFor(c: pg.PoolClient, kind: keyof typeof PG_LIMIT_LOCK): Promise<void> {
    if (!this.limits) return;
    await c.query(`SELECT pg_advisory_xact_lock(${PG_LIMIT_LOCK[kind]}, hashtext(current_schema()))`);
    const [{ n }] = (await c.query(`SELECT COUNT(*)::int AS n FROM ${kind}`)).rows as Array<{ n: number }>;
    checkRoom(this.limits, kind, n);
  }

  protected stamp(): string {
    return this.now().toISOString();
  }

  protected async rows<R>(sql: string, values: unknown[] = [], on: Queryable = this.pool): Promise<R[]> {
    return (await on.query(sql, values)).rows as R[];
  }

  protected async changes(sql: string, values: unknown[] = [], on: Queryable = this.pool): Promise<number> {
    return (await on.query(sql, values)).rowCount ?? 0;
  }

  /**
   * Runs `fn` in a READ COMMITTED transaction on one pooled connection. Writers
   * that read before they write lock the row first (`FOR UPDATE`).
   */
  protected async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
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
  }
}
