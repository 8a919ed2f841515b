/** The idempotency_keys row as both dialects read it, and its record (store.ts IdempotencyRecord). */
import type { IdempotencyRecord } from '../store.js';

export interface IdempotencyRow {
  request_hash: string;
  status: number | null;
  response: string | null;
  expires_at: number | string;
}

/** PostgreSQL gives BIGINT as text. */
export const toIdempotencyRecord = (row: IdempotencyRow): IdempotencyRecord => ({
  requestHash: row.request_hash,
  status: row.status,
  response: row.response,
  expiresAt: Number(row.expires_at),
});

/**
 * The claim: a new row, or the takeover of a row whose window ended before
 * `created_at`, or of an unanswered claim older than `stale` (the placeholder
 * of the dialect: its holder died); a live row is left as it is (the
 * statement changes nothing).
 */
export const claimUpsertTail = (stale: string) => `ON CONFLICT (scope, key) DO UPDATE SET
    request_hash = excluded.request_hash, token = excluded.token, status = NULL, response = NULL,
    created_at = excluded.created_at, expires_at = excluded.expires_at
  WHERE idempotency_keys.expires_at <= excluded.created_at
    OR (idempotency_keys.status IS NULL AND idempotency_keys.created_at < ${stale})`;
