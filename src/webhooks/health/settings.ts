/**
 * A webhook's endpoint-health settings as the API writes them (snake_case,
 * fields left out at their defaults) and as the domain keeps them, both ways.
 */
import { InvalidRequestError } from '../../errors.js';
import type { WebhookInput } from '../../schema/webhooks.js';
import { AUTO_DISABLE_DEFAULTS, BREAKER_DEFAULTS, defaultBurst, type AutoDisable, type BreakerSettings, type RateLimit } from '../types.js';

type Given<K extends keyof WebhookInput> = WebhookInput[K];

/** Absent: `current` (or the defaults for a new webhook); null: the defaults; an object: it, its missing fields at their defaults. */
export function breakerOf(given: Given<'breaker'>, current: BreakerSettings = BREAKER_DEFAULTS): BreakerSettings {
  if (given === undefined) return { ...current };
  if (given === null) return { ...BREAKER_DEFAULTS };
  return {
    enabled: given.enabled ?? BREAKER_DEFAULTS.enabled,
    minAttempts: given.min_attempts ?? BREAKER_DEFAULTS.minAttempts,
    failureRatio: given.failure_ratio ?? BREAKER_DEFAULTS.failureRatio,
    windowS: given.window_s ?? BREAKER_DEFAULTS.windowS,
  };
}

/** Absent: `current`; null: no limit; an object: it, its burst a fiftieth of a second's rate when not given. */
export function rateLimitOf(given: Given<'rate_limit'>, current: RateLimit | null = null): RateLimit | null {
  if (given === undefined) return current;
  if (given === null) return null;
  return { perSecond: given.per_second, burst: given.burst ?? defaultBurst(given.per_second) };
}

/** Absent: `current` (or the defaults); null: the defaults; `enabled: false`: off (null). */
export function autoDisableOf(given: Given<'auto_disable'>, current: AutoDisable | null = { ...AUTO_DISABLE_DEFAULTS }): AutoDisable | null {
  if (given === undefined) return current;
  if (given === null) return { ...AUTO_DISABLE_DEFAULTS };
  if (given.enabled === false) return null;
  const afterS = given.after_s ?? AUTO_DISABLE_DEFAULTS.afterS;
  const minSpanS = given.min_span_s ?? Math.min(AUTO_DISABLE_DEFAULTS.minSpanS, afterS);
  if (minSpanS > afterS) {
    throw new InvalidRequestError(`auto_disable.min_span_s (${minSpanS}) cannot be longer than auto_disable.after_s (${afterS})`, {
      field: 'auto_disable.min_span_s',
    });
  }
  return { afterS, minSpanS };
}

/** The answer's forms (src/http/views/webhooks.ts). */
export const breakerView = (b: BreakerSettings) => ({ enabled: b.enabled, min_attempts: b.minAttempts, failure_ratio: b.failureRatio, window_s: b.windowS });
export const rateLimitView = (r: RateLimit | null) => (r === null ? null : { per_second: r.perSecond, burst: r.burst });
export const autoDisableView = (a: AutoDisable | null) =>
  a === null
    ? { enabled: false, after_s: AUTO_DISABLE_DEFAULTS.afterS, min_span_s: AUTO_DISABLE_DEFAULTS.minSpanS }
    : { enabled: true, after_s: a.afterS, min_span_s: a.minSpanS };
