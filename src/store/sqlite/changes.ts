/**
 * Change announcements between processes sharing one SQLite file: a small
 * table every process appends to and polls (every 200 ms, well inside the
 * documented 1 s). SQLite has no notifications; a cheap indexed poll is the
 * equivalent. A row's id is the change's number. Rows older than a minute are
 * pruned by whoever announces, which never removes the newest row (the one it
 * just wrote), so the largest id only grows.
 */
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Change, ChangeFeed, ChangeListener } from '../../changes.js';

const POLL_MS = 200;
const KEEP_MS = 60_000;

function encode(change: Change): { kind: string; key: string } {
  switch (change.kind) {
    case 'api':
      return { kind: 'api', key: change.id };
    case 'function':
      return { kind: 'function', key: change.name };
    case 'reset':
      return { kind: 'reset', key: '' };
    case 'keys':
      return { kind: 'keys', key: '' };
    case 'event_type':
      return { kind: 'event_type', key: change.name };
    case 'webhook':
      return { kind: 'webhook', key: change.id };
    case 'watching':
      return { kind: 'watching', key: change.origin };
  }
}

function decode(kind: string, key: string): Change | null {
  if (kind === 'api') return { kind: 'api', id: key };
  if (kind === 'function') return { kind: 'function', name: key };
  if (kind === 'reset') return { kind: 'reset' };
  if (kind === 'keys') return { kind: 'keys' };
  if (kind === 'event_type') return { kind: 'event_type', name: key };
  if (kind === 'webhook') return { kind: 'webhook', id: key };
  if (kind === 'watching') return { kind: 'watching', origin: key };
  return null;
}

export class SqliteChangeFeed implements ChangeFeed {
  /** This process's (this store's) mark, so it skips its own announcements. */
  private readonly origin = randomBytes(8).toString('hex');
  private announced = 0;

  private readonly db: Database.Database;

  constructor(deps: { db: Database.Database }) {
    this.db = deps.db;
  }

  async announce(change: Change): Promise<number> {
    if (!this.db.open) return 0;
    const { kind, key } = encode(change);
    const now = Date.now();
    const { lastInsertRowid } = this.db
      .prepare('INSERT INTO changes (origin, kind, key, at) VALUES (?, ?, ?, ?)')
      .run(this.origin, kind, key, new Date(now).toISOString());
    if (++this.announced % 50 === 0) {
      this.db.prepare('DELETE FROM changes WHERE at < ?').run(new Date(now - KEEP_MS).toISOString());
    }
    return Number(lastInsertRowid);
  }

  async latest(): Promise<number> {
    if (!this.db.open) return 0;
    return (this.db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM changes').get() as { id: number }).id;
  }

  watch(listener: ChangeListener): () => void {
    if (!this.db.open) return () => undefined;
    const latest = this.db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM changes').get() as { id: number };
    let cursor = latest.id;
    const since = this.db.prepare('SELECT id, kind, key FROM changes WHERE id > ? AND origin <> ? ORDER BY id');
    const last = this.db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM changes');
    const timer = setInterval(() => {
      if (!this.db.open) return;
      try {
        const rows = since.all(cursor, this.origin) as Array<{ id: number; kind: string; key: string }>;
        for (const row of rows) {
          const change = decode(row.kind, row.key);
          if (change) listener(change, row.id);
        }
        cursor = rows.length > 0 ? rows[rows.length - 1].id : Math.max(cursor, (last.get() as { id: number }).id);
      } catch {
        // A busy or closing database: try again on the next tick.
      }
    }, POLL_MS);
    timer.unref();
    return () => clearInterval(timer);
  }
}
