/**
 * `--since` and `--until` of `webhooks recover`: durations back from now,
 * ISO 8601 times with and without an offset, and everything else refused
 * with a usage error that names the flag (not read by Date.parse's guesses).
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/errors.js';
import { parseTime, timeFlag } from '../../src/cli/time-flag.js';
import { collectEvents, collectStatuses } from '../../src/cli/webhook-recover.js';

const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const MINUTE = 60_000;

describe('parseTime', () => {
  it('a duration counts back from now, in any of its units, combined', () => {
    expect(parseTime('30m', NOW)).toBe(NOW - 30 * MINUTE);
    expect(parseTime('2h', NOW)).toBe(NOW - 120 * MINUTE);
    expect(parseTime('7d', NOW)).toBe(NOW - 7 * 24 * 60 * MINUTE);
    expect(parseTime('1w', NOW)).toBe(NOW - 7 * 24 * 60 * MINUTE);
    expect(parseTime('45s', NOW)).toBe(NOW - 45_000);
    expect(parseTime('1h30m', NOW)).toBe(NOW - 90 * MINUTE);
    expect(parseTime(' 2h ', NOW)).toBe(NOW - 120 * MINUTE);
  });

  it('an ISO time with an offset is that instant; without one it is local time, a date alone at midnight', () => {
    expect(parseTime('2026-11-23T10:00:00Z', NOW)).toBe(Date.parse('2026-11-23T10:00:00.000Z'));
    expect(parseTime('2026-11-23T10:00:00.250Z', NOW)).toBe(Date.parse('2026-11-23T10:00:00.250Z'));
    expect(parseTime('2026-11-23T12:00+02:00', NOW)).toBe(Date.parse('2026-11-23T10:00:00.000Z'));
    expect(parseTime('2026-11-23T10:00', NOW)).toBe(new Date(2026, 10, 23, 10, 0).getTime());
    expect(parseTime('2026-11-23 10:00:30', NOW)).toBe(new Date(2026, 10, 23, 10, 0, 30).getTime());
    expect(parseTime('2026-11-23', NOW)).toBe(new Date(2026, 10, 23).getTime());
    expect(parseTime('2028-02-29', NOW)).toBe(new Date(2028, 1, 29).getTime());
  });

  it('refuses what is neither: words, bare numbers, units it lacks, dates that do not exist', () => {
    for (const text of ['yesterday', '', '2', '-2h', '2 h', '2y', '1.5h', 'h2', 'March 7', '23/11/2026', '2026-11-23T25:00', '2026-13-01', '2026-02-30', '2027-02-29', '2026-11-31T00:00Z']) {
      expect(parseTime(text, NOW), text).toBeNull();
    }
  });
});

describe('timeFlag', () => {
  it('answers an ISO instant, or a usage error naming the flag and both forms', () => {
    expect(timeFlag('--since', () => NOW)('2h')).toBe('2026-11-23T10:00:00.000Z');
    expect(timeFlag('--until', () => NOW)('2026-11-23T12:00+02:00')).toBe('2026-11-23T10:00:00.000Z');
    const parse = timeFlag('--until', () => NOW);
    expect(() => parse('soon')).toThrow(UsageError);
    expect(() => parse('soon')).toThrow('--until must be an ISO time (2026-11-23T10:00:00Z) or a duration back from now (30m, 2h, 7d), got "soon"');
  });
});

describe('recover filters', () => {
  it('--status and --event repeat or take commas; a status the server cannot resend is a usage error', () => {
    expect(collectStatuses('failed,discarded', collectStatuses('failed'))).toEqual(['failed', 'discarded']);
    expect(() => collectStatuses('held')).toThrow('--status must be failed, succeeded, discarded, cancelled (or several, separated by commas), got "held"');
    expect(collectEvents('b, c', collectEvents('a'))).toEqual(['a', 'b', 'c']);
    expect(() => collectEvents(',')).toThrow(UsageError);
  });
});
