/**
 * `switchyard logs <function> [-f] [--since id] [--limit n]`: a function's
 * console lines, oldest first (GET /api/functions/{name}/logs). With -f it
 * follows the server-sent event stream (GET /api/functions/{name}/logs/stream)
 * until Ctrl-C (after the newest stored lines, as tail -f does), resuming after a dropped connection from the last line seen,
 * and also shows each invocation as it finishes, after its own console lines
 * (call-order.ts; Ctrl-C waits for the lines still on their way). --json prints an array, or
 * with -f one JSON object per line. What the function wrote goes through
 * terminal-text.ts: its control characters are shown, not obeyed.
 */
import type { Command } from 'commander';
import { clientContext, intFlag, withClientOptions, type CliIO, type ClientFlags } from './context.js';
import { UsageError } from './errors.js';
import type { Output } from './output.js';
import type { FunctionStreamEvent, LogLine, StreamLogLine } from './server-api.js';
import { terminalLine } from './terminal-text.js';
import { withFunction } from './function-lookup.js';
import { createCallOrder } from './call-order.js';

/** Stored lines `logs -f` shows before following, unless --limit says otherwise. */
const FOLLOW_BACKLOG = 10;

/** Lines after `since`; lines of a server that gives no ids cannot be placed. */
function after(lines: LogLine[], since: number, url: string): LogLine[] {
  if (lines.some((l) => l.id === undefined)) {
    throw new UsageError(`the server at ${url} gives its log lines no ids, so --since cannot be used with it (it is older than this CLI)`);
  }
  return lines.filter((l) => l.id! > since);
}

interface LogsFlags extends ClientFlags {
  follow?: boolean;
  since?: string;
  limit?: number;
}

function levelStyle(out: Output, level: string): string {
  const padded = terminalLine(level).padEnd(5);
  if (level === 'error') return out.paint('red', padded);
  if (level === 'warn') return out.paint('yellow', padded);
  return out.paint('dim', padded);
}

function printLine(out: Output, line: LogLine | StreamLogLine): void {
  const req = line.request_id ? out.paint('dim', ` [${terminalLine(line.request_id)}]`) : '';
  out.line(`${out.paint('dim', terminalLine(line.time ?? line.ts ?? ''))} ${levelStyle(out, line.level)} ${terminalLine(line.message)}${req}`);
}

function printStreamEvent(out: Output, event: FunctionStreamEvent): void {
  if (out.json) {
    out.data(event.type === 'log' ? { type: 'log', ...event.line } : { type: 'invocation', ...event.invocation }, { compact: true });
    return;
  }
  if (event.type === 'log') printLine(out, event.line);
  else {
    const i = event.invocation as { ts?: string; method?: string; path?: string; status?: number; duration_ms?: number; outcome?: string };
    const status = i.status !== undefined && i.status >= 400 ? out.paint('red', String(i.status)) : out.paint('green', String(i.status));
    const outcome = i.outcome && i.outcome !== 'ok' ? ` ${i.outcome}` : '';
    const what = terminalLine(`${i.method} ${i.path}`);
    out.line(out.paint('dim', `${terminalLine(i.ts ?? '')} ->   `) + `${what} ${status} ${Math.round(i.duration_ms ?? 0)} ms${terminalLine(outcome)}`);
  }
}

export function registerLogs(program: Command, io: CliIO): void {
  withClientOptions(
    program
      .command('logs')
      .description("Print a function's console lines; -f follows new ones as they are written")
      .argument('<function>', 'function name (any case, or the start of one name)')
      .option('-f, --follow', 'keep printing new lines (and invocations) until Ctrl-C')
      .option('--since <id>', 'only lines after this line id (with -f: replay stored lines after it first)')
      .option('-n, --limit <n>', 'at most this many of the newest lines (1 to 1000; default 100, with -f 10)', intFlag('--limit', 1, 1000)),
  ).action(async (given: string, flags: LogsFlags) => {
    if (flags.since !== undefined && !/^[0-9]{1,15}$/.test(flags.since)) {
      throw new UsageError(`--since must be a log line id (a whole number), got "${flags.since}"`);
    }
    const { api, out } = clientContext(io, flags);
    let name = given;
    if (!flags.follow) {
      let lines = await withFunction(api, given, out, (n) => ((name = n), api.functionLogs(n, { limit: flags.limit })));
      if (flags.since !== undefined) lines = after(lines, Number(flags.since), api.url);
      if (out.json) out.data(lines);
      else if (lines.length === 0) out.info(`no console lines for '${name}' yet`);
      else for (const line of lines) printLine(out, line);
      return;
    }
    // Like tail -f: the newest stored lines first, then the stream from the last of them,
    // so nothing written in between is lost or printed twice.
    let since = flags.since;
    if (since === undefined) {
      const stored = await withFunction(api, given, out, (n) => ((name = n), api.functionLogs(n, { limit: flags.limit ?? FOLLOW_BACKLOG })));
      for (const line of stored) printStreamEvent(out, { type: 'log', id: line.id?.toString(), line });
      const last = stored.at(-1);
      // No lines yet: replay from the oldest kept, which is whatever arrives meanwhile.
      since = last === undefined ? '0' : last.id?.toString();
    }
    const stop = new AbortController();
    // Each call after its own console lines (call-order.ts); on Ctrl-C the lines still on their way are waited for.
    const order = createCallOrder({ print: (event) => printStreamEvent(out, event) });
    const onSignal = () => void order.settle().then(() => stop.abort());
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      out.info(out.paintErr('dim', `following ${name} at ${api.url} (Ctrl-C to stop)`));
      await withFunction(api, name, out, (n) =>
        api.followFunctionLogs((name = n), {
          since,
          signal: stop.signal,
          onEvent: (event) => order.push(event),
          onReconnect: (reason, last) =>
            out.info(out.paintErr('yellow', `${reason}; reconnecting${last === undefined ? '' : ` from line ${last}`}...`)),
        }),
      );
    } finally {
      order.flush();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  });
}
