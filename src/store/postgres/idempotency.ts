/**
 * Idempotency keys on PostgreSQL (store.ts IdempotencyPart): the upsert's
 * conflict on the primary key decides the winner among concurrent claims;
 * a loser reads the row after, and claims again when it was released between.
 */
import { claimUpsertTail, toIdempotencyRecord, type IdempotencyRow } from '../shared/idempotency-rows.js';
import type { IdempotencyPart } from '../store.js';
import type { PgDb } from './db.js';

/** A row released between a lost claim and its read is rare; past this many turns, something keeps deleting it. */
const CLAIM_TURNS = 5;

export function pgIdempotency(deps: { db: PgDb }): IdempotencyPart {
  const { db } = deps;
  return {
    async claimIdempotencyKey(claim) {
      for (let turn = 0; turn < CLAIM_TURNS; turn++) {
        const won = await db.changes(
          `INSERT INTO idempotency_keys (scope, key, request_hash, token, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6) ${claimUpsertTail('$7')}`,
          [claim.scope, claim.key, claim.requestHash, claim.token, claim.now, claim.expiresAt, claim.staleBefore],
        );
        if (won === 1) return { claimed: true as const };
        const [row] = await db.rows<IdempotencyRow>(
          'SELECT request_hash, status, response, expires_at FROM idempotency_keys WHERE scope = $1 AND key = $2',
          [claim.scope, claim.key],
        );
        if (row) return { claimed: false as const, record: toIdempotencyRecord(row) };
      }
      throw new Error(`Idempotency key ${claim.scope}/${claim.key} was released ${CLAIM_TURNS} times while being claimed`);
    },

    async completeIdempotencyKey(scope, key, token, status, response) {
      await db.changes('UPDATE idempotency_keys SET status = $1, response = $2 WHERE scope = $3 AND key = $4 AND token = $5', [
        status,
        response,
        scope,
        key,
        token,
      ]);
    },

    async releaseIdempotencyKey(scope, key, token) {
      await db.changes('DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND token = $3', [scope, key, token]);
    },

    async sweepIdempotencyKeys(now, limit) {
      return db.changes(
        `DELETE FROM idempotency_keys WHERE (scope, key) IN
          (SELECT scope, key FROM idempotency_keys WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`,
        [now, limit],
      );
    },
  };
}
