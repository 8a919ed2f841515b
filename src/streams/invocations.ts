/**
 * Finished invocations (gateway requests, manual invokes, background runs) for
 * the log streams, from every process and node on the database.
 *
 * Nothing is built or written while nobody watches: the hot path asks `active`
 * first, two field reads. A process with a stream open
 * - hands its own invocations to its streams at once,
 * - says on the change feed that it watches, when a stream opens and again
 *   every ANNOUNCE_MS (the word lapses after three of them are missed, so a process that
 *   died stops costing, and a process that just started hears it soon), and
 * - follows the shared `invocation_events` table by id for everyone else's.
 * A process that heard another say it watches writes its invocations to that
 * table in batches (every FLUSH_MS) until the word lapses. Rows live KEEP_MS.
 *
 * Why a table and not the change feed itself: NOTIFY payloads are capped at
 * 8000 bytes and SQLite has no notifications, while a batched insert and an
 * indexed read by id cost the same on both stores. A batch is written when it
 * is FLUSH_MS old or MAX_BATCH long; when the store falls behind by MAX_UNWRITTEN
 * events, new ones are dropped until it catches up: a stream is for watching,
 * the metrics and statistics count everything.
 */
import { randomBytes } from 'node:crypto';
import type { ChangeBus } from '../changes.js';
import type { InvocationEventRow, Store } from '../store/store.js';
import type { Logger } from '../types.js';

export interface InvocationEvent {
  function: string;
  /** The API the request came through; null for `POST /api/functions/{name}/invoke`. */
  api_id: string | null;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  request_id: string;
  ts: string;
  /** `ok`, or the failure code (function_error, function_timeout, invalid_result, ...). */
  outcome: string;
  /**
   * How many console lines the call wrote: they reach the streams from the
   * store a moment later, so a client can wait for them and print the call after them.
   */
  log_lines: number;
}

/** Gets the function's name and the event's JSON (serialised once, for every stream). Runs synchronously; must not throw. */
export type InvocationListener = (functionName: string, data: string) => void;

export type InvocationEventStore = Pick<
  Store,
  'appendInvocationEvents' | 'listInvocationEventsAfter' | 'lastInvocationEventId' | 'pruneInvocationEvents'
>;

export interface SharedInvocations {
  store: InvocationEventStore;
  changes: ChangeBus;
  log: Pick<Logger, 'warn'>;
  /** Test seams; the defaults are the constants below. */
  flushMs?: number;
  pollMs?: number;
  announceMs?: number;
}

const FLUSH_MS = 100;
const POLL_MS = 250;
const ANNOUNCE_MS = 2_000;
/** How long the word that someone watches holds without being said again. */
const WATCH_TTL_ANNOUNCEMENTS = 3;
const KEEP_MS = 120_000;
const PRUNE_EVERY_MS = 60_000;
/** Events per insert, at most. */
const MAX_BATCH = 1000;
/** Events batched or being written, at most: beyond, a stream shows a sample. */
const MAX_UNWRITTEN = 10 * MAX_BATCH;
/** Rows a follower reads per query. */
const READ_BATCH = 500;

export class InvocationHub {
  /** Marks this process's rows and announcements, so it skips its own. */
  readonly origin = randomBytes(8).toString('hex');
  private readonly listeners = new Set<InvocationListener>();
  private readonly flushMs: number;
  private readonly pollMs: number;
  private readonly announceMs: number;

  // Writing for the others: while another process's word that it watches holds (this timer runs).
  private othersLapse: NodeJS.Timeout | null = null;
  private batch: InvocationEventRow[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  /** Events handed to the store whose write has not finished. */
  private inFlight = 0;
  private lastPrune = 0;

  // Following the others while this process has streams.
  private following = 0;
  private announceTimer: NodeJS.Timeout | null = null;
  private lastAnnounced = 0;
  private pollTimer: NodeJS.Timeout | null = null;
  private readonly stopWatchingChanges: () => void = () => undefined;
  private closed = false;

  /** Without `shared`, only this process's invocations reach its streams. */
  constructor(private readonly shared: SharedInvocations | null = null) {
    this.flushMs = shared?.flushMs ?? FLUSH_MS;
    this.pollMs = shared?.pollMs ?? POLL_MS;
    this.announceMs = shared?.announceMs ?? ANNOUNCE_MS;
    if (shared) {
      this.stopWatchingChanges = shared.changes.subscribe((change) => {
        if (change.kind === 'watching' && change.origin !== this.origin) this.heardWatcher();
      });
    }
  }

  /** True while a stream listens here or on another process: callers build events only then. */
  get active(): boolean {
    return this.listeners.size > 0 || this.othersLapse !== null;
  }

  /** True while another process watches: this one writes its invocations to the shared table. */
  get sharing(): boolean {
    return this.othersLapse !== null;
  }

  subscribe(listener: InvocationListener): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.startFollowing();
    // A new stream (a page just opened) should not wait for the next round to hear from the others.
    else if (Date.now() - this.lastAnnounced > 1000) this.announce();
    return () => {
      if (this.listeners.delete(listener) && this.listeners.size === 0) this.stopFollowing();
    };
  }

  publish(event: InvocationEvent): void {
    const data = JSON.stringify(event);
    this.deliver(event.function, data);
    if (this.othersLapse !== null && this.batch.length + this.inFlight < MAX_UNWRITTEN) {
      this.batch.push({ function: event.function, data });
      if (this.batch.length >= MAX_BATCH) void this.flush();
      else this.flushTimer ??= setTimeout(() => void this.flush(), this.flushMs);
    }
  }

  /** Stops following and announcing, and writes what is batched. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopWatchingChanges();
    this.stopFollowing();
    if (this.othersLapse) clearTimeout(this.othersLapse);
    this.othersLapse = null;
    await this.flush();
  }

  private deliver(functionName: string, data: string): void {
    for (const listener of this.listeners) {
      try {
        listener(functionName, data);
      } catch {
        // One broken stream must not break the invocation or the other streams.
      }
    }
  }

  private heardWatcher(): void {
    if (this.closed) return;
    if (this.othersLapse) clearTimeout(this.othersLapse);
    this.othersLapse = setTimeout(() => {
      this.othersLapse = null;
    }, WATCH_TTL_ANNOUNCEMENTS * this.announceMs);
    this.othersLapse.unref();
  }

  private flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const shared = this.shared;
    if (!shared || this.batch.length === 0) return this.writing;
    const batch = this.batch;
    this.batch = [];
    this.inFlight += batch.length;
    this.writing = this.writing.then(async () => {
      try {
        await shared.store.appendInvocationEvents(this.origin, batch);
        if (Date.now() - this.lastPrune > PRUNE_EVERY_MS) {
          this.lastPrune = Date.now();
          await shared.store.pruneInvocationEvents(KEEP_MS);
        }
      } catch (err) {
        shared.log.warn({ err }, 'could not share invocation events with the other processes');
      } finally {
        this.inFlight -= batch.length;
      }
    });
    return this.writing;
  }

  private startFollowing(): void {
    const shared = this.shared;
    if (!shared || this.closed) return;
    // A generation: a poll still in flight from an earlier round stops on its own.
    const round = ++this.following;
    this.announce();
    this.announceTimer = setInterval(() => this.announce(), this.announceMs);
    this.announceTimer.unref();

    let cursor: number | null = null;
    const poll = async () => {
      this.pollTimer = null;
      let full = false;
      try {
        if (cursor === null) cursor = await shared.store.lastInvocationEventId();
        else {
          const rows = await shared.store.listInvocationEventsAfter(cursor, this.origin, READ_BATCH);
          if (round !== this.following) return;
          for (const row of rows) {
            cursor = row.id;
            this.deliver(row.function, row.data);
          }
          full = rows.length === READ_BATCH;
        }
      } catch (err) {
        shared.log.warn({ err }, "could not read the other processes' invocation events; retrying");
      }
      if (round !== this.following) return;
      this.pollTimer = setTimeout(() => void poll(), full ? 0 : this.pollMs);
      this.pollTimer.unref();
    };
    void poll();
  }

  private announce(): void {
    this.lastAnnounced = Date.now();
    this.shared?.changes.publish({ kind: 'watching', origin: this.origin });
  }

  private stopFollowing(): void {
    this.following++;
    if (this.announceTimer) clearInterval(this.announceTimer);
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.announceTimer = null;
    this.pollTimer = null;
  }
}

/** Milliseconds rounded to hundredths, as the invoke endpoint reports them. */
export const roundMs = (ms: number) => Math.round(ms * 100) / 100;
