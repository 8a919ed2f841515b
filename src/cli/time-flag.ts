/**
 * A time on the command line (`webhooks recover --since`, `--until`): an ISO
 * 8601 time, or a duration back from now as people say it after an outage,
 * `30m`, `2h`, `7d`, `1h30m` (units s, m, h, d, w). Sent to the server as
 * an ISO instant, so the server never guesses a zone or a "now".
 *
 * Only ISO's own forms are taken (`2026-11-23`, `2026-11-23T10:00`,
 * `2026-11-23T10:00:00.000Z`, `...+02:00`), not whatever Date.parse accepts
 * (`1`, `March 7`), which would turn a typo into a time. Without an offset
 * the time is local, the date alone included (Date.parse would take a date
 * alone as UTC and a date with a time as local). `parseDuration` reads the
 * same durations on their own (`webhooks rotate-secret --overlap`).
 */
import { UsageError } from './errors.js';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

const DURATION = /^(?:\d+[smhdw])+$/;
const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Milliseconds of a duration (`30m`, `24h`, `7d`, `1h30m`; `0` is none), or null when it is not one. */
export function parseDuration(value: string): number | null {
  const text = value.trim();
  if (text === '0') return 0;
  if (!DURATION.test(text)) return null;
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)([smhdw])/g)) ms += Number(n) * UNIT_MS[unit];
  return ms;
}

/** The instant `value` names, in milliseconds; null when it is neither form (or no real date: `2026-02-30`). */
export function parseTime(value: string, now: number): number | null {
  const text = value.trim();
  if (DURATION.test(text)) return now - parseDuration(text)!;
  if (!ISO.test(text)) return null;
  const withTime = text.length === 10 ? `${text}T00:00` : text.replace(' ', 'T');
  const ms = Date.parse(withTime);
  if (Number.isNaN(ms)) return null;
  // Date.parse rolls 2026-02-30 over to March: a day the month lacks is refused, not moved.
  const [year, month, day] = text.slice(0, 10).split('-').map(Number);
  if (day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null;
  return ms;
}

/** Commander parser for `flag`: an ISO instant, or a usage error naming the flag and both forms. */
export function timeFlag(flag: string, now: () => number = Date.now) {
  return (value: string): string => {
    const ms = parseTime(value, now());
    if (ms === null) {
      throw new UsageError(`${flag} must be an ISO time (2026-11-23T10:00:00Z) or a duration back from now (30m, 2h, 7d), got "${value}"`);
    }
    return new Date(ms).toISOString();
  };
}
