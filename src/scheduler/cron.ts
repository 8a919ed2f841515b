/**
 * The cron dialect of docs/webhooks.md: five fields (minute hour day-of-month month
 * day-of-week) with `*`, `N`, `a-b`, steps on `*` or a range (`a-b/N`),
 * lists, JAN-DEC and SUN-SAT names, 0 or 7 for Sunday, and the macros
 * @hourly, @daily (@midnight), @weekly, @monthly, @yearly (@annually). Everything else (seconds, years, L, W, #, ?, H, @reboot,
 * @every) is refused with a message that starts with `cron: `.
 *
 * Day matching follows Vixie cron: when both day fields are restricted a day
 * matches if either does, otherwise both must. As in Vixie cron a field is
 * unrestricted when it starts with `*`, so a stepped `*` in day-of-month
 * still ANDs with day-of-week.
 *
 * Slots are computed over local wall time in the schedule's IANA zone by
 * skipping field by field (month, day, hour, minute), never minute by minute;
 * zone.ts maps each wall time to its instant under the DST rules.
 */
import { InvalidRequestError } from '../errors.js';
import { zoneFor } from './zone.js';

export { validTimezone } from './zone.js';

const MINUTE = 60_000;
/** How far to search; the rarest legal schedule (Feb 29) fires within 8 years. */
const SEARCH_YEARS = 50;

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES },
  { name: 'day-of-week', min: 0, max: 7, names: DAY_NAMES },
];

const MACROS: Record<string, string> = {
  '@hourly': '0 * * * *',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@weekly': '0 0 * * 0',
  '@monthly': '0 0 1 * *',
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
};

const FIELD_LIST = 'minute hour day-of-month month day-of-week';

/** One field as lookup tables: `next[v]` / `prev[v]` is the nearest allowed value >= / <= v, or -1. */
interface Field {
  has: Uint8Array;
  next: Int8Array;
  prev: Int8Array;
  first: number;
  last: number;
}

/** A parsed expression; build it once with parseCron and reuse it. */
export interface CronSchedule {
  readonly source: string;
  readonly minutes: Field;
  readonly hours: Field;
  readonly doms: Field;
  readonly months: Field;
  /** Day of week 0-6, Sunday = 0. */
  readonly dows: Field;
  /** Vixie's rule: both day fields restricted means either matches. */
  readonly dayOr: boolean;
}

function invalid(message: string): InvalidRequestError {
  return new InvalidRequestError(`cron: ${message}`, { field: 'cron' });
}

function toField(values: Set<number>, size: number): Field {
  const has = new Uint8Array(size);
  for (const v of values) has[v] = 1;
  const next = new Int8Array(size + 1).fill(-1);
  const prev = new Int8Array(size).fill(-1);
  for (let v = size - 1, n = -1; v >= 0; v--) next[v] = n = has[v] ? v : n;
  for (let v = 0, p = -1; v < size; v++) prev[v] = p = has[v] ? v : p;
  return { has, next, prev, first: next[0]!, last: prev[size - 1]! };
}

/** Explains the non-standard tokens other cron dialects accept. */
function refuseSpecial(item: string, spec: FieldSpec): void {
  const up = item.toUpperCase();
  if (up.includes('?')) throw invalid(`'?' is not supported; use '*' in ${spec.name}`);
  if (up.includes('#')) throw invalid(`'#' (nth weekday of the month) is not supported`);
  if (/^H(\(|\/|$)/.test(up)) throw invalid(`'H' (hashed values) is not supported`);
  if (/^(\d*L|L(-\d+)?|LW)(\/|$)/.test(up)) throw invalid(`'L' (last day) is not supported`);
  if (/^\d+W$/.test(up)) throw invalid(`'W' (nearest weekday) is not supported`);
}

function parseValue(token: string, spec: FieldSpec): number {
  let v: number;
  if (/^\d{1,4}$/.test(token)) v = Number(token);
  else {
    const index = spec.names?.indexOf(token.toUpperCase()) ?? -1;
    if (index < 0) {
      refuseSpecial(token, spec);
      const hint = spec.names ? ` (numbers or ${spec.names[0]}-${spec.names.at(-1)})` : '';
      throw invalid(`invalid ${spec.name} value '${token}'${hint}`);
    }
    v = spec.names === MONTH_NAMES ? index + 1 : index;
  }
  if (v < spec.min || v > spec.max) throw invalid(`${spec.name} ${v} is out of range ${spec.min}-${spec.max}`);
  return v;
}

function parseField(text: string, spec: FieldSpec): Set<number> {
  const values = new Set<number>();
  for (const item of text.split(',')) {
    if (item === '') throw invalid(`empty list item in ${spec.name} '${text}'`);
    if (!/^[\d*\/-]+$/.test(item)) refuseSpecial(item, spec);
    const [range, stepText, extra] = item.split('/');
    if (extra !== undefined || range === '') throw invalid(`invalid ${spec.name} '${item}'`);
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d{1,4}$/.test(stepText) || Number(stepText) < 1) {
        throw invalid(`${spec.name} step '${stepText}' must be a whole number of at least 1`);
      }
      step = Number(stepText);
    }
    let lo: number;
    let hi: number;
    if (range === '*') {
      lo = spec.min;
      hi = spec.name === 'day-of-week' ? 6 : spec.max;
    } else {
      const bounds = range!.split('-');
      if (bounds.length > 2 || bounds.some((b) => b === '')) throw invalid(`invalid ${spec.name} '${item}'`);
      lo = parseValue(bounds[0]!, spec);
      hi = bounds.length === 2 ? parseValue(bounds[1]!, spec) : lo;
      if (bounds.length === 1 && stepText !== undefined) {
        const example = `${lo}-${spec.max}/${step}`;
        throw invalid(`'${item}' in ${spec.name}: a step needs a range or '*' before it (e.g. ${example})`);
      }
      // MON-SUN: Sunday closes a weekday range as 7.
      if (spec.name === 'day-of-week' && hi === 0 && lo > 0) hi = 7;
      if (lo > hi) throw invalid(`${spec.name} range '${range}' goes backwards (wrap-around ranges are not supported)`);
    }
    for (let v = lo; v <= hi; v += step) values.add(spec.name === 'day-of-week' ? v % 7 : v);
  }
  return values;
}

/** February counts 29 days: a Feb 29 schedule fires in leap years. */
const MAX_DAYS = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Parses and validates `expr`; throws InvalidRequestError (`cron: ...`). */
export function parseCron(expr: string): CronSchedule {
  if (typeof expr !== 'string') throw invalid('must be a string');
  const source = expr.trim();
  if (source.length > 1000) throw invalid('expression is too long');
  let text = source;
  if (text.startsWith('@')) {
    const macro = text.toLowerCase();
    if (MACROS[macro]) text = MACROS[macro];
    else if (macro === '@reboot') throw invalid(`'@reboot' is not supported (it has no fire time)`);
    else if (macro.startsWith('@every')) throw invalid(`'@every' is not supported; use e.g. */5 * * * *`);
    else throw invalid(`unknown macro '${source}'; use @hourly, @daily, @weekly, @monthly or @yearly`);
  }
  const parts = text === '' ? [] : text.split(/\s+/);
  if (parts.length !== 5) {
    const why = parts.length === 6 || parts.length === 7 ? ' (seconds and years are not supported)' : '';
    throw invalid(`expected 5 fields (${FIELD_LIST}), got ${parts.length}${why}`);
  }
  const sets = parts.map((part, i) => parseField(part, FIELDS[i]!));
  type Sets = [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  const [minutes, hours, doms, months, dows] = sets as Sets;
  const dayOr = !parts[2]!.startsWith('*') && !parts[4]!.startsWith('*');
  // Every month holds every weekday and every date recurs on every weekday over
  // the years, so a schedule never fires only when no chosen date exists at all.
  const shortestDom = Math.min(...doms);
  if (!dayOr && ![...months].some((m) => shortestDom <= MAX_DAYS[m]!)) {
    const monthList = [...months].map((m) => MONTH_NAMES[m - 1]![0] + MONTH_NAMES[m - 1]!.slice(1).toLowerCase());
    throw invalid(`never fires (day-of-month ${[...doms].join(',')} does not occur in ${monthList.join(', ')})`);
  }
  return {
    source,
    minutes: toField(minutes, 60),
    hours: toField(hours, 24),
    doms: toField(doms, 32),
    months: toField(months, 13),
    dows: toField(dows, 7),
    dayOr,
  };
}

function daysIn(y: number, m: number): number {
  if (m !== 2) return MAX_DAYS[m]!;
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
}

function dayMatches(s: CronSchedule, y: number, m: number, d: number): boolean {
  const dom = s.doms.has[d] === 1;
  const dow = s.dows.has[new Date(Date.UTC(y, m - 1, d)).getUTCDay()] === 1;
  return s.dayOr ? dom || dow : dom && dow;
}

function wallOf(y: number, m: number, d: number, h: number, mi: number): number {
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d);
  date.setUTCHours(h, mi, 0, 0);
  return date.getTime();
}

/** The first matching wall time >= `wall` (epoch ms of a local reading), or null. */
function nextWall(s: CronSchedule, wall: number): number | null {
  const start = new Date(wall);
  let y = start.getUTCFullYear();
  let mo = start.getUTCMonth() + 1;
  let d = start.getUTCDate();
  let h = start.getUTCHours();
  let mi = start.getUTCMinutes();
  const endYear = y + SEARCH_YEARS;
  while (y <= endYear) {
    const m2 = s.months.next[mo]!;
    if (m2 < 0) {
      [y, mo, d, h, mi] = [y + 1, 1, 1, 0, 0];
      continue;
    }
    if (m2 !== mo) [mo, d, h, mi] = [m2, 1, 0, 0];
    const dim = daysIn(y, mo);
    for (; d <= dim; d++, h = 0, mi = 0) {
      if (!dayMatches(s, y, mo, d)) continue;
      const h2 = s.hours.next[h]!;
      if (h2 < 0) continue;
      if (h2 !== h) [h, mi] = [h2, 0];
      const mi2 = s.minutes.next[mi]!;
      if (mi2 >= 0) return wallOf(y, mo, d, h, mi2);
      const h3 = s.hours.next[h + 1]!;
      if (h3 >= 0) return wallOf(y, mo, d, h3, s.minutes.first);
    }
    [mo, d, h, mi] = [mo + 1, 1, 0, 0];
    if (mo > 12) [y, mo] = [y + 1, 1];
  }
  return null;
}

/** The last matching wall time <= `wall`, or null. */
function prevWall(s: CronSchedule, wall: number): number | null {
  const start = new Date(wall);
  let y = start.getUTCFullYear();
  let mo = start.getUTCMonth() + 1;
  let d = start.getUTCDate();
  let h = start.getUTCHours();
  let mi = start.getUTCMinutes();
  const endYear = y - SEARCH_YEARS;
  while (y >= endYear) {
    const m2 = s.months.prev[mo]!;
    if (m2 < 0) {
      [y, mo, d, h, mi] = [y - 1, 12, 31, 23, 59];
      continue;
    }
    if (m2 !== mo) [mo, d, h, mi] = [m2, 31, 23, 59];
    const dim = daysIn(y, mo);
    if (d > dim) [d, h, mi] = [dim, 23, 59];
    for (; d >= 1; d--, h = 23, mi = 59) {
      if (!dayMatches(s, y, mo, d)) continue;
      const h2 = s.hours.prev[h]!;
      if (h2 < 0) continue;
      if (h2 !== h) [h, mi] = [h2, 59];
      const mi2 = s.minutes.prev[mi]!;
      if (mi2 >= 0) return wallOf(y, mo, d, h, mi2);
      const h3 = h > 0 ? s.hours.prev[h - 1]! : -1;
      if (h3 >= 0) return wallOf(y, mo, d, h3, s.minutes.last);
    }
    [mo, d, h, mi] = [mo - 1, 31, 23, 59];
    if (mo < 1) [y, mo] = [y - 1, 12];
  }
  return null;
}

function zone(timezone: string) {
  try {
    return zoneFor(timezone);
  } catch {
    throw new InvalidRequestError(`timezone: '${timezone}' is not an IANA time zone (e.g. UTC, Europe/Berlin)`, {
      field: 'timezone',
    });
  }
}

/**
 * The first slot strictly after `after` (epoch ms), as a UTC instant on a whole
 * minute; null when none within the search horizon. A wall time the clock skips
 * fires at the end of the gap; a repeated one at its first occurrence.
 */
export function nextFire(schedule: CronSchedule, timezone: string, after: number): number | null {
  const z = zone(timezone);
  // Every wall time up to the current one maps to an instant <= after.
  let wall = Math.floor(z.wallAt(after) / MINUTE) * MINUTE + MINUTE;
  for (;;) {
    const w = nextWall(schedule, wall);
    if (w === null) return null;
    const t = z.instantOf(w);
    // Wall times of a repeated hour already passed (first occurrence) or
    // collapsed onto the same gap end are skipped here.
    if (t > after) return t;
    wall = w + MINUTE;
  }
}

/** The latest slot at or before `at`, or null. */
export function prevFire(schedule: CronSchedule, timezone: string, at: number): number | null {
  const z = zone(timezone);
  // Inside a repeated hour, wall times ahead of the current reading may already have fired.
  const day = 86_400_000;
  const offset = Math.max(z.offsetAt(at - day), z.offsetAt(at), z.offsetAt(at + day));
  let wall = Math.floor((at + offset) / MINUTE) * MINUTE;
  for (;;) {
    const w = prevWall(schedule, wall);
    if (w === null) return null;
    const t = z.instantOf(w);
    if (t <= at) return t;
    wall = w - MINUTE;
  }
}

/** The next `n` slots after `after`. */
export function nextFires(schedule: CronSchedule, timezone: string, after: number, n: number): number[] {
  const out: number[] = [];
  let t: number | null = after;
  while (out.length < n && (t = nextFire(schedule, timezone, t)) !== null) out.push(t);
  return out;
}

/**
 * For catch-up after missed slots: the latest slot <= `now`, starting from the
 * missed slot `from` (returned as is when no later slot has passed).
 */
export function latestSlotAtOrBefore(schedule: CronSchedule, timezone: string, from: number, now: number): number {
  if (from >= now) return from;
  const latest = prevFire(schedule, timezone, now);
  return latest !== null && latest > from ? latest : from;
}
