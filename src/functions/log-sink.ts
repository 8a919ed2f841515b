/**
 * Buffers functions' console lines and writes them to the store in batches, so
 * an invocation that logs never waits for a database write. Lines are flushed
 * every 200 ms (or at 500 buffered) and old lines are pruned now and then.
 * With `echo`, each line is also written to the server's own log as it
 * arrives (SWITCHYARD_FUNCTION_LOGS_STDOUT): collectors that read stdout see
 * functions' output, as CloudWatch gets Lambda's.
 */
import type { Store } from '../store/store.js';
import type { ConsoleLineSink, FunctionLogLine, Logger } from '../types.js';

export interface FunctionLogSinkDeps {
  store: Store;
  /** Lines kept per function. */
  retention: number;
  log: Logger;
  /** Where each line is also written (the server's log); null: the store only. */
  echo?: Logger | null;
}

/** A function's `console.*` level as the server log's (`log` is `info`, as console.log is). */
const ECHO_LEVEL = { debug: 'debug', info: 'info', log: 'info', warn: 'warn', error: 'error' } as const;

/** One console line in the server's log: `source: "function"` tells it from the server's own lines. */
export function echoLine(log: Logger, functionName: string, version: number | null, line: FunctionLogLine): void {
  const level = ECHO_LEVEL[line.level] ?? 'info';
  log[level]({ source: 'function', function: functionName, version, requestId: line.requestId, fnLevel: line.level, fnTime: line.time }, line.message);
}

export class FunctionLogSink implements ConsoleLineSink {
  private buffer = new Map<string, FunctionLogLine[]>();
  private buffered = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private flushesSincePrune = 0;

  private readonly store: Store;
  private readonly retention: number;
  private readonly log: Logger;
  private readonly echo: Logger | null;

  constructor(deps: FunctionLogSinkDeps) {
    this.store = deps.store;
    this.retention = deps.retention;
    this.log = deps.log;
    this.echo = deps.echo ?? null;
  }

  /** `version`: the function version that ran, stored with each line. */
  push(functionName: string, lines: FunctionLogLine[], version: number | null = null): void {
    if (lines.length === 0) return;
    if (this.echo) for (const line of lines) echoLine(this.echo, functionName, version, line);
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
