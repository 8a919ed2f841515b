/**
 * The process's logger. JSON lines by default: pino's fast path, what log
 * collectors read. `pretty` (the default on a terminal, or LOG_FORMAT=pretty)
 * writes pino-pretty's one-line-per-entry text instead, for a person.
 */
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config.js';

export function createLogger(config: Pick<Config, 'logLevel'> & Partial<Pick<Config, 'logFormat' | 'processes'>>): Logger {
  // With several server processes (src/cluster.ts) their lines interleave: each names its process.
  const options = {
    level: config.logLevel,
    base: (config.processes ?? 1) > 1 ? { service: 'switchyard', pid: process.pid } : { service: 'switchyard' },
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
