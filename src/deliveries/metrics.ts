/**
 * The engine's one count per attempt, turned into the series of its kind:
 * webhook attempts have their own outcome and latency series, function runs
 * theirs (by function and trigger); both feed the per-minute statistics.
 */
import type { Metrics } from '../telemetry/metrics.js';
import type { StatsCollector } from '../stats/collector.js';
import type { DeliveryMetrics } from './engine.js';

export function deliveryMetrics(deps: { metrics: Metrics; stats?: StatsCollector | null }): DeliveryMetrics {
  const { metrics } = deps;
  const stats = deps.stats ?? null;
  return {
    attempted(facts, durationMs, delivery) {
      const outcome = facts.status === 'pending' ? 'retry' : facts.status;
      if (delivery.kind === 'webhook') {
        metrics.attemptLatency.observe(durationMs / 1000);
        metrics.deliveries.inc({ outcome });
      } else {
        const trigger = typeof delivery.triggerDetail?.type === 'string' ? delivery.triggerDetail.type : 'async';
        metrics.functionRuns.inc({ function: delivery.functionName, trigger, outcome });
      }
      stats?.attempted(facts);
    },
  };
}
