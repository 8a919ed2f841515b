/**
 * Idempotency keys on SQLite (store.ts IdempotencyPart): the claim and the read
 * of the row there run in one IMMEDIATE transaction, so a loser always sees the
 * winner's row.
 */
import { claimUpsertTail, toIdempotencyRecord, type IdempotencyRow } from '../shared/idempotency-rows.js';
import type { IdempotencyPart } from '../store.js';
import type { SqliteDb } from './db.js';

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    claim: p(`INSERT INTO idempotency_keys (scope, key, request_hash, token, created_at, expires_at)
      VALUES (@scope, @key, @requestHash, @token, @now, @expiresAt) ${claimUpsertTail('@staleBefore')}`),
    read: p('SELECT request_hash, status, response, expires_at FROM idempotency_keys WHERE scope = ? AND key = ?'),
    complete: p('UPDATE idempotency_keys SET status = ?, response = ? WHERE scope = ? AND key = ? AND token = ?'),
    release: p('DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND token = ?'),
    sweep: p(`DELETE FROM idempotency_keys WHERE rowid IN
      (SELECT rowid FROM idempotency_keys WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`),
  };
}

export function sqliteIdempotency(deps: { db: SqliteDb }): IdempotencyPart {
  const { db } = deps;
  const s = prepare(db);
  return {
    async claimIdempotencyKey(claim) {
      return db.write(() => {
        if (s.claim.run(claim).changes === 1) return { claimed: true as const };
        const row = s.read.get(claim.scope, claim.key) as IdempotencyRow;
        return { claimed: false as const, record: toIdempotencyRecord(row) };
      });
    },

    async completeIdempotencyKey(scope, key, token, status, response) {
      s.complete.run(status, response, scope, key, token);
    },

    async releaseIdempotencyKey(scope, key, token) {
      s.release.run(scope, key, token);
    },

    async sweepIdempotencyKeys(now, limit) {
      return s.sweep.run(now, limit).changes;
    },
  };
}
