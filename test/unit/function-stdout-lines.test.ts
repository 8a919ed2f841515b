/**
 * Functions' lines on stdout (src/functions/stdout-lines.ts): Lambda's text
 * field by field (START, console, END, REPORT with Init Duration only on a
 * cold start), the report's arithmetic, and the JSON form's types.
 */
import { describe, expect, it } from 'vitest';
import { FunctionStdout, lambdaReportLine, reportOf } from '../../src/functions/stdout-lines.js';
import type { FunctionLogLine } from '../../src/types.js';

const LINE: FunctionLogLine = { time: '2026-12-03T06:36:24.034Z', level: 'warn', message: 'low stock', requestId: 'r-1' };

function recorder() {
  const entries: Array<{ level: string; obj: Record<string, unknown>; msg?: string }> = [];
  const at = (level: string) => (obj: object, msg?: string) => void entries.push({ level, obj: obj as Record<string, unknown>, msg });
  return { entries, log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

describe('report figures', () => {
  it("leave the start out of Duration, bill whole milliseconds and say Init Duration only when the run started the isolate", () => {
    expect(reportOf({ requestId: 'r', durationMs: 12.345, memoryMb: 128, stats: { initMs: 10, memoryUsedMb: 3 } })).toEqual({
      durationMs: 2.35,
      billedDurationMs: 3,
      memorySizeMB: 128,
      maxMemoryUsedMB: 3,
      initDurationMs: 10,
    });
    expect(lambdaReportLine({ requestId: 'r', durationMs: 0.2, memoryMb: 64, stats: { initMs: null, memoryUsedMb: 2 } })).toBe(
      'REPORT RequestId: r\tDuration: 0.20 ms\tBilled Duration: 1 ms\tMemory Size: 64 MB\tMax Memory Used: 2 MB\t',
    );
    expect(lambdaReportLine({ requestId: 'r', durationMs: 17.5, memoryMb: 64, stats: { initMs: 7.25, memoryUsedMb: 2 } })).toBe(
      'REPORT RequestId: r\tDuration: 10.25 ms\tBilled Duration: 11 ms\tMemory Size: 64 MB\tMax Memory Used: 2 MB\tInit Duration: 7.25 ms\t',
    );
  });
});

describe('FunctionStdout', () => {
  it("writes Lambda's text in one write per run, and a console line alone without a run", () => {
    const writes: string[] = [];
    const out = new FunctionStdout({ format: 'lambda', log: recorder().log, write: (t) => void writes.push(t) });
    out.lines('f', 3, [LINE], { requestId: 'r-1', durationMs: 5, memoryMb: 128 });
    out.lines('f', 3, [{ ...LINE, level: 'log', requestId: null }]);
    expect(writes).toEqual([
      'START RequestId: r-1 Version: 3\n' +
        '2026-12-03T06:36:24.034Z\tr-1\tWARN\tlow stock\n' +
        'END RequestId: r-1\n' +
        'REPORT RequestId: r-1\tDuration: 5.00 ms\tBilled Duration: 5 ms\tMemory Size: 128 MB\tMax Memory Used: 0 MB\t\n',
      '2026-12-03T06:36:24.034Z\tundefined\tINFO\tlow stock\n',
    ]);
  });

  it('writes JSON lines typed start, end and report around the console line, at its level', () => {
    const { entries, log } = recorder();
    new FunctionStdout({ format: 'json', log }).lines('f', 3, [LINE], { requestId: 'r-1', durationMs: 5, memoryMb: 128, stats: { initMs: null, memoryUsedMb: 4 } });
    expect(entries.map((e) => [e.level, e.obj.type ?? e.obj.fnLevel])).toEqual([
      ['info', 'start'],
      ['warn', 'warn'],
      ['info', 'end'],
      ['info', 'report'],
    ]);
    expect(entries[3].obj).toEqual({
      source: 'function',
      function: 'f',
      version: 3,
      requestId: 'r-1',
      type: 'report',
      durationMs: 5,
      billedDurationMs: 5,
      memorySizeMB: 128,
      maxMemoryUsedMB: 4,
    });
  });
});
