// The worker's check of an isolate's output (src/runtime/isolate-output.ts): what a
// tampered dispatcher could hand back, item by item. End to end, the dispatcher no
// longer lets user code change its framing (test/security/isolation.test.ts); this is
// the second line, so it is tested on its own.
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/json-limits.js';
import { MAX_ITEM_LOG_LINES, MAX_LOG_LINE_CHARS } from '../../src/runtime/dispatcher.js';
import { readIsolateOutput, type OutputVerdict } from '../../src/runtime/isolate-output.js';

const inflight = new Map([
  [7, 'req_7'],
  [8, 'req_8'],
]);
const none = new Set<number>();
const DEEP = 'too deep';
const read = (text: unknown, answered: Set<number> = none) => readIsolateOutput(text, inflight, answered, DEEP);
const line = (extra: Record<string, unknown> = {}) => ({ time: '2026-01-01T00:00:00.000Z', level: 'log', message: 'hi', requestId: 'req_7', ...extra });
const ok = (id: number, r: unknown, l: unknown[] = []) => JSON.stringify({ i: id, ok: 1, r, l });

function accepted(v: OutputVerdict): { ids: number[]; items: unknown[] } {
  if (!v.ok) throw new Error(`expected accepted output, got: ${v.reason}`);
  return { ids: v.ids, items: JSON.parse('[' + v.text + ']') };
}

describe('readIsolateOutput', () => {
  it('accepts answers for invocations in flight, one JSON item per line, for the frame as they are', () => {
    const text = ' {"i":7, "ok":1, "r":{"statusCode":200,"body":"a"}, "l":[]}\n' + ok(8, [1, 2], [line({ requestId: null })]);
    const v = read(text);
    const { ids, items } = accepted(v);
    expect(ids).toEqual([7, 8]);
    expect(items).toEqual([
      { i: 7, ok: 1, r: { statusCode: 200, body: 'a' }, l: [] },
      { i: 8, ok: 1, r: [1, 2], l: [line({ requestId: null })] },
    ]);
    // The frame reserves newlines; what goes on holds none.
    expect(v.ok && v.text).not.toContain('\n');
  });

  it('keeps a missing result (undefined) distinct from null, and passes failures with their code', () => {
    const text = '{"i":7,"ok":1,"l":[]}\n{"i":8,"ok":0,"c":"invalid_result","m":"no","l":[]}';
    expect(accepted(read(text)).items).toEqual([
      { i: 7, ok: 1, l: [] },
      { i: 8, ok: 0, c: 'invalid_result', m: 'no', l: [] },
    ]);
    expect(accepted(read('')).ids).toEqual([]);
  });

  it.each([
    ['an answer for an invocation this isolate does not have', ok(7, 1) + '\n' + ok(9, 'forged')],
    ['two answers for one invocation', ok(7, 1) + '\n' + ok(7, 2)],
    ['text that is not JSON', '}{"not json'],
    ['two items on one line', ok(7, 1) + ',' + ok(8, 2)],
    ['two values glued together', ok(7, 1) + ok(8, 2)],
    ['an empty line', ok(7, 1) + '\n'],
    ['an item that is not an object', '[1,2]'],
    ['an item that is a string', '"{\\"i\\":7}"'],
    ['a field no answer has', '{"i":7,"ok":1,"r":1,"l":[],"i2":8}'],
    ['a duplicate key hiding a forged id', '{"i":9,"i":7,"ok":1,"r":1,"l":[],"x":1}'],
    ['a field no failure has', '{"i":7,"ok":0,"c":"function_error","m":"x","l":[],"r":1}'],
    ['a field no console line has', ok(7, 1, [line({ extra: 1 })])],
    ['an id that is not an integer', '{"i":"7","ok":1,"l":[]}'],
    ['neither ok nor failed', '{"i":7,"ok":true,"l":[]}'],
    ['a failure code only the host may decide', '{"i":7,"ok":0,"c":"function_timeout","m":"x","l":[]}'],
    ['an unknown failure code', '{"i":7,"ok":0,"c":"anything","m":"x","l":[]}'],
    ['a failure without a message', '{"i":7,"ok":0,"c":"function_error","l":[]}'],
    ['an unbounded failure message', JSON.stringify({ i: 7, ok: 0, c: 'function_error', m: 'x'.repeat(100_000), l: [] })],
    ['logs that are not a list', '{"i":7,"ok":1,"l":{}}'],
    ['too many log lines', ok(7, 1, Array.from({ length: MAX_ITEM_LOG_LINES + 1 }, () => line()))],
    ["a line carrying another invocation's request id", ok(7, 1, [line({ requestId: 'req_8' })])],
    ['a line with an unknown level', ok(7, 1, [line({ level: 'fatal' })])],
    ['an unbounded line', ok(7, 1, [line({ message: 'x'.repeat(MAX_LOG_LINE_CHARS + 1000) })])],
    ['a line without a time', ok(7, 1, [line({ time: 5 })])],
  ])('refuses %s', (_what, text) => {
    const v = read(text);
    expect(v.ok).toBe(false);
  });

  it('refuses output that is not text', () => {
    expect(read(undefined)).toMatchObject({ ok: false });
    expect(read({ i: 7 })).toMatchObject({ ok: false });
  });

  it('drops late answers for invocations the host already answered (a deadline), without failing the rest', () => {
    const v = read(ok(5, 'late') + '\n' + ok(7, 'on time'), new Set([5]));
    expect(v).toMatchObject({ ok: true, ids: [7], late: [5] });
    expect(accepted(v).items).toEqual([{ i: 7, ok: 1, r: 'on time', l: [] }]);
  });

  it(`turns a result nested deeper than ${MAX_JSON_DEPTH} into invalid_result for that invocation only`, () => {
    let deep: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH + 1; i++) deep = [deep];
    let fine: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) fine = [fine];
    const { ids, items } = accepted(read(ok(7, deep, [line()]) + '\n' + ok(8, fine, [line({ requestId: 'req_8' })])));
    expect(ids).toEqual([7, 8]);
    expect(items).toEqual([
      { i: 7, ok: 0, c: 'invalid_result', m: DEEP, l: [line()] },
      { i: 8, ok: 1, r: fine, l: [line({ requestId: 'req_8' })] },
    ]);
  });

  it('survives output nested far deeper than any stack', () => {
    const text = '{"i":7,"ok":1,"r":' + '['.repeat(200_000) + ']'.repeat(200_000) + ',"l":[]}';
    expect(accepted(read(text)).items).toEqual([{ i: 7, ok: 0, c: 'invalid_result', m: DEEP, l: [] }]);
  });
});
