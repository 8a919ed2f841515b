/**
 * `switchyard deliveries <webhook> [--limit n] [--status s]`: a webhook's
 * recent deliveries, newest first (GET /api/webhooks/{id}/deliveries), as a
 * table with one indented line per attempt; --json prints the array.
 */
import { Option, type Command } from 'commander';
import { clientContext, intFlag, withClientOptions, type CliIO, type ClientFlags } from './context.js';
import type { Output } from './output.js';
import type { Delivery } from './server-api.js';
import { findWebhook } from './webhook-lookup.js';

interface DeliveriesFlags extends ClientFlags {
  limit?: number;
  status?: Delivery['status'];
}

function statusCell(out: Output, status: Delivery['status']): string {
  return out.paint(status === 'succeeded' ? 'green' : status === 'failed' ? 'red' : status === 'discarded' || status === 'cancelled' ? 'dim' : 'yellow', status);
}

export function deliveryRows(out: Output, deliveries: Delivery[]): string[][] {
  const rows: string[][] = [];
  for (const d of deliveries) {
    const what = d.event ? `${d.trigger} ${d.event}` : d.trigger;
    const last = d.attempts.at(-1);
    const result = d.status === 'pending' && d.next_attempt_at ? `next attempt ${d.next_attempt_at}` : (d.error ?? (last?.response_status != null ? `HTTP ${last.response_status}` : ''));
    rows.push([d.id, d.created_at, what, statusCell(out, d.status), String(d.attempts.length), result]);
    for (const a of d.attempts) {
      const answer = a.response_status != null ? `HTTP ${a.response_status}` : (a.error ?? 'no answer');
      const took = a.duration_ms != null ? `${a.duration_ms} ms` : '';
      rows.push([out.paint('dim', `  #${a.attempt}`), out.paint('dim', a.started_at), '', '', '', out.paint('dim', `${answer}${took ? `, ${took}` : ''}${a.response_status != null && a.error ? ` (${a.error})` : ''}`)]);
    }
  }
  return rows;
}

export function registerDeliveries(program: Command, io: CliIO): void {
  withClientOptions(
    program
      .command('deliveries')
      .description("List a webhook's recent deliveries and their attempts, newest first")
      .argument('<webhook>', 'webhook name (any case, or the start of one name) or id')
      .option('-n, --limit <n>', 'how many of the newest deliveries (1 to 1000)', intFlag('--limit', 1, 1000), 20)
      .addOption(new Option('--status <status>', 'only deliveries in this state').choices(['pending', 'held', 'succeeded', 'failed', 'discarded', 'cancelled'])),
  ).action(async (nameOrId: string, flags: DeliveriesFlags) => {
    const { api, out } = clientContext(io, flags);
    const webhook = await findWebhook(api, nameOrId, out);
    let deliveries = await api.listDeliveries(webhook.id, { limit: flags.limit });
    if (flags.status) deliveries = deliveries.filter((d) => d.status === flags.status);
    if (out.json) {
      out.data(deliveries);
      return;
    }
    if (deliveries.length === 0) {
      out.info(`no ${flags.status ? `${flags.status} ` : ''}deliveries of '${webhook.name}' among the newest ${flags.limit}`);
      return;
    }
    out.table(['DELIVERY', 'CREATED', 'TRIGGER', 'STATUS', 'ATTEMPTS', 'RESULT'], deliveryRows(out, deliveries));
  });
}
