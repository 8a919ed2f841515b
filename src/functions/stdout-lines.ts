/**
 * Functions' lines in the server's own output (SWITCHYARD_FUNCTION_LOGS_STDOUT):
 * console lines and, with SWITCHYARD_FUNCTION_REPORT_LINES, a start, end and
 * report line per run, written as pino JSON lines (`json`, the default) or as
 * the plain text Lambda writes to CloudWatch (`lambda`,
 * SWITCHYARD_FUNCTION_LOGS_FORMAT), for the parsers people already have for it.
 * The text follows AWS's documented Node.js log format field by field:
 *
 *   START RequestId: <id> Version: <version>
 *   <ISO time>\t<id>\t<LEVEL>\t<message>
 *   END RequestId: <id>
 *   REPORT RequestId: <id>\tDuration: <ms, 2 decimals> ms\tBilled Duration: <ms, rounded up> ms\t
 *     Memory Size: <MB> MB\tMax Memory Used: <MB> MB\t[Init Duration: <ms> ms\t]
 *
 * Hand-written: a few template strings; no library writes Lambda's lines.
 */
import type { FunctionLogLine, Logger, RunFacts } from '../types.js';

/** A function's `console.*` level as the server log's (`log` is `info`, as console.log is). */
const ECHO_LEVEL = { debug: 'debug', info: 'info', log: 'info', warn: 'warn', error: 'error' } as const;
/** As Lambda's Node.js runtime names them in its text lines. */
const LAMBDA_LEVEL = { debug: 'DEBUG', info: 'INFO', log: 'INFO', warn: 'WARN', error: 'ERROR' } as const;

export type FunctionLogsFormat = 'json' | 'lambda';

/** One console line in the server's log: `source: "function"` tells it from the server's own lines. */
export function echoLine(log: Logger, functionName: string, version: number | null, line: FunctionLogLine): void {
  const level = ECHO_LEVEL[line.level] ?? 'info';
  log[level]({ source: 'function', function: functionName, version, requestId: line.requestId, fnLevel: line.level, fnTime: line.time }, line.message);
}

/** A run's report figures: Lambda's Duration leaves the start (Init Duration) out, and bills whole milliseconds. */
export function reportOf(run: RunFacts): { durationMs: number; billedDurationMs: number; memorySizeMB: number; maxMemoryUsedMB: number | null; initDurationMs: number | null } {
  const initMs = run.stats?.initMs ?? null;
  const durationMs = Math.max(0, run.durationMs - (initMs ?? 0));
  return {
    durationMs: Math.round(durationMs * 100) / 100,
    billedDurationMs: Math.max(1, Math.ceil(durationMs)),
    memorySizeMB: run.memoryMb,
    maxMemoryUsedMB: run.stats?.memoryUsedMb ?? null,
    initDurationMs: initMs,
  };
}

/** The REPORT line as Lambda writes it (tab-separated, a trailing tab); Init Duration only on a cold start. */
export function lambdaReportLine(run: RunFacts): string {
  const r = reportOf(run);
  let text =
    `REPORT RequestId: ${run.requestId}\tDuration: ${r.durationMs.toFixed(2)} ms\tBilled Duration: ${r.billedDurationMs} ms\t` +
    `Memory Size: ${r.memorySizeMB} MB\tMax Memory Used: ${r.maxMemoryUsedMB ?? 0} MB\t`;
  if (r.initDurationMs !== null) text += `Init Duration: ${r.initDurationMs.toFixed(2)} ms\t`;
  return text;
}

/** One console line as Lambda writes it; a line printed outside any request (after an await) has no id: `undefined`, as Lambda's. */
export function lambdaConsoleLine(line: FunctionLogLine): string {
  return `${line.time}\t${line.requestId ?? 'undefined'}\t${LAMBDA_LEVEL[line.level] ?? 'INFO'}\t${line.message}`;
}

export interface FunctionStdoutDeps {
  format: FunctionLogsFormat;
  /** The server's log, for `json`. */
  log: Logger;
  /** Raw text out, for `lambda` (default: stdout). */
  write?: (text: string) => void;
}

export class FunctionStdout {
  private readonly format: FunctionLogsFormat;
  private readonly log: Logger;
  private readonly write: (text: string) => void;

  constructor(deps: FunctionStdoutDeps) {
    this.format = deps.format;
    this.log = deps.log;
    this.write = deps.write ?? ((text) => void process.stdout.write(text));
  }

  /** A run's lines: START, its console lines, END and REPORT when `run` is given; the console lines alone otherwise. */
  lines(functionName: string, version: number | null, lines: FunctionLogLine[], run?: RunFacts): void {
    if (this.format === 'lambda') {
      let text = run === undefined ? '' : `START RequestId: ${run.requestId} Version: ${version ?? '$LATEST'}\n`;
      for (const line of lines) text += lambdaConsoleLine(line) + '\n';
      if (run !== undefined) text += `END RequestId: ${run.requestId}\n${lambdaReportLine(run)}\n`;
      if (text !== '') this.write(text);
      return;
    }
    const fields = run === undefined ? null : { source: 'function', function: functionName, version, requestId: run.requestId };
    if (fields !== null) this.log.info({ ...fields, type: 'start' }, `START RequestId: ${fields.requestId}`);
    for (const line of lines) echoLine(this.log, functionName, version, line);
    if (fields !== null) {
      this.log.info({ ...fields, type: 'end' }, `END RequestId: ${fields.requestId}`);
      const r = reportOf(run!);
      const report: Record<string, unknown> = { ...fields, type: 'report', ...r };
      if (r.initDurationMs === null) delete report.initDurationMs;
      if (r.maxMemoryUsedMB === null) delete report.maxMemoryUsedMB;
      this.log.info(report, lambdaReportLine(run!));
    }
  }
}
