/**
 * What an attempt's result means for its delivery, and when the next attempt
 * is due. Retries follow the Standard Webhooks schedule (or the webhook's
 * own) with +-20 % jitter so a recovering target is not hit by a thundering
 * herd; a `Retry-After` from the target can only make the wait longer.
 */
import type { RetryPolicy } from './types.js';

export type Classification = 'succeeded' | 'retry' | 'failed' | 'disable';

/** Seconds before attempt 2, 3, ...; the last value repeats. */
export const DEFAULT_SCHEDULE_S: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];

const JITTER = 0.2;
const RETRY_AFTER_CAP_MS = 24 * 3600 * 1000;

/**
 * 2xx succeeds; 3xx fails (redirects are not followed, and retrying will not
 * change them); 408, 429, 5xx and errors without a response retry; 410 Gone
 * fails and disables the webhook; any other 4xx fails.
 */
export function classify(result: { status?: number; error?: string }): Classification {
  const status = result.status;
  if (status === undefined) return 'retry';
  if (status >= 200 && status < 300) return 'succeeded';
  if (status === 410) return 'disable';
  if (status === 408 || status === 429 || status >= 500) return 'retry';
  return 'failed';
}

/** Only these statuses carry a `Retry-After` we honour. */
export function honoursRetryAfter(status: number | undefined): boolean {
  return status === 429 || status === 503;
}

/** `Retry-After` as milliseconds from `nowMs` (delta seconds or an HTTP date); null when absent or unreadable. */
export function parseRetryAfter(header: string | undefined, nowMs: number): number | null {
  if (header === undefined) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

/** A `Retry-After` header as a wait in ms, at most 24 h; null when absent or unreadable. */
export function retryAfterMs(header: string | undefined, nowMs: number): number | null {
  const ms = parseRetryAfter(header, nowMs);
  return ms === null ? null : Math.min(ms, RETRY_AFTER_CAP_MS);
}

/**
 * Milliseconds until the attempt after `attemptNumber` (1-based, the one that
 * just failed), or null when it was the last one allowed.
 */
export function nextDelayMs(
  attemptNumber: number,
  policy: RetryPolicy,
  retryAfterHeader: string | undefined,
  random: () => number = Math.random,
  nowMs: number = Date.now(),
): number | null {
  if (attemptNumber >= policy.maxAttempts) return null;
  const schedule = policy.scheduleS && policy.scheduleS.length > 0 ? policy.scheduleS : DEFAULT_SCHEDULE_S;
  const baseS = schedule[Math.min(attemptNumber - 1, schedule.length - 1)];
  const jittered = Math.round(baseS * 1000 * (1 + (random() * 2 - 1) * JITTER));
  const retryAfter = parseRetryAfter(retryAfterHeader, nowMs);
  if (retryAfter === null) return jittered;
  return Math.max(jittered, Math.min(retryAfter, RETRY_AFTER_CAP_MS));
}
