/**
 * Change announcements between nodes on one PostgreSQL database, by
 * LISTEN/NOTIFY on a channel per schema. One dedicated connection listens;
 * when it drops (database restart, failover) it reconnects with backoff and
 * then reports a `reset`, since notifications sent meanwhile are lost.
 * A change's number is drawn from the `changes` table's own sequence (the
 * table itself stays empty on PostgreSQL) in the statement that notifies.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Change, ChangeFeed, ChangeListener } from '../../changes.js';

export class PgChangeFeed implements ChangeFeed {
  private readonly origin = randomBytes(8).toString('hex');
  readonly channel: string;
  private readonly pool: pg.Pool;
  /** How the listening connection connects (its own, outside the pool). */
  private readonly clientConfig: pg.ClientConfig;

  constructor(deps: { pool: pg.Pool; clientConfig: pg.ClientConfig; schema: string | null }) {
    this.pool = deps.pool;
    this.clientConfig = deps.clientConfig;
    this.channel = `switchyard_changes${deps.schema ? '_' + deps.schema : ''}`.toLowerCase().slice(0, 63);
  }

  async announce(change: Change): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(
      `SELECT pg_notify($1, json_build_object('o', $2::text, 'c', $3::json, 'n', n)::text), n
         FROM (SELECT nextval(pg_get_serial_sequence('changes', 'id')) AS n) AS drawn`,
      [this.channel, this.origin, JSON.stringify(change)],
    );
    return Number(rows[0].n);
  }

  async latest(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string | null }>(
      `SELECT pg_sequence_last_value(pg_get_serial_sequence('changes', 'id')::regclass) AS n`,
    );
    return Number(rows[0].n ?? 0);
  }

  watch(listener: ChangeListener): () => void {
    let stopped = false;
    let client: pg.Client | null = null;
    let retry: NodeJS.Timeout | null = null;
    let backoff = 100;
    let connectedBefore = false;

    const onNotification = (msg: pg.Notification) => {
      try {
        const { o, c, n } = JSON.parse(msg.payload ?? '{}') as { o?: string; c?: Change; n?: number };
        if (o !== this.origin && c) listener(c, typeof n === 'number' ? n : 0);
      } catch {
        // not ours
      }
    };

    const connect = async () => {
      retry = null;
      if (stopped) return;
      const next = new pg.Client(this.clientConfig);
      next.on('error', () => undefined);
      next.on('end', () => {
        if (client === next) client = null;
        schedule();
      });
      try {
        await next.connect();
        next.on('notification', onNotification);
        await next.query(`LISTEN "${this.channel}"`);
        if (stopped) {
          await next.end().catch(() => undefined);
          return;
        }
        client = next;
        backoff = 100;
        // Anything announced while we were not listening is lost: start from a clean slate.
        if (connectedBefore) listener({ kind: 'reset' }, 0);
        connectedBefore = true;
      } catch {
        await next.end().catch(() => undefined);
        schedule();
      }
    };

    const schedule = () => {
      if (stopped || retry) return;
      retry = setTimeout(() => void connect(), backoff);
      retry.unref();
      backoff = Math.min(backoff * 2, 5_000);
    };

    void connect();
    return () => {
      stopped = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      c?.end().catch(() => undefined);
    };
  }
}
