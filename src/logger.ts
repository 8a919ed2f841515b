/**
 * The process's logger. JSON lines by default: pino's fast path, what log
 * collectors read. `pretty` (the default on a terminal, or LOG_FORMAT=pretty)
 * writes pino-pretty's one-line-per-entry text instead, for a person.
 */
import { context, trace } from '@opentelemetry/api';
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config.js';

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
  if (config.logFormat !== 'pretty') return pino(options);
  const stream = pretty({
    // Colours only for a terminal: LOG_FORMAT=pretty into a file or a pipe stays plain text.
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service',
    singleLine: true,
    // Written before the next line of code runs, like the JSON logger: a fatal line is never lost to an exit.
    sync: true,
  });
  return pino(options, stream);
}
