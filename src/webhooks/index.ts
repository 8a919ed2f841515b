/**
 * Assembles the webhook half of Switchyard: event bus, delivery engine,
 * scheduler and management service, plus the background chores (queue depth
 * metric, retention). server.ts starts it after listening and stops it first.
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { SwitchyardError } from '../errors.js';
import type { Gateway } from '../gateway/gateway.js';
import { nextRequestId } from '../ids.js';
import type { Metrics } from '../metrics.js';
import type { StatsCollector } from '../stats/collector.js';
import { scheduledInvocation } from '../functions/schedule-event.js';
import { Scheduler } from '../scheduler/scheduler.js';
import type { Store } from '../store/store.js';
import { DeliveryEngine, type PreparedFunctionRun } from './engine.js';
import type { Delivery } from './types.js';
import { EventBus } from './events.js';
import { isDeadOwnerOnThisHost, newLeaseOwner } from './lease-owner.js';
import { WebhookService } from './service.js';

export interface WebhookLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** GETs a path of an API in-process, through the gateway's own invocation path (no network hop). */
export function mockFetcher(gateway: Gateway) {
  return async function fetchMock(apiId: string, pathWithQuery: string, depth: number) {
    const q = pathWithQuery.indexOf('?');
    const requestId = nextRequestId();
    try {
      const res = await gateway.handle({
        method: 'GET',
        path: q === -1 ? pathWithQuery : pathWithQuery.slice(0, q),
        rawQuery: q === -1 ? '' : pathWithQuery.slice(q + 1),
        rawHeaders: ['user-agent', 'Switchyard-Mock-Endpoint', 'accept', 'application/json'],
        body: null,
        sourceIp: '127.0.0.1',
        requestId,
        apiId,
        requestTimeEpoch: Date.now(),
        depth,
      });
      const text = res.body === null ? '' : res.body.toString();
      let body: unknown = text;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {
        // a text answer is used as a string
      }
      const ok = res.status >= 200 && res.status < 300;
      return ok
        ? { status: res.status, body }
        : { status: res.status, body, error: `mock endpoint answered ${res.status}` };
    } catch (err) {
      const status = err instanceof SwitchyardError ? err.status : 500;
      const message = err instanceof Error ? err.message : String(err);
      return { status, body: null, error: `mock endpoint: ${message}` };
    }
  };
}

/** Webhooks listed in the per-webhook queue depth gauge at most (the deepest queues). */
const PENDING_SERIES = 200;

export function createWebhooks(deps: {
  config: Config;
  store: Store;
  clock: Clock;
  gateway: Gateway;
  metrics: Metrics;
  /** This process's per-minute statistics: every attempt is counted there. */
  stats?: StatsCollector;
  log: WebhookLogger;
  /** Function targets of the pipeline (src/functions/invocations.ts): how to run one, and what to do once one finished. */
  functionTargets?: {
    prepare(delivery: Delivery): Promise<PreparedFunctionRun | null>;
    finished(delivery: Delivery): void;
  };
}) {
  const { config, store, clock, metrics, log } = deps;
  const owner = newLeaseOwner();
  let engine: DeliveryEngine;
  const events = new EventBus(store, clock, () => engine.wake(), log);
  engine = new DeliveryEngine({
    store,
    clock,
    owner,
    allowPrivateTargets: config.allowPrivateTargets,
    concurrency: config.deliveryConcurrency,
    isDeadOwner: (other) => isDeadOwnerOnThisHost(other, owner),
    fetchMock: mockFetcher(deps.gateway),
    onFinalFailure(webhook, delivery) {
      // A test-fire's answer already tells its caller; only real deliveries raise the event.
      if (delivery.trigger === 'test') return;
      events.emitOperational('switchyard.delivery.failed', {
        delivery_id: delivery.id,
        webhook_id: webhook.id,
        webhook_name: webhook.name,
        trigger: delivery.trigger,
        error: delivery.error,
        attempts: delivery.attempts.length,
      });
    },
    prepareFunction: deps.functionTargets ? (delivery) => deps.functionTargets!.prepare(delivery) : undefined,
    onFunctionFinished: (delivery) => deps.functionTargets?.finished(delivery),
    onDisabled(webhook) {
      log.warn({ webhook: webhook.id }, 'webhook disabled: its target answered 410 Gone');
      events.emitOperational('switchyard.webhook.disabled', { webhook_id: webhook.id, name: webhook.name, reason: 'gone' });
    },
    log,
    metrics: {
      outcome: (outcome) => metrics.deliveries.inc({ outcome }),
      attemptSeconds: (s) => metrics.attemptLatency.observe({}, s),
      functionRun: (fn, trigger, outcome) => metrics.functionRuns.inc({ function: fn, trigger, outcome }),
      attempted: deps.stats ? (a) => deps.stats!.attempted(a) : undefined,
    },
  });
  const scheduler = new Scheduler({
    store,
    clock,
    onClaimed: () => engine.wake(),
    onDue: (webhook) => engine.remember(webhook),
    log,
    lateness: { observe: (s) => metrics.schedulerLag.observe({}, s) },
    functionSlot: deps.functionTargets ? scheduledInvocation : undefined,
  });
  const service = new WebhookService({
    store,
    clock,
    engine,
    allowPrivateTargets: config.allowPrivateTargets,
    wakeScheduler: () => scheduler.wake(),
  });

  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, chore: () => Promise<unknown>, what: string) => {
    const timer = setInterval(() => chore().catch((err) => log.warn({ err }, `${what} failed`)), ms);
    timer.unref();
    timers.push(timer);
  };

  return {
    service,
    events,
    engine,
    scheduler,
    start(): void {
      engine.start();
      scheduler.start();
      metrics.webhookLoad.inflight = () => engine.inflightByWebhook();
      metrics.webhookLoad.limits = () => engine.concurrencyLimits();
      const depths = async () => {
        metrics.queue.depth = await store.countPendingDeliveries();
        metrics.webhookLoad.pending = await store.pendingByWebhook(PENDING_SERIES);
      };
      every(5_000, depths, 'queue depth');
      void depths().catch((err) => log.warn({ err }, 'queue depth failed'));
      const prune = async () => {
        const before = new Date(clock.now() - config.deliveryRetentionDays * 86_400_000).toISOString();
        const removed = await store.pruneDeliveries(before);
        if (removed > 0) log.info({ removed, before }, 'pruned old deliveries');
      };
      every(3_600_000, prune, 'delivery retention');
      void prune().catch((err) => log.warn({ err }, 'delivery retention failed'));
    },
    async stop(graceMs: number): Promise<void> {
      for (const timer of timers) clearInterval(timer);
      await scheduler.stop();
      await engine.stop(graceMs);
    },
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;
