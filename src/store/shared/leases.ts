/**
 * Lease arithmetic and claim arguments shared by both dialects' delivery
 * claims: when a lease taken now ends, a claim's shares in one form, and the
 * order a claim answers in.
 */
import type { ClaimShares } from '../store.js';

/** `perWebhook` when a claim sets no share: no webhook is limited. */
export const NO_SHARE = 2 ** 31 - 1;

/** A claim's share argument as one form: a plain number is every target's share. */
export function claimShares(share: number | ClaimShares): ClaimShares {
  return typeof share === 'number' ? { default: share, byTarget: new Map() } : share;
}

/** The end of a lease of `leaseMs` taken at `now` (ISO in, ISO out). */
export function leaseUntil(now: string, leaseMs: number): string {
  return new Date(Date.parse(now) + leaseMs).toISOString();
}

/** Sorts claimed rows by due time, then id, in place: RETURNING has no defined order. */
export function sortByDue<R extends { next_attempt_at: string | null; id: string }>(rows: R[]): R[] {
  return rows.sort((a, b) => cmp(a.next_attempt_at ?? '', b.next_attempt_at ?? '') || cmp(a.id, b.id));
}

/** Code-unit order, as both databases sort these ISO times and ids (not localeCompare). */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
