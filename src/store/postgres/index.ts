/**
 * Opens PostgreSQL for the Store: a connection pool configured from the URL,
 * migrations, then the store. Switchyard's own URL parameters are taken out of
 * the URL before pg sees it:
 * - `pool_max`: connections in the pool (default 10);
 * - `schema`: a schema to live in (created when missing), put on every pooled
 *   connection's search_path, so several Switchyards (or test runs) can share a
 *   database.
 * Everything else (user, password, host, sslmode, application_name, options...)
 * is pg's own.
 */
import { PgChangeFeed } from './changes.js';
import pg from 'pg';
import { ConfigError } from '../../errors.js';
import { migratePostgres } from './migrate.js';
import type { Store } from '../store.js';
import { createPgStore, type PgStoreOptions } from './store.js';

export { createPgStore, type PgStoreOptions } from './store.js';

const DEFAULT_POOL_MAX = 10;
const TIMESTAMPTZ_OID = 1184;
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export interface PgConnectionSettings {
  /** The URL as pg gets it, without Switchyard's parameters. */
  connectionString: string;
  poolMax: number;
  schema: string | null;
  /** Startup options: the URL's own `options` plus the search_path for `schema`. */
  options: string | undefined;
}

/** Splits a postgres:// URL into pg's part and Switchyard's. Throws ConfigError on bad values. */
export function parsePostgresUrl(url: string): PgConnectionSettings {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`DATABASE_URL is not a valid URL: "${redact(url)}" (example: postgres://user:pass@localhost:5432/switchyard)`);
  }
  const params = parsed.searchParams;

  let poolMax = DEFAULT_POOL_MAX;
  const rawMax = params.get('pool_max');
  if (rawMax !== null) {
    poolMax = Number(rawMax);
    if (!/^\d+$/.test(rawMax) || poolMax < 1 || poolMax > 1000) {
      throw new ConfigError(`DATABASE_URL pool_max must be a whole number from 1 to 1000, got "${rawMax}"`);
    }
  }

  const schema = params.get('schema');
  if (schema !== null && !SCHEMA_NAME.test(schema)) {
    throw new ConfigError(
      `DATABASE_URL schema must be letters, digits and _ (at most 63, not starting with a digit), got "${schema}"`,
    );
  }

  // pg lets the URL override explicit settings, so a URL `options` is merged here instead.
  const userOptions = params.get('options');
  const searchPath = schema === null ? null : `-c search_path="${schema}"`;
  const options = [userOptions, searchPath].filter((o): o is string => !!o).join(' ') || undefined;

  for (const own of ['pool_max', 'schema', 'options']) params.delete(own);
  return { connectionString: parsed.toString(), poolMax, schema, options };
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/** timestamptz comes back as the ISO string SQLite would hand out (UTC, milliseconds, `Z`). */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    const parse = pg.types.getTypeParser(oid, format as 'text');
    if (oid !== TIMESTAMPTZ_OID) return parse;
    return (value: string) => (parse(value) as Date).toISOString();
  },
};

export async function openPgStore(url: string, opts: PgStoreOptions = {}): Promise<Store> {
  const settings = parsePostgresUrl(url);
  const pool = new pg.Pool({
    connectionString: settings.connectionString,
    options: settings.options,
    max: settings.poolMax,
    types: types as pg.CustomTypesConfig,
    // /readyz and startup fail instead of hanging when the server does not answer.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection dropped by the server (restart, failover) must not crash
  // the process; the pool discards it and the next query opens a new one.
  pool.on('error', () => undefined);
  try {
    await migratePostgres(pool, settings.schema, undefined, opts.now);
    const changeFeed = new PgChangeFeed({
      pool,
      clientConfig: { connectionString: settings.connectionString, options: settings.options, connectionTimeoutMillis: 10_000 },
      schema: settings.schema,
    });
    return createPgStore({ ...opts, pool, changeFeed });
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
}
