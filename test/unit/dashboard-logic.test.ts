/**
 * The dashboard's logic that needs no page (dashboard/src): a try-it request's
 * path parameters and curl command, JSON bodies indented, the overview's
 * minutes cut to the data, who subscribes to an event, and the version diff.
 * The pages themselves are driven in Chromium (test/browser/).
 */
import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/client/index.js';
import { prettyJson } from '../../dashboard/src/format.js';
import { curlCommand, fillPath, pathParams } from '../../dashboard/src/try-request.js';
import { lineDiff, type DiffLine } from '../../dashboard/src/views/line-diff.js';
import { firstBusyMinute, trimToData } from '../../dashboard/src/views/stats-window.js';
import { subscribes, subscribersOf } from '../../dashboard/src/views/subscribers.js';

describe('try-it request', () => {
  it('finds each path parameter in both spellings, greedy ones last', () => {
    expect(pathParams('/users/:id/files/{name}')).toEqual([
      { name: 'id', greedy: false, written: ':id' },
      { name: 'name', greedy: false, written: '{name}' },
    ]);
    expect(pathParams('/static/{proxy+}')).toEqual([{ name: 'proxy', greedy: true, written: '{proxy+}' }]);
    expect(pathParams('/files/*')).toEqual([{ name: '*', greedy: true, written: '*' }]);
    expect(pathParams('/a/:id/b/:id')).toHaveLength(1);
    expect(pathParams('/plain/path')).toEqual([]);
  });

  it('fills the values in percent-encoded, a greedy one segment by segment, and leaves an empty one as written', () => {
    expect(fillPath('/users/:id', { id: 'a b/c?d#e' })).toBe('/users/a%20b%2Fc%3Fd%23e');
    expect(fillPath('/files/{name}', { name: '{x}' })).toBe('/files/%7Bx%7D');
    expect(fillPath('/static/{proxy+}', { proxy: 'css/my file.css' })).toBe('/static/css/my%20file.css');
    expect(fillPath('/files/*', { '*': 'a/b' })).toBe('/files/a/b');
    expect(fillPath('/users/:id/{name}', { id: '7' })).toBe('/users/7/{name}');
  });

  it('writes a curl command that neither the shell nor curl expands', () => {
    expect(curlCommand('GET', 'http://h/api/users/7', [], '')).toBe(`curl -i -X GET 'http://h/api/users/7'`);
    // curl reads {a,b} and [1-3] as ranges to expand: --globoff sends them as written.
    expect(curlCommand('GET', 'http://h/api/files/{name}', [], '')).toBe(`curl -i -X GET --globoff 'http://h/api/files/{name}'`);
    expect(curlCommand('GET', 'http://h/api/x?ids[]=1', [], '')).toContain('--globoff');
    expect(curlCommand('POST', "http://h/it's", [['X-A', "b'c"]], '{"a":1}')).toBe(
      `curl -i -X POST 'http://h/it'\\''s' -H 'X-A: b'\\''c' --data-raw '{"a":1}'`,
    );
  });
});

describe('JSON bodies', () => {
  it('indents a JSON object or array by two spaces, as JSON.stringify would', () => {
    const body = '{"hello":"world","list":[1,2,{"a":null}],"empty":{},"none":[],"t":true}';
    expect(prettyJson(body)).toBe(JSON.stringify(JSON.parse(body), null, 2));
    expect(prettyJson('[ 1 , 2 ]')).toBe('[\n  1,\n  2\n]');
  });

  it('keeps every token as sent: big numbers, repeated keys, strings with braces, commas and escapes', () => {
    expect(prettyJson('{"id":12345678901234567890}')).toBe('{\n  "id": 12345678901234567890\n}');
    expect(prettyJson('{"a":1,"a":2}')).toBe('{\n  "a": 1,\n  "a": 2\n}');
    expect(prettyJson('{"s":"{x, y: [z]} \\"q\\" \\\\"}')).toBe('{\n  "s": "{x, y: [z]} \\"q\\" \\\\"\n}');
    expect(prettyJson('{"e":1.5e+300}')).toBe('{\n  "e": 1.5e+300\n}');
  });

  it('leaves anything else as it is', () => {
    for (const text of ['plain', '42', '"a string"', '{broken', '<html>{"a":1}</html>', '']) expect(prettyJson(text)).toBe(text);
  });
});

/** A window of `minutes` minutes with one route's counts at the given minutes. */
function stats(minutes: number, busy: Record<number, number>): Schemas['Stats'] {
  const zeros = () => Array.from({ length: minutes }, () => 0);
  const nulls = () => Array.from({ length: minutes }, () => null);
  const count = zeros();
  for (const [i, n] of Object.entries(busy)) count[Number(i)] = n;
  const total = Object.values(busy).reduce((a, b) => a + b, 0);
  return {
    from: '',
    to: '',
    minutes,
    time: Array.from({ length: minutes }, (_, i) => 1_800_000_000 + 60 * i),
    routes: total
      ? [{ api_id: 'api_1', method: 'GET', path: '/x', count, errors: zeros(), p50_ms: count.map((c) => (c ? 1 : null)), p99_ms: nulls(), total: { count: total, errors: 0, p50_ms: 1, p99_ms: 1 } }]
      : [],
    invocations: [],
    deliveries: [],
    lateness: { count: zeros(), p50_ms: nulls(), p99_ms: nulls(), max_ms: nulls() },
    failures: [],
  } as Schemas['Stats'];
}

describe("the overview's minutes", () => {
  it('starts the charts at the first minute with data, at least 10 minutes back', () => {
    // A server up for a minute: the hour would put its one minute in the last pixels.
    const fresh = trimToData(stats(60, { 59: 3 }));
    expect(fresh.time).toHaveLength(10);
    expect(fresh.routes[0].count).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 3]);
    expect(fresh.routes[0].p50_ms).toHaveLength(10);
    expect(fresh.lateness.max_ms).toHaveLength(10);
    expect(fresh.routes[0].total.count).toBe(3);

    const later = trimToData(stats(60, { 20: 1, 40: 2 }));
    expect(later.time).toHaveLength(40);
    expect(later.time[0]).toBe(1_800_000_000 + 60 * 20);
    expect(later.routes[0].count[0]).toBe(1);
  });

  it('keeps the window as answered when nothing was counted, or data starts at its first minute', () => {
    expect(firstBusyMinute(stats(60, {}))).toBeNull();
    expect(trimToData(stats(60, {})).time).toHaveLength(60);
    expect(trimToData(stats(60, { 0: 1 })).time).toHaveLength(60);
  });
});

describe('event subscribers', () => {
  it('matches the exact name, and * for every event but the service own switchyard.* ones', () => {
    expect(subscribes(['order.created'], 'order.created')).toBe(true);
    expect(subscribes(['order.created'], 'order.paid')).toBe(false);
    expect(subscribes(['*'], 'order.paid')).toBe(true);
    expect(subscribes(['*'], 'switchyard.webhook.disabled')).toBe(false);
    expect(subscribes(['switchyard.webhook.disabled'], 'switchyard.webhook.disabled')).toBe(true);
    expect(subscribes(null, 'x')).toBe(false);
    expect(subscribersOf([{ events: ['a'] }, { events: ['*'] }, { events: null }], 'a')).toHaveLength(2);
  });
});

describe('the version diff', () => {
  const rebuild = (lines: DiffLine[], keep: '-' | '+') => lines.filter(([mark]) => mark === ' ' || mark === keep).map(([, text]) => text);

  it('diffs large files with changes far apart (the hand-written one gave up past 4 million line pairs)', () => {
    const from = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
    const to = [...from];
    to[10] = 'changed near the top';
    to[19_990] = 'changed near the end';
    to.splice(10_000, 0, 'inserted in the middle');
    const diff = lineDiff(from.join('\n') + '\n', to.join('\n') + '\n');
    expect(diff.minimal).toBe(true);
    const changed = diff.lines.filter(([mark]) => mark !== ' ');
    expect(changed).toEqual([
      ['-', 'line 10'],
      ['+', 'changed near the top'],
      ['+', 'inserted in the middle'],
      ['-', 'line 19990'],
      ['+', 'changed near the end'],
    ]);
    expect(rebuild(diff.lines, '-')).toEqual(from);
    expect(rebuild(diff.lines, '+')).toEqual(to);
  });

  it('treats a missing last newline as none, and falls back to a coarse but true diff when the search runs out of time', () => {
    expect(lineDiff('a\nb', 'a\nb\n').lines).toEqual([
      [' ', 'a'],
      [' ', 'b'],
    ]);
    const from = Array.from({ length: 3000 }, (_, i) => `a${i % 7} ${i}`).join('\n');
    const to = Array.from({ length: 3000 }, (_, i) => `b${i % 5} ${i}`).join('\n');
    const coarse = lineDiff(`head\n${from}\ntail`, `head\n${to}\ntail`, 0);
    expect(coarse.minimal).toBe(false);
    expect(coarse.lines[0]).toEqual([' ', 'head']);
    expect(coarse.lines.at(-1)).toEqual([' ', 'tail']);
    expect(rebuild(coarse.lines, '-')).toEqual(`head\n${from}\ntail`.split('\n'));
    expect(rebuild(coarse.lines, '+')).toEqual(`head\n${to}\ntail`.split('\n'));
  });
});
