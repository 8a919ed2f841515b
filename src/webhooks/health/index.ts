/**
 * Assembles endpoint health (src/webhooks/health/): the gate the delivery
 * engine consults, the counts it keeps, the monitor that reports them and
 * takes the transitions, and the cache drops that follow a `webhook` change.
 * server.ts builds it before the delivery pipeline (the gate is one of the
 * pipeline's deps) and starts it with the webhooks.
 */
import type { ChangeBus } from '../../changes.js';
import type { Clock } from '../../clock.js';
import type { DueSignal } from '../../deliveries/due-signal.js';
import { LeasedBuckets } from '../../limits/leased-buckets.js';
import type { Metrics } from '../../telemetry/metrics.js';
import type { Store } from '../../store/store.js';
import type { Logger } from '../../types.js';
import type { EventBus } from '../events.js';
import type { WebhookTarget } from '../target.js';
import { WebhookGate } from './gate.js';
import { HealthMonitor } from './monitor.js';
import { HealthSamples } from './samples.js';

/** How often the held and breaker gauges are read again. */
const GAUGES_MS = 5000;
const GAUGE_SERIES = 200;

export interface EndpointHealthDeps {
  store: Store;
  clock: Clock;
  changes: ChangeBus;
  target: WebhookTarget;
  due: DueSignal;
  events: EventBus;
  metrics: Metrics;
  log: Logger;
  /** SWITCHYARD_MAX_HELD: held deliveries per webhook at most. */
  maxHeld: number;
}

export function createEndpointHealth(deps: EndpointHealthDeps) {
  const { store, clock, changes, target, metrics, log } = deps;
  const samples = new HealthSamples();
  const monitor = new HealthMonitor({
    store,
    clock,
    changes,
    samples,
    due: deps.due,
    events: deps.events,
    webhook: (id) => target.webhook(id),
    metrics: {
      transition: (event) => metrics.webhookHealthEvents.inc({ event }),
      heldDiscarded: (reason, n) => metrics.webhookHeldDiscarded.inc({ reason }, n),
      deferred: (reason) => metrics.webhookDeferred.inc({ reason }),
    },
    log,
    maxHeld: deps.maxHeld,
  });
  const gate = new WebhookGate({ store, clock, webhooks: target, buckets: new LeasedBuckets({ limits: store, clock }), samples, reports: monitor });
  const offChanges = changes.subscribe((change) => {
    if (change.kind === 'webhook') {
      target.forget(change.id);
      gate.forget(change.id);
    } else if (change.kind === 'reset') {
      target.forget();
      gate.forget();
    }
  });

  let gauges: NodeJS.Timeout | null = null;
  const readGauges = async () => {
    metrics.webhookLoad.held = await store.heldByWebhook(GAUGE_SERIES);
    metrics.webhookLoad.breakers = (await store.breakersNotClosed(GAUGE_SERIES)).map((h) => [h.webhookId!, h.state === 'open' ? 1 : 2] as const);
  };

  return {
    gate,
    monitor,
    start(): void {
      monitor.start();
      gauges = setInterval(() => readGauges().catch((err: unknown) => log.warn({ err }, 'held and breaker gauges failed')), GAUGES_MS);
      gauges.unref();
    },
    async stop(): Promise<void> {
      if (gauges) clearInterval(gauges);
      offChanges();
      await monitor.stop();
    },
  };
}

export type EndpointHealth = ReturnType<typeof createEndpointHealth>;
