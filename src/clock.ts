/**
 * Time as the scheduler and the delivery engine see it. Several nodes must
 * agree on it (a slot is due, a lease has expired), so production on
 * PostgreSQL uses a DatabaseClock: the node's clock corrected by its measured
 * offset from the database server's. SQLite's processes share one machine, so
 * there the system clock is the database clock. Tests (and
 * `SWITCHYARD_TEST_HOOKS=1`) use a ManualClock they move forward, so minutes
 * of schedule run in milliseconds.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `listener` whenever the clock jumps (moved by hand, or corrected by a large step). */
  onJump(listener: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  onJump: () => () => undefined,
};

class JumpListeners {
  private listeners = new Set<() => void>();

  add(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  fire(): void {
    for (const listener of this.listeners) listener();
  }
}

export class ManualClock implements Clock {
  private readonly jumps = new JumpListeners();
  constructor(private current: number = Date.now()) {}

  now(): number {
    return this.current;
  }

  set(ms: number): void {
    this.current = ms;
    this.jumps.fire();
  }

  advance(ms: number): void {
    this.set(this.current + ms);
  }

  onJump(listener: () => void): () => void {
    return this.jumps.add(listener);
  }
}

export interface DatabaseClockOptions {
  /** The database server's current time in ms (one round trip). */
  readTime(): Promise<number>;
  /** This node's clock; tests pass a skewed one. */
  local?: () => number;
  /** How often to measure the offset again. Clocks drift by ms per hour, so rarely is enough. */
  resyncMs?: number;
  /** Round trips per measurement; the fastest one is kept, as NTP does. */
  samples?: number;
  /** A correction larger than this wakes the scheduler and the engine (onJump). */
  jumpMs?: number;
  onError?(err: unknown): void;
}

/**
 * The database server's clock, read locally: `now()` is this node's clock plus
 * an offset measured with a few timed round trips (offset = server time - the
 * midpoint of the round trip; error at most half the fastest round trip).
 * `now()` itself never waits on the database. Until the first measurement,
 * and while the database is away, the last known offset (0 at first) is used.
 */
export class DatabaseClock implements Clock {
  private readonly local: () => number;
  private readonly jumps = new JumpListeners();
  private offsetMs = 0;
  private timer: NodeJS.Timeout | null = null;
  private syncing: Promise<void> | null = null;

  constructor(private readonly opts: DatabaseClockOptions) {
    this.local = opts.local ?? Date.now;
  }

  now(): number {
    return this.local() + this.offsetMs;
  }

  /** The last measured offset from this node's clock to the database's, in ms. */
  get offset(): number {
    return this.offsetMs;
  }

  onJump(listener: () => void): () => void {
    return this.jumps.add(listener);
  }

  /** Measures now and then every `resyncMs`. Resolves after the first measurement (which may fail: see onError). */
  async start(): Promise<void> {
    await this.sync();
    if (this.timer) return;
    this.timer = setInterval(() => void this.sync(), this.opts.resyncMs ?? 30_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One measurement. Never throws: a failed one keeps the previous offset. */
  sync(): Promise<void> {
    this.syncing ??= this.measure().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  private async measure(): Promise<void> {
    let best: { rtt: number; offset: number } | null = null;
    try {
      for (let i = 0; i < (this.opts.samples ?? 3); i++) {
        const sent = this.local();
        const server = await this.opts.readTime();
        const received = this.local();
        const rtt = received - sent;
        if (!best || rtt < best.rtt) best = { rtt, offset: server - (sent + received) / 2 };
      }
    } catch (err) {
      this.opts.onError?.(err);
      if (!best) return;
    }
    const step = Math.abs(best!.offset - this.offsetMs);
    this.offsetMs = Math.round(best!.offset);
    if (step > (this.opts.jumpMs ?? 1_000)) this.jumps.fire();
  }
}
