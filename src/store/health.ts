/**
 * The webhook list's health figures (store.webhookHealth), computed in SQL on
 * both databases from `recent (webhook_id, status, n)`: a webhook's newest
 * deliveries numbered from 1 (the newest). Each database builds `recent` its
 * own way, reading only that many index entries per webhook; the figures
 * are the same statement on both.
 */
import type { WebhookHealth } from '../webhooks/types.js';

/** Follows the `recent` CTE: one row per webhook with at least one delivery. */
export const HEALTH_FROM_RECENT = `,
  marked AS (
    SELECT webhook_id, status, n,
      MIN(CASE WHEN status = 'succeeded' THEN n END) OVER (PARTITION BY webhook_id) AS first_ok
    FROM recent
  )
  SELECT webhook_id,
    CAST(SUM(CASE WHEN status = 'pending' THEN 1 ELSE 0 END) AS INTEGER) AS pending,
    CAST(SUM(CASE WHEN status = 'failed' AND (first_ok IS NULL OR n < first_ok) THEN 1 ELSE 0 END) AS INTEGER) AS failures_in_a_row,
    CASE
      WHEN MIN(CASE WHEN status <> 'pending' THEN n END) IS NULL THEN NULL
      WHEN MIN(CASE WHEN status <> 'pending' THEN n END) = MIN(first_ok) THEN 'succeeded'
      ELSE 'failed'
    END AS last_outcome
  FROM marked GROUP BY webhook_id`;

export interface HealthRow {
  webhook_id: string;
  pending: number;
  failures_in_a_row: number;
  last_outcome: 'succeeded' | 'failed' | null;
}

export function healthMap(rows: HealthRow[]): Map<string, WebhookHealth> {
  return new Map(
    rows.map((r) => [r.webhook_id, { lastOutcome: r.last_outcome, failuresInARow: Number(r.failures_in_a_row), pending: Number(r.pending) }]),
  );
}
