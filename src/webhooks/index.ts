/**
 * Assembles the webhook half of Switchyard around the delivery pipeline: the
 * scheduler (webhook and function slots), the management service, endpoint
 * health (built by server.ts before the pipeline, whose gate it is), the
 * recovery jobs, and the operational events its target raises (a delivery
 * failed for good, a webhook disabled). server.ts starts it after listening
 * and stops it first.
 */
import type { ApplicationScope } from '../applications/types.js';
import type { ChangeBus } from '../changes.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { DueSignal } from '../deliveries/due-signal.js';
import type { DeliveryEngine } from '../deliveries/engine.js';
import { SwitchyardError } from '../errors.js';
import type { Gateway } from '../gateway/gateway.js';
import { nextRequestId } from '../ids.js';
import type { Metrics } from '../telemetry/metrics.js';
import { Scheduler, type SchedulerOptions } from '../scheduler/scheduler.js';
import type { Store } from '../store/store.js';
import type { Logger } from '../types.js';
import type { EventBus } from './events.js';
import { isDeadOwnerOnThisHost, newLeaseOwner } from '../deliveries/lease-owner.js';
import type { EndpointHealth } from './health/index.js';
import { followWebhookOutcomes } from './outcomes.js';
import { RecoveryRunner } from './recovery.js';
import { WebhookService } from './service.js';
import type { WebhookTarget } from './target.js';
import type { Transformer } from './transformation.js';

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

export interface WebhooksDeps {
  config: Pick<Config, 'allowPrivateTargets'>;
  store: Store;
  clock: Clock;
  /** A deleted webhook's change: its measured limit and its series go (forgetIfDeleted). */
  changes: ChangeBus;
  /** The pipeline's engine: test-fires and manual retries attempt through it. */
  engine: DeliveryEngine;
  /** The engine's webhook target: the scheduler hands it the webhooks it just read. */
  target: WebhookTarget;
  /** Checks transformations when webhooks are written, and runs the try-it endpoint's. */
  transformer: Transformer;
  /** Endpoint health (./health/index.ts): started and stopped with the webhooks. */
  health: EndpointHealth;
  events: EventBus;
  /** The scope of webhooks' `application_id` (src/applications/service.ts); absent: refused. */
  applications?: ApplicationScope;
  due: DueSignal;
  metrics: Metrics;
  log: Logger;
  /** Function schedules fire too when given: the event of a slot's invocation (src/functions/schedule-event.ts). */
  functionSlot?: SchedulerOptions['functionSlot'];
  /** Isolates of functions due in the next seconds are built before their slot (scheduler.ts). */
  prewarm?: SchedulerOptions['prewarm'];
}

export function createWebhooks(deps: WebhooksDeps) {
  const { config, store, clock, engine, target, transformer, health, events, metrics, log } = deps;
  followWebhookOutcomes(
    { events: engine.events, target, log },
    {
      failed(webhook, delivery) {
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
      disabled(webhook) {
        log.warn({ webhook: webhook.id }, 'webhook disabled: its target answered 410 Gone; what it still had to send is held');
        const told = health.monitor.announce(webhook.id).then(() => health.monitor.tell('disabled', webhook.id, { reason: 'gone' }));
        told.catch((err: unknown) => log.warn({ err, webhook: webhook.id }, 'could not tell that a webhook was disabled'));
      },
    },
  );
  const scheduler = new Scheduler({
    store,
    clock,
    onClaimed: () => deps.due.wake(),
    onDue: (webhook) => target.remember(webhook),
    log,
    lateness: { observe: (s) => metrics.schedulerLag.observe(s) },
    functionSlot: deps.functionSlot,
    prewarm: deps.prewarm,
  });
  const owner = newLeaseOwner();
  const recoveries = new RecoveryRunner({ store, clock, owner, isDeadOwner: (other) => isDeadOwnerOnThisHost(other, owner), due: deps.due, log });
  // What a process measured of a webhook outlives it unless dropped: a deleted webhook's series would stay until restart.
  const forgetIfDeleted = async (id: string) => {
    try {
      if ((await store.getWebhook(id)) !== null) return;
    } catch {
      return; // the store is unreachable: the next change of it tries again
    }
    engine.forgetTarget(id);
    metrics.forgetWebhook(id);
  };
  const offChanges = deps.changes.subscribe((change) => {
    if (change.kind === 'webhook') void forgetIfDeleted(change.id);
  });
  const service = new WebhookService({
    store,
    clock,
    engine,
    allowPrivateTargets: config.allowPrivateTargets,
    wakeScheduler: () => scheduler.wake(),
    health: health.monitor,
    recoveries,
    transformer,
    applications: deps.applications,
  });

  return {
    service,
    events,
    scheduler,
    health,
    start(): void {
      scheduler.start();
      health.start();
      recoveries.start();
    },
    async stop(): Promise<void> {
      offChanges();
      await scheduler.stop();
      await recoveries.stop();
      await health.stop();
    },
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;
