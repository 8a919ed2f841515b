/**
 * Webhooks are named by people and addressed by id in the API: this finds the
 * one a command means, by its exact name or by its id (`wh_...`). An unknown
 * name lists the names there are; a name two webhooks share asks for the id.
 */
import { CommandFailedError, UsageError } from './errors.js';
import type { ServerApi, WebhookInfo } from './server-api.js';

export async function findWebhook(api: ServerApi, nameOrId: string): Promise<WebhookInfo> {
  const all = await api.listWebhooks();
  const byId = all.find((w) => w.id === nameOrId);
  if (byId) return byId;
  const named = all.filter((w) => w.name === nameOrId);
  if (named.length === 1) return named[0];
  if (named.length > 1) {
    throw new UsageError(`${named.length} webhooks are named '${nameOrId}': give the id instead (${named.map((w) => w.id).join(', ')})`);
  }
  const names = all.map((w) => `'${w.name}'`);
  throw new CommandFailedError(
    'webhook_not_found',
    `no webhook named '${nameOrId}' at ${api.url}` + (names.length ? ` (there are: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', ...' : ''})` : ' (there are none)'),
  );
}
