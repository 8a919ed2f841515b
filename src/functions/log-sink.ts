/**
 * Buffers functions' console lines and writes them to the store in batches, so
 * an invocation that logs never waits for a database write. Lines are flushed
 * every 200 ms (or at 500 buffered) and old lines are pruned now and then.
 * With `echo`, each line is also written to the server's own output as it
 * arrives (SWITCHYARD_FUNCTION_LOGS_STDOUT, ./stdout-lines.ts): collectors that
 * read stdout see functions' output, as CloudWatch gets Lambda's; with
 * `runLines`, every run is handed here and gets its start, end and report lines.
 */
import type { Store } from '../store/store.js';
import type { ConsoleLineSink, FunctionLogLine, Logger, RunFacts } from '../types.js';
import type { FunctionStdout } from './stdout-lines.js';

export interface FunctionLogSinkDeps {
  store: Store;
  /** Lines kept per function. */
  retention: number;
  log: Logger;
  /** Where each line is also written (the server's output); null: the store only. */
  echo?: FunctionStdout | null;
  /** Each run's start, end and report lines too (SWITCHYARD_FUNCTION_REPORT_LINES); only with `echo`. */
  runLines?: boolean;
}

export class FunctionLogSink implements ConsoleLineSink {
  readonly runLines: boolean;
  private buffer = new Map<string, FunctionLogLine[]>();
  private buffered = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private flushesSincePrune = 0;

  private readonly store: Store;
  private readonly retention: number;
  private readonly log: Logger;
  private readonly echo: FunctionStdout | null;

  constructor(deps: FunctionLogSinkDeps) {
    this.store = deps.store;
    this.retention = deps.retention;
    this.log = deps.log;
    this.echo = deps.echo ?? null;
    this.runLines = this.echo !== null && deps.runLines === true;
  }

  /** `version`: the function version that ran, stored with each line. */
  push(functionName: string, lines: FunctionLogLine[], version: number | null = null, run?: RunFacts): void {
    if (this.echo && (lines.length > 0 || run !== undefined)) this.echo.lines(functionName, version, lines, this.runLines ? run : undefined);
    if (lines.length === 0) return;
    const stamped = lines.map((l) => ({ ...l, version }));
    const list = this.buffer.get(functionName);
    if (list) list.push(...stamped);
    else this.buffer.set(functionName, stamped);
    this.buffered += lines.length;
    if (this.buffered >= 500) void this.flush();
    else if (!this.timer) this.timer = setTimeout(() => void this.flush(), 200);
  }

  /** Writes everything buffered so far; resolves when it is in the store. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.buffer;
    this.buffer = new Map();
    this.buffered = 0;
    this.flushing = this.flushing.then(async () => {
      for (const [name, lines] of batch) {
        try {
          await this.store.appendFunctionLogs(name, lines);
        } catch (err) {
          this.log.warn({ err, function: name }, 'could not store function logs');
        }
      }
      if (++this.flushesSincePrune >= 50) {
        this.flushesSincePrune = 0;
        await this.store.pruneFunctionLogs(this.retention).catch((err) => this.log.warn({ err }, 'log prune failed'));
      }
    });
    return this.flushing;
  }
}
