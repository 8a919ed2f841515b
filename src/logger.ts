/**
 * The process's logger. JSON lines by default: pino's fast path, what log
 * collectors read. `pretty` (the default on a terminal, or LOG_FORMAT=pretty)
 * writes pino-pretty's one-line-per-entry text instead, for a person.
 *
 * JSON lines go through one buffered stdout destination per process (pino's
 * sonic-boom): a write per line (one fs.write through libuv's thread pool
 * each) cost more than building the access line, so lines are joined into
 * writes of up to PIPE_BUF bytes, flushed every FLUSH_MS when traffic is low
 * and synchronously on exit (pino registers that for an asynchronous
 * destination; every stop path, signals and uncaught errors included, ends in
 * an exit event: only a SIGKILL or an abort loses what the buffer holds, at
 * most FLUSH_MS of lines). PIPE_BUF is the largest write POSIX keeps whole on a pipe:
 * the server processes of src/cluster.ts share one stdout, and sonic-boom
 * starts a new write chunk rather than let a line cross `maxWrite`, so each
 * write is whole lines and lines of different processes never interleave
 * mid-line (a single line longer than PIPE_BUF is written alone and, on a
 * pipe, may still be split by the kernel).
 */
import { context, trace } from '@opentelemetry/api';
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config.js';

/** Linux's PIPE_BUF (POSIX asks for at least 512, macOS's is 512: there a write above it may interleave on a shared pipe). */
export const PIPE_BUF = 4096;
/** How long a line may wait in the buffer at low traffic. */
export const FLUSH_MS = 200;

let stdoutDestination: ReturnType<typeof pino.destination> | undefined;

/** The one buffered stdout of this process, shared by every logger it creates (one buffer, one flush timer). */
function bufferedStdout(): ReturnType<typeof pino.destination> {
  stdoutDestination ??= pino.destination({
    dest: 1,
    sync: false,
    // Written once the first chunk is as full as one whole write may be.
    minLength: PIPE_BUF - 1,
    maxWrite: PIPE_BUF,
    periodicFlush: FLUSH_MS,
  });
  return stdoutDestination;
}

/**
 * Starts writing what the buffered stdout holds now, for a line someone waits
 * to read (the start-up line) before the timer would. Asynchronous, after any
 * write in flight: a synchronous flush could overtake it and reorder lines.
 */
export function flushLog(): void {
  stdoutDestination?.flush();
}


/**
 * While tracing, every line written inside a span names it (`trace_id`,
 * `span_id`: the names OpenTelemetry's log data model and collectors use), so
 * a collector joins the line to its trace. The active span is read through the
 * API's context manager, which src/telemetry/tracing.ts registers.
 */
function traceIds(): Record<string, string> {
  const span = trace.getSpan(context.active());
  if (span === undefined) return {};
  const c = span.spanContext();
  return { trace_id: c.traceId, span_id: c.spanId };
}

export function createLogger(config: Pick<Config, 'logLevel'> & Partial<Pick<Config, 'logFormat' | 'processes' | 'telemetry'>>): Logger {
  // With several server processes (src/cluster.ts) their lines interleave: each names its process.
  const options = {
    level: config.logLevel,
    base: (config.processes ?? 1) > 1 ? { service: 'switchyard', pid: process.pid } : { service: 'switchyard' },
    // Without tracing no mixin: a line costs what it did.
    ...(config.telemetry ? { mixin: traceIds } : {}),
  };
  if (config.logFormat !== 'pretty') return pino(options, bufferedStdout());
  const stream = pretty({
    // Colours only for a terminal: LOG_FORMAT=pretty into a file or a pipe stays plain text.
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service',
    singleLine: true,
    // Written before the next line of code runs: a fatal line is never lost to an exit.
    sync: true,
  });
  return pino(options, stream);
}
