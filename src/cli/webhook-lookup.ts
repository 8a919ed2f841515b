/**
 * Webhooks are named by people and addressed by id in the API: this finds the
 * one a command means, by its id (`wh_...`) or by its name, matched as
 * name-match.ts does (exactly, in any case, or the start of one name). An
 * unknown name suggests the nearest one (a typo: `order-snyc`) and lists the
 * names there are; a name two webhooks share asks for the id; a prefix of
 * several names lists them.
 */
import { closest } from '../did-you-mean.js';
import { CommandFailedError, UsageError } from './errors.js';
import { listNames, pickName } from './name-match.js';
import type { Output } from './output.js';
import type { ServerApi, WebhookInfo } from './server-api.js';
import { terminalLine } from './terminal-text.js';

export async function findWebhook(api: ServerApi, nameOrId: string, out?: Output): Promise<WebhookInfo> {
  const all = await api.listWebhooks();
  const byId = all.find((w) => w.id === nameOrId);
  if (byId) return byId;
  const name = pickName(nameOrId, [...new Set(all.map((w) => w.name))], 'webhook');
  const named = name === null ? [] : all.filter((w) => w.name === name);
  if (named.length === 1) {
    if (name !== nameOrId) out?.info(out.paintErr('dim', terminalLine(`(webhook '${name}')`)));
    return named[0];
  }
  if (named.length > 1) {
    throw new UsageError(`${named.length} webhooks are named '${name}': give the id instead (${named.map((w) => w.id).join(', ')})`);
  }
  const names = all.map((w) => w.name);
  const near = closest(nameOrId, [...new Set(names)]);
  throw new CommandFailedError(
    'webhook_not_found',
    `no webhook named '${nameOrId}' at ${api.url}` +
      (near !== null ? `; did you mean '${near}'?` : '') +
      (names.length ? ` (there are: ${listNames(names)})` : ' (there are none)'),
  );
}
