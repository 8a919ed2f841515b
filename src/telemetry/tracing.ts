/**
 * OpenTelemetry tracing, set up once from TelemetryConfig with the official
 * SDK (TracerProvider, BatchSpanProcessor, the OTLP/HTTP exporters, the W3C
 * propagator). server.ts imports this module only when tracing is on, so a
 * server without it loads none of the SDK and its parts hold `tracing: null`.
 *
 * Trace context crosses processes, isolates and the store as a TraceCarrier
 * string (./types.ts); `carrierOf` and `contextOf` are the two conversions.
 * A function's `fetch` is timed where it ran, which may be a worker process
 * without an exporter: it sends its own span id in `traceparent` and reports
 * a FetchSpanRecord, which `recordFetch` turns into a span with that id (the
 * id generator hands out a given id for that one start, synchronously).
 */
import {
  ROOT_CONTEXT,
  SamplingDecision,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  context,
  defaultTextMapGetter,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  RandomIdGenerator,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type IdGenerator,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { DEFAULT_QUERY_REDACTION, redactUrl, type QueryRedaction } from '../net/redact.js';
import type { FetchSpanRecord, TelemetryConfig, TraceCarrier } from './types.js';

export { SpanKind, SpanStatusCode, type Span };

/** The sampler that decides a span with no parent: always, never, or by its trace id's ratio. */
function rootSamplerOf(cfg: TelemetryConfig): Sampler {
  switch (cfg.sampler) {
    case 'traceidratio':
    case 'parentbased_traceidratio':
      return new TraceIdRatioBasedSampler(cfg.samplerRatio);
    case 'always_off':
    case 'parentbased_always_off':
      return new AlwaysOffSampler();
    default:
      return new AlwaysOnSampler();
  }
}

/** The SDK's sampler: the root one, behind the caller's decision for the parent-based samplers. */
function samplerOf(cfg: TelemetryConfig, root: Sampler): Sampler {
  return cfg.sampler.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

/** Random ids, except the one span id `recordFetch` asks for, and the one trace id `server` asks for, while they start their span. */
class GivenIds implements IdGenerator {
  readonly random = new RandomIdGenerator();
  given: string | null = null;
  givenTrace: string | null = null;
  generateTraceId(): string {
    const id = this.givenTrace;
    if (id === null) return this.random.generateTraceId();
    this.givenTrace = null;
    return id;
  }
  generateSpanId(): string {
    const id = this.given;
    if (id === null) return this.random.generateSpanId();
    this.given = null;
    return id;
  }
}

const KINDS = { client: SpanKind.CLIENT, producer: SpanKind.PRODUCER, consumer: SpanKind.CONSUMER, internal: SpanKind.INTERNAL, server: SpanKind.SERVER } as const;

const hex2 = (n: number): string => (n & 0xff).toString(16).padStart(2, '0');

/** A span attribute's longest text: what a function or a stored value puts in one cannot fill the exporter's queue. */
export const ATTRIBUTE_VALUE_LIMIT = 4096;
/** The longest URL an attribute keeps (after redaction): a trace needs the target, not a megabyte of query. */
export const URL_ATTRIBUTE_LIMIT = 2048;

export class Tracing {
  readonly tracer: Tracer;
  private readonly provider: TracerProvider;
  private readonly ids = new GivenIds();
  private readonly propagator = new W3CTraceContextPropagator();
  private readonly contextManager = new AsyncLocalStorageContextManager();
  /** The root sampler when its decision can be taken before the SDK's (server); null when it always samples. */
  private readonly rootSampler: Sampler | null;

  /** `urlRedaction`: the log's query rule (SWITCHYARD_LOG_REDACT_QUERY), applied to every URL a span names, with `user:password@`. */
  constructor(
    cfg: TelemetryConfig,
    private readonly urlRedaction: QueryRedaction = DEFAULT_QUERY_REDACTION,
  ) {
    const root = rootSamplerOf(cfg);
    const options = { url: cfg.endpoint, headers: { ...cfg.headers }, timeoutMillis: cfg.timeoutMs };
    const exporter = cfg.protocol === 'http/json' ? new JsonExporter(options) : new ProtobufExporter(options);
    this.provider = new TracerProvider({
      resource: resourceFromAttributes({ ...cfg.resourceAttributes, [ATTR_SERVICE_NAME]: cfg.serviceName }),
      sampler: samplerOf(cfg, root),
      idGenerator: this.ids,
      spanLimits: { attributeValueLengthLimit: ATTRIBUTE_VALUE_LIMIT, attributeCountLimit: 64 },
      spanProcessors: [new BatchSpanProcessor({ exporter, ...cfg.batch })],
    });
    // The active context is what log lines read their ids from (src/logger.ts).
    context.setGlobalContextManager(this.contextManager.enable());
    this.tracer = this.provider.getTracer('switchyard');
    // Always sampled, a root request gains nothing from deciding first.
    this.rootSampler = root instanceof AlwaysOnSampler ? null : root;
  }

  /** The context a caller's `traceparent` (and `tracestate`) names; the root context when there is none or it is malformed. */
  contextOf(traceparent: string | undefined, tracestate?: string): Context {
    if (traceparent === undefined) return ROOT_CONTEXT;
    return this.propagator.extract(ROOT_CONTEXT, tracestate === undefined ? { traceparent } : { traceparent, tracestate }, defaultTextMapGetter);
  }

  /** A carrier's context (null or undefined: the root, so the span starts a trace of its own). */
  contextOfCarrier(carrier: TraceCarrier | null | undefined): Context {
    if (carrier == null) return ROOT_CONTEXT;
    const nl = carrier.indexOf('\n');
    return nl === -1 ? this.contextOf(carrier) : this.contextOf(carrier.slice(0, nl), carrier.slice(nl + 1));
  }

  start(name: string, kind: SpanKind, parent: Context, attributes?: Attributes): Span {
    return this.tracer.startSpan(name, { kind, attributes }, parent);
  }

  /**
   * An incoming request's span, a child of the caller's `traceparent` when it sent one. A request
   * without one that the root sampler drops gets its ids and nothing else: the SDK would make the
   * same non-recording span after work of its own (attribute copies, its span counters), which at
   * 10 % sampling is nine requests in ten. One it keeps starts in the SDK with the trace id just
   * decided on, where the same root sampler, reading the same id, keeps it too.
   */
  server(name: string, traceparent: string | undefined, tracestate: string | undefined, attributes?: Attributes): Span {
    const root = this.rootSampler;
    if (traceparent !== undefined || root === null) {
      return this.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, this.contextOf(traceparent, tracestate));
    }
    const traceId = this.ids.random.generateTraceId();
    if (root.shouldSample(ROOT_CONTEXT, traceId, name, SpanKind.SERVER, {}, []).decision === SamplingDecision.NOT_RECORD) {
      return trace.wrapSpanContext({ traceId, spanId: this.ids.random.generateSpanId(), traceFlags: TraceFlags.NONE });
    }
    this.ids.givenTrace = traceId;
    try {
      return this.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, ROOT_CONTEXT);
    } finally {
      this.ids.givenTrace = null;
    }
  }

  /** A step inside `parent` (authorisation, the invocation). */
  internal(parent: Span, name: string, attributes?: Attributes): Span {
    return this.tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, trace.setSpan(ROOT_CONTEXT, parent));
  }

  /** A span of the given kind under a stored carrier (a delivery's cause), or a root one when there is none. */
  under(carrier: TraceCarrier | null | undefined, name: string, kind: keyof typeof KINDS, attributes?: Attributes): Span {
    return this.tracer.startSpan(name, { kind: KINDS[kind], attributes }, this.contextOfCarrier(carrier));
  }

  /** A URL as spans carry it (`url.full`): credentials and the redacted parameters' values masked, its length bounded. */
  urlAttribute(url: string): string {
    const shown = redactUrl(url, this.urlRedaction);
    return shown.length > URL_ATTRIBUTE_LIMIT ? shown.slice(0, URL_ATTRIBUTE_LIMIT) : shown;
  }

  /** Marks the span failed, with why. */
  failed(span: Span, message: string): void {
    span.setStatus({ code: SpanStatusCode.ERROR, message });
  }

  /** The span's context as a carrier: its `traceparent`, and its `tracestate` when it has one. */
  carrierOf(span: Span): TraceCarrier {
    const c = span.spanContext();
    const parent = `00-${c.traceId}-${c.spanId}-${hex2(c.traceFlags)}`;
    const state = c.traceState?.serialize();
    return state ? `${parent}\n${state}` : parent;
  }

  /** Runs `fn` with `span` active, so what it logs carries the span's ids. */
  within<T>(span: Span, fn: () => T): T {
    return context.with(trace.setSpan(ROOT_CONTEXT, span), fn);
  }

  /** A function's fetch, as a CLIENT span with the id it already sent (see the header). */
  recordFetch(rec: FetchSpanRecord): void {
    if (typeof rec.spanId !== 'string' || !/^[0-9a-f]{16}$/.test(rec.spanId)) return;
    const method = String(rec.method).slice(0, 16);
    this.ids.given = rec.spanId;
    let span: Span;
    try {
      span = this.tracer.startSpan(
        // From an isolate (maybe through a worker's frame): bounded here whatever the sender did.
        method,
        {
          kind: SpanKind.CLIENT,
          startTime: rec.startMs,
          attributes: { 'http.request.method': method, 'url.full': this.urlAttribute(String(rec.url)) },
        },
        this.contextOfCarrier(rec.parent),
      );
    } finally {
      this.ids.given = null;
    }
    if (rec.status !== null) span.setAttribute('http.response.status_code', rec.status);
    if (rec.error !== null || (rec.status !== null && rec.status >= 400)) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: rec.error === null ? undefined : String(rec.error).slice(0, 512) });
    }
    span.end(rec.endMs);
  }

  /** Sends what is queued and stops (server close). */
  async shutdown(): Promise<void> {
    try {
      await this.provider.shutdown();
    } finally {
      this.contextManager.disable();
      context.disable();
    }
  }
}
