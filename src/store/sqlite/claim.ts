/**
 * Which due deliveries a claim leases on SQLite: each target (a webhook or a
 * function: the `target` column; "webhook" below stands for either) gets at
 * most its share of an owner's leases (the two steps: CLAIM_WINDOW, store.ts).
 * Runs inside the store's IMMEDIATE transaction, so what it reads is still
 * free when it is leased; better-sqlite3 steps are cheap enough to decide row
 * by row, and to stop the first step exactly after CLAIM_WINDOW passed over.
 */
import { CLAIM_VISITS, CLAIM_WINDOW, type ClaimShares } from '../store.js';
import type { SqliteDb } from './db.js';

export function prepareClaim({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    // Ties on next_attempt_at go in insertion order (rowid): the (status, next_attempt_at)
    // index already holds that order, whereas `, id` sorted every due row on each claim.
    dueWindow: p(`SELECT rowid AS rid, target FROM deliveries
      WHERE status = 'pending' AND next_attempt_at <= @now AND (lease_until IS NULL OR lease_until < @now)
      ORDER BY next_attempt_at, rowid LIMIT @limit`).raw(),
    // One range of the deliveries_leases index: (owner, webhook) then unexpired.
    heldOfWebhook: p(`SELECT COUNT(*) FROM deliveries
      WHERE lease_owner = @owner AND target = @webhook AND lease_until >= @now`).pluck(),
    // The next webhook with a due delivery: one seek in deliveries_pending_by_webhook skips
    // a webhook with all its pending rows, and webhooks with nothing due cost one index
    // entry each (left to itself the planner takes deliveries_due and sorts them all).
    nextDueWebhook: p(`SELECT target FROM deliveries INDEXED BY deliveries_pending_by_webhook
      WHERE status = 'pending' AND target > @after AND next_attempt_at <= @now ORDER BY target LIMIT 1`).pluck(),
    dueOfWebhook: p(`SELECT rowid FROM deliveries
      WHERE target = @webhook AND status = 'pending' AND next_attempt_at <= @now
        AND (lease_until IS NULL OR lease_until < @now)
      ORDER BY next_attempt_at, rowid LIMIT @limit`).pluck(),
  };
}

export type ClaimStatements = ReturnType<typeof prepareClaim>;

/**
 * The rowids to lease, at most `limit`. `cursors` keeps, per owner, the
 * webhook where its last walk stopped, so walks go round-robin (a hint, not
 * state to keep).
 */
export function pickDue(
  s: ClaimStatements,
  cursors: Map<string, string>,
  a: { owner: string; now: string; limit: number; shares: ClaimShares },
): number[] {
  const { owner, now, limit } = a;
  const { default: share, byTarget } = a.shares;
  // Unexpired leases of `owner` per webhook, read for the webhooks this claim meets.
  const held = new Map<string, number>();
  const heldOf = (webhook: string) => {
    let n = held.get(webhook);
    if (n === undefined) held.set(webhook, (n = s.heldOfWebhook.get({ owner, webhook, now }) as number));
    return n;
  };
  const room = (webhook: string) => (byTarget.get(webhook) ?? share) - heldOf(webhook);
  const picked: number[] = [];
  const pickedOf = new Map<string, number>();
  const take = (webhook: string, rowid: number) => {
    picked.push(rowid);
    held.set(webhook, heldOf(webhook) + 1);
    pickedOf.set(webhook, (pickedOf.get(webhook) ?? 0) + 1);
  };

  // 1. The oldest due, while their webhooks have room, until CLAIM_WINDOW rows were passed over.
  let passed = 0;
  const window = s.dueWindow.iterate({ now, limit: limit + CLAIM_WINDOW }) as Iterable<[rowid: number, webhook: string]>;
  for (const [rowid, webhook] of window) {
    if (room(webhook) > 0) take(webhook, rowid);
    else passed++;
    if (picked.length === limit || passed === CLAIM_WINDOW) break;
  }
  if (picked.length === limit || passed < CLAIM_WINDOW) return picked;

  // 2. Webhooks at their share are in the way: walk the webhooks instead of their backlogs.
  const taken = new Set(picked);
  const start = cursors.get(owner) ?? '';
  let after = start;
  let wrapped = false;
  for (let visits = 0; picked.length < limit && visits < CLAIM_VISITS; ) {
    const webhook = s.nextDueWebhook.get({ after, now }) as string | undefined;
    if (webhook === undefined || (wrapped && webhook > start)) {
      // The end, or round the circle back to where this walk started.
      if (wrapped || start === '') {
        after = '';
        break;
      }
      wrapped = true;
      after = '';
      continue;
    }
    visits++;
    after = webhook;
    const left = Math.min(room(webhook), limit - picked.length);
    if (left <= 0) continue;
    // Rows taken in step 1 are not leased yet: read past them.
    const rowids = s.dueOfWebhook.all({ webhook, now, limit: left + (pickedOf.get(webhook) ?? 0) }) as number[];
    let got = 0;
    for (const rowid of rowids) {
      if (got === left) break;
      if (taken.has(rowid)) continue;
      take(webhook, rowid);
      got++;
    }
  }
  cursors.set(owner, after);
  return picked;
}
