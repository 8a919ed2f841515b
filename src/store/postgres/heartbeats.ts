/**
 * Lease owners' heartbeats on PostgreSQL (store.ts HeartbeatsPart). A
 * takeover is one statement: the silent owner's row is deleted, only while
 * its seq is the one seen, and its delivery leases given back together.
 * Under READ COMMITTED a beat that commits first is seen by the DELETE's
 * re-check (its row is kept); one that comes after finds no row and says so.
 */
import type { HeartbeatRow, HeartbeatsPart } from '../store.js';
import type { PgDb } from './db.js';

const TAKE_OVER = `WITH gone AS (
    DELETE FROM lease_heartbeats WHERE owner = $1 AND seq = $2 RETURNING owner),
  freed AS (
    UPDATE deliveries d SET lease_owner = NULL, lease_until = NULL FROM gone
    WHERE d.lease_owner = gone.owner RETURNING d.id)
  SELECT (SELECT count(*) FROM freed)::int AS released FROM gone`;

export function pgHeartbeats(deps: { db: PgDb }): HeartbeatsPart {
  const { db } = deps;
  return {
    async beat(b) {
      if ((await db.changes('UPDATE lease_heartbeats SET seq = seq + 1, beat_at = $2 WHERE owner = $1', [b.owner, b.now])) > 0) return true;
      await db.changes(
        `INSERT INTO lease_heartbeats (owner, host, pid, seq, started_at, beat_at) VALUES ($1, $2, $3, 1, $4, $4)
         ON CONFLICT (owner) DO UPDATE SET seq = lease_heartbeats.seq + 1, beat_at = excluded.beat_at`,
        [b.owner, b.host, b.pid, b.now],
      );
      return false;
    },

    async heartbeats() {
      return db.rows<HeartbeatRow>('SELECT owner, host, pid, seq, beat_at AS "beatAt" FROM lease_heartbeats ORDER BY owner');
    },

    async takeOverOwner(owner, seq) {
      const [row] = await db.rows<{ released: number }>(TAKE_OVER, [owner, seq]);
      return row ? row.released : null;
    },

    async endHeartbeat(owner) {
      await db.changes('DELETE FROM lease_heartbeats WHERE owner = $1', [owner]);
    },
  };
}
