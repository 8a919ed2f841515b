/**
 * The webhook list's health figures (store.webhookHealth), computed in SQL on
 * both databases from `recent (webhook_id, status, n)`: a webhook's newest
 * deliveries numbered from 1 (the newest), with `status` as RECENT_STATUS
 * gives it. Each database builds `recent` its own way, reading only that many
 * index entries per webhook; the figures are the same statement on both.
 *
 * A pending delivery whose latest attempt failed (its `error` is that
 * attempt's) counts as a failure now, not as "not finished": a target that is
 * down shows as failing from its first failed attempt, not only once the
 * retries are spent, which can be hours later. Held and discarded deliveries
 * were not attempted: they are no outcome (the held count is its own figure).
 */
import type { WebhookHealth } from '../../webhooks/types.js';

/**
 * A delivery's status as `recent` carries it (`d` is the deliveries row):
 * `retrying` for a pending one whose latest attempt failed; a reopened
 * delivery whose last attempt succeeded has no error and stays `pending`.
 */
export const RECENT_STATUS = (d: string) => `CASE WHEN ${d}.status = 'pending' AND ${d}.error IS NOT NULL THEN 'retrying' ELSE ${d}.status END`;

/** Follows the `recent` CTE: one row per webhook with at least one delivery. */
export const HEALTH_FROM_RECENT = `,
  marked AS (
    SELECT webhook_id, status, n,
      MIN(CASE WHEN status = 'succeeded' THEN n END) OVER (PARTITION BY webhook_id) AS first_ok
    FROM recent
  )
  SELECT webhook_id,
    CAST(SUM(CASE WHEN status IN ('pending', 'retrying') THEN 1 ELSE 0 END) AS INTEGER) AS pending,
    CAST(SUM(CASE WHEN status = 'retrying' THEN 1 ELSE 0 END) AS INTEGER) AS retrying,
    CAST(SUM(CASE WHEN status IN ('failed', 'retrying') AND (first_ok IS NULL OR n < first_ok) THEN 1 ELSE 0 END) AS INTEGER) AS failures_in_a_row,
    CASE
      WHEN MIN(CASE WHEN status IN ('succeeded', 'failed', 'retrying') THEN n END) IS NULL THEN NULL
      WHEN MIN(CASE WHEN status IN ('succeeded', 'failed', 'retrying') THEN n END) = MIN(first_ok) THEN 'succeeded'
      ELSE 'failed'
    END AS last_outcome
  FROM marked GROUP BY webhook_id`;

export interface HealthRow {
  webhook_id: string;
  pending: number;
  retrying: number;
  failures_in_a_row: number;
  last_outcome: 'succeeded' | 'failed' | null;
}

export function healthMap(rows: HealthRow[]): Map<string, WebhookHealth> {
  return new Map(
    rows.map((r) => [
      r.webhook_id,
      { lastOutcome: r.last_outcome, failuresInARow: Number(r.failures_in_a_row), pending: Number(r.pending), retrying: Number(r.retrying) },
    ]),
  );
}
