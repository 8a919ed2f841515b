/**
 * OTLP metrics export (OTEL_METRICS_EXPORTER=otlp): the official SDK's
 * MeterProvider and PeriodicExportingMetricReader push over OTLP/HTTP
 * (protobuf or JSON), and what they push comes from a MetricProducer over the
 * process's prom-client registry (metrics.ts), not from OpenTelemetry
 * instruments of its own. One set of instruments is the one source of truth
 * for both exports: GET /metrics and the push always show the same series,
 * names, labels and buckets, and the hot path keeps recording once, into
 * prom-client. server.ts imports this module only when the push is on.
 *
 * Each server process pushes its own series, told apart by the resource's
 * `service.instance.id` (hostname:pid); a backend sums them by that attribute.
 *
 * `scopeMetricsOf` is the conversion (prom-client's getMetricsAsJSON() ->
 * OTel ScopeMetrics): counters as monotonic cumulative Sums, gauges as
 * Gauges, histograms as cumulative Histograms with the same bounds (prom-client's
 * cumulative bucket counts become per-bucket counts), labels as attributes.
 * Summaries (none of Switchyard's own series) have no OTel MetricData form
 * here and are left out.
 */
import { hostname } from 'node:os';
import { ValueType, type Attributes, type HrTime } from '@opentelemetry/api';
import { hrTime } from '@opentelemetry/core';
import { OTLPMetricExporter as JsonExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtobufExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  DataPointType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type CollectionResult,
  type MetricData,
  type MetricProducer,
  type PushMetricExporter,
  type ScopeMetrics,
} from '@opentelemetry/sdk-metrics';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { VERSION, type MetricFamily } from './metrics.js';
import type { MetricsExportConfig } from './types.js';

/** The resource attribute naming one server process (semantic conventions; not yet in the stable export). */
const ATTR_SERVICE_INSTANCE_ID = 'service.instance.id';

const attributesOf = (labels: Record<string, string | number>): Attributes => {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(labels)) if (k !== 'le') out[k] = v;
  return out;
};

/** A label set's key (without `le`): a histogram's bucket, sum and count lines meet under it. */
const keyOf = (labels: Record<string, string | number>): string =>
  JSON.stringify(Object.entries(labels).filter(([k]) => k !== 'le').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

function histogramOf(family: MetricFamily, descriptor: MetricData['descriptor'], startTime: HrTime, endTime: HrTime): MetricData {
  const series = new Map<string, { attributes: Attributes; buckets: Array<[number, number]>; sum: number; count: number }>();
  for (const v of family.values) {
    const key = keyOf(v.labels);
    let s = series.get(key);
    if (s === undefined) series.set(key, (s = { attributes: attributesOf(v.labels), buckets: [], sum: 0, count: 0 }));
    if (v.metricName === `${family.name}_bucket`) s.buckets.push([v.labels.le === '+Inf' ? Infinity : Number(v.labels.le), v.value]);
    else if (v.metricName === `${family.name}_sum`) s.sum = v.value;
    else if (v.metricName === `${family.name}_count`) s.count = v.value;
  }
  return {
    descriptor,
    aggregationTemporality: AggregationTemporality.CUMULATIVE,
    dataPointType: DataPointType.HISTOGRAM,
    dataPoints: [...series.values()].map((s) => {
      s.buckets.sort((a, b) => a[0] - b[0]);
      const boundaries = s.buckets.filter(([le]) => Number.isFinite(le)).map(([le]) => le);
      // prom-client counts each bucket with everything below it; OTLP counts each bucket alone, the last above every bound.
      const counts = boundaries.map((_, i) => s.buckets[i][1] - (i === 0 ? 0 : s.buckets[i - 1][1]));
      counts.push(s.count - (boundaries.length === 0 ? 0 : s.buckets[boundaries.length - 1][1]));
      return { startTime, endTime, attributes: s.attributes, value: { buckets: { boundaries, counts }, sum: s.sum, count: s.count } };
    }),
  };
}

/** prom-client's JSON for one registry as one OTel scope; `startTime` is when the cumulative series started counting. */
export function scopeMetricsOf(families: readonly MetricFamily[], startTime: HrTime, endTime: HrTime): ScopeMetrics {
  const metrics: MetricData[] = [];
  for (const family of families) {
    const descriptor = { name: family.name, description: family.help, unit: '', valueType: ValueType.DOUBLE };
    const points = () => family.values.map((v) => ({ startTime, endTime, attributes: attributesOf(v.labels), value: v.value }));
    if (family.type === 'counter') {
      metrics.push({ descriptor, aggregationTemporality: AggregationTemporality.CUMULATIVE, dataPointType: DataPointType.SUM, isMonotonic: true, dataPoints: points() });
    } else if (family.type === 'gauge') {
      metrics.push({ descriptor, aggregationTemporality: AggregationTemporality.CUMULATIVE, dataPointType: DataPointType.GAUGE, dataPoints: points() });
    } else if (family.type === 'histogram') {
      metrics.push(histogramOf(family, descriptor, startTime, endTime));
    }
  }
  return { scope: { name: 'switchyard', version: VERSION }, metrics };
}

/** The MetricProducer over a registry's JSON (see the header). */
export class PromClientProducer implements MetricProducer {
  private readonly startTime = hrTime();
  constructor(private readonly deps: { json: () => Promise<MetricFamily[]> }) {}

  async collect(): Promise<CollectionResult> {
    const families = await this.deps.json();
    // The reader takes the resource from the MeterProvider; this one is never read.
    return { resourceMetrics: { resource: resourceFromAttributes({}), scopeMetrics: [scopeMetricsOf(families, this.startTime, hrTime())] }, errors: [] };
  }
}

export interface OtlpMetricsDeps {
  config: MetricsExportConfig;
  /** The process's series as prom-client's JSON (Metrics.json). */
  json: () => Promise<MetricFamily[]>;
}

export class OtlpMetrics {
  private readonly provider: MeterProvider;

  constructor(deps: OtlpMetricsDeps) {
    const cfg = deps.config;
    const options = { url: cfg.endpoint, headers: { ...cfg.headers }, timeoutMillis: cfg.requestTimeoutMs };
    // The HTTP exporter carries its own copy of sdk-metrics; the two copies' types differ only in private fields.
    const exporter = (cfg.protocol === 'http/json' ? new JsonExporter(options) : new ProtobufExporter(options)) as unknown as PushMetricExporter;
    this.provider = new MeterProvider({
      resource: resourceFromAttributes({
        [ATTR_SERVICE_VERSION]: VERSION,
        ...cfg.resourceAttributes,
        [ATTR_SERVICE_NAME]: cfg.serviceName,
        // Always this process's: a shared value would merge the processes' cumulative series into one.
        [ATTR_SERVICE_INSTANCE_ID]: `${hostname()}:${process.pid}`,
      }),
      readers: [
        new PeriodicExportingMetricReader({
          exporter,
          exportIntervalMillis: cfg.intervalMs,
          exportTimeoutMillis: cfg.exportTimeoutMs,
          metricProducers: [new PromClientProducer({ json: deps.json })],
        }),
      ],
    });
  }

  /** Pushes the last values and stops (server close). */
  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }
}
