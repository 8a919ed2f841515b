/**
 * A lease owner's heartbeat: every few seconds this process writes its beat
 * to the store and gives back the delivery leases of owners whose beats
 * stopped, so a dead node's work resumes within about the timeout (10 s by
 * default) instead of when its 90 s leases run out. A slow attempt on a live
 * node keeps its lease: its owner keeps beating.
 *
 * No clock is compared across processes: an owner is silent when its row's
 * `seq` has not moved for the timeout, timed by whoever watches on its own
 * monotonic clock. Skewed clocks, a database clock corrected by a step, a
 * test's hand-moved clock: none makes a live owner look dead.
 *
 * Fencing: a process paused past the timeout (GC, SIGSTOP, a lost network)
 * may have been taken for dead. Its outcomes can no longer be recorded (a
 * record needs the lease), and `fresh()` tells the engine not to claim or
 * send while its last beat began longer ago than the timeout less one
 * interval, before anyone may take it over (a watcher's silence starts no
 * earlier than that beat). A beat that finds its row gone moves `epoch`:
 * attempts claimed before it must not be sent.
 */
import type { Clock } from '../clock.js';
import type { HeartbeatsPart } from '../store/store.js';
import type { Logger } from '../types.js';

/** An owner silent this long is taken for dead (SWITCHYARD_HEARTBEAT_TIMEOUT). */
export const DEFAULT_HEARTBEAT_TIMEOUT_MS = 10_000;

/** What the engine asks before it claims or sends. */
export interface LeaseFence {
  /** Whether nobody can have taken this owner's leases over yet (its last beat is recent enough). */
  fresh(): boolean;
  /** Moves each time this owner learns it was taken for dead: attempts of an earlier epoch lost their leases. */
  readonly epoch: number;
}

/** An owner this process took over, with the delivery leases it gave back. */
export interface TakenOver {
  owner: string;
  host: string;
  pid: number;
  released: number;
}

export interface OwnerHeartbeatDeps {
  store: HeartbeatsPart;
  /** Stamps beat_at, for people reading the table. */
  clock: Clock;
  /** Monotonic milliseconds, for every duration here (default performance.now; tests pass their hand-moved clock). */
  elapsed?: () => number;
  owner: string;
  host: string;
  pid: number;
  /** An owner whose last beat is older than this is taken over (default 10 s). */
  timeoutMs?: number;
  /** Between beats (default a tenth of the timeout: a watcher notices a silence within the timeout plus two beats). */
  intervalMs?: number;
  log: Logger;
  /** After each beat that gave another owner's leases back: the engine claims them now. */
  onTakeover?(owners: TakenOver[]): void;
  /** After each successful beat (the engine may claim again if it waited for one). */
  onBeat?(): void;
}

const iso = (ms: number) => new Date(ms).toISOString();

export class OwnerHeartbeat implements LeaseFence {
  readonly timeoutMs: number;
  readonly intervalMs: number;
  private readonly store: HeartbeatsPart;
  private readonly clock: Clock;
  private readonly elapsed: () => number;
  private readonly log: Logger;
  /** Each other owner's seq as last seen, and since when (elapsed ms) it has not moved. */
  private readonly watched = new Map<string, { seq: number; since: number }>();
  /** When the last successful beat began (elapsed ms). */
  private lastBeatAt = Number.NEGATIVE_INFINITY;
  private beaten = false;
  private epochN = 0;
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly deps: OwnerHeartbeatDeps) {
    this.store = deps.store;
    this.clock = deps.clock;
    this.elapsed = deps.elapsed ?? (() => performance.now());
    this.log = deps.log;
    this.timeoutMs = deps.timeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS;
    // Under half the timeout, or `fresh()` would never hold between two beats.
    this.intervalMs = Math.min(deps.intervalMs ?? Math.max(100, Math.floor(this.timeoutMs / 10)), Math.floor(this.timeoutMs / 2));
  }

  get epoch(): number {
    return this.epochN;
  }

  /**
   * The margin is one interval: a beat that is due but late (a busy event
   * loop) stops claims and sends before the others may take the owner over.
   */
  fresh(): boolean {
    return this.elapsed() - this.lastBeatAt < this.timeoutMs - this.intervalMs;
  }

  /** Beats once (awaited: the first claim finds the row fresh), then every interval. */
  async start(): Promise<void> {
    if (this.timer || this.stopped) return;
    await this.beat();
    if (this.stopped) return;
    this.timer = setInterval(() => void this.beat(), this.intervalMs);
    this.timer.unref();
  }

  /** One beat and one takeover round. Never throws: a failed beat leaves the owner less fresh. */
  beat(): Promise<void> {
    this.beating ??= this.beatOnce().finally(() => {
      this.beating = null;
    });
    return this.beating;
  }

  /** Stops beating and removes the row; call after the engine gave its leases back. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beating;
    try {
      await this.store.endHeartbeat(this.deps.owner);
    } catch (err) {
      this.log.warn({ err }, 'removing the lease heartbeat failed; the others sweep it after the timeout');
    }
  }

  private async beatOnce(): Promise<void> {
    const at = this.elapsed();
    try {
      const kept = await this.store.beat({ owner: this.deps.owner, host: this.deps.host, pid: this.deps.pid, now: iso(this.clock.now()) });
      if (!kept && this.beaten) {
        this.epochN++;
        this.log.warn(
          { owner: this.deps.owner, silentMs: Math.round(at - this.lastBeatAt) },
          'this process was taken for dead (its heartbeat stopped past the timeout): its delivery leases went to others; attempts in flight are not recorded',
        );
      }
      this.beaten = true;
      // This process could not beat for half the timeout (the database was away, or it was paused itself):
      // it saw nobody meanwhile, so nobody's silence is known; time them all again from now.
      if (at - this.lastBeatAt > this.timeoutMs / 2) this.watched.clear();
      this.lastBeatAt = Math.max(this.lastBeatAt, at);
    } catch (err) {
      this.log.warn({ err }, 'lease heartbeat failed');
      return;
    }
    this.deps.onBeat?.();
    if (this.stopped) return;
    try {
      await this.takeOverSilent();
    } catch (err) {
      this.log.warn({ err }, 'taking over silent lease owners failed; they are taken over at a later beat');
    }
  }

  /** Times each other owner's silence from when this process first saw its seq, and takes over those silent past the timeout. */
  private async takeOverSilent(): Promise<void> {
    const rows = await this.store.heartbeats();
    const now = this.elapsed();
    const listed = new Set<string>();
    const taken: TakenOver[] = [];
    for (const row of rows) {
      if (row.owner === this.deps.owner) continue;
      listed.add(row.owner);
      const seen = this.watched.get(row.owner);
      if (!seen || seen.seq !== row.seq) {
        this.watched.set(row.owner, { seq: row.seq, since: now });
        continue;
      }
      if (now - seen.since < this.timeoutMs) continue;
      const released = await this.store.takeOverOwner(row.owner, row.seq);
      this.watched.delete(row.owner);
      if (released === null) continue;
      taken.push({ owner: row.owner, host: row.host, pid: row.pid, released });
      this.log.warn(
        { owner: row.owner, host: row.host, pid: row.pid, lastBeat: row.beatAt, released },
        'took over a lease owner whose heartbeat stopped; sending its deliveries again',
      );
    }
    for (const owner of this.watched.keys()) if (!listed.has(owner)) this.watched.delete(owner);
    if (taken.length > 0) this.deps.onTakeover?.(taken);
  }
}
