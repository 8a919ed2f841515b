/**
 * Picks the Store implementation from DATABASE_URL. Callers only see `Store`;
 * a backend is one folder here plus one entry in BACKENDS.
 */
import { ConfigError, type ResourceLimits } from '../errors.js';
import type { Store } from './store.js';

export type { Store } from './store.js';

export interface OpenStoreOptions {
  /** Function console lines kept per function (Config.logRetention). Unbounded when absent. */
  logRetention?: number;
  /** Clock for stored timestamps; tests pass a fake one. */
  now?: () => Date;
  /** Bounds on functions, APIs, webhooks and routes per API (Config.limits); unbounded when absent. */
  limits?: ResourceLimits;
}

type Opener = (rest: string, url: string, opts: OpenStoreOptions) => Promise<Store>;

const BACKENDS: Record<string, Opener> = {
  async sqlite(rest, _url, opts) {
    // Accept sqlite:///abs/path too, as other tools write it.
    const location = rest.startsWith('//') ? rest.slice(2) : rest;
    if (!location) {
      throw new ConfigError('DATABASE_URL sqlite: needs a path, e.g. sqlite:./data/switchyard.db or sqlite::memory:');
    }
    const { openSqliteStore } = await import('./sqlite/index.js');
    return openSqliteStore(location, opts);
  },
  async postgres(_rest, url, opts) {
    // pg is loaded only by deployments that use it.
    const { openPgStore } = await import('./postgres/index.js');
    return openPgStore(url, opts);
  },
};
BACKENDS.postgresql = BACKENDS.postgres;

/**
 * `sqlite:./data/x.db`, `sqlite:/abs/x.db`, `sqlite::memory:`, or
 * `postgres://user:pass@host:5432/db` (also `postgresql://`; parameters `pool_max`, `schema`).
 */
export async function openStore(databaseUrl: string, opts: OpenStoreOptions = {}): Promise<Store> {
  const colon = databaseUrl.indexOf(':');
  const scheme = colon > 0 ? databaseUrl.slice(0, colon).toLowerCase() : '';
  const open = Object.hasOwn(BACKENDS, scheme) ? BACKENDS[scheme] : undefined;
  if (!open) {
    throw new ConfigError(
      `DATABASE_URL must start with sqlite: or postgres://, got "${databaseUrl}" (examples: sqlite:./data/switchyard.db, sqlite::memory:, postgres://user:pass@localhost:5432/switchyard)`,
    );
  }
  return open(databaseUrl.slice(colon + 1), databaseUrl, opts);
}
