/**
 * The minutes the overview's charts show: from the first minute with any
 * figure in it to now, not the whole hour the API answers. On a server that
 * started a few minutes ago every line would otherwise sit in the hour's
 * last few pixels, with the rest of the chart empty.
 */
import type { Schemas } from '../../../src/client/index.js';

type Stats = Schemas['Stats'];

/** Fewer minutes than this would draw a lone minute as the whole width. */
export const MIN_MINUTES = 10;

const busy = (values: readonly (number | null)[], i: number) => (values[i] ?? 0) > 0;

/** The index of the first minute where anything was counted, or null when nothing was. */
export function firstBusyMinute(stats: Stats): number | null {
  const series = [
    ...stats.routes.map((r) => r.count),
    ...stats.invocations.map((o) => o.count),
    ...stats.deliveries.map((d) => d.count),
    stats.lateness.count,
  ];
  for (let i = 0; i < stats.time.length; i++) if (series.some((values) => busy(values, i))) return i;
  return null;
}

/**
 * The statistics with every per-minute series cut to start at the first busy
 * minute (at least `MIN_MINUTES` kept); the whole window's totals and the
 * failures stay as answered. With nothing counted, as answered.
 */
export function trimToData(stats: Stats, minMinutes = MIN_MINUTES): Stats {
  const first = firstBusyMinute(stats);
  if (first === null) return stats;
  const from = Math.max(0, Math.min(first, stats.time.length - minMinutes));
  if (from === 0) return stats;
  const cut = <T>(values: T[]) => values.slice(from);
  return {
    ...stats,
    time: cut(stats.time),
    routes: stats.routes.map((r) => ({ ...r, count: cut(r.count), errors: cut(r.errors), p50_ms: cut(r.p50_ms), p99_ms: cut(r.p99_ms) })),
    invocations: stats.invocations.map((o) => ({ ...o, count: cut(o.count) })),
    deliveries: stats.deliveries.map((d) => ({ ...d, count: cut(d.count) })),
    lateness: {
      count: cut(stats.lateness.count),
      p50_ms: cut(stats.lateness.p50_ms),
      p99_ms: cut(stats.lateness.p99_ms),
      max_ms: cut(stats.lateness.max_ms),
    },
  };
}
