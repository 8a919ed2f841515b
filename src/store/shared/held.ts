/**
 * What both dialects share about held deliveries: the one SQL condition that
 * says whether a webhook may be sent to now, so publishing, the release sweep
 * and the gate's fresh reads agree on it, and the recovery filter's parts.
 */
import type { RecoveryFilter } from '../../webhooks/types.js';

/**
 * SQL, true when webhook row `w` may be sent to: enabled, not paused, and its
 * breaker closed (or never opened). Its origin's counts open the webhook's own
 * breaker (target-health.ts), so the origin needs no term here.
 */
export const SENDABLE = (w: string) =>
  `(${w}.enabled AND ${w}.paused_at IS NULL AND NOT EXISTS (
     SELECT 1 FROM target_health h WHERE h.key = 'webhook:' || ${w}.id AND h.state <> 'closed'))`;

/** The error a delivery dropped by the held bound carries. */
export const HELD_BOUND_REASON = 'discarded: the webhook held more deliveries than SWITCHYARD_MAX_HELD allows (oldest first)';

/**
 * How many held deliveries one release (or hold) statement moves at most: a
 * big backlog goes in several short transactions. Short, because on SQLite
 * every other process waits for the write lock meanwhile: 5,000 rows a
 * statement stalled the senders for about 250 ms, which a rate limit's
 * receiver counted as a clump (bench/README.md, "Endpoint health").
 */
export const RELEASE_CHUNK = 1_000;

/**
 * A delivery id's lower bound for deliveries created at or after `iso`: ids
 * begin with the creation time in hex (src/ids.ts), so a time range of a
 * recovery is an id range of the primary key.
 */
export function idFloor(iso: string): string {
  return `dlv_${Date.parse(iso).toString(16).padStart(12, '0')}`;
}

/** The id just past every delivery created at or before `iso`. */
export function idCeiling(iso: string): string {
  return `dlv_${(Date.parse(iso) + 1).toString(16).padStart(12, '0')}`;
}

/** The recovery filter as query bounds: ids from `from` (inclusive) to `to` (exclusive), statuses, events. */
export function recoveryBounds(f: RecoveryFilter): { from: string; to: string; statuses: string[]; events: string[] | null; webhookIds: string[] | null } {
  return { from: idFloor(f.since), to: idCeiling(f.until), statuses: f.statuses, events: f.events, webhookIds: f.webhookIds };
}
