/**
 * AWS schedule expressions in Switchyard's cron dialect: the table of
 * docs/cli.md, each translated cron accepted by the scheduler's parser and
 * firing when AWS's expression does; what the dialect lacks refused.
 */
import { describe, expect, it } from 'vitest';
import { awsScheduleToCron } from '../../src/project/aws-schedule.js';
import { nextFires, parseCron } from '../../src/scheduler/cron.js';

const cronOf = (expression: string) => {
  const r = awsScheduleToCron(expression);
  if ('refused' in r) throw new Error(r.refused);
  return r.cron;
};

describe('AWS rate() and cron() as Switchyard cron', () => {
  it.each([
    ['rate(1 minute)', '* * * * *'],
    ['rate(5 minutes)', '*/5 * * * *'],
    ['rate(30 minutes)', '*/30 * * * *'],
    ['rate(60 minutes)', '0 * * * *'],
    ['rate(1 hour)', '0 * * * *'],
    ['rate(6 hours)', '0 */6 * * *'],
    ['rate(1 day)', '0 0 * * *'],
    ['rate(24 hours)', '0 0 * * *'],
    ['cron(0 12 * * ? *)', '0 12 * * *'],
    ['cron(0 9 ? * MON-FRI *)', '0 9 * * MON-FRI'],
    ['cron(15 10 ? * 2-6 *)', '15 10 * * 1-5'],
    ['cron(0 8 ? * 1,7 *)', '0 8 * * 0,6'],
    ['cron(0/10 * * * ? *)', '*/10 * * * *'],
    ['cron(5/10 * * * ? *)', '5-59/10 * * * *'],
    ['cron(0 0 1 JAN,JUL ? *)', '0 0 1 JAN,JUL *'],
  ])('%s is %s', (aws, expected) => {
    const cron = cronOf(aws);
    expect(cron).toBe(expected);
    expect(() => parseCron(cron)).not.toThrow();
  });

  it('numbers days of the week as AWS does (Sunday = 1): the weekday slots fall on Monday to Friday', () => {
    const from = Date.UTC(2026, 10, 22, 0, 0); // a Sunday
    const fires = nextFires(parseCron(cronOf('cron(0 9 ? * 2-6 *)')), 'UTC', from, 6).map((t) => new Date(t).getUTCDay());
    expect(fires).toEqual([1, 2, 3, 4, 5, 1]);
  });

  it.each([
    ['rate(7 minutes)', /does not divide an hour evenly/],
    ['rate(5 hours)', /does not divide a day evenly/],
    ['rate(90 minutes)', /not a whole number of hours/],
    ['rate(2 days)', /longer than a day/],
    ['rate(0 minutes)', /not a positive interval/],
    ['cron(0 8 L * ? *)', /'L' \(last\) in day-of-month/],
    ['cron(0 8 ? * 6L *)', /'L' \(last\) in day-of-week/],
    ['cron(0 8 15W * ? *)', /'W' \(nearest weekday\)/],
    ['cron(0 8 ? * 2#1 *)', /'#' \(nth weekday of the month\)/],
    ['cron(0 8 * * ? 2027)', /year '2027'/],
    ['cron(0 8 * * *)', /has 5 fields; AWS's has six/],
    ['cron(0 8 ? * 9 *)', /day-of-week '9' is not a day/],
    ['cron(0 25 * * ? *)', /hour 25 is out of range/],
    ['at(2027-01-01T00:00:00)', /one-time schedule/],
    ['every day', /neither rate\(\.\.\.\) nor cron\(\.\.\.\)/],
  ])('%s is refused', (aws, reason) => {
    const r = awsScheduleToCron(aws);
    expect(r).toHaveProperty('refused');
    expect((r as { refused: string }).refused).toMatch(reason);
  });

  it('says that a rate runs on the clock', () => {
    expect(awsScheduleToCron('rate(10 minutes)')).toMatchObject({ note: expect.stringMatching(/on the clock/) });
    expect(awsScheduleToCron('cron(0 12 * * ? *)')).not.toHaveProperty('note');
  });
});
