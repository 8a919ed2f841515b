/**
 * `switchyard invocations <function> [--status s] [--limit n]`: a function's
 * recorded runs (scheduled, event-triggered, asynchronous, destination),
 * newest first (GET /api/functions/{name}/invocations), as a table with one
 * indented line per attempt; --json prints the array. `switchyard
 * invocations retry <function> <id>` runs a failed one again
 * (POST /api/functions/{name}/invocations/{id}/retry).
 */
import { Option, type Command } from 'commander';
import { clientContext, intFlag, withClientOptions, type CliIO, type ClientFlags } from './context.js';
import type { Output } from './output.js';
import type { InvocationAttempt, InvocationRecord } from './server-api.js';
import { commandLine } from './words.js';
import { withFunction } from './function-lookup.js';

const STATUSES: Array<InvocationRecord['status']> = ['pending', 'succeeded', 'failed'];

interface InvocationsFlags extends ClientFlags {
  limit?: number;
  status?: InvocationRecord['status'];
}

/** `{code, message}` or a message, as one line. */
export function errorText(error: InvocationAttempt['error'] | undefined): string {
  if (error === null || error === undefined) return '';
  if (typeof error === 'string') return error;
  if (error.code && error.message) return `${error.code}: ${error.message}`;
  return error.message ?? error.code ?? JSON.stringify(error);
}

/** What fired the run: `schedule 0 9 * * 1-5`, `event order.created`, `async`, `destination on_failure of f`. */
export function triggerText(trigger: InvocationRecord['trigger']): string {
  const detail = (key: string) => (typeof trigger[key] === 'string' && trigger[key] !== '' ? (trigger[key] as string) : undefined);
  switch (trigger.type) {
    case 'schedule':
      return ['schedule', detail('cron'), detail('timezone') && detail('timezone') !== 'UTC' ? `(${detail('timezone')})` : undefined].filter(Boolean).join(' ');
    case 'event':
      return ['event', detail('event') ?? detail('name')].filter(Boolean).join(' ');
    case 'destination': {
      const of = detail('function') ?? detail('source');
      return ['destination', detail('on') ?? detail('kind'), of ? `of ${of}` : undefined].filter(Boolean).join(' ');
    }
    default:
      return trigger.type;
  }
}

function statusCell(out: Output, status: InvocationRecord['status']): string {
  return out.paint(status === 'succeeded' ? 'green' : status === 'failed' ? 'red' : 'yellow', status);
}

/** One row per invocation, then one dim indented row per attempt (outcome, duration, error). */
export function invocationRows(out: Output, records: InvocationRecord[]): string[][] {
  const rows: string[][] = [];
  for (const r of records) {
    const outcome = r.status === 'failed' ? errorText(r.error ?? r.attempts.at(-1)?.error) : r.status === 'succeeded' && r.completed_at ? `done ${r.completed_at}` : '';
    rows.push([r.id, r.created_at, triggerText(r.trigger), statusCell(out, r.status), String(r.attempts.length), outcome]);
    for (const a of r.attempts) {
      const took = a.duration_ms != null ? `, ${a.duration_ms} ms` : '';
      const error = errorText(a.error);
      rows.push([out.paint('dim', `  #${a.attempt}`), out.paint('dim', a.started_at), '', '', '', out.paint('dim', `${a.outcome}${took}${error ? ` (${error})` : ''}`)]);
    }
  }
  return rows;
}

export const INVOCATION_HEADERS = ['INVOCATION', 'CREATED', 'TRIGGER', 'STATUS', 'ATTEMPTS', 'RESULT'];

export function registerInvocations(program: Command, io: CliIO): void {
  const invocations = withClientOptions(
    program
      .command('invocations')
      .description("List a function's scheduled, event and asynchronous invocations and their attempts, newest first")
      .argument('<function>', 'function name (any case, or the start of one name)')
      .option('-n, --limit <n>', 'how many of the newest invocations (1 to 1000)', intFlag('--limit', 1, 1000), 20)
      .addOption(new Option('--status <status>', 'only invocations in this state').choices(STATUSES)),
  )
    // `invocations retry f id --url x`: the options after `retry` are retry's, not the list's.
    .enablePositionalOptions()
    .action(async (given: string, flags: InvocationsFlags) => {
    const { api, out } = clientContext(io, flags);
    let name = given;
    const records = await withFunction(api, given, out, (n) => ((name = n), api.listInvocations(n, { status: flags.status, limit: flags.limit })));
    if (out.json) {
      out.data(records);
      return;
    }
    if (records.length === 0) {
      out.info(`no ${flags.status ? `${flags.status} ` : ''}invocations of '${name}' among the newest ${flags.limit}`);
      return;
    }
    out.table(INVOCATION_HEADERS, invocationRows(out, records));
  });

  withClientOptions(
    invocations
      .command('retry')
      .description('Run a failed invocation of a function again')
      .argument('<function>', 'function name (any case, or the start of one name)')
      .argument('<id>', 'invocation id (switchyard invocations <function> lists them)'),
  ).action(async (given: string, id: string, flags: ClientFlags) => {
    const { api, out } = clientContext(io, flags);
    let name = given;
    const record = await withFunction(api, given, out, (n) => ((name = n), api.retryInvocation(n, id)));
    if (out.json) {
      out.data(record);
      return;
    }
    out.line(`${record.id ?? id}: ${record.status ? statusCell(out, record.status) : 'retried'}`);
    out.line(out.paint('dim', `attempts: ${commandLine('invocations', name)}`));
  });
}
