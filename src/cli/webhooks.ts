/**
 * `switchyard webhooks test <name>`: sends a webhook once now
 * (POST /api/webhooks/{id}/test; one attempt, no retries, also when disabled)
 * and prints how it went. Exits 1 when the delivery failed, so a script can
 * check a target before relying on it.
 *
 * `switchyard webhooks pause|resume <name>`: an operator holds a webhook's
 * deliveries while its target is down or being fixed (none is lost), then
 * lets them go in publish order (POST /api/webhooks/{id}/pause, /resume).
 * Both say what they found (already paused, a circuit breaker open, held
 * deliveries) and change nothing twice; `recover` is in webhook-recover.ts,
 * `rotate-secret` in webhook-rotate.ts.
 */
import type { Command } from 'commander';
import { clientContext, withClientOptions, type CliIO, type ClientFlags } from './context.js';
import { CommandFailedError } from './errors.js';
import type { Output } from './output.js';
import type { WebhookInfo } from './server-api.js';
import { terminalLine } from './terminal-text.js';
import { registerRecover } from './webhook-recover.js';
import { registerRotateSecret } from './webhook-rotate.js';
import { findWebhook } from './webhook-lookup.js';
import { commandLine, counted } from './words.js';

const DISABLED_BECAUSE: Record<string, string> = {
  gone: ' (its target answered 410 Gone)',
  failing: ' (every attempt failed for its auto-disable span)',
};

/** On stderr: a disabled webhook's deliveries stay held whatever pause and resume do. */
function sayDisabled(out: Output, webhook: WebhookInfo): void {
  if (webhook.enabled) return;
  const why = DISABLED_BECAUSE[webhook.disabled_reason ?? ''] ?? '';
  out.info(out.paintErr('yellow', terminalLine(`'${webhook.name}' is disabled${why}: its deliveries stay held until it is enabled again`)));
}

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

  withClientOptions(
    webhooks
      .command('pause')
      .description("Hold a webhook's deliveries (none is lost) until it is resumed")
      .argument('<webhook>', 'webhook name (any case, or the start of one name) or id'),
  ).action(async (nameOrId: string, flags: ClientFlags) => {
    const { api, out } = clientContext(io, flags);
    const webhook = await findWebhook(api, nameOrId, out);
    const paused = await api.pauseWebhook(webhook.id);
    if (out.json) {
      out.data(paused);
      return;
    }
    const name = terminalLine(webhook.name);
    if (webhook.paused) out.line(`'${name}' was already paused (since ${paused.paused_at ?? webhook.paused_at})`);
    else out.line(`paused '${name}': its deliveries are held until it is resumed`);
    sayDisabled(out, webhook);
    out.line(out.paint('dim', `resume: ${terminalLine(commandLine('webhooks', 'resume', webhook.name))}`));
  });

  withClientOptions(
    webhooks
      .command('resume')
      .description("Send again: release a paused webhook's held deliveries in publish order (and close its circuit breaker)")
      .argument('<webhook>', 'webhook name (any case, or the start of one name) or id'),
  ).action(async (nameOrId: string, flags: ClientFlags) => {
    const { api, out } = clientContext(io, flags);
    const webhook = await findWebhook(api, nameOrId, out);
    const resumed = await api.resumeWebhook(webhook.id);
    if (out.json) {
      out.data(resumed);
      return;
    }
    const name = terminalLine(webhook.name);
    const state = webhook.health?.state ?? 'closed';
    const held = webhook.health?.held ?? 0;
    if (webhook.paused) out.line(`resumed '${name}'`);
    else if (state !== 'closed') out.line(`closed the circuit breaker of '${name}' (it was ${state.replace('_', ' ')})`);
    else out.line(`'${name}' is not paused and its circuit breaker is closed: nothing to resume`);
    if (webhook.enabled && held > 0 && (webhook.paused || state !== 'closed')) {
      out.line(`${counted(held, 'held delivery', 'held deliveries')} released, in publish order`);
    }
    sayDisabled(out, webhook);
  });

  registerRecover(webhooks, io);
  registerRotateSecret(webhooks, io);
}
