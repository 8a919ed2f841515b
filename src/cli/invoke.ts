/**
 * `switchyard invoke <function> [--data json|@file] [--event-format f]`: one
 * manual invocation (POST /api/functions/{name}/invoke). The function's result
 * goes to stdout as JSON, its status, duration and console lines to stderr, so
 * `switchyard invoke f | jq` reads the result; --json prints the whole answer.
 * Exits 1 when the invocation failed (a throw, a timeout, an invalid result).
 * With --async the server queues the invocation (`x-invocation-type: Event`,
 * Lambda's header) and answers at once: the invocation id goes to stdout,
 * and `switchyard invocations <function>` follows its attempts.
 */
import { Option, type Command } from 'commander';
import { clientContext, withClientOptions, type CliIO, type ClientFlags } from './context.js';
import { readJsonArgument } from './data.js';
import { CommandFailedError, UsageError } from './errors.js';
import type { InvocationErrorCode } from '../errors.js';
import type { EventFormat, LogLine } from './server-api.js';
import type { Output } from './output.js';
import { terminalLine } from './terminal-text.js';
import { commandLine } from './words.js';
import { functionNameFor, withFunction } from './function-lookup.js';

const EVENT_FORMATS: EventFormat[] = ['switchyard', 'aws-v1', 'aws-v2'];

interface InvokeFlags extends ClientFlags {
  data?: string;
  eventFormat?: EventFormat;
  async?: boolean;
}

export function printLogLine(out: Output, line: LogLine, prefix = ''): void {
  const text = terminalLine(line.level);
  const level = line.level === 'error' ? out.paintErr('red', text) : line.level === 'warn' ? out.paintErr('yellow', text) : out.paintErr('dim', text);
  out.info(`${prefix}${out.paintErr('dim', terminalLine(line.time))} ${level} ${terminalLine(line.message)}`);
}

export function registerInvoke(program: Command, io: CliIO): void {
  withClientOptions(
    program
      .command('invoke')
      .description('Invoke a function once with an event and print its result')
      .argument('<function>', 'function name (any case, or the start of one name)')
      .option('-d, --data <json|@file>', 'the event as JSON, or @file to read it from a file (@- reads stdin); missing fields get defaults', '{}')
      .addOption(
        new Option('--event-format <format>', "the format the event is written in: refuses to invoke a function that expects another").choices(
          EVENT_FORMATS,
        ),
      )
      .option('--async', 'queue the invocation and print its id at once (x-invocation-type: Event); retried on failure as the function says'),
  ).action(async (given: string, flags: InvokeFlags) => {
    const { api, out } = clientContext(io, flags);
    const event = await readJsonArgument('--data', flags.data ?? '{}', io.cwd);
    if (event === null || typeof event !== 'object' || Array.isArray(event)) {
      throw new UsageError('--data must be a JSON object (the event)');
    }
    let name = given;
    if (flags.eventFormat) {
      let fn = await api.getFunction(name);
      if (fn === null) {
        name = (await functionNameFor(api, given, out)) ?? given;
        if (name !== given) fn = await api.getFunction(name);
      }
      if (fn === null) throw new CommandFailedError('function_not_found', `Function '${name}' does not exist`);
      if (fn.event_format !== flags.eventFormat) {
        throw new UsageError(
          `function '${name}' takes ${fn.event_format} events, not ${flags.eventFormat}: write the event in ${fn.event_format} or change the function's event_format`,
        );
      }
    }
    if (flags.async) {
      const queued = await withFunction(api, name, out, async (n) => ((name = n), api.invokeFunctionAsync(n, event)));
      if (out.json) out.data(queued);
      else {
        out.line(queued.invocation_id);
        out.info(out.paintErr('dim', `${queued.status}; attempts: ${commandLine('invocations', name)}`));
      }
      return;
    }
    const answer = await withFunction(api, name, out, async (n) => ((name = n), api.invokeFunction(n, event)));
    if (out.json) out.data(answer);
    else {
      for (const line of answer.logs) printLogLine(out, line);
      const status = answer.error ? out.paintErr('red', String(answer.status)) : out.paintErr('green', String(answer.status));
      out.info(`${status} in ${answer.duration_ms} ms${answer.error ? `: ${answer.error.code}: ${answer.error.message}` : ''}`);
      if (!answer.error && answer.result !== undefined) out.data(answer.result);
    }
    if (answer.error) throw new CommandFailedError(answer.error.code as InvocationErrorCode, `function '${name}' failed: ${answer.error.message}`, { reported: true });
  });
}
