/**
 * `switchyard webhooks rotate-secret <webhook> [--overlap 24h] [--secret ...] [--ed25519]`
 * (POST /api/webhooks/{id}/rotate-secret): a new signing secret, given or
 * generated, with the replaced one still signing for the overlap so that
 * receivers can move to the new one without a rejected delivery. A generated
 * secret is printed once, alone on stdout (so `$(...)` takes just it); what
 * happened goes to stderr.
 */
import type { Command } from 'commander';
import { clientContext, withClientOptions, type CliIO, type ClientFlags } from './context.js';
import { UsageError } from './errors.js';
import type { RotateSecretInput } from './server-api.js';
import { terminalLine } from './terminal-text.js';
import { parseDuration } from './time-flag.js';
import { findWebhook } from './webhook-lookup.js';

/** The server's bound on an overlap (30 days), checked here so a typo is a usage error. */
const MAX_OVERLAP_S = 30 * 86_400;

function overlapFlag(value: string): number {
  const ms = parseDuration(value);
  if (ms === null || ms % 1000 !== 0 || ms / 1000 > MAX_OVERLAP_S) {
    throw new UsageError(`--overlap must be a duration of at most 30 days (0, 30m, 24h, 7d), got "${value}"`);
  }
  return ms / 1000;
}

interface RotateFlags extends ClientFlags {
  overlap?: number;
  secret?: string;
  ed25519?: boolean;
}

export function registerRotateSecret(webhooks: Command, io: CliIO): void {
  withClientOptions(
    webhooks
      .command('rotate-secret')
      .description('Give a webhook a new signing secret; the old one keeps signing beside it for the overlap (default 24h)')
      .argument('<webhook>', 'webhook name (any case, or the start of one name) or id')
      .option('--overlap <duration>', 'how long the old secret keeps signing: 0 (replace at once) to 30d', overlapFlag)
      .option('--secret <secret>', 'the new secret (whsec_... or whsk_...); default: one is generated and printed once')
      .option('--ed25519', 'generate an ed25519 key (v1a signatures; receivers verify with its public key)'),
  ).action(async (nameOrId: string, flags: RotateFlags) => {
    const { api, out } = clientContext(io, flags);
    if (flags.secret !== undefined && flags.ed25519) {
      throw new UsageError('--ed25519 generates a key: give either it or --secret (a whsk_ secret is ed25519 already)');
    }
    const webhook = await findWebhook(api, nameOrId, out);
    const body: RotateSecretInput = {};
    if (flags.secret !== undefined) body.secret = flags.secret;
    if (flags.ed25519) body.kind = 'ed25519';
    if (flags.overlap !== undefined) body.overlap_s = flags.overlap;
    const rotated = await api.rotateWebhookSecret(webhook.id, body);
    if (out.json) {
      out.data(rotated);
      return;
    }
    const name = terminalLine(webhook.name);
    const [current, ...older] = rotated.secrets;
    const until = older.map((s) => s.expires_at).filter((t): t is string => t !== null).sort().at(-1);
    const kind = current?.kind === 'ed25519' ? 'an ed25519 key (v1a)' : 'an HMAC secret (v1)';
    out.info(`rotated the secret of '${name}' to ${kind}`);
    out.info(
      older.length === 0
        ? 'only the new secret signs from now on'
        : `deliveries carry ${older.length + 1} signatures until ${until}: the new secret's and ${older.length === 1 ? 'the old one' : `${older.length} older ones`}`,
    );
    if (rotated.public_key) out.info(`public key for receivers: ${rotated.public_key}`);
    if (rotated.secret) {
      out.info(out.paintErr('yellow', 'the new secret, shown this once:'));
      out.line(rotated.secret);
    }
  });
}
