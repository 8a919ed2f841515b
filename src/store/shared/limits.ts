/**
 * The configurable bounds on what the store holds (Config.limits): the count
 * is read inside the transaction that inserts, so the bound holds for every
 * process and node on the database. SQLite: the write transaction is
 * IMMEDIATE, so creators are one at a time across processes. PostgreSQL:
 * READ COMMITTED lets two transactions count the same rows, so a creator first
 * takes a transaction-scoped advisory lock for the kind it creates (one per
 * kind and schema), which serialises creations of that kind only; routes are
 * counted under the lock their API's row already takes.
 */
import { ApplicationLimitError, LimitReachedError, type LimitName, type ResourceLimits } from '../../errors.js';

/** Throws LimitReachedError when `adding` more to the `existing` ones would pass the bound. */
export function checkRoom(limits: ResourceLimits, name: LimitName, existing: number, adding = 1): void {
  if (existing + adding > limits[name]) throw new LimitReachedError(name, limits[name]);
}

/**
 * An application's `max_endpoints`, checked by the transaction that gives it
 * one more webhook (create, or an update that moves one to it): SQLite's
 * IMMEDIATE write makes the count and the insert one step; PostgreSQL first
 * locks the application's row, so creators for one application go one at a
 * time and creators for others do not wait. `max` null: no limit.
 */
export function checkApplicationRoom(applicationId: string, max: number | null, owned: number): void {
  if (max !== null && owned >= max) throw new ApplicationLimitError(applicationId, max);
}

/** First key of the PostgreSQL advisory lock per kind (the second is the schema's hash). */
export const PG_LIMIT_LOCK: Record<Exclude<LimitName, 'routes'>, number> = {
  functions: 52_001,
  apis: 52_002,
  webhooks: 52_003,
};
