/**
 * Lease owners' heartbeats on SQLite (store.ts HeartbeatsPart). A takeover
 * removes a silent owner's row and gives back its delivery leases in one
 * IMMEDIATE transaction, only if its seq has not moved: an owner that beats
 * meanwhile keeps its row and its leases, one that beats after finds its row
 * gone (and its leases with it).
 */
import type { HeartbeatRow, HeartbeatsPart } from '../store.js';
import type { SqliteDb } from './db.js';

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    touch: p('UPDATE lease_heartbeats SET seq = seq + 1, beat_at = @now WHERE owner = @owner'),
    insert: p(`INSERT INTO lease_heartbeats (owner, host, pid, seq, started_at, beat_at) VALUES (@owner, @host, @pid, 1, @now, @now)
      ON CONFLICT (owner) DO UPDATE SET seq = seq + 1, beat_at = excluded.beat_at`),
    all: p('SELECT owner, host, pid, seq, beat_at AS beatAt FROM lease_heartbeats ORDER BY owner'),
    removeAt: p('DELETE FROM lease_heartbeats WHERE owner = ? AND seq = ?'),
    remove: p('DELETE FROM lease_heartbeats WHERE owner = ?'),
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

    async heartbeats() {
      return s.all.all() as HeartbeatRow[];
    },

    async takeOverOwner(owner, seq) {
      return db.write(() => (s.removeAt.run(owner, seq).changes === 0 ? null : s.release.run(owner).changes));
    },

    async endHeartbeat(owner) {
      s.remove.run(owner);
    },
  };
}
