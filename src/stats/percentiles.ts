/**
 * Percentiles estimated from bucket counts, as Prometheus's
 * histogram_quantile does: find the bucket holding the rank, then
 * interpolate linearly between its lower and upper bound. The overflow
 * bucket has no upper bound: its values are estimated by the largest value
 * seen, which is also the cap of every estimate (a bucket's upper bound can
 * lie far above anything observed).
 */
import { LATENCY_BOUNDS_MS } from './types.js';

/** The q-quantile (0 < q <= 1) of the counts, in ms; null when they are empty. */
export function percentile(buckets: readonly number[], q: number, maxMs: number): number | null {
  let total = 0;
  for (const n of buckets) total += n;
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    const n = buckets[i];
    if (n === 0 || seen + n < rank) {
      seen += n;
      continue;
    }
    if (i >= LATENCY_BOUNDS_MS.length) return round(maxMs);
    const lower = i === 0 ? 0 : LATENCY_BOUNDS_MS[i - 1];
    const upper = LATENCY_BOUNDS_MS[i];
    return round(Math.min(maxMs, lower + ((upper - lower) * (rank - seen)) / n));
  }
  return round(maxMs);
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/** Adds `from` into `into`, bucket by bucket. */
export function addBuckets(into: number[], from: readonly number[]): void {
  for (let i = 0; i < from.length; i++) into[i] += from[i];
}
