/**
 * `switchyard webhooks recover <name> --since <time> [--until <time>]
 * [--status s]... [--event e]... [--dry-run] [--wait]`: after a target is
 * fixed, resend what it missed. The server selects the webhook's finished
 * deliveries (failed, by default) created in the window and resends each
 * once in a background job (POST /api/webhooks/{id}/recover); the command
 * prints how many and the job's id, or with --dry-run only how many. --wait
 * follows the job (GET /api/recoveries/{id}) until it is done: a line of
 * progress on a terminal, then the final counts. A job cancelled meanwhile
 * (from the dashboard or the API) exits 1.
 */
import type { Command } from 'commander';
import { clientContext, withClientOptions, type CliIO, type ClientFlags } from './context.js';
import { CommandFailedError, UsageError } from './errors.js';
import type { Output } from './output.js';
import type { RecoverableStatus, RecoverFilter, Recovery } from './server-api.js';
import { terminalLine } from './terminal-text.js';
import { timeFlag } from './time-flag.js';
import { findWebhook } from './webhook-lookup.js';
import { commandLine, counted } from './words.js';

const STATUSES: RecoverableStatus[] = ['failed', 'succeeded', 'discarded', 'cancelled'];
/** A job reopens 500 deliveries a transaction: twice a second shows it move without loading the server. */
const POLL_MS = 500;

interface RecoverFlags extends ClientFlags {
  since: string;
  until?: string;
  status?: RecoverableStatus[];
  event?: string[];
  dryRun?: boolean;
  wait?: boolean;
}

/** Commander collector for `--status failed --status discarded` or `--status failed,discarded`. */
export function collectStatuses(value: string, previous: RecoverableStatus[] = []): RecoverableStatus[] {
  const given = value.split(',').map((s) => s.trim()).filter(Boolean);
  const wrong = given.find((s) => !(STATUSES as string[]).includes(s));
  if (given.length === 0 || wrong !== undefined) throw new UsageError(`--status must be ${STATUSES.join(', ')} (or several, separated by commas), got "${value}"`);
  return [...new Set([...previous, ...(given as RecoverableStatus[])])];
}

/** Commander collector for `--event a --event b` or `--event a,b` (event names hold no comma). */
export function collectEvents(value: string, previous: string[] = []): string[] {
  const given = value.split(',').map((e) => e.trim()).filter(Boolean);
  if (given.length === 0) throw new UsageError('--event takes event names, separated by commas');
  return [...new Set([...previous, ...given])];
}

/** `3 failed deliveries of 'orders' of the event order.created created since ...`: what the filter selects. */
function selection(count: number, webhook: string, filter: RecoverFilter): string {
  const statuses = (filter.statuses ?? ['failed']).join(' or ');
  const events = filter.events ? ` of ${filter.events.length === 1 ? 'the event' : 'the events'} ${filter.events.join(', ')}` : '';
  const when = filter.until ? `from ${filter.since} to ${filter.until}` : `since ${filter.since}`;
  return terminalLine(`${counted(count, `${statuses} delivery`, `${statuses} deliveries`)} of '${webhook}'${events} created ${when}`);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Follows the job until it is no longer running, a line of progress (on a terminal) each time it moves. */
async function follow(out: Output, job: Recovery, get: (id: string) => Promise<Recovery>): Promise<Recovery> {
  let shown = -1;
  while (job.status === 'running') {
    await sleep(POLL_MS);
    job = await get(job.id);
    if (job.status === 'running' && job.resent !== shown) {
      shown = job.resent;
      out.progress(out.paintErr('dim', `  ${job.resent} of ${job.total} resent (${Math.floor(job.progress * 100)} %)`));
    }
  }
  return job;
}

export function registerRecover(webhooks: Command, io: CliIO): void {
  withClientOptions(
    webhooks
      .command('recover')
      .description("Resend a webhook's failed deliveries created since a time, once each, in the background")
      .argument('<webhook>', 'webhook name (any case, or the start of one name) or id')
      .requiredOption(
        '--since <time>',
        'deliveries created since this time: ISO 8601 (2026-11-23T10:00:00Z; without an offset, local time) or a duration back from now (30m, 2h, 7d, 1h30m)',
        timeFlag('--since'),
      )
      .option('--until <time>', 'and created before this time, in the same forms (default: now)', timeFlag('--until'))
      .option('--status <status>', `which finished deliveries: ${STATUSES.join(', ')} (repeatable, or comma-separated; default: failed)`, collectStatuses)
      .option('--event <name>', 'only deliveries of this event (repeatable, or comma-separated; default: every delivery)', collectEvents)
      .option('--dry-run', 'only count what would be resent; resend nothing')
      .option('--wait', 'follow the job until every delivery is resent, then print the counts'),
  ).action(async (nameOrId: string, flags: RecoverFlags) => {
    if (flags.until !== undefined && flags.since > flags.until) {
      throw new UsageError(`--since (${flags.since}) is after --until (${flags.until})`);
    }
    const { api, out } = clientContext(io, flags);
    const webhook = await findWebhook(api, nameOrId, out);
    const filter: RecoverFilter = {
      since: flags.since,
      ...(flags.until !== undefined ? { until: flags.until } : {}),
      ...(flags.status ? { statuses: flags.status } : {}),
      ...(flags.event ? { events: flags.event } : {}),
    };

    if (flags.dryRun) {
      const count = await api.countRecoverable(webhook.id, filter);
      if (out.json) out.data({ count, dry_run: true });
      else out.line(`would resend ${selection(count, webhook.name, filter)}`);
      return;
    }

    const started = await api.recoverWebhook(webhook.id, filter);
    if (!out.json) {
      // The window as the server took it: `until` is its now when none was given.
      const { since, until, statuses, events } = started.filter;
      out.line(`resending ${selection(started.total, webhook.name, { since, until, statuses, ...(events ? { events } : {}) })}`);
      out.line(`recovery ${started.id}${flags.wait ? '' : out.paint('dim', ` (running on the server: GET /api/recoveries/${started.id} shows its progress)`)}`);
    }
    if (!flags.wait) {
      if (out.json) out.data(started);
      return;
    }
    const job = await follow(out, started, (id) => api.getRecovery(id));
    const cancelled = job.status === 'cancelled';
    if (out.json) out.data(job);
    else if (cancelled) out.line(`${out.paint('red', 'cancelled')}: ${job.resent} of ${job.total} resent before the job was cancelled`);
    else {
      const passed = job.total - job.resent;
      out.line(`done: ${job.resent} of ${job.total} resent${passed > 0 ? ` (${passed} resent by hand or deleted meanwhile)` : ''}`);
    }
    if (!out.json) out.line(out.paint('dim', `their outcomes: ${terminalLine(commandLine('deliveries', webhook.name))}`));
    if (cancelled) throw new CommandFailedError('recovery_cancelled', `recovery ${job.id} was cancelled`, { reported: true });
  });
}
