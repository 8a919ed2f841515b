/**
 * prom-client's getMetricsAsJSON() -> OTel ScopeMetrics (scopeMetricsOf in
 * src/telemetry/otlp-metrics.ts), on a real prom-client registry: a counter
 * is a monotonic cumulative Sum, a gauge a Gauge, a histogram a cumulative
 * Histogram with the registry's bounds and per-bucket counts, labels are
 * attributes.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { AggregationTemporality, DataPointType, type HistogramMetricData, type SumMetricData } from '@opentelemetry/sdk-metrics';
import type { MetricFamily } from '../../src/telemetry/metrics.js';
import { PromClientProducer, scopeMetricsOf } from '../../src/telemetry/otlp-metrics.js';

async function sample() {
  const registry = new Registry();
  const c = new Counter({ name: 'calls_total', help: 'Calls', labelNames: ['function', 'outcome'], registers: [registry] });
  c.inc({ function: 'f', outcome: 'ok' }, 3);
  c.inc({ function: 'g', outcome: 'error' });
  new Gauge({ name: 'depth', help: 'Depth', registers: [registry] }).set(7);
  const h = new Histogram({ name: 'latency_seconds', help: 'Latency', labelNames: ['route'], buckets: [0.1, 1, 10], registers: [registry] });
  for (const v of [0.05, 0.5, 0.7, 5, 50]) h.observe({ route: '/a' }, v);
  return registry;
}

describe('prom-client JSON to OTel metrics', () => {
  it('keeps each kind, value, label and bucket', async () => {
    const registry = await sample();
    const scope = scopeMetricsOf((await registry.getMetricsAsJSON()) as unknown as MetricFamily[], [1, 0], [2, 0]);
    const byName = Object.fromEntries(scope.metrics.map((m) => [m.descriptor.name, m]));

    const sum = byName.calls_total as SumMetricData;
    expect(sum.dataPointType).toBe(DataPointType.SUM);
    expect(sum.isMonotonic).toBe(true);
    expect(sum.aggregationTemporality).toBe(AggregationTemporality.CUMULATIVE);
    expect(sum.descriptor.description).toBe('Calls');
    expect(sum.dataPoints.map((p) => [p.attributes, p.value])).toEqual([
      [{ function: 'f', outcome: 'ok' }, 3],
      [{ function: 'g', outcome: 'error' }, 1],
    ]);
    expect(sum.dataPoints[0].startTime).toEqual([1, 0]);

    expect(byName.depth.dataPointType).toBe(DataPointType.GAUGE);
    expect(byName.depth.dataPoints[0].value).toBe(7);

    const hist = byName.latency_seconds as HistogramMetricData;
    expect(hist.dataPointType).toBe(DataPointType.HISTOGRAM);
    expect(hist.aggregationTemporality).toBe(AggregationTemporality.CUMULATIVE);
    expect(hist.dataPoints).toHaveLength(1);
    const p = hist.dataPoints[0];
    expect(p.attributes).toEqual({ route: '/a' });
    // 0.05 | 0.5 0.7 | 5 | 50 (above every bound)
    expect(p.value).toMatchObject({ buckets: { boundaries: [0.1, 1, 10], counts: [1, 2, 1, 1] }, count: 5 });
    expect(p.value.sum).toBeCloseTo(56.25);
  });

  it('is what the producer hands the reader, one scope per collection', async () => {
    const registry = await sample();
    const result = await new PromClientProducer({ json: async () => (await registry.getMetricsAsJSON()) as unknown as MetricFamily[] }).collect();
    expect(result.errors).toEqual([]);
    expect(result.resourceMetrics.scopeMetrics).toHaveLength(1);
    expect(result.resourceMetrics.scopeMetrics[0].scope.name).toBe('switchyard');
    expect(result.resourceMetrics.scopeMetrics[0].metrics.map((m) => m.descriptor.name).sort()).toEqual(['calls_total', 'depth', 'latency_seconds']);
  });
});
