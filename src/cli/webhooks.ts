/**
 * `switchyard webhooks test <name>`: sends a webhook once now
 * (POST /api/webhooks/{id}/test; one attempt, no retries, also when disabled)
 * and prints how it went. Exits 1 when the delivery failed, so a script can
 * check a target before relying on it.
 */
import type { Command } from 'commander';
import { clientContext, withClientOptions, type CliIO, type ClientFlags } from './context.js';
import { CommandFailedError } from './errors.js';
import { terminalLine } from './terminal-text.js';
import { findWebhook } from './webhook-lookup.js';
import { commandLine } from './words.js';

export function registerWebhooks(program: Command, io: CliIO): void {
  const webhooks = program.command('webhooks').description('Webhook commands');
  withClientOptions(
    webhooks
      .command('test')
      .description('Send a webhook once now and print the outcome (exit 1 when it failed)')
      .argument('<webhook>', 'webhook name (any case, or the start of one name) or id'),
  ).action(async (nameOrId: string, flags: ClientFlags) => {
    const { api, out } = clientContext(io, flags);
    const webhook = await findWebhook(api, nameOrId, out);
    out.info(out.paintErr('dim', `sending '${webhook.name}' (${webhook.id}) to ${webhook.method} ${webhook.target_url}...`));
    const delivery = await api.testWebhook(webhook.id);
    const attempt = delivery.attempts.at(-1);
    if (out.json) out.data(delivery);
    else {
      const ok = delivery.status === 'succeeded';
      const status = out.paint(ok ? 'green' : 'red', delivery.status);
      const answer = attempt?.response_status != null ? `HTTP ${attempt.response_status}` : 'no answer';
      const took = attempt?.duration_ms != null ? ` in ${attempt.duration_ms} ms` : '';
      const error = delivery.error ?? attempt?.error;
      out.line(`${status}: ${answer}${took}${!ok && error ? ` (${error})` : ''}`);
      out.line(out.paint('dim', `delivery ${delivery.id}; history: ${terminalLine(commandLine('deliveries', webhook.name))}`));
    }
    if (delivery.status !== 'succeeded') {
      throw new CommandFailedError('delivery_failed', `the test delivery of '${webhook.name}' failed`, { reported: true });
    }
  });
}
