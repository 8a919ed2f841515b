/**
 * `switchyard dev [dir]`: the local loop. Starts a gateway on an embedded
 * SQLite file inside the project (`.switchyard/dev.db`, or uses `--url`),
 * applies the project, prints the invoke URLs, then watches the folder and
 * re-applies what changed after each save (the plan decides what: an edited
 * function file is one update), and streams every function's console lines
 * and every invocation until Ctrl-C.
 *
 * What you remove from the file while dev runs is deleted on the server; what
 * the file never named (a function deployed with curl beside it) is left
 * alone unless `--prune`, which makes the server equal to the file. Private
 * targets are allowed on the dev server (webhooks to your own routes or a
 * local receiver), as in the demo.
 *
 * As apply does, it reads only the environment variables the project allows
 * (`env_from`, `--env-from`) and says which, and only files in the project
 * folder (or `--allow-outside` folders). Function console lines are printed
 * through terminal-text.ts: a function cannot drive the terminal.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { loadConfig, type Config } from '../config.js';
import { createLogger } from '../logger.js';
import type { Listening, Service } from '../server.js';
import { describeStartupFailure } from '../startup-failure.js';
import { projectFile } from './apply.js';
import { outputFor, type CliIO, type ClientFlags } from './context.js';
import { acquireDevLock, type DevLock } from './dev-lock.js';
import { watchProject } from './dev-watch.js';
import { CliError, CommandFailedError } from './errors.js';
import type { Output } from './output.js';
import type { Plan, PlanChange, Project } from '../project/index.js';
import { asCliError, InvalidProjectError, projectContext, type ProjectContext } from './project-context.js';
import { describeChange, envReadLine, runProject, shownPath, type ApiDefaults } from './project-run.js';
import { allowedFolders, withAllowOutsideOption, withEnvFromOption } from './project-flags.js';
import { createServerApi, type FunctionStreamEvent } from './server-api.js';
import { terminalLine } from './terminal-text.js';
import { createCallOrder, type CallOrder } from './call-order.js';

interface DevFlags extends ClientFlags {
  port?: string;
  host?: string;
  adminAddress?: string;
  databaseUrl?: string;
  prune?: boolean;
  envFrom?: string[];
  allowOutside?: string[];
}

/** What one apply needs besides the server: the project file and the operator's widening flags. */
interface DevProject {
  file: string;
  prune: boolean;
  envFrom: string[];
  allowOutside: string[];
}

export function registerDev(program: Command, io: CliIO): void {
  const command = program
    .command('dev')
    .description('Run a local server for a project folder, re-apply it on every save and stream its logs')
    .argument('[dir]', 'the project folder (holding switchyard.yaml), or the project file', '.')
    .option('--port <port>', 'port of the dev server (0 picks a free one) [PORT] (default: 3000)')
    .option('--host <host>', 'interface of the dev server [HOST] (default: 127.0.0.1)')
    .option('--admin-address <address>', 'serve the dashboard and management API on their own listener: <port> or <host>:<port> [SWITCHYARD_ADMIN_ADDRESS]')
    .option('--database-url <url>', 'the dev server\'s database (default: sqlite:<dir>/.switchyard/dev.db)')
    .option('--url <url>', 'use the running server at this URL instead of starting one')
    .option('--admin-key <key>', 'the admin key (of --url, or set on the dev server) [SWITCHYARD_ADMIN_KEY]')
    .option('--prune', 'also delete what the file does not name (else only what you remove from it while dev runs)')
    .option('--no-color', 'no colours (also NO_COLOR=1)');
  withAllowOutsideOption(withEnvFromOption(command)).action(async (dir: string, flags: DevFlags) => {
    const out = outputFor(io, flags);
    const file = await projectFile(io.cwd, dir);
    const root = dirname(file);
    const project: DevProject = {
      file,
      prune: flags.prune === true,
      envFrom: flags.envFrom ?? [],
      allowOutside: await allowedFolders(io.cwd, flags.allowOutside),
    };
    const own = flags.url === undefined;
    const adminKey = flags.adminKey ?? (io.env.SWITCHYARD_ADMIN_KEY || null);
    let service: (Service & Listening) | null = null;
    if (own) service = await startDevServer(io, flags, root, adminKey, out);
    // The project is applied and its logs followed through the management API.
    const url = service ? service.adminUrl : flags.url!;
    const ctx = projectContext(io, { ...flags, url, adminKey: adminKey ?? undefined });

    const stop = new AbortController();
    // Each call printed after its own console lines (call-order.ts); Ctrl-C waits for the lines still on their way.
    const order = createCallOrder({ print: (event) => printDevEvent(out, event) });
    const stopped = waitForStop(stop, out, () => order.settle());
    const streaming = streamLogs(ctx, stop.signal, order, out);

    const session: DevSession = { previous: null, envRead: null };
    await applyOnce(ctx, project, io, session, out);
    const watcher = await watchProject({
      root,
      onChange: () => applyOnce(ctx, project, io, session, out),
      onError: (err) => out.info(out.paintErr('yellow', `watching: ${err.message}`)),
    });
    out.info(out.paintErr('dim', `Watching ${shownPath(io.cwd, root)} for changes. Ctrl-C stops.`));

    await stopped;
    await watcher.close();
    await streaming.catch(() => undefined);
    order.flush();
    if (service) await service.close();
    // A dev server leaves nothing to finish: end now rather than wait for idle sockets.
    process.exit(0);
  });
}

async function startDevServer(io: CliIO, flags: DevFlags, root: string, adminKey: string | null, out: Output): Promise<Service & Listening> {
  const folder = join(root, '.switchyard');
  const databaseUrl = flags.databaseUrl ?? `sqlite:${join(folder, 'dev.db')}`;
  if (databaseUrl.startsWith('sqlite:') && !databaseUrl.includes(':memory:')) {
    await mkdir(dirname(databaseUrl.slice('sqlite:'.length)), { recursive: true });
  }
  // The folder's own database is one dev server's: a second one is refused, naming the first.
  let lock: DevLock | null = null;
  if (flags.databaseUrl === undefined) {
    lock = acquireDevLock({ folder, pid: process.pid, shownRoot: shownPath(io.cwd, root) });
    process.once('exit', lock.release);
  }
  // PORT and HOST are read as serve reads them; the flags win.
  const env: Record<string, string | undefined> = {
    ...io.env,
    ...(flags.port !== undefined && { PORT: flags.port }),
    ...(flags.host !== undefined && { HOST: flags.host }),
    DATABASE_URL: databaseUrl,
    SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1',
    // The dev loop runs the server in its own process: one, however many cores.
    SWITCHYARD_PROCESSES: '1',
    // The dev loop prints what matters itself; the server speaks up only for problems.
    LOG_LEVEL: io.env.LOG_LEVEL ?? 'warn',
    LOG_FORMAT: io.env.LOG_FORMAT ?? 'pretty',
    // It streams the functions' lines itself (`logs -f`); the server's copy would print them twice.
    SWITCHYARD_FUNCTION_LOGS_STDOUT: '0',
  };
  if (adminKey) env.SWITCHYARD_ADMIN_KEY = adminKey;
  if (flags.adminAddress !== undefined) env.SWITCHYARD_ADMIN_ADDRESS = flags.adminAddress;
  let config: Config;
  try {
    config = loadConfig(env, [], process.stdout.isTTY === true);
  } catch (err) {
    throw new CommandFailedError('invalid_config', (err as Error).message);
  }
  try {
    // Imported here: every other verb of the CLI runs without loading the server.
    const { startServer } = await import('../server.js');
    const service = await startServer(config, createLogger(config));
    lock?.setUrl(service.url);
    out.info(`Switchyard dev server at ${out.paintErr('bold', service.url)} (database ${databaseUrl}; private targets allowed)`);
    out.info(`Dashboard: ${service.adminUrl}/`);
    if (config.originNote) out.info(out.paintErr('yellow', `warning: ${config.originNote}`));
    if (!adminKey) {
      // Said once at start: a browser on another name (a tunnel, a LAN address) is refused, and this says why.
      out.info(
        out.paintErr(
          'dim',
          'No admin key: the API and dashboard answer only under loopback names (localhost, 127.0.0.1, [::1]) and only to this server\'s own pages; other sites are refused. Set SWITCHYARD_ADMIN_KEY to serve other names.',
        ),
      );
    }
    return service;
  } catch (err) {
    throw new CommandFailedError('start_failed', describeStartupFailure(err, config).line);
  }
}

/** Resolves on the first Ctrl-C (or SIGTERM), once `settle` has let the last lines arrive; a second one exits at once. */
function waitForStop(stop: AbortController, out: Output, settle: () => Promise<void>): Promise<void> {
  let stopping = false;
  return new Promise((resolve) => {
    const onSignal = () => {
      if (stopping) process.exit(130);
      stopping = true;
      out.info('Stopping the dev server...');
      void settle().then(() => {
        stop.abort();
        resolve();
      });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** `kind name` (routes: `route api METHOD path`) of everything a project names. */
function namedIn(project: Project): Set<string> {
  const keys = new Set<string>();
  for (const f of project.functions) keys.add(`function ${f.name}`);
  for (const w of project.webhooks) keys.add(`webhook ${w.name}`);
  for (const a of project.applications ?? []) keys.add(`application ${a.name}`);
  for (const a of project.apis) {
    keys.add(`api ${a.name}`);
    for (const r of a.routes) keys.add(`route ${a.name} ${r.method} ${r.path}`);
  }
  return keys;
}

const keyOf = (c: PlanChange) => (c.kind === 'route' ? `route ${c.api} ${c.name}` : `${c.kind} ${c.name}`);

/** What dev turns on for every API whose file leaves it out (an explicit `expose_errors: false` stays). */
const DEV_API_DEFAULTS: ApiDefaults = { expose_errors: true };

interface DevSession {
  /** The project as last applied; null before the first apply. */
  previous: Project | null;
  /** The variables the last loaded file read, to say so again only when they change. */
  envRead: string | null;
}

/**
 * Applies the project; on a problem prints it and keeps the server as it was,
 * waiting for the next save. Without --prune the plan is pruned, then only
 * the deletions of what the last applied version named are kept.
 */
async function applyOnce(ctx: ProjectContext, project: DevProject, io: CliIO, session: DevSession, out: Output): Promise<void> {
  const { file, prune } = project;
  const first = session.previous === null;
  const started = Date.now();
  const select = (plan: Plan): Plan => {
    if (prune) return plan;
    const before = session.previous ? namedIn(session.previous) : new Set<string>();
    // A webhook that goes with a pruned application is deleted only with it (apply sends no call of its own).
    const kept = (c: PlanChange) => before.has(c.application !== undefined ? `application ${c.application}` : keyOf(c));
    return { ...plan, changes: plan.changes.filter((c) => c.action !== 'delete' || kept(c)) };
  };
  try {
    const run = await runProject({
      file,
      env: io.env,
      envFrom: project.envFrom,
      allowOutside: project.allowOutside,
      api: ctx.api,
      prune: true,
      dryRun: false,
      // The developer is the caller here: a failing function's message and position are shown (docs/cli.md, "switchyard dev").
      apiDefaults: DEV_API_DEFAULTS,
      select,
      onPlan: (_plan, envRead) => {
        // Said before the first apply that reads any, and again whenever a save changes them.
        const key = envRead.join(',');
        const before = session.envRead;
        session.envRead = key;
        if (key === before || (before === null && key === '')) return;
        out.info(envReadLine(envRead) ?? 'Reads no environment variables now.');
      },
    });
    session.previous = run.plan.desired;
    const ms = Date.now() - started;
    if (first || run.applied.length > 0) {
      if (first) out.info(`  ${summarize(run.applied)}`);
      else for (const change of run.applied) out.info(`  ${describeChange(change)}`);
      out.info(first ? `Applied ${shownPath(io.cwd, file)} in ${ms} ms.` : out.paintErr('green', `Reloaded in ${ms} ms.`));
    }
    if (first || run.applied.some((c) => c.kind === 'api' || c.kind === 'route')) await printInvokeUrls(ctx, run.plan.desired.apis.map((a) => a.name), out);
  } catch (err) {
    const cli = asCliError(err, ctx);
    if (cli instanceof InvalidProjectError) {
      out.info(out.paintErr('red', cli.message.replace('nothing was applied', 'the server keeps the last good version; fix and save')));
      return;
    }
    if (first || !(cli instanceof CliError)) throw cli;
    out.info(out.paintErr('red', `apply failed: ${cli.message}`));
  }
}

/** The first apply of a whole project is a long list: counted instead (`created 3 functions, 1 api, 2 routes`). */
function summarize(changes: PlanChange[]): string {
  if (changes.length === 0) return 'the server already matches the project';
  const plural = { application: 'applications', function: 'functions', api: 'APIs', route: 'routes', webhook: 'webhooks' } as const;
  const parts: string[] = [];
  for (const action of ['create', 'update', 'delete'] as const) {
    const kinds = (['application', 'function', 'api', 'route', 'webhook'] as const)
      .map((kind) => [kind, changes.filter((c) => c.action === action && c.kind === kind).length] as const)
      .filter(([, n]) => n > 0)
      .map(([kind, n]) => `${n} ${n === 1 ? (kind === 'api' ? 'API' : kind) : plural[kind]}`);
    if (kinds.length) parts.push(`${{ create: 'created', update: 'updated', delete: 'deleted' }[action]} ${kinds.join(', ')}`);
  }
  return parts.join('; ');
}

async function printInvokeUrls(ctx: ProjectContext, names: string[], out: Output): Promise<void> {
  const apis = await ctx.api.listApis();
  const lines: string[] = [];
  for (const api of apis.filter((a) => names.includes(a.name))) {
    const base = (api as { invokeUrl?: string }).invokeUrl ?? `${ctx.url}/api/invoke/fn/${api.id}${api.basePath === '/' ? '' : api.basePath}`;
    for (const route of api.routes) lines.push(`  ${route.method.padEnd(7)} ${base}${route.path === '/' ? '/' : route.path}  -> ${route.function}`);
  }
  if (lines.length) out.info(`Routes:\n${lines.join('\n')}`);
}

/** One event of the log stream as dev prints it: `time function level message`, or `time METHOD path status ms (function)`. */
function printDevEvent(out: Output, event: FunctionStreamEvent): void {
  const time = (ts: unknown) => out.paintErr('dim', typeof ts === 'string' ? ts.slice(11, 23) : '');
  if (event.type === 'log') {
    const l = event.line;
    const level = l.level === 'error' ? out.paintErr('red', ' error') : l.level === 'warn' ? out.paintErr('yellow', ' warn') : '';
    const head = `${time(l.ts ?? l.time)} ${out.paintErr('cyan', terminalLine(l.function ?? ''))}${level} `;
    out.info(head + terminalLine(l.message));
  } else {
    const i = event.invocation as { ts?: string; method?: string; path?: string; status?: number; duration_ms?: number; function?: string };
    const status = (i.status ?? 0) >= 400 ? out.paintErr('red', String(i.status)) : out.paintErr('green', String(i.status));
    const what = terminalLine(`${i.method ?? 'INVOKE'} ${i.path ?? ''}`);
    out.info(`${time(i.ts)} ${what} ${status} ${Math.round(i.duration_ms ?? 0)} ms ${out.paintErr('dim', `(${terminalLine(String(i.function))})`)}`);
  }
}

/** Every function's console lines and every invocation, as they happen, through `order`. */
async function streamLogs(ctx: ProjectContext, signal: AbortSignal, order: CallOrder, out: Output): Promise<void> {
  const api = createServerApi({ url: ctx.url, adminKey: ctx.adminKey });
  try {
    await api.followAllLogs({
      signal,
      onEvent: (event) => order.push(event),
      onReconnect: (reason) => out.info(out.paintErr('dim', `log stream dropped (${reason}); reconnecting`)),
    });
  } catch (err) {
    if (!signal.aborted) out.info(`log stream: ${(err as Error).message}`);
  }
}
