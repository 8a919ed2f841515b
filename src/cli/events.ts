/**
 * `switchyard events publish <event> [--data json|@file] [--id id]
 * [--idempotency-key key] [--header 'name: value']...`: publishes an event
 * (POST /api/events) and prints its id and what it reached (and how many
 * webhooks' filters kept it out). With a key or an id, a script that retries
 * after a timeout publishes once: a repeat prints the first answer, marked
 * as a replay.
 */
import type { Command } from 'commander';
import { clientContext, withClientOptions, type CliIO, type ClientFlags } from './context.js';
import { collectHeader, readJsonArgument } from './data.js';
import { terminalLine } from './terminal-text.js';
import { counted } from './words.js';

interface PublishFlags extends ClientFlags {
  data?: string;
  id?: string;
  idempotencyKey?: string;
  header?: Record<string, string>;
}

export function registerEvents(program: Command, io: CliIO): void {
  const events = program.command('events').description('Event commands');
  withClientOptions(
    events
      .command('publish')
      .description('Publish an event to the webhooks and functions subscribed to it')
      .argument('<event>', 'the event name, such as order.created')
      .option('-d, --data <json|@file>', "the event's data as JSON, or @file to read it from a file (@- reads stdin)")
      .option('--id <id>', "the event's own id: a second publish with it within the idempotency window publishes nothing")
      .option('--idempotency-key <key>', 'sent as Idempotency-Key: a repeat within the window answers the first answer and publishes nothing')
      .option('-H, --header <name: value>', "a header of the event, which webhooks' filters can match (repeat for more; not sent to the targets)", collectHeader),
  ).action(async (event: string, flags: PublishFlags) => {
    const { api, out } = clientContext(io, flags);
    const data = flags.data === undefined ? undefined : await readJsonArgument('--data', flags.data, io.cwd);
    const body = {
      event,
      ...(data === undefined ? {} : { data }),
      ...(flags.id === undefined ? {} : { id: flags.id }),
      ...(flags.header === undefined ? {} : { headers: flags.header }),
    };
    const { published, replayed } = await api.publishEvent(body, flags.idempotencyKey);
    if (out.json) {
      out.data({ ...published, replayed });
      return;
    }
    out.line(terminalLine(published.id));
    const filteredOut = published.webhooks.filtered_out.length;
    const reached =
      `${counted(published.deliveries.length, 'webhook delivery', 'webhook deliveries')}` +
      `${filteredOut > 0 ? ` (${counted(filteredOut, 'webhook', 'webhooks')} filtered out)` : ''}, ${counted(published.functions.length, 'function run', 'function runs')}`;
    out.info(out.paintErr('dim', replayed ? `already published (a replay of the first answer): ${reached}` : reached));
  });
}
