/**
 * Wall-clock arithmetic for IANA time zones using only `Intl`: the UTC offset
 * at an instant, and the instant a local wall time stands for under the
 * documented DST rules (a skipped time fires at the end of the gap, a repeated
 * time at its first occurrence).
 *
 * `Intl.DateTimeFormat#formatToParts` costs microseconds, far too slow to call
 * per computation for 100 000 webhooks, so each zone caches, per UTC day, the
 * offset at its start and end and (rarely) the minute the offset changes.
 * After the first call for a day, an offset is a Map lookup.
 * Assumes at most one offset change per UTC day, true of every zone since 1970.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;
/** Bounds each zone's day cache; a long-running process touches a few days per zone. */
const MAX_CACHED_DAYS = 4096;

interface DayOffsets {
  /** Offset (ms, local minus UTC) at the start of the UTC day. */
  before: number;
  /** Offset at the end of the day. */
  after: number;
  /** First instant with the `after` offset; Infinity when the day has no change. */
  at: number;
}

export class Zone {
  private readonly format: Intl.DateTimeFormat;
  private readonly days = new Map<number, DayOffsets>();

  /** Throws RangeError for a name Intl does not know. */
  constructor(readonly name: string) {
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** Offset in ms (local wall time minus UTC) at `ms`. */
  offsetAt(ms: number): number {
    const day = this.day(Math.floor(ms / DAY));
    return ms < day.at ? day.before : day.after;
  }

  /** Local wall time at `ms`, as the epoch ms of the same reading in UTC. */
  wallAt(ms: number): number {
    return ms + this.offsetAt(ms);
  }

  /**
   * The instant local wall time `wall` (epoch ms of that reading in UTC) fires at:
   * its first occurrence when the clock repeats it, the end of the gap when the
   * clock skips it. Non-decreasing in `wall`, which the cron search relies on.
   */
  instantOf(wall: number): number {
    const early = this.offsetAt(wall - DAY);
    const late = this.offsetAt(wall + DAY);
    const a = wall - early;
    const aOk = this.offsetAt(a) === early;
    if (early === late) {
      if (aOk) return a;
    } else {
      const b = wall - late;
      const bOk = this.offsetAt(b) === late;
      if (aOk && bOk) return Math.min(a, b);
      if (aOk) return a;
      if (bOk) return b;
    }
    // Skipped: the transition T lies in (wall - late, wall - early]; fire at T.
    const lo = wall - Math.max(early, late);
    const hi = wall - Math.min(early, late);
    for (let d = Math.floor(lo / DAY); d <= Math.floor(hi / DAY); d++) {
      const at = this.day(d).at;
      if (at > lo && at <= hi) return at;
    }
    return hi;
  }

  private day(index: number): DayOffsets {
    let day = this.days.get(index);
    if (day) return day;
    const start = index * DAY;
    const before = this.intlOffset(start);
    const after = this.intlOffset(start + DAY);
    let at = Infinity;
    if (before !== after) {
      // Binary search on the minute grid: offset(lo) = before, offset(hi) != before.
      let lo = start;
      let hi = start + DAY;
      while (hi - lo > MINUTE) {
        const mid = lo + Math.floor((hi - lo) / 2 / MINUTE) * MINUTE;
        if (this.intlOffset(mid) === before) lo = mid;
        else hi = mid;
      }
      at = hi;
    }
    if (this.days.size >= MAX_CACHED_DAYS) this.days.clear();
    day = { before, after, at };
    this.days.set(index, day);
    return day;
  }

  private intlOffset(ms: number): number {
    const t = Math.floor(ms / 1000) * 1000;
    const p: Record<string, number> = {};
    for (const part of this.format.formatToParts(t)) {
      if (part.type !== 'literal') p[part.type] = Number(part.value);
    }
    const wall = new Date(0);
    wall.setUTCFullYear(p.year!, p.month! - 1, p.day!);
    wall.setUTCHours(p.hour!, p.minute!, p.second!, 0);
    return wall.getTime() - t;
  }
}

const zones = new Map<string, Zone>();

/** The cached Zone for an IANA name; throws RangeError for an unknown one. */
export function zoneFor(name: string): Zone {
  let zone = zones.get(name);
  if (!zone) {
    zone = new Zone(name);
    zones.set(name, zone);
  }
  return zone;
}

const validity = new Map<string, boolean>();

/** IANA names only (any case, as Intl accepts); offsets like `+01:00` are refused. */
export function validTimezone(tz: string): boolean {
  if (typeof tz !== 'string' || tz.length === 0 || tz.length > 64) return false;
  let ok = validity.get(tz);
  if (ok === undefined) {
    ok = false;
    if (/^[A-Za-z]/.test(tz)) {
      try {
        zoneFor(tz);
        ok = true;
      } catch {
        ok = false;
      }
    }
    if (validity.size < 10_000) validity.set(tz, ok);
  }
  return ok;
}
