/**
 * Buffers functions' console lines and writes them to the store in batches, so
 * an invocation that logs never waits for a database write. Lines are flushed
 * every 200 ms (or at 500 buffered) and old lines are pruned now and then.
 */
import type { Store } from '../store/store.js';
import type { ConsoleLineSink, FunctionLogLine, Logger } from '../types.js';

export interface FunctionLogSinkDeps {
  store: Store;
  /** Lines kept per function. */
  retention: number;
  log: Logger;
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

  constructor(deps: FunctionLogSinkDeps) {
    this.store = deps.store;
    this.retention = deps.retention;
    this.log = deps.log;
  }

  /** `version`: the function version that ran, stored with each line. */
  push(functionName: string, lines: FunctionLogLine[], version: number | null = null): void {
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
