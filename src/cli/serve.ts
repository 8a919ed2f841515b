/**
 * `switchyard serve` (also what `switchyard` with no verb does): configuration
 * from env and flags through config.ts (its option table is also the help),
 * start the server, load the demo when asked. A start-up failure is one line
 * on stderr naming the cause and the fix (startup-failure.ts). Stop signals
 * are handled as stop-signals.ts says. With `--processes` above 1 this process is
 * the supervisor of src/cluster.ts instead, and each server process it forks
 * comes back here as a cluster worker (serveInCluster). The server itself
 * (server.ts and all it loads) is imported only by a process that serves: the
 * supervisor of several processes loads the cluster code alone, which halves
 * its idle memory (bench/README.md, idle memory of the primary).
 */
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { helpText, loadConfig, parseCommandLine, type Config } from '../config.js';
import { isClusterWorker, joinCluster, startCluster } from '../cluster.js';
import { ConfigError } from '../errors.js';
import { createLogger, flushLog } from '../logger.js';
import type { Listening, Service } from '../server.js';
import { describeStartupFailure } from '../startup-failure.js';
import { handleStopSignals, STOP_OVERRUN_MS } from '../stop-signals.js';

export const SERVE_USAGE = 'Usage: switchyard serve [options]   (the same as switchyard [options])';

/** Prints why the start failed (one line; the stack too at LOG_LEVEL=debug) and exits non-zero. */
function failStart(err: unknown, config: Config): never {
  const { line, known } = describeStartupFailure(err, config);
  const debug = config.logLevel === 'debug' || config.logLevel === 'trace';
  const hint = known || debug ? '' : ' (run with LOG_LEVEL=debug for the stack)';
  process.stderr.write(`switchyard: ${line}${hint}\n`);
  if (debug && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  process.exit(err instanceof ConfigError ? 2 : 1);
}

/** `switchyard [serve] [options]`: `argv` is what follows the verb (or everything, when none was given). */
export async function serve(argv: string[], io: { env: NodeJS.ProcessEnv; version: string }): Promise<void> {
  let config: Config;
  try {
    const command = parseCommandLine(argv);
    if (command.help) {
      process.stdout.write(helpText(SERVE_USAGE));
      return;
    }
    if (command.version) {
      process.stdout.write(`switchyard ${io.version}\n`);
      return;
    }
    config = loadConfig(io.env, argv, process.stdout.isTTY === true);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`switchyard: ${err.message}\n`);
    process.exit(2);
  }
  const log = createLogger(config);
  if (isClusterWorker()) return serveInCluster(config, log);
  if (config.processesNote) log.warn(config.processesNote);
  if (config.originNote) log.warn(config.originNote);
  let service: { url: string; adminUrl: string; metricsUrl: string | null; close(): Promise<void> };
  let stopping: () => boolean;
  if (config.processes > 1) {
    try {
      service = await startCluster(config, log);
    } catch (err) {
      // The server process already wrote why on stderr.
      process.exit((err as { exitCode?: number }).exitCode ?? 1);
    }
    stopping = (service as Awaited<ReturnType<typeof startCluster>>).stopping;
    log.info(
      { url: service.url, ...adminField(service), processes: config.processes, isolates: config.isolates, ...(config.isolates === 'workers' ? { workersPerProcess: config.workers } : {}) },
      `listening on ${service.url}${adminPart(service)} with ${config.processes} server processes`,
    );
    // Whoever started the node waits for this line: not for the log's flush timer.
    flushLog();
  } else {
    let single: Service & Listening;
    try {
      const { startServer } = await import('../server.js');
      single = await startServer(config, log);
    } catch (err) {
      failStart(err, config);
    }
    service = single;
    // Before the line that says it is up: whoever reads it may signal at once.
    stopping = handleStopSignals({
      graceMs: config.drainDelayMs + config.shutdownGraceMs,
      log,
      stop: () => single.close().then(() => true),
    });
    log.info(
      { url: single.url, ...adminField(single), store: single.store.kind, processes: 1 },
      `listening on ${single.url}${adminPart(single)} with 1 server process`,
    );
    flushLog();
  }
  if (config.demo) {
    log.warn(
      'demo mode: private targets are ALLOWED (webhooks and fetch may reach loopback and private addresses) so the demo webhook can call this gateway; the default is deny',
    );
  }

  if (config.demo) {
    const { loadDemo } = await import('../demo.js');
    let demo;
    try {
      demo = await loadDemo({
        baseUrl: service.adminUrl,
        adminKey: config.adminKey,
        examplesDir: fileURLToPath(new URL('../../examples/', import.meta.url)),
        log,
      });
    } catch (err) {
      // Stopped while loading: the signal handler exits once the server is closed.
      if (stopping()) return;
      await service.close().catch(() => undefined);
      failStart(err, config);
    }
    const lines = [`\nSwitchyard is running at ${service.url} with the demo loaded. Try:`];
    // The Lambda API has no route at its base path: point at one that answers.
    const lambda = demo.apis.find((a) => a.name === 'Lambda API');
    for (const api of demo.apis) lines.push(`  ${api.name}: curl ${api === lambda ? `${api.invokeUrl}/hello` : api.invokeUrl}`);
    if (lambda) {
      lines.push(
        `  curl ${lambda.invokeUrl}/greet/Ada`,
        `  curl -X POST ${lambda.invokeUrl}/notes -H 'content-type: application/json' -d '{"text":"buy milk"}'`,
      );
    }
    const users = demo.apis.find((a) => a.name === 'Users API');
    if (users) {
      lines.push(
        `  curl -X POST ${users.invokeUrl} -H 'content-type: application/json' -d '{"name":"Ada","email":"ada@example.com"}'`,
        `  curl ${users.invokeUrl}/42`,
        `  curl -X POST ${users.invokeUrl}/webhooks/receive -H 'x-webhook-secret: demo-secret' -H 'content-type: application/json' -d '{"event":"order.created","data":{"id":1}}'`,
      );
    }
    for (const webhook of demo.webhooks) {
      lines.push(
        `  Webhook "${webhook.name}" fires on cron "${webhook.cron}"; its history: curl ${service.adminUrl}/api/webhooks/${webhook.id}/deliveries`,
      );
    }
    const metricsUrl = service.metricsUrl ?? (config.metricsListener === 'admin' ? service.adminUrl : service.url);
    lines.push(`  Management API: ${service.adminUrl}/api/apis  ·  OpenAPI: ${service.adminUrl}/api/openapi.json  ·  Metrics: ${metricsUrl}/metrics\n`);
    process.stdout.write(lines.join('\n') + '\n');
  }
}

/** The start-up line's admin listener, when it has its own. */
function adminField(at: { url: string; adminUrl: string; metricsUrl: string | null }): { adminUrl?: string; metricsUrl?: string } {
  return { ...(at.adminUrl === at.url ? {} : { adminUrl: at.adminUrl }), ...(at.metricsUrl === null ? {} : { metricsUrl: at.metricsUrl }) };
}

function adminPart(at: { url: string; adminUrl: string; metricsUrl: string | null }): string {
  return (at.adminUrl === at.url ? '' : ` (dashboard and management API on ${at.adminUrl})`) + (at.metricsUrl === null ? '' : ` (metrics on ${at.metricsUrl}/metrics)`);
}

/**
 * One of the server processes of src/cluster.ts: a full node whose stop comes
 * from the primary. Its start-up line is not "listening on" (the primary says
 * that once all listen).
 */
async function serveInCluster(config: Config, log: Logger): Promise<void> {
  let service: Service & Listening;
  try {
    const { startServer } = await import('../server.js');
    service = await startServer(config, log);
  } catch (err) {
    failStart(err, config);
  }
  const member = joinCluster(service, () => {
    setTimeout(() => {
      process.stderr.write(`switchyard: process ${process.pid} could not stop within the grace period of ${config.shutdownGraceMs} ms; exiting now\n`);
      process.exit(1);
    }, config.shutdownGraceMs + STOP_OVERRUN_MS).unref();
    service.close().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  }, () => service.metrics.json());
  service.metrics.answerWith(() => member.metrics());
  log.info({ url: service.url, store: service.store.kind }, `server process ${process.pid} ready`);
  flushLog();
}


