/**
 * The per-minute statistics of one process, assembled: the collector the
 * gateway and the delivery engine count into, the flusher that adds it to
 * the store, and the window read behind `GET /api/stats`.
 */
import type { Clock } from '../clock.js';
import type { Store } from '../store/store.js';
import { StatsCollector } from './collector.js';
import { StatsFlusher } from './flush.js';
import type { Logger } from '../types.js';
import { statsAnswer, type StatsAnswer } from './report.js';

/** Failures listed in an answer. */
const RECENT_FAILURES = 20;

export interface Stats {
  collector: StatsCollector;
  flusher: StatsFlusher;
  /** The last `minutes` minutes, the current one included. This process's own pending counts are written first. */
  window(minutes: number): Promise<StatsAnswer>;
}

export interface StatsDeps {
  clock: Clock;
  store: Store;
  log: Logger;
}

export function createStats({ clock, store, log }: StatsDeps): Stats {
  const collector = new StatsCollector({ clock });
  const flusher = new StatsFlusher({ collector, store, log });
  return {
    collector,
    flusher,
    async window(minutes: number): Promise<StatsAnswer> {
      await flusher.flush();
      const last = Math.floor(clock.now() / 60_000);
      const first = last - minutes + 1;
      return statsAnswer(await store.readStats(first, last, RECENT_FAILURES), first, minutes);
    },
  };
}

export type { StatsAnswer } from './report.js';
