/**
 * `switchyard applications list|create|get|update|delete` (applications, one
 * per customer: docs/applications.md) and `switchyard portal <application>` (a
 * portal token and link for its customer, printed once). An application is
 * named by its id, its uid, or its name (matched as name-match.ts does).
 */
import type { Command } from 'commander';
import { closest } from '../did-you-mean.js';
import { clientContext, withClientOptions, type CliIO, type ClientFlags } from './context.js';
import { CommandFailedError, UsageError } from './errors.js';
import { listNames, pickName } from './name-match.js';
import type { Output } from './output.js';
import type { ApplicationFields, ApplicationInfo, ServerApi, WebhookInfo } from './server-api.js';
import { terminalLine } from './terminal-text.js';

interface FieldFlags extends ClientFlags {
  name?: string;
  uid?: string;
  metadata?: string;
  maxEndpoints?: string;
  eventsPerSecond?: string;
  retentionDays?: string;
}

interface DeleteFlags extends ClientFlags {
  yes?: boolean;
}

interface PortalFlags extends ClientFlags {
  ttl?: string;
}

/** The application a command means: by id, by uid, else by name; an unknown one suggests the nearest. */
export async function findApplication(api: ServerApi, given: string, out?: Output): Promise<ApplicationInfo> {
  const all = await api.listApplications();
  const exact = all.find((a) => a.id === given || a.uid === given);
  if (exact) return exact;
  const name = pickName(given, [...new Set(all.map((a) => a.name))], 'application');
  const named = name === null ? [] : all.filter((a) => a.name === name);
  if (named.length === 1) {
    if (name !== given) out?.info(out.paintErr('dim', terminalLine(`(application '${name}')`)));
    return named[0];
  }
  if (named.length > 1) throw new UsageError(`${named.length} applications are named '${name}': give the id or uid instead (${named.map((a) => a.id).join(', ')})`);
  const known = [...new Set(all.flatMap((a) => (a.uid === null ? [a.name] : [a.uid, a.name])))];
  const near = closest(given, known);
  throw new CommandFailedError(
    'application_not_found',
    `no application '${given}' at ${api.url}` + (near !== null ? `; did you mean '${near}'?` : '') + (all.length ? ` (there are: ${listNames(all.map((a) => a.name))})` : ' (there are none)'),
  );
}

/** A limit flag: a whole (or, for events per second, any positive) number, or `none` to remove it. */
function limitOf(flag: string, value: string | undefined, whole: boolean): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || (whole && !Number.isInteger(n))) {
    throw new UsageError(`${flag} must be ${whole ? 'a whole number' : 'a number'} of 0 or more, or 'none', not '${value}'`);
  }
  return n;
}

function fieldsOf(flags: FieldFlags): ApplicationFields {
  const fields: ApplicationFields = {};
  if (flags.name !== undefined) fields.name = flags.name;
  if (flags.uid !== undefined) fields.uid = flags.uid === '' ? null : flags.uid;
  if (flags.metadata !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(flags.metadata);
    } catch {
      throw new UsageError(`--metadata must be a JSON object, not '${flags.metadata}'`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`--metadata must be a JSON object, not '${flags.metadata}'`);
    fields.metadata = parsed as Record<string, unknown>;
  }
  const limits = {
    max_endpoints: limitOf('--max-endpoints', flags.maxEndpoints, true),
    events_per_second: limitOf('--events-per-second', flags.eventsPerSecond, false),
    retention_days: limitOf('--retention-days', flags.retentionDays, true),
  };
  const given = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
  if (Object.keys(given).length > 0) fields.limits = given;
  return fields;
}

function withFieldOptions(command: Command): Command {
  return command
    .option('--uid <uid>', "your own id for the customer (usable wherever the id is; '' removes it)")
    .option('--metadata <json>', 'a JSON object kept with it (replaces the one it has)')
    .option('--max-endpoints <n>', "webhooks it may own at most ('none': no limit)")
    .option('--events-per-second <n>', "events published to it per second, for the cluster ('none': no limit)")
    .option('--retention-days <n>', "days its finished deliveries are kept ('none': the server's)");
}

/** A webhook's health in a word or two: why it does not send, else its last outcome. */
function healthText(w: WebhookInfo): string {
  if (!w.enabled) return 'disabled';
  if (w.paused) return 'paused';
  const h = w.health;
  if (!h) return '';
  if (h.state !== 'closed') return `breaker ${h.state.replace('_', '-')}`;
  if (h.last_outcome === 'failed') return `failing (${h.failures_in_a_row} in a row)`;
  return h.last_outcome ?? 'no deliveries yet';
}

const limitText = (n: number | null) => (n === null ? '' : String(n));

function printApplication(out: Output, a: ApplicationInfo): void {
  const rows: Array<[string, string]> = [
    ['id', a.id],
    ['uid', a.uid === null ? '' : terminalLine(a.uid)],
    ['name', terminalLine(a.name)],
    // The project whose `switchyard apply` owns it: what `apply --prune` may delete.
    ['project', a.project === null ? '' : terminalLine(a.project)],
    ['metadata', terminalLine(JSON.stringify(a.metadata))],
    ['max endpoints', limitText(a.limits.max_endpoints)],
    ['events per second', limitText(a.limits.events_per_second)],
    ['retention days', limitText(a.limits.retention_days)],
    ['created', a.created_at],
  ];
  for (const [k, v] of rows) out.line(`${out.paint('dim', k.padEnd(18))}${v}`);
}

export function registerApplications(program: Command, io: CliIO): void {
  const apps = program.command('applications').description('Applications: one per customer, whose webhooks receive only the events published to it');
  withClientOptions(apps.command('list').description('List the applications')).action(async (flags: ClientFlags) => {
    const { api, out } = clientContext(io, flags);
    const list = await api.listApplications();
    if (out.json) {
      out.data(list);
      return;
    }
    if (list.length === 0) {
      out.info('no applications (create one with `switchyard applications create <name>`)');
      return;
    }
    out.table(
      ['ID', 'UID', 'NAME', 'PROJECT', 'MAX ENDPOINTS'],
      list.map((a) => [
        a.id,
        a.uid === null ? '' : terminalLine(a.uid),
        terminalLine(a.name),
        a.project === null ? '' : terminalLine(a.project),
        limitText(a.limits.max_endpoints),
      ]),
    );
  });
  withClientOptions(withFieldOptions(apps.command('create').description('Create an application (prints its id)').argument('<name>', 'its name'))).action(
    async (name: string, flags: FieldFlags) => {
      const { api, out } = clientContext(io, flags);
      const app = await api.createApplication({ ...fieldsOf(flags), name });
      if (out.json) out.data(app);
      else out.line(app.id);
    },
  );
  withClientOptions(
    apps.command('get').description('Show an application and the webhooks it owns').argument('<application>', 'its id, uid or name'),
  ).action(async (given: string, flags: ClientFlags) => {
    const { api, out } = clientContext(io, flags);
    const app = await findApplication(api, given, out);
    const owned = await api.listWebhooks(app.id);
    if (out.json) {
      out.data({ ...app, webhooks: owned.map((w) => ({ id: w.id, name: w.name, target_url: w.target_url, enabled: w.enabled, health: w.health ?? null })) });
      return;
    }
    printApplication(out, app);
    out.line();
    if (owned.length === 0) out.info('it owns no webhooks');
    else out.table(['WEBHOOK', 'NAME', 'TARGET', 'HEALTH'], owned.map((w) => [w.id, terminalLine(w.name), terminalLine(w.target_url), healthText(w)]));
  });
  withClientOptions(
    withFieldOptions(apps.command('update').description('Change an application (only the fields given)').argument('<application>', 'its id, uid or name')).option(
      '--name <name>',
      'a new name',
    ),
  ).action(async (given: string, flags: FieldFlags) => {
    const fields = fieldsOf(flags);
    if (Object.keys(fields).length === 0) throw new UsageError('nothing to change: give --name, --uid, --metadata or a limit (see --help)');
    const { api, out } = clientContext(io, flags);
    const app = await api.updateApplication((await findApplication(api, given, out)).id, fields);
    if (out.json) out.data(app);
    else printApplication(out, app);
  });
  withClientOptions(
    apps
      .command('delete')
      .description('Delete an application, with its webhooks, their deliveries and its portal tokens')
      .argument('<application>', 'its id, uid or name')
      .option('--yes', 'delete without asking (required: its webhooks and their deliveries go with it)'),
  ).action(async (given: string, flags: DeleteFlags) => {
    const { api, out } = clientContext(io, flags);
    const app = await findApplication(api, given, out);
    if (!flags.yes) throw new UsageError(`deleting '${app.name}' (${app.id}) deletes its webhooks and their deliveries too: pass --yes to go ahead`);
    await api.deleteApplication(app.id);
    if (out.json) out.data({ deleted: app.id });
    else out.info(`deleted ${app.id}`);
  });
  withClientOptions(
    program
      .command('portal')
      .description("A portal link and token for an application's customer (shown once; the token opens only the consumer API)")
      .argument('<application>', 'the application, by id, uid or name')
      .option('--ttl <seconds>', "the token's first life (default the server's, 900)"),
  ).action(async (given: string, flags: PortalFlags) => {
    const ttl = flags.ttl === undefined ? undefined : Number(flags.ttl);
    if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 60 || ttl > 86_400)) throw new UsageError(`--ttl must be whole seconds from 60 to 86400, not '${flags.ttl}'`);
    const { api, out } = clientContext(io, flags);
    const access = await api.createPortalAccess((await findApplication(api, given, out)).id, ttl);
    if (out.json) {
      out.data(access);
      return;
    }
    out.line(access.url);
    out.info(out.paintErr('dim', `token expires ${access.expires_at} unless refreshed (at the latest ${access.max_expires_at})`));
  });
}
