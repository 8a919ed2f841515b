/**
 * In-process notifications that something cached in memory changed in the store.
 * Route tables and function records are cached on the hot path; every write goes
 * through a service that publishes here, and the caches drop what changed. A
 * multi-node store (PostgreSQL LISTEN/NOTIFY) feeds the same bus from other nodes.
 * The log streams use the same path to say that someone watches invocations.
 */
export type Change =
  | { kind: 'api'; id: string }
  | { kind: 'function'; name: string }
  /** Something may have been missed (a lost database connection): drop every cached entry. */
  | { kind: 'reset' }
  /**
   * Not a cache entry: the process `origin` has a log stream open, so every process
   * shares its finished invocations for a while (src/streams/invocations.ts).
   */
  | { kind: 'watching'; origin: string };

/**
 * How processes sharing one database tell each other about changes: a table
 * polled by the SQLite store, LISTEN/NOTIFY on PostgreSQL.
 */
export interface ChangeFeed {
  /** Tells the OTHER processes on this database. */
  announce(change: Change): Promise<void>;
  /** Calls `listener` for changes announced by other processes; returns a stop function. */
  watch(listener: ChangeListener): () => void;
}

export type ChangeListener = (change: Change) => void;

export class ChangeBus {
  private readonly listeners = new Set<ChangeListener>();
  private stopWatching: (() => void) | null = null;

  /** With a feed, local changes are announced to other processes and theirs arrive here. */
  constructor(
    private readonly feed?: ChangeFeed,
    private readonly onFeedError: (err: unknown) => void = () => undefined,
  ) {
    if (feed) this.stopWatching = feed.watch((change) => this.deliver(change));
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A change made in this process: local caches first, then the other processes. */
  publish(change: Change): void {
    this.deliver(change);
    this.feed?.announce(change).catch(this.onFeedError);
  }

  close(): void {
    this.stopWatching?.();
    this.stopWatching = null;
  }

  private deliver(change: Change): void {
    for (const listener of this.listeners) listener(change);
  }
}
