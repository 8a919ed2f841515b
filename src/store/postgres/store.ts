/**
 * The Store on PostgreSQL (node-postgres pool), assembled from its parts, one
 * file each (the same files as sqlite/). Where SQLite relies on its single
 * writer, the parts lock the row they read before writing (`FOR UPDATE`), or
 * write in one statement.
 */
import type pg from 'pg';
import type { ResourceLimits } from '../../errors.js';
import { LogTrimCounter } from '../shared/log-trim.js';
import type { Store } from '../store.js';
import { pgApiKeys } from './api-keys.js';
import { pgApis } from './apis.js';
import { PgChangeFeed } from './changes.js';
import { pgDb } from './db.js';
import { pgDeliveries } from './deliveries.js';
import { pgHeartbeats } from './heartbeats.js';
import { pgHeld } from './held.js';
import { pgEventTypes } from './event-types.js';
import { pgApplications } from './applications.js';
import { pgIdempotency } from './idempotency.js';
import { pgRecoveries } from './recoveries.js';
import { pgTargetHealth } from './target-health.js';
import { pgFunctions } from './functions.js';
import { pgInvocationEvents } from './invocation-events.js';
import { pgLimits } from './limits.js';
import { pgLogs } from './logs.js';
import { pgSchedules } from './schedules.js';
import { pgStats } from './stats.js';
import { pgWebhooks } from './webhooks.js';

export interface PgStoreOptions {
  /** Lines kept per function; older ones are trimmed as new ones arrive. Unbounded when absent. */
  logRetention?: number;
  /** Clock for created_at/updated_at; tests pass a fake one. */
  now?: () => Date;
  /** Bounds on functions, APIs, webhooks and routes per API; unbounded when absent. */
  limits?: ResourceLimits;
}

export interface PgStoreDeps extends PgStoreOptions {
  pool: pg.Pool;
  /** The change feed on this database; by default one that listens with the pool's settings. */
  changeFeed?: PgChangeFeed;
}

export function createPgStore(deps: PgStoreDeps): Store {
  const { pool } = deps;
  const db = pgDb({ pool, now: deps.now, limits: deps.limits });
  const logTrim = new LogTrimCounter({ retention: deps.logRetention });
  const webhooks = pgWebhooks({ db });
  let closed = false;
  return {
    kind: 'postgres',
    changeFeed: deps.changeFeed ?? new PgChangeFeed({ pool, clientConfig: {}, schema: null }),
    async ping() {
      await pool.query('SELECT 1');
    },
    async databaseTime() {
      // clock_timestamp(), not now(): now() is the start of the transaction.
      const [row] = await db.rows<{ ms: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms');
      return row!.ms;
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
    ...pgFunctions({ db, logTrim }),
    ...pgLogs({ db, logTrim }),
    ...pgApis({ db, webhooks }),
    ...webhooks,
    ...pgSchedules({ db }),
    ...pgDeliveries({ db }),
    ...pgHeartbeats({ db }),
    ...pgHeld({ db }),
    ...pgTargetHealth({ db }),
    ...pgRecoveries({ db }),
    ...pgStats({ db }),
    ...pgInvocationEvents({ db }),
    ...pgLimits({ db }),
    ...pgApiKeys({ db }),
    ...pgIdempotency({ db }),
    ...pgEventTypes({ db }),
    ...pgApplications({ db }),
  };
}
