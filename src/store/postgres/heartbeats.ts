/**
 * Lease owners' heartbeats on PostgreSQL (store.ts HeartbeatsPart). A
 * takeover is one statement: the stale rows are deleted and their delivery
 * leases given back together. Under READ COMMITTED a beat that commits first
 * is seen by the DELETE's re-check (its row is kept); one that comes after
 * finds no row and reports it.
 */
import type { HeartbeatsPart } from '../store.js';
import type { PgDb } from './db.js';

const TAKE_OVER = `WITH gone AS (
    DELETE FROM lease_heartbeats WHERE beat_at < $2 AND owner <> $1 RETURNING owner, host, pid, beat_at),
  -- RETURNING shows the row after the update (lease_owner NULL): the owner comes from gone.
  freed AS (
    UPDATE deliveries d SET lease_owner = NULL, lease_until = NULL FROM gone
    WHERE d.lease_owner = gone.owner RETURNING gone.owner AS was)
  SELECT g.owner, g.host, g.pid, g.beat_at,
    (SELECT count(*) FROM freed f WHERE f.was = g.owner)::int AS released
  FROM gone g`;

export function pgHeartbeats(deps: { db: PgDb }): HeartbeatsPart {
  const { db } = deps;
  return {
    async beat(b) {
      // Update first: a beat is almost always of a row that is there, and xmax tricks are not needed to tell.
      if ((await db.changes('UPDATE lease_heartbeats SET beat_at = $2 WHERE owner = $1', [b.owner, b.now])) > 0) return true;
      await db.changes(
        `INSERT INTO lease_heartbeats (owner, host, pid, started_at, beat_at) VALUES ($1, $2, $3, $4, $4)
         ON CONFLICT (owner) DO UPDATE SET beat_at = excluded.beat_at`,
        [b.owner, b.host, b.pid, b.now],
      );
      return false;
    },

    async endHeartbeat(owner) {
      await db.changes('DELETE FROM lease_heartbeats WHERE owner = $1', [owner]);
    },

    async takeOverStaleOwners(self, staleBefore) {
      const rows = await db.rows<{ owner: string; host: string; pid: number; beat_at: string; released: number }>(TAKE_OVER, [
        self,
        staleBefore,
      ]);
      return rows.map((r) => ({ owner: r.owner, host: r.host, pid: r.pid, beatAt: r.beat_at, released: r.released }));
    },
  };
}
