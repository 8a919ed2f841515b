/**
 * What the parts that trace share without importing the SDK: the resolved
 * OpenTelemetry settings (parsed in src/config.ts by ./config.ts), the text
 * form of a trace context that crosses processes, isolates and the store, and
 * the record of a function's `fetch` timed where it ran (a worker process or
 * the serving process) and recorded as a span by the serving process.
 */

/** Where and how spans are exported, from the standard `OTEL_*` variables; null in Config: tracing is off. */
export interface TelemetryConfig {
  /** The full OTLP/HTTP traces URL (`.../v1/traces`). */
  endpoint: string;
  protocol: 'http/protobuf' | 'http/json';
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
  serviceName: string;
  resourceAttributes: Readonly<Record<string, string>>;
  sampler: 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';
  /** The ratio of the `traceidratio` samplers, 0 to 1. */
  samplerRatio: number;
  /** The batch span processor's settings (`OTEL_BSP_*`). */
  batch: { scheduledDelayMillis: number; maxQueueSize: number; maxExportBatchSize: number };
}

/** Where and how metrics are pushed over OTLP (OTEL_METRICS_EXPORTER=otlp); null in Config: GET /metrics only. */
export interface MetricsExportConfig {
  /** The full OTLP/HTTP metrics URL (`.../v1/metrics`). */
  endpoint: string;
  protocol: 'http/protobuf' | 'http/json';
  headers: Readonly<Record<string, string>>;
  /** OTEL_METRIC_EXPORT_INTERVAL: from the start of one export to the next. */
  intervalMs: number;
  /** OTEL_METRIC_EXPORT_TIMEOUT: one collection and export, at most the interval. */
  exportTimeoutMs: number;
  /** OTEL_EXPORTER_OTLP_(METRICS_)TIMEOUT: one HTTP request. */
  requestTimeoutMs: number;
  serviceName: string;
  resourceAttributes: Readonly<Record<string, string>>;
}

/**
 * A W3C trace context as one string: the `traceparent` value, then, when
 * there is one, a newline and the `tracestate` value (a newline is never
 * part of a header value). It is what an invocation carries into the
 * runtime, an emit out of it, and a delivery row in `trace_context`.
 */
export type TraceCarrier = string;

/** A function's `fetch`: the span id it sent in `traceparent` and what came of it. */
export interface FetchSpanRecord {
  /** The invocation's carrier: the fetch span's parent. */
  parent: TraceCarrier;
  spanId: string;
  method: string;
  url: string;
  /** The answer's status; null when none came (refused, timed out, aborted). */
  status: number | null;
  error: string | null;
  /** Epoch milliseconds (fractional). */
  startMs: number;
  endMs: number;
}

/** The `traceparent` part of a carrier. */
export function traceparentOf(carrier: TraceCarrier): string {
  const nl = carrier.indexOf('\n');
  return nl === -1 ? carrier : carrier.slice(0, nl);
}

/** A carrier's trace id (32 hex digits). */
export function traceIdOfCarrier(carrier: TraceCarrier): string {
  // 00-<32 trace>-<16 span>-<2 flags>
  return carrier.slice(3, 35);
}

/** Whether a carrier's `traceparent` has its sampled flag set (the low bit of its last two hex digits). */
export function isSampledCarrier(carrier: TraceCarrier): boolean {
  // 00-<32 trace>-<16 span>-<2 flags>
  return carrier.length >= 55 && (parseInt(carrier.slice(53, 55), 16) & 1) === 1;
}

/** The `tracestate` part of a carrier, if any. */
export function tracestateOf(carrier: TraceCarrier): string | undefined {
  const nl = carrier.indexOf('\n');
  return nl === -1 ? undefined : carrier.slice(nl + 1);
}

/** A child's carrier: same trace, flags and tracestate, its own span id (16 hex digits). */
export function childCarrier(parent: TraceCarrier, spanId: string): TraceCarrier {
  // 00-<32 trace>-<16 span>-<2 flags>
  return parent.slice(0, 36) + spanId + parent.slice(52);
}
