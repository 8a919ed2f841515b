/**
 * The Store on SQLite (better-sqlite3), assembled from its parts, one file
 * each (the same files as postgres/). Statements are prepared once; methods
 * are async only to match the interface: the driver is synchronous, so a
 * method runs to completion without interleaving with others in this process.
 */
import type Database from 'better-sqlite3';
import type { ResourceLimits } from '../../errors.js';
import { LogTrimCounter } from '../shared/log-trim.js';
import type { Store } from '../store.js';
import { sqliteApiKeys } from './api-keys.js';
import { sqliteApis } from './apis.js';
import { SqliteChangeFeed } from './changes.js';
import type { BackgroundCheckpointer } from './checkpointer.js';
import { sqliteDb } from './db.js';
import { sqliteDeliveries } from './deliveries.js';
import { sqliteHeartbeats } from './heartbeats.js';
import { sqliteFunctions } from './functions.js';
import { sqliteHeld } from './held.js';
import { sqliteEventTypes } from './event-types.js';
import { sqliteApplications } from './applications.js';
import { sqliteIdempotency } from './idempotency.js';
import { sqliteInvocationEvents } from './invocation-events.js';
import { sqliteLimits } from './limits.js';
import { sqliteLogs } from './logs.js';
import { sqliteRecoveries } from './recoveries.js';
import { sqliteSchedules } from './schedules.js';
import { sqliteStats } from './stats.js';
import { sqliteTargetHealth } from './target-health.js';
import { sqliteWebhooks } from './webhooks.js';

export interface SqliteStoreOptions {
  /** Lines kept per function; older ones are trimmed as new ones arrive. Unbounded when absent. */
  logRetention?: number;
  /** Clock for created_at/updated_at; tests pass a fake one. */
  now?: () => Date;
  /** Bounds on functions, APIs, webhooks and routes per API; unbounded when absent. */
  limits?: ResourceLimits;
}

export interface SqliteStoreDeps extends SqliteStoreOptions {
  db: Database.Database;
  /** Checkpoints the WAL off the event loop (a file database); stopped before the database closes. */
  checkpointer?: BackgroundCheckpointer;
}

export function createSqliteStore(deps: SqliteStoreDeps): Store {
  const db = sqliteDb({ db: deps.db, now: deps.now, limits: deps.limits });
  const logTrim = new LogTrimCounter({ retention: deps.logRetention });
  const webhooks = sqliteWebhooks({ db });
  const ping = deps.db.prepare('SELECT 1').pluck();
  return {
    kind: 'sqlite',
    changeFeed: new SqliteChangeFeed({ db: deps.db }),
    async ping() {
      ping.get();
    },
    async databaseTime() {
      // SQLite has no server: every process on the file shares this machine's clock.
      return Date.now();
    },
    async close() {
      await deps.checkpointer?.stop();
      if (deps.db.open) deps.db.close();
    },
    ...sqliteFunctions({ db, logTrim }),
    ...sqliteLogs({ db, logTrim }),
    ...sqliteApis({ db, webhooks }),
    ...webhooks,
    ...sqliteSchedules({ db }),
    ...sqliteDeliveries({ db }),
    ...sqliteHeartbeats({ db }),
    ...sqliteHeld({ db }),
    ...sqliteTargetHealth({ db }),
    ...sqliteRecoveries({ db }),
    ...sqliteStats({ db }),
    ...sqliteInvocationEvents({ db }),
    ...sqliteLimits({ db }),
    ...sqliteApiKeys({ db }),
    ...sqliteIdempotency({ db }),
    ...sqliteEventTypes({ db }),
    ...sqliteApplications({ db }),
  };
}
