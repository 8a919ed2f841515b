/**
 * The delivery claim on PostgreSQL: each target (a webhook or a function: the
 * `target` column; "webhook" below stands for either) gets at most its share
 * of an owner's leases (the two steps: CLAIM_WINDOW, store.ts). Rows are
 * locked per webhook with `FOR UPDATE SKIP LOCKED`, so nodes claiming at the
 * same moment take different deliveries instead of waiting on each other.
 * Parameters shared by the statements: $1 owner, $2 now, $3 lease until,
 * $4 how many in all, $5 the share of a webhook not listed, and last the
 * listed webhooks and their shares (two arrays: one statement whatever their
 * number). The statements are named (prepared once per connection): planning
 * these CTEs costs more than running them.
 */
import { CLAIM_VISITS, CLAIM_WINDOW, type ClaimShares } from '../store.js';
import { attemptsOfSql, type DeliveryWithAttemptsRow, type Queryable } from './db.js';

const freeAndDue = (d: string) =>
  `${d}.status = 'pending' AND ${d}.next_attempt_at <= $2 AND (${d}.lease_until IS NULL OR ${d}.lease_until < $2)`;

/** The owner's unexpired leases per webhook (read from the deliveries_leases index). */
const HELD = `held AS (
  SELECT target, count(*)::int AS n FROM deliveries
  WHERE lease_owner = $1 AND lease_until >= $2 GROUP BY target)`;

/** The listed webhooks' own shares, from the arrays `$targets` and `$shares`. */
const SHARES = (targets: string, shares: string) =>
  `shares AS (SELECT * FROM unnest(${targets}::text[], ${shares}::int[]) AS s (target, n))`;

/**
 * For each row of `hooks` (target, room), in its order, leases up to `room`
 * of that webhook's oldest free due deliveries, $4 in all. The nested loop
 * stops as soon as $4 rows came out, so no webhook past that is read or locked.
 *
 * The webhook is matched with `>= AND <=`, not `=`, on purpose: with `=` the
 * planner drops target from the sort key and may take deliveries_pending_due,
 * filtering by webhook through another webhook's whole backlog. Sorted by
 * target first, only deliveries_pending_by_webhook gives the order, and it
 * reads just this webhook's pending rows (bench/README.md).
 */
const LEASE = `pick AS (
  SELECT x.id FROM hooks h CROSS JOIN LATERAL (
    SELECT d.id FROM deliveries d
    WHERE d.target >= h.target AND d.target <= h.target AND ${freeAndDue('d')}
    ORDER BY d.target, d.next_attempt_at, d.id LIMIT h.room FOR UPDATE SKIP LOCKED) x
  LIMIT $4),
leased AS (
  UPDATE deliveries d SET lease_owner = $1, lease_until = $3 FROM pick WHERE d.id = pick.id
  RETURNING d.*, ${attemptsOfSql('d')})`;

/**
 * Step 1: the webhooks of the oldest $6 free due deliveries, oldest first, with
 * room left. $6 is CLAIM_WINDOW plus up to CLAIM_WINDOW more to take: SQL
 * cannot stop a scan after so many rows passed over as the SQLite store does,
 * reading as many rows as a claim may take (up to 1000) slowed a busy
 * webhook's claims, and 2 x CLAIM_WINDOW still fills a usual claim across
 * many webhooks in this step.
 */
const CLAIM_OLDEST = `WITH ${HELD}, ${SHARES('$7', '$8')},
  win AS (
    SELECT d.target, d.next_attempt_at, d.id FROM deliveries d WHERE ${freeAndDue('d')}
    ORDER BY d.next_attempt_at, d.id LIMIT $6),
  hooks AS (
    SELECT w.target, COALESCE(max(s.n), $5::int) - COALESCE(max(h.n), 0) AS room
    FROM win w LEFT JOIN held h USING (target) LEFT JOIN shares s USING (target)
    GROUP BY w.target HAVING COALESCE(max(s.n), $5::int) - COALESCE(max(h.n), 0) > 0
    ORDER BY min(w.next_attempt_at), min(w.id)),
  ${LEASE}
  SELECT (SELECT count(*) FROM win)::int AS scanned, leased.* FROM (VALUES (1)) AS one LEFT JOIN leased ON true`;

/**
 * Step 2's walk: up to $5 webhooks with due deliveries after $4, by id, with
 * the room each has left of the share $3. One index seek per webhook skips it
 * with all its backlog; a webhook with nothing due costs one index entry. The
 * sort key is that of deliveries_pending_by_webhook, so the seek is in it and
 * never walks a webhook's finished deliveries (the other indexes on target
 * hold those).
 */
const WALK = `WITH RECURSIVE ${HELD}, ${SHARES('$6', '$7')},
  walk (target, pos) AS (
    SELECT (SELECT target FROM deliveries WHERE status = 'pending' AND target > $4 AND next_attempt_at <= $2
            ORDER BY target, next_attempt_at LIMIT 1), 1
    UNION ALL
    SELECT (SELECT d.target FROM deliveries d
            WHERE d.status = 'pending' AND d.target > w.target AND d.next_attempt_at <= $2
            ORDER BY d.target, d.next_attempt_at LIMIT 1), w.pos + 1
    FROM walk w WHERE w.target IS NOT NULL AND w.pos < $5)
  SELECT w.target, COALESCE(s.n, $3::int) - COALESCE(h.n, 0) AS room
  FROM walk w LEFT JOIN held h USING (target) LEFT JOIN shares s USING (target)
  WHERE w.target IS NOT NULL ORDER BY w.pos`;

/** Step 2's lease: the webhooks $6, in that order, each up to its room. */
const CLAIM_LISTED = `WITH ${HELD}, ${SHARES('$7', '$8')},
  hooks AS (
    SELECT w.target, COALESCE(s.n, $5::int) - COALESCE(h.n, 0) AS room
    FROM unnest($6::text[]) WITH ORDINALITY AS w (target, pos) LEFT JOIN held h USING (target)
      LEFT JOIN shares s USING (target)
    WHERE COALESCE(s.n, $5::int) - COALESCE(h.n, 0) > 0 ORDER BY w.pos),
  ${LEASE}
  SELECT * FROM leased`;

export interface ClaimArgs {
  owner: string;
  now: string;
  until: string;
  limit: number;
  shares: ClaimShares;
}

/**
 * Leases for `claimDueDeliveries`. `cursors` keeps, per owner, the webhook where
 * its last walk stopped, so walks go round-robin (a hint, not state to keep).
 */
export async function claimDue(db: Queryable, cursors: Map<string, string>, a: ClaimArgs): Promise<DeliveryWithAttemptsRow[]> {
  const base = [a.owner, a.now, a.until];
  const share = a.shares.default;
  const listed = [[...a.shares.byTarget.keys()], [...a.shares.byTarget.values()]];
  const window = Math.min(a.limit, CLAIM_WINDOW) + CLAIM_WINDOW;
  const values = [...base, a.limit, share, window, ...listed];
  const first = (await db.query({ name: 'sy-claim-oldest', text: CLAIM_OLDEST, values })).rows as Array<
    DeliveryWithAttemptsRow & { scanned: number }
  >;
  const leased: DeliveryWithAttemptsRow[] = first.filter((r) => r.id !== null);
  const scanned = first[0]?.scanned ?? 0;
  if (leased.length >= a.limit || scanned < window) return leased;

  // Webhooks at their share are in the way: walk the webhooks instead of their backlogs.
  const start = cursors.get(a.owner) ?? '';
  const walk = async (after: string, max: number) =>
    (await db.query({ name: 'sy-claim-walk', text: WALK, values: [a.owner, a.now, share, after, max, ...listed] }))
      .rows as Array<{ target: string; room: number }>;
  let walked = await walk(start, CLAIM_VISITS);
  let circled = walked.length < CLAIM_VISITS && start === '';
  if (walked.length < CLAIM_VISITS && start !== '') {
    // Round the circle: from the first webhook up to where this walk started.
    const max = CLAIM_VISITS - walked.length;
    const rest = await walk('', max);
    const past = rest.findIndex((r) => r.target > start);
    circled = past !== -1 || rest.length < max;
    walked = walked.concat(past === -1 ? rest : rest.slice(0, past));
  }
  const withRoom = walked.filter((r) => r.room > 0).map((r) => r.target);
  const wanted = a.limit - leased.length;
  const more =
    withRoom.length === 0
      ? []
      : ((
          await db.query({
            name: 'sy-claim-listed',
            text: CLAIM_LISTED,
            values: [...base, wanted, share, withRoom, ...listed],
          })
        ).rows as DeliveryWithAttemptsRow[]);
  if (more.length >= wanted) {
    // Filled up: the next walk starts after the last webhook served.
    const position = new Map(walked.map((r, i) => [r.target, i]));
    cursors.set(a.owner, walked[Math.max(...more.map((r) => position.get(r.target) ?? 0))].target);
  } else if (circled || walked.length === 0) {
    cursors.delete(a.owner);
  } else {
    cursors.set(a.owner, walked[walked.length - 1].target);
  }
  return leased.concat(more);
}
