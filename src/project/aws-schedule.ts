/**
 * AWS schedule expressions (EventBridge rules and Scheduler, as serverless.yml
 * and SAM write them) in Switchyard's five-field cron dialect
 * (src/scheduler/cron.ts), for the importers. `rate(N unit)` becomes a cron
 * on the clock when N divides its unit evenly; AWS's six-field
 * `cron(min hour dom month dow year)` loses its year (`*` only), `?` becomes
 * `*`, numeric days of the week shift from AWS's 1-7 (Sunday = 1) to 0-6, and
 * `a/N` steps become `a-max/N`. What the dialect lacks (`L`, `W`, `#`, a
 * year, an uneven rate, a one-time `at()`) is refused with the reason, so the
 * importer reports it instead of guessing.
 */
import { parseCron } from '../scheduler/cron.js';

export type AwsScheduleResult = { cron: string; note?: string } | { refused: string };

const RATE = /^rate\(\s*(\d+)\s+(minute|minutes|hour|hours|day|days)\s*\)$/i;
const CRON = /^cron\((.*)\)$/i;

/** `rate(10 minutes)` -> `*\/10 * * * *`; an interval that does not divide its unit is refused. */
export function rateToCron(value: number, unit: string): AwsScheduleResult {
  const u = unit.toLowerCase().replace(/s$/, '');
  if (value < 1) return { refused: `rate(${value} ${unit}) is not a positive interval` };
  const minutes = u === 'minute' ? value : u === 'hour' ? value * 60 : value * 1440;
  const note = 'AWS counts a rate from when the rule was created; Switchyard runs it on the clock';
  if (minutes === 1) return { cron: '* * * * *', note };
  if (minutes < 60) {
    if (60 % minutes === 0) return { cron: `*/${minutes} * * * *`, note };
    return { refused: `rate(${value} ${unit}) does not divide an hour evenly; write a cron schedule instead` };
  }
  if (minutes % 60 !== 0) return { refused: `rate(${value} ${unit}) is not a whole number of hours; write a cron schedule instead` };
  const hours = minutes / 60;
  if (hours === 1) return { cron: '0 * * * *', note };
  if (hours < 24) {
    if (24 % hours === 0) return { cron: `0 */${hours} * * *`, note };
    return { refused: `rate(${value} ${unit}) does not divide a day evenly; write a cron schedule instead` };
  }
  if (hours === 24) return { cron: '0 0 * * *', note };
  return { refused: `rate(${value} ${unit}) is longer than a day and cron cannot count days across months; write a cron schedule instead` };
}

const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/** One AWS day-of-week value (1-7, Sunday = 1, or a name) as Switchyard's (0-6 or the name). */
function awsDay(token: string): string | null {
  if (/^\d+$/.test(token)) {
    const n = Number(token);
    return n >= 1 && n <= 7 ? String(n - 1) : null;
  }
  return DAY_NAMES.includes(token.toUpperCase()) ? token.toUpperCase() : null;
}

/** In AWS's numbering (days of the week 1-7). */
const FIELD_MIN: Record<string, number> = { minutes: 0, hours: 0, 'day-of-month': 1, month: 1, 'day-of-week': 1 };
const FIELD_MAX: Record<string, number> = { minutes: 59, hours: 23, 'day-of-month': 31, month: 12, 'day-of-week': 7 };

/** One field: `?` -> `*`, `a/N` -> `a-max/N`, days of the week renumbered; null with the reason when it cannot be carried. */
function field(text: string, name: string): { value: string } | { refused: string } {
  if (text === '?') return { value: '*' };
  // What is left once month and day names are taken out: an L is "last", a W "nearest weekday".
  const bare = text.toUpperCase().replace(/JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC|SUN|MON|TUE|WED|THU|FRI|SAT/g, '');
  if (bare.includes('L')) return { refused: `'L' (last) in ${name} is not in Switchyard's cron` };
  if (bare.includes('W')) return { refused: `'W' (nearest weekday) in ${name} is not in Switchyard's cron` };
  if (bare.includes('#')) return { refused: `'#' (nth weekday of the month) in ${name} is not in Switchyard's cron` };
  const items: string[] = [];
  for (const item of text.split(',')) {
    let [range, step] = item.split('/') as [string, string | undefined];
    if (step !== undefined && range !== '*' && !range.includes('-')) {
      // AWS's `0/15` means from 0 every 15: `*/15` from the field's first value, else the range to its last.
      range = range === String(FIELD_MIN[name]) ? '*' : `${range}-${FIELD_MAX[name]}`;
    }
    if (name === 'day-of-week' && range !== '*') {
      const bounds = range.split('-').map(awsDay);
      if (bounds.some((b) => b === null)) return { refused: `day-of-week '${item}' is not a day (AWS counts 1-7 from Sunday, or SUN-SAT)` };
      // AWS's SAT (7) closing a range: 6 in Switchyard's numbering.
      range = bounds.join('-');
    }
    items.push(step === undefined ? range : `${range}/${step}`);
  }
  return { value: items.join(',') };
}

/** AWS's `cron(min hour dom month dow year)` in Switchyard's five fields. */
export function awsCronToCron(body: string): AwsScheduleResult {
  const parts = body.trim().split(/\s+/);
  if (parts.length !== 6) return { refused: `cron(${body}) has ${parts.length} fields; AWS's has six (minutes hours day-of-month month day-of-week year)` };
  const [min, hour, dom, month, dow, year] = parts as [string, string, string, string, string, string];
  if (year !== '*' && year !== '?') return { refused: `the year '${year}' of cron(${body}) is not in Switchyard's cron (it has no year field)` };
  const out: string[] = [];
  const names = ['minutes', 'hours', 'day-of-month', 'month', 'day-of-week'];
  for (const [i, text] of [min, hour, dom, month, dow].entries()) {
    const f = field(text, names[i]!);
    if ('refused' in f) return { refused: `cron(${body}): ${f.refused}` };
    out.push(f.value);
  }
  const cron = out.join(' ');
  try {
    parseCron(cron);
  } catch (err) {
    return { refused: `cron(${body}) as '${cron}': ${(err as Error).message.replace(/^cron: /, '')}` };
  }
  return { cron };
}

/** `rate(...)`, `cron(...)`, or refused (`at(...)` one-time schedules included). */
export function awsScheduleToCron(expression: string): AwsScheduleResult {
  const text = expression.trim();
  const rate = RATE.exec(text);
  if (rate) return rateToCron(Number(rate[1]), rate[2]!);
  const cron = CRON.exec(text);
  if (cron) return awsCronToCron(cron[1]!);
  if (/^at\(/i.test(text)) return { refused: `${text} is a one-time schedule; Switchyard schedules repeat` };
  return { refused: `'${text}' is neither rate(...) nor cron(...)` };
}
