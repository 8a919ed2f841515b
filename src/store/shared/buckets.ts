/** What both dialects' token buckets share (sqlite/limits.ts, postgres/limits.ts). */
import type { ThrottleConfig } from '../../types.js';

/** Milliseconds until a bucket holding `available` tokens has one again. */
export function refillMs(available: number, throttle: ThrottleConfig): number {
  return Math.max(1, Math.ceil(((1 - available) / throttle.rateLimit) * 1000));
}
