/**
 * `switchyard applications list|create` (applications, one per customer:
 * docs/applications.md) and `switchyard portal <application>` (a portal token
 * and link for its customer, printed once).
 */
import type { Command } from 'commander';
import { clientContext, withClientOptions, type CliIO, type ClientFlags } from './context.js';
import { UsageError } from './errors.js';
import { terminalLine } from './terminal-text.js';

interface CreateFlags extends ClientFlags {
  uid?: string;
}

interface PortalFlags extends ClientFlags {
  ttl?: string;
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
      ['ID', 'UID', 'NAME', 'MAX ENDPOINTS'],
      list.map((a) => [a.id, a.uid === null ? '' : terminalLine(a.uid), terminalLine(a.name), a.limits.max_endpoints === null ? '' : String(a.limits.max_endpoints)]),
    );
  });
  withClientOptions(
    apps
      .command('create')
      .description('Create an application')
      .argument('<name>', 'its name')
      .option('--uid <uid>', 'your own id for the customer (usable wherever the id is)'),
  ).action(async (name: string, flags: CreateFlags) => {
    const { api, out } = clientContext(io, flags);
    const app = await api.createApplication({ name, ...(flags.uid === undefined ? {} : { uid: flags.uid }) });
    if (out.json) out.data(app);
    else out.line(app.id);
  });
  withClientOptions(
    program
      .command('portal')
      .description("A portal link and token for an application's customer (shown once; the token opens only the consumer API)")
      .argument('<application>', 'the application, by id or uid')
      .option('--ttl <seconds>', "the token's first life (default the server's, 900)"),
  ).action(async (application: string, flags: PortalFlags) => {
    const ttl = flags.ttl === undefined ? undefined : Number(flags.ttl);
    if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 60 || ttl > 86_400)) throw new UsageError(`--ttl must be whole seconds from 60 to 86400, not '${flags.ttl}'`);
    const { api, out } = clientContext(io, flags);
    const access = await api.createPortalAccess(application, ttl);
    if (out.json) {
      out.data(access);
      return;
    }
    out.line(access.url);
    out.info(out.paintErr('dim', `token expires ${access.expires_at} unless refreshed (at the latest ${access.max_expires_at})`));
  });
}
