/**
 * Assembles the delivery pipeline: the engine with its lease owner, its
 * heartbeat (a dead owner's leases are taken over in seconds), targets and
 * metrics, plus its background chores (queue depth gauges, retention).
 * server.ts builds the targets, starts it after listening and stops it last
 * of the background work.
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { StatsCollector } from '../stats/collector.js';
import type { Store } from '../store/store.js';
import type { Logger } from '../types.js';
import { hostname } from 'node:os';
import type { DueSignal } from './due-signal.js';
import { DeliveryEngine } from './engine.js';
import type { DeliveryGate } from './health.js';
import { OwnerHeartbeat } from './heartbeat.js';
import { isDeadOwnerOnThisHost, newLeaseOwner } from './lease-owner.js';
import { deliveryMetrics } from './metrics.js';
import type { DeliveryTargets } from './target.js';

/** Targets listed in the per-webhook queue depth gauge at most (the deepest queues). */
const PENDING_SERIES = 200;

export interface DeliveryPipelineDeps {
  config: Pick<Config, 'deliveryConcurrency' | 'deliveryRetentionDays' | 'heartbeatTimeoutMs'>;
  store: Store;
  clock: Clock;
  targets: DeliveryTargets;
  due: DueSignal;
  gate?: DeliveryGate;
  metrics: Metrics;
  /** This process's per-minute statistics: every attempt is counted there. */
  stats?: StatsCollector;
  log: Logger;
}

export function createDeliveryPipeline(deps: DeliveryPipelineDeps) {
  const { config, store, clock, metrics, log } = deps;
  const owner = newLeaseOwner();
  // Late-bound: the heartbeat wakes the engine, the engine asks the heartbeat.
  let wake = () => undefined as void;
  const heartbeat = new OwnerHeartbeat({
    store,
    clock,
    owner,
    host: hostname(),
    pid: process.pid,
    timeoutMs: config.heartbeatTimeoutMs,
    log,
    onTakeover: () => wake(),
    onBeat: () => wake(),
  });
  const engine = new DeliveryEngine({
    store,
    clock,
    owner,
    targets: deps.targets,
    due: deps.due,
    gate: deps.gate,
    concurrency: config.deliveryConcurrency,
    isDeadOwner: (other) => isDeadOwnerOnThisHost(other, owner),
    fence: heartbeat,
    log,
    metrics: deliveryMetrics({ metrics, stats: deps.stats }),
  });

  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, chore: () => Promise<unknown>, what: string) => {
    const timer = setInterval(() => chore().catch((err) => log.warn({ err }, `${what} failed`)), ms);
    timer.unref();
    timers.push(timer);
  };

  wake = () => engine.wake();

  return {
    engine,
    heartbeat,
    start(): void {
      // The engine claims nothing until the first beat is written (the fence is not fresh before): that beat wakes it.
      void heartbeat.start();
      engine.start();
      metrics.webhookLoad.inflight = () => engine.inflightByTarget();
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
        // Applications whose retention is shorter than the server's (their limits.retention_days).
        const ofApplications = await store.pruneApplicationDeliveries(clock.now());
        if (ofApplications > 0) log.info({ removed: ofApplications }, "pruned applications' old deliveries");
      };
      every(3_600_000, prune, 'delivery retention');
      void prune().catch((err) => log.warn({ err }, 'delivery retention failed'));
    },
    async stop(graceMs: number): Promise<void> {
      for (const timer of timers) clearInterval(timer);
      await engine.stop(graceMs);
      // After the leases went back: a row gone with leases still held would let them be taken over early.
      await heartbeat.stop();
    },
  };
}

export type DeliveryPipeline = ReturnType<typeof createDeliveryPipeline>;
