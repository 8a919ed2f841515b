/**
 * Writes the collector's increments to the store every few seconds and at
 * shutdown, and prunes rows older than a day once an hour. A failed write
 * keeps its rows for the next one (bounded in the collector), so a store
 * that is briefly away loses no counts.
 */
import type { Store } from '../store/store.js';
import type { Logger } from '../types.js';
import type { StatsCollector } from './collector.js';

export const FLUSH_MS = 5_000;
const PRUNE_MS = 3_600_000;
/** Rows are kept this long (the widest window `GET /api/stats` serves). */
export const KEEP_MINUTES = 24 * 60;
/** Failures kept in the store (the overview shows 20). */
const KEEP_FAILURES = 200;

export interface StatsFlusherDeps {
  collector: StatsCollector;
  store: Store;
  log: Logger;
}

export class StatsFlusher {
  private timer: NodeJS.Timeout | null = null;
  private pruneTimer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  private readonly collector: StatsCollector;
  private readonly store: Store;
  private readonly log: Logger;

  constructor(deps: StatsFlusherDeps) {
    this.collector = deps.collector;
    this.store = deps.store;
    this.log = deps.log;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
    this.pruneTimer = setInterval(() => void this.prune(), PRUNE_MS);
    this.pruneTimer.unref();
    void this.prune();
  }

  /** Writes what is pending now; concurrent calls wait for the write in progress and then write theirs. */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    const batch = this.collector.take();
    if (batch.requests.length + batch.outcomes.length + batch.lateness.length + batch.failures.length === 0) return;
    this.running = this.store.addStats(batch).then(
      () => undefined,
      (err: unknown) => {
        this.collector.giveBack(batch);
        this.log.warn({ err }, 'could not write statistics; keeping them for the next flush');
      },
    );
    try {
      await this.running;
    } finally {
      this.running = null;
    }
  }

  private async prune(): Promise<void> {
    const minute = Math.floor(this.collector.clock.now() / 60_000);
    await this.store.pruneStats(minute - KEEP_MINUTES, KEEP_FAILURES).catch((err: unknown) => {
      this.log.warn({ err }, 'could not prune statistics');
    });
  }

  /** Stops the timers and writes what is left (call before the store closes). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    this.timer = this.pruneTimer = null;
    await this.flush();
  }
}
