/**
 * In-process notifications that something cached in memory changed in the store.
 * Route tables and function records are cached on the hot path; every write goes
 * through a service that publishes here, and the caches drop what changed.
 *
 * Two roads reach the other processes. The store's feed (a polled table on
 * SQLite, LISTEN/NOTIFY on PostgreSQL) reaches every node on the database, in
 * its own time. The sibling processes of this node (`--processes`, one port)
 * are also told through the cluster's channel, and `publish` resolves only
 * once they have applied the change (bounded): a management write answers
 * after every process of the node will serve it (read-your-writes on one node).
 * Every announced change has a number, increasing per database: a process that
 * has seen fewer than the store knows of can tell that it may be behind.
 * The log streams use the same bus to say that someone watches invocations.
 */
export type Change =
  | { kind: 'api'; id: string }
  | { kind: 'function'; name: string }
  /** An API key or usage plan changed: the gateway's key cache drops every entry (they change rarely). */
  | { kind: 'keys' }
  /** An event type of the catalogue changed: every process drops its compiled validators for it (src/events/catalogue.ts). */
  | { kind: 'event_type'; name: string }
  /** A webhook's sending state changed (paused, resumed, enabled, its breaker or Retry-After): the delivery side drops what it cached of it. */
  | { kind: 'webhook'; id: string }
  /** Something may have been missed (a lost database connection): drop every cached entry. */
  | { kind: 'reset' }
  /**
   * Not a cache entry: the process `origin` has a log stream open, so every process
   * shares its finished invocations for a while (src/streams/invocations.ts).
   */
  | { kind: 'watching'; origin: string };

/** A listener's view of a change: what changed and its number on the database (0 when unknown). */
export type ChangeListener = (change: Change, seq: number) => void;

/**
 * How processes sharing one database tell each other about changes: a table
 * polled by the SQLite store, LISTEN/NOTIFY on PostgreSQL.
 */
export interface ChangeFeed {
  /** Tells the OTHER processes on this database; resolves with the change's number. */
  announce(change: Change): Promise<number>;
  /** The number of the latest change announced on this database by anyone (0: none yet). */
  latest(): Promise<number>;
  /** Calls `listener` for changes announced by other processes; returns a stop function. */
  watch(listener: ChangeListener): () => void;
}

/** The other server processes of this node (src/sibling-changes.ts). */
export interface Siblings {
  /** Resolves once every sibling has applied the change, or the wait's bound has passed. */
  tell(change: Change, seq: number): Promise<void>;
  /** Calls `listener` for the changes the siblings make; returns a stop function. */
  listen(listener: ChangeListener): () => void;
}

export interface ChangeBusDeps {
  feed?: ChangeFeed;
  siblings?: Siblings | null;
  onFeedError?: (err: unknown) => void;
}

export class ChangeBus {
  private readonly listeners = new Set<ChangeListener>();
  private readonly stops: Array<() => void> = [];
  private readonly feed: ChangeFeed | undefined;
  private readonly siblings: Siblings | null;
  private readonly onFeedError: (err: unknown) => void;
  /** The highest change number this process has applied (its own or another's). */
  private seen = 0;
  /** Cache changes published here so far: the HTTP layer compares it around a request. */
  private publishedCount = 0;
  private lastPublished = 0;
  private behindCheck: Promise<boolean> | null = null;

  /** With a feed, local changes are announced to other processes and theirs arrive here. */
  constructor(deps: ChangeBusDeps = {}) {
    this.feed = deps.feed;
    this.siblings = deps.siblings ?? null;
    this.onFeedError = deps.onFeedError ?? (() => undefined);
    const arrive: ChangeListener = (change, seq) => this.deliver(change, seq);
    if (this.feed) {
      this.stops.push(this.feed.watch(arrive));
      // Caches start empty: every change the store holds so far is already applied here.
      this.feed.latest().then(
        (latest) => {
          if (latest > this.seen) this.seen = latest;
        },
        (err: unknown) => this.onFeedError(err),
      );
    }
    if (this.siblings) this.stops.push(this.siblings.listen(arrive));
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * A change made in this process: local caches first, then the other
   * processes. Resolves with the change's number once this node's sibling
   * processes have applied it too (never rejects: a feed that cannot be
   * reached is reported to `onFeedError`, and the change still goes to the siblings).
   */
  async publish(change: Change): Promise<number> {
    this.deliver(change, 0);
    if (change.kind !== 'watching') this.publishedCount++;
    let seq = 0;
    if (this.feed) {
      try {
        seq = await this.feed.announce(change);
      } catch (err) {
        this.onFeedError(err);
      }
    }
    if (seq > this.seen) this.seen = seq;
    // Watching is no cache entry: the feed alone carries it, nobody waits for it.
    if (this.siblings && change.kind !== 'watching') await this.siblings.tell(change, seq);
    if (seq > this.lastPublished) this.lastPublished = seq;
    return seq;
  }

  /** How many cache changes this process has published: unchanged over a request, it published none. */
  get published(): number {
    return this.publishedCount;
  }

  /** The number of the latest change this process published (0: none, or no feed). */
  get latestPublished(): number {
    return this.lastPublished;
  }

  /**
   * Whether the store knows of a change this process has not applied yet (a
   * change on another node whose notice is still on its way). One check at a
   * time: concurrent callers share it, so a burst of misses costs one query.
   */
  behind(): Promise<boolean> {
    if (!this.feed) return Promise.resolve(false);
    return (this.behindCheck ??= this.feed
      .latest()
      .then(
        (latest) => latest > this.seen,
        () => false,
      )
      .finally(() => {
        this.behindCheck = null;
      }));
  }

  /**
   * Makes this process answer from a state at least as new as change `seq`
   * (a number a management write answered with): when it has not applied that
   * change yet but the store has it, every cached entry is dropped (the next
   * reads come from the store, which holds it). False when the store knows of
   * no such change.
   */
  async catchUp(seq: number): Promise<boolean> {
    if (seq <= this.seen) return true;
    if (!this.feed) return false;
    const latest = await this.feed.latest();
    if (latest < seq) return false;
    if (latest > this.seen) {
      this.seen = latest;
      this.deliver({ kind: 'reset' }, 0);
    }
    return true;
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  private deliver(change: Change, seq: number): void {
    if (seq > this.seen) this.seen = seq;
    for (const listener of this.listeners) listener(change, seq);
  }
}
