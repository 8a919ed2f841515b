/** Recovery job rows as both databases return them, and their mapping to src/webhooks/types.ts Recovery. */
import type { Recovery, RecoveryFilter, RecoveryState } from '../../webhooks/types.js';

export interface RecoveryRow {
  id: string;
  webhook_id: string | null;
  filter_json: string;
  status: string;
  total: number | string;
  resent: number | string;
  cursor: string;
  lease_owner: string | null;
  lease_until: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export function toRecovery(r: RecoveryRow): Recovery {
  return {
    id: r.id,
    webhookId: r.webhook_id,
    filter: JSON.parse(r.filter_json) as RecoveryFilter,
    status: r.status as RecoveryState,
    total: Number(r.total),
    resent: Number(r.resent),
    cursor: r.cursor,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    finishedAt: r.finished_at,
  };
}
