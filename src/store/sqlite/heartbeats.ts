/**
 * Lease owners' heartbeats on SQLite (store.ts HeartbeatsPart). A takeover
 * removes the stale rows and gives back their delivery leases in one
 * IMMEDIATE transaction, so an owner that beats again meanwhile either kept
 * its row (and its leases) or finds it gone (and its leases with it).
 */
import type { HeartbeatsPart, TakenOverOwner } from '../store.js';
import type { SqliteDb } from './db.js';

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    touch: p('UPDATE lease_heartbeats SET beat_at = @now WHERE owner = @owner'),
    insert: p(`INSERT INTO lease_heartbeats (owner, host, pid, started_at, beat_at) VALUES (@owner, @host, @pid, @now, @now)
      ON CONFLICT (owner) DO UPDATE SET beat_at = excluded.beat_at`),
    remove: p('DELETE FROM lease_heartbeats WHERE owner = ?'),
    stale: p(`SELECT owner, host, pid, beat_at FROM lease_heartbeats WHERE beat_at < @before AND owner <> @self`),
    release: p('UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ?'),
  };
}

export function sqliteHeartbeats(deps: { db: SqliteDb }): HeartbeatsPart {
  const { db } = deps;
  const s = prepare(db);
  return {
    async beat(b) {
      return db.write(() => {
        if (s.touch.run({ owner: b.owner, now: b.now }).changes > 0) return true;
        s.insert.run(b);
        return false;
      });
    },

    async endHeartbeat(owner) {
      s.remove.run(owner);
    },

    async takeOverStaleOwners(self, staleBefore) {
      return db.write(() => {
        const rows = s.stale.all({ before: staleBefore, self }) as Array<{ owner: string; host: string; pid: number; beat_at: string }>;
        return rows.map((r): TakenOverOwner => {
          const released = s.release.run(r.owner).changes;
          s.remove.run(r.owner);
          return { owner: r.owner, host: r.host, pid: r.pid, beatAt: r.beat_at, released };
        });
      });
    },
  };
}
