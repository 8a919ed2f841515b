#!/usr/bin/env node
/**
 * Entry point: configuration from env and flags, start the server, load the
 * demo when asked, stop gracefully on SIGTERM/SIGINT.
 */
import { fileURLToPath } from 'node:url';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';
import { createLogger, startServer } from './server.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env, process.argv.slice(2));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`switchyard: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config);
  let service;
  try {
    service = await startServer(config, log);
  } catch (err) {
    if (err instanceof ConfigError) {
      log.fatal(err.message);
      process.exit(2);
    }
    log.fatal({ err }, 'could not start');
    process.exit(1);
  }
  log.info({ url: service.url, store: service.store.kind }, `listening on ${service.url}`);
  if (config.demo) {
    log.warn(
      'demo mode: private targets are ALLOWED (webhooks and fetch may reach loopback and private addresses) so the demo webhook can call this gateway; the default is deny',
    );
  }

  if (config.demo) {
    const { loadDemo } = await import('./demo.js');
    let demo;
    try {
      demo = await loadDemo({
        baseUrl: service.url,
        adminKey: config.adminKey,
        examplesDir: fileURLToPath(new URL('../examples/', import.meta.url)),
        log,
      });
    } catch (err) {
      // The demo loads through the listening server: stop it, then fail like any other start-up failure.
      await service.close().catch(() => undefined);
      process.stderr.write(`switchyard: ${(err as Error).message}\n`);
      process.exit(err instanceof ConfigError ? 2 : 1);
    }
    const lines = [`\nSwitchyard is running at ${service.url} with the demo loaded. Try:`];
    for (const api of demo.apis) lines.push(`  ${api.name}: curl ${api.invokeUrl}`);
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
        `  Webhook "${webhook.name}" fires on cron "${webhook.cron}"; its history: curl ${service.url}/api/webhooks/${webhook.id}/deliveries`,
      );
    }
    lines.push(`  Management API: ${service.url}/api/apis  ·  OpenAPI: ${service.url}/api/openapi.json  ·  Metrics: ${service.url}/metrics\n`);
    process.stdout.write(lines.join('\n') + '\n');
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    service.close().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err) => {
        log.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

void main();
