/**
 * The cron dialect: parsing, refusals, slot computation in time zones and
 * across DST changes. DST dates are derived from Intl here, not hard-coded.
 */
import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../src/errors.js';
import {
  type CronSchedule,
  latestSlotAtOrBefore,
  nextFire,
  nextFires,
  parseCron,
  prevFire,
  validTimezone,
} from '../../src/scheduler/cron.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const at = (iso: string) => Date.parse(iso);
const isos = (ms: number[]) => ms.map((t) => new Date(t).toISOString().replace(':00.000Z', 'Z'));

function fires(expr: string, after: string, n: number, tz = 'UTC'): string[] {
  return isos(nextFires(parseCron(expr), tz, at(after), n));
}

/** Offset in minutes at an instant, read from Intl's own formatting (independent of zone.ts). */
const offsetFormats = new Map<string, Intl.DateTimeFormat>();
function intlOffsetMin(tz: string, ms: number): number {
  let format = offsetFormats.get(tz);
  if (!format) offsetFormats.set(tz, (format = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' })));
  const name = format
    .formatToParts(ms)
    .find((p) => p.type === 'timeZoneName')!.value;
  const m = /GMT([+-])(\d\d):(\d\d)/.exec(name);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

/** The offset changes of `tz` in [from, to), found by hourly scan and minute bisection. */
function transitions(tz: string, from: number, to: number): { at: number; before: number; after: number }[] {
  const out = [];
  for (let t = from; t < to; t += HOUR) {
    const before = intlOffsetMin(tz, t);
    const after = intlOffsetMin(tz, t + HOUR);
    if (before === after) continue;
    let lo = t;
    let hi = t + HOUR;
    while (hi - lo > MIN) {
      const mid = lo + Math.floor((hi - lo) / 2 / MIN) * MIN;
      if (intlOffsetMin(tz, mid) === before) lo = mid;
      else hi = mid;
    }
    out.push({ at: hi, before, after });
  }
  return out;
}

/** Local wall reading of an instant as [y, mo, d, h, mi, dow], via Intl. */
function wall(tz: string, ms: number): number[] {
  const w = new Date(ms + intlOffsetMin(tz, ms) * MIN);
  return [w.getUTCFullYear(), w.getUTCMonth() + 1, w.getUTCDate(), w.getUTCHours(), w.getUTCMinutes(), w.getUTCDay()];
}

function matches(s: CronSchedule, wallMs: number): boolean {
  const w = new Date(wallMs);
  const dom = s.doms.has[w.getUTCDate()] === 1;
  const dow = s.dows.has[w.getUTCDay()] === 1;
  return (
    s.minutes.has[w.getUTCMinutes()] === 1 &&
    s.hours.has[w.getUTCHours()] === 1 &&
    s.months.has[w.getUTCMonth() + 1] === 1 &&
    (s.dayOr ? dom || dow : dom && dow)
  );
}

/**
 * Reference slots by walking real instants minute by minute: an instant fires when
 * its wall time is new (not a repeat) and some matching wall time lies between the
 * last wall time seen and it (normally just itself; after a gap, the skipped ones too).
 */
function bruteSlots(expr: string, tz: string, from: number, to: number): number[] {
  const s = parseCron(expr);
  const out: number[] = [];
  let maxSeen = from + intlOffsetMin(tz, from) * MIN;
  for (let t = from + MIN; t <= to; t += MIN) {
    const w = t + intlOffsetMin(tz, t) * MIN;
    if (w <= maxSeen) continue;
    for (let x = maxSeen + MIN; x <= w; x += MIN) {
      if (matches(s, x)) {
        out.push(t);
        break;
      }
    }
    maxSeen = w;
  }
  return out;
}

function slotsBetween(expr: string, tz: string, from: number, to: number): number[] {
  const s = parseCron(expr);
  const out: number[] = [];
  for (let t = nextFire(s, tz, from); t !== null && t <= to; t = nextFire(s, tz, t)) out.push(t);
  return out;
}

describe('the documented example expressions', () => {
  it('every minute', () => {
    expect(fires('* * * * *', '2026-01-05T10:00:30Z', 3)).toEqual(['2026-01-05T10:01Z', '2026-01-05T10:02Z', '2026-01-05T10:03Z']);
  });
  it('every 5 minutes, strictly after a slot', () => {
    expect(fires('*/5 * * * *', '2026-01-05T10:05:00Z', 3)).toEqual(['2026-01-05T10:10Z', '2026-01-05T10:15Z', '2026-01-05T10:20Z']);
  });
  it('every hour at minute 0', () => {
    expect(fires('0 * * * *', '2026-01-05T10:59:59Z', 2)).toEqual(['2026-01-05T11:00Z', '2026-01-05T12:00Z']);
  });
  it('weekdays at 09:00 (2026-01-09 is a Friday)', () => {
    expect(fires('0 9 * * 1-5', '2026-01-09T10:00Z', 3)).toEqual(['2026-01-12T09:00Z', '2026-01-13T09:00Z', '2026-01-14T09:00Z']);
  });
  it('Sunday at 00:00', () => {
    expect(fires('0 0 * * 0', '2026-01-05T00:00Z', 2)).toEqual(['2026-01-11T00:00Z', '2026-01-18T00:00Z']);
  });
});

describe('syntax', () => {
  it('ranges with steps and lists', () => {
    expect(fires('10-30/10 * * * *', '2026-01-05T10:00Z', 4)).toEqual([
      '2026-01-05T10:10Z', '2026-01-05T10:20Z', '2026-01-05T10:30Z', '2026-01-05T11:10Z',
    ]);
    expect(fires('0,15,45-50/5 8,12-13 * * *', '2026-01-05T00:00Z', 9)).toEqual([
      '2026-01-05T08:00Z', '2026-01-05T08:15Z', '2026-01-05T08:45Z', '2026-01-05T08:50Z',
      '2026-01-05T12:00Z', '2026-01-05T12:15Z', '2026-01-05T12:45Z', '2026-01-05T12:50Z', '2026-01-05T13:00Z',
    ]);
    expect(fires('0 0 */10 * *', '2026-01-01T00:00Z', 4)).toEqual([
      '2026-01-11T00:00Z', '2026-01-21T00:00Z', '2026-01-31T00:00Z', '2026-02-01T00:00Z',
    ]);
  });
  it('month and day names, any case', () => {
    expect(fires('0 0 1 JAN,jul *', '2026-01-01T00:00Z', 2)).toEqual(['2026-07-01T00:00Z', '2027-01-01T00:00Z']);
    expect(fires('0 12 * * mon-FRI', '2026-01-09T13:00Z', 2)).toEqual(fires('0 12 * * 1-5', '2026-01-09T13:00Z', 2));
    expect(fires('0 0 * jun-aug sat', '2026-01-01T00:00Z', 1)).toEqual(['2026-06-06T00:00Z']);
  });
  it('7 is Sunday, also closing a range; MON-SUN is every day', () => {
    expect(fires('0 0 * * 7', '2026-01-05T00:00Z', 2)).toEqual(fires('0 0 * * 0', '2026-01-05T00:00Z', 2));
    expect(fires('0 0 * * 5-7', '2026-01-05T00:00Z', 4)).toEqual([
      '2026-01-09T00:00Z', '2026-01-10T00:00Z', '2026-01-11T00:00Z', '2026-01-16T00:00Z',
    ]);
    expect(fires('0 0 * * MON-SUN', '2026-01-05T00:00Z', 7)).toEqual(fires('0 0 * * *', '2026-01-05T00:00Z', 7));
  });
  it('macros equal their five-field forms', () => {
    const from = '2026-01-07T10:30Z';
    expect(fires('@hourly', from, 3)).toEqual(fires('0 * * * *', from, 3));
    expect(fires('@daily', from, 3)).toEqual(fires('0 0 * * *', from, 3));
    expect(fires('@midnight', from, 3)).toEqual(fires('0 0 * * *', from, 3));
    expect(fires('@weekly', from, 3)).toEqual(fires('0 0 * * 0', from, 3));
    expect(fires('@MONTHLY', from, 3)).toEqual(['2026-02-01T00:00Z', '2026-03-01T00:00Z', '2026-04-01T00:00Z']);
    expect(fires('@yearly', from, 2)).toEqual(['2027-01-01T00:00Z', '2028-01-01T00:00Z']);
    expect(fires('@annually', from, 2)).toEqual(fires('@yearly', from, 2));
  });
  it('extra whitespace between fields is fine', () => {
    expect(fires('  */30\t*  * * *  ', '2026-01-05T10:00Z', 1)).toEqual(['2026-01-05T10:30Z']);
  });
});

describe('day-of-month and day-of-week (Vixie)', () => {
  it('both restricted: the 13th OR a Friday', () => {
    expect(fires('0 0 13 * 5', '2026-01-01T00:00Z', 5)).toEqual([
      '2026-01-02T00:00Z', '2026-01-09T00:00Z', '2026-01-13T00:00Z', '2026-01-16T00:00Z', '2026-01-23T00:00Z',
    ]);
  });
  it('one of them *: both must match', () => {
    expect(fires('0 0 13 * *', '2026-01-01T00:00Z', 2)).toEqual(['2026-01-13T00:00Z', '2026-02-13T00:00Z']);
    expect(fires('0 0 * * 5', '2026-01-01T00:00Z', 2)).toEqual(['2026-01-02T00:00Z', '2026-01-09T00:00Z']);
  });
  it('a field starting with * counts as unrestricted: */10 ANDs with Friday', () => {
    // Days 1, 11, 21, 31 that are also Fridays (OR would give every Friday too).
    expect(fires('0 0 */10 * FRI', '2026-01-01T00:00Z', 3)).toEqual([
      '2026-05-01T00:00Z', '2026-07-31T00:00Z', '2026-08-21T00:00Z',
    ]);
  });
});

describe('refusals', () => {
  const cases: [string, RegExp][] = [
    ['', /expected 5 fields .*got 0/],
    ['* * * *', /expected 5 fields \(minute hour day-of-month month day-of-week\), got 4/],
    ['0 * * * * *', /got 6 \(seconds and years are not supported\)/],
    ['0 0 0 1 1 * 2026', /got 7/],
    ['0 0 L * *', /'L'/],
    ['0 0 * * 5L', /'L'/],
    ['0 0 LW * *', /'L'/],
    ['0 0 15W * *', /'W'/],
    ['0 0 * * 5#3', /'#'/],
    ['0 0 ? * 1', /'\?'/],
    ['H * * * *', /'H'/],
    ['H/5 * * * *', /'H'/],
    ['@reboot', /'@reboot' is not supported/],
    ['@every 5m', /'@every' is not supported/],
    ['@fortnightly', /unknown macro/],
    ['61 * * * *', /minute 61 is out of range 0-59/],
    ['0 24 * * *', /hour 24 is out of range 0-23/],
    ['0 0 0 * *', /day-of-month 0 is out of range 1-31/],
    ['0 0 1 13 *', /month 13 is out of range 1-12/],
    ['0 0 * * 8', /day-of-week 8 is out of range 0-7/],
    ['*/0 * * * *', /step '0' must be a whole number of at least 1/],
    ['5/10 * * * *', /a step needs a range or '\*' before it/],
    ['30-10 * * * *', /goes backwards/],
    ['0 0 * * FRI-MON', /goes backwards/],
    ['0 0 * FOO *', /invalid month value 'FOO'/],
    ['0 0 * * MONDAY', /invalid day-of-week value 'MONDAY'/],
    ['1,,2 * * * *', /empty list item/],
    ['-1 * * * *', /invalid minute/],
    ['1-2-3 * * * *', /invalid minute/],
    ['JAN * * * *', /invalid minute value 'JAN'/],
    ['0 0 31 2 *', /never fires/],
    ['0 0 30 2 *', /never fires/],
    ['0 0 31 4,6,9,11 *', /never fires/],
    ['0 0 30,31 FEB *', /never fires/],
  ];
  for (const [expr, message] of cases) {
    it(`refuses '${expr}'`, () => {
      let error: unknown;
      try {
        parseCron(expr);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect((error as InvalidRequestError).code).toBe('invalid_request');
      expect((error as Error).message).toMatch(/^cron: /);
      expect((error as Error).message).toMatch(message);
    });
  }

  it('Feb 29 is accepted and fires in leap years only', () => {
    expect(fires('0 0 29 2 *', '2026-01-01T00:00Z', 3)).toEqual(['2028-02-29T00:00Z', '2032-02-29T00:00Z', '2036-02-29T00:00Z']);
  });
  it('an impossible date still fires when day-of-week is also restricted (OR)', () => {
    expect(fires('0 0 31 2 5', '2026-01-31T00:00Z', 2)).toEqual(['2026-02-06T00:00Z', '2026-02-13T00:00Z']);
  });
});

describe('time zones', () => {
  it('validTimezone knows IANA names only', () => {
    for (const tz of ['UTC', 'Europe/Berlin', 'Asia/Kolkata', 'America/New_York', 'Australia/Lord_Howe']) {
      expect(validTimezone(tz)).toBe(true);
    }
    for (const tz of ['Mars/Olympus', '+01:00', '', 'Not a zone']) expect(validTimezone(tz)).toBe(false);
  });
  it('Asia/Kolkata is UTC+05:30', () => {
    expect(fires('30 9 * * *', '2026-01-05T00:00Z', 2, 'Asia/Kolkata')).toEqual(['2026-01-05T04:00Z', '2026-01-06T04:00Z']);
  });
  it('Europe/Berlin is +01:00 in winter and +02:00 in summer', () => {
    expect(fires('0 9 * * *', '2026-01-05T00:00Z', 1, 'Europe/Berlin')).toEqual(['2026-01-05T08:00Z']);
    expect(fires('0 9 * * *', '2026-07-05T00:00Z', 1, 'Europe/Berlin')).toEqual(['2026-07-05T07:00Z']);
  });
  it('an unknown zone is an InvalidRequestError naming timezone', () => {
    expect(() => nextFire(parseCron('* * * * *'), 'Mars/Olympus', 0)).toThrow(/^timezone: /);
  });
});

describe('DST in America/New_York', () => {
  const ny = 'America/New_York';
  it('2026 changes on Mar 8 and Nov 1 at 2:00 local (checked with Intl)', () => {
    const t = transitions(ny, at('2026-01-01T00:00Z'), at('2027-01-01T00:00Z'));
    expect(isos(t.map((x) => x.at))).toEqual(['2026-03-08T07:00Z', '2026-11-01T06:00Z']);
  });
  it('spring forward: a skipped 02:30 fires once, at 03:00 EDT', () => {
    expect(fires('30 2 * * *', '2026-03-07T00:00Z', 3, ny)).toEqual([
      '2026-03-07T07:30Z', // 02:30 EST
      '2026-03-08T07:00Z', // 02:30 does not exist: 03:00 EDT, right after the gap
      '2026-03-09T06:30Z', // 02:30 EDT
    ]);
  });
  it('spring forward: every-15-minutes collapses the gap into one fire', () => {
    expect(fires('*/15 * * * *', '2026-03-08T06:40Z', 3, ny)).toEqual(['2026-03-08T06:45Z', '2026-03-08T07:00Z', '2026-03-08T07:15Z']);
    expect(nextFire(parseCron('45 2 * * *'), ny, at('2026-03-08T06:59Z'))).toBe(at('2026-03-08T07:00Z'));
  });
  it('fall back: a repeated 01:30 fires once, at its first occurrence', () => {
    expect(fires('30 1 * * *', '2026-10-31T00:00Z', 3, ny)).toEqual([
      '2026-10-31T05:30Z',
      '2026-11-01T05:30Z', // 01:30 EDT; the 01:30 EST an hour later does not fire
      '2026-11-02T06:30Z',
    ]);
    // From inside the repeated hour the next one is the next day.
    expect(isos([nextFire(parseCron('30 1 * * *'), ny, at('2026-11-01T06:10Z'))!])).toEqual(['2026-11-02T06:30Z']);
  });
  it('fall back: hourly fires 24 times on the 25-hour day, 01:00 once', () => {
    const day = slotsBetween('0 * * * *', ny, at('2026-11-01T03:59Z'), at('2026-11-02T04:59Z'));
    expect(day).toHaveLength(24);
    expect(isos(day.slice(0, 3))).toEqual(['2026-11-01T04:00Z', '2026-11-01T05:00Z', '2026-11-01T07:00Z']);
  });
});

describe('DST in Australia/Lord_Howe (30-minute shift)', () => {
  const lh = 'Australia/Lord_Howe';
  const changes = transitions(lh, at('2026-01-01T00:00Z'), at('2027-01-01T00:00Z'));

  it('has two 30-minute changes in 2026 at 02:00 local', () => {
    expect(changes).toHaveLength(2);
    const [back, forward] = changes as [(typeof changes)[0], (typeof changes)[0]];
    expect([back.before, back.after]).toEqual([660, 630]);
    expect([forward.before, forward.after]).toEqual([630, 660]);
    expect(wall(lh, back.at - MIN).slice(3, 5)).toEqual([1, 59]);
    expect(wall(lh, back.at).slice(3, 5)).toEqual([1, 30]);
    expect(wall(lh, forward.at).slice(3, 5)).toEqual([2, 30]);
    expect(wall(lh, forward.at).at(-1)).toBe(0); // a Sunday
  });

  it('a skipped 02:15 fires once, at 02:30 when the clock springs forward', () => {
    const forward = changes[1]!;
    const s = parseCron('15 2 * * *');
    expect(nextFire(s, lh, forward.at - 12 * HOUR)).toBe(forward.at);
    // The neighbouring days fire at 02:15 local.
    expect(wall(lh, nextFire(s, lh, forward.at)!).slice(3, 5)).toEqual([2, 15]);
    // 02:45 is not skipped: it fires at 02:45 local.
    expect(nextFire(parseCron('45 2 * * *'), lh, forward.at - 12 * HOUR)).toBe(forward.at + 15 * MIN);
  });

  it('a repeated 01:45 fires once, at its first occurrence', () => {
    const back = changes[0]!;
    const day = slotsBetween('45 1 * * *', lh, back.at - 12 * HOUR, back.at + 12 * HOUR);
    expect(day).toEqual([back.at - 15 * MIN]);
  });
});

describe('agreement with a minute-by-minute reference around DST changes', () => {
  const exprs = ['* * * * *', '*/7 * * * *', '0 * * * *', '30 1,2,3 * * *', '15,45 2 * * *', '0 0 * * *', '59 1 * * *', '0 2 * * 0'];
  const windows: [string, string][] = [
    ['America/New_York', '2026-03-07T12:00Z'],
    ['America/New_York', '2026-10-31T12:00Z'],
    ['Australia/Lord_Howe', '2026-04-04T00:00Z'],
    ['Australia/Lord_Howe', '2026-10-03T00:00Z'],
    ['Europe/Berlin', '2026-03-28T12:00Z'],
    ['Asia/Kolkata', '2026-06-01T00:00Z'],
  ];
  for (const [tz, start] of windows) {
    it(`${tz} from ${start}`, () => {
      const from = at(start);
      const to = from + 40 * HOUR;
      for (const expr of exprs) {
        expect(isos(slotsBetween(expr, tz, from, to)), expr).toEqual(isos(bruteSlots(expr, tz, from, to)));
      }
    });
  }
});

describe('latestSlotAtOrBefore and prevFire', () => {
  it('collapses missed slots into the latest one', () => {
    const s = parseCron('*/5 * * * *');
    expect(latestSlotAtOrBefore(s, 'UTC', at('2026-01-05T10:05Z'), at('2026-01-05T10:47:30Z'))).toBe(at('2026-01-05T10:45Z'));
    expect(latestSlotAtOrBefore(s, 'UTC', at('2026-01-05T10:05Z'), at('2026-01-05T10:05:10Z'))).toBe(at('2026-01-05T10:05Z'));
    expect(latestSlotAtOrBefore(s, 'UTC', at('2026-01-05T10:05Z'), at('2026-01-05T10:10Z'))).toBe(at('2026-01-05T10:10Z'));
  });
  it('walks back over months for a rare schedule', () => {
    const s = parseCron('0 0 29 2 *');
    expect(latestSlotAtOrBefore(s, 'UTC', at('2028-02-29T00:00Z'), at('2035-01-01T00:00Z'))).toBe(at('2032-02-29T00:00Z'));
  });
  it('inside a repeated hour, wall times ahead of the clock may already have fired', () => {
    // 06:10Z is 01:10 EST, the second 01:10; 01:50 EDT (05:50Z) has passed already.
    expect(prevFire(parseCron('50 1 * * *'), 'America/New_York', at('2026-11-01T06:10Z'))).toBe(at('2026-11-01T05:50Z'));
  });
  it('agrees with walking nextFire', () => {
    for (const [expr, tz] of [['*/7 * * * *', 'America/New_York'], ['15 2 * * *', 'Australia/Lord_Howe']] as const) {
      const s = parseCron(expr);
      const from = at('2026-10-01T00:00Z');
      for (let now = from; now < from + 6 * 24 * HOUR; now += 37 * MIN) {
        let last = nextFire(s, tz, from - 24 * HOUR)!;
        for (let n = nextFire(s, tz, last); n !== null && n <= now; n = nextFire(s, tz, n)) last = n;
        expect(prevFire(s, tz, now)).toBe(last);
      }
    }
  });
});
