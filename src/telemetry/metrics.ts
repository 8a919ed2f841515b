/**
 * The metrics a server process records, on prom-client: one Registry per
 * process (not prom-client's global one, so several servers in one process,
 * as in the tests, keep apart), the standard `process_*` and `nodejs_*`
 * series (event-loop lag, heap, GC), `switchyard_build_info`, and Switchyard's
 * own series. The hot path holds prom-client child handles (`labels(...)`),
 * resolved once per route and function by the gateway. With `--processes`
 * above 1 the cluster primary gathers every process's `getMetricsAsJSON()`
 * and the process that took the scrape merges them with prom-client's
 * AggregatorRegistry (metrics-aggregate.ts).
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { TooManyScrapesError } from '../errors.js';
import { SharedCollection } from '../shared-collection.js';

/** A node collects its metrics at most this often, however many scrapes come. */
export const METRICS_MIN_INTERVAL_MS = 1000;
/** Scrapes of one server process waiting for a collection at once, at most; the next gets a 503. */
export const MAX_WAITING_SCRAPES = 4;
/** The content type of GET /metrics. */
export const EXPOSITION_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

const COLLECTIONS_HELP = "Collections of this node's metrics for GET /metrics (scrapes that arrive together share one)";

/** A metric as prom-client's getMetricsAsJSON() gives it. */
export interface MetricFamily {
  name: string;
  help: string;
  type: string;
  aggregator: string;
  values: Array<{ value: number; labels: Record<string, string | number>; metricName?: string }>;
}

/** `switchyard_metrics_collections_total` as prom-client's JSON: the cluster primary's count for the node. */
export function collectionsMetric(collections: number): MetricFamily {
  return {
    name: 'switchyard_metrics_collections_total',
    help: COLLECTIONS_HELP,
    type: 'counter',
    aggregator: 'max',
    values: [{ value: collections, labels: {} }],
  };
}

const DEFAULT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The version in package.json (switchyard_build_info, the OTLP resource's service.version). */
export const VERSION = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
})();

export interface MetricsDeps {
  /** The node's offset from the database clock in ms (clock.ts); absent: 0. */
  clockOffsetMs?: () => number;
  /** `sqlite` or `postgres`, for switchyard_build_info. */
  store?: string;
  /** The standard process_* and nodejs_* series (default true; unit tests that build many registries leave them out). */
  defaultMetrics?: boolean;
}

type Read = () => Iterable<readonly [string, number]>;

/**
 * prom-client keeps each series in `metric.hashMap[hash]`; its children
 * (`labels(...)`) hash and validate the label set again on every call, which
 * on the invocation path cost about 0.2 µs each. The handles below hash once
 * and then add to the series' entry directly, falling back to prom-client's own
 * `inc`/`observe` whenever the entry is missing (new, removed, reset), so a
 * removal or reset is never undone or lost. They lean on prom-client 15's
 * internals (`hashMap`, `hashObject`, a histogram entry's `bucketValues`):
 * test/unit/metrics-handles.test.ts holds them to what prom-client's own
 * calls record, so an upgrade that changes them fails there.
 */
const { hashObject } = createRequire(import.meta.url)('prom-client/lib/util') as {
  hashObject(labels: Record<string, string>, sortedNames?: string[]): string;
};
interface Internals<E> {
  hashMap: Record<string, E | undefined>;
  sortedLabelNames: string[];
  labelNames: string[];
  upperBounds: number[];
}
function labelsOf(metric: { labelNames: string[] }, values: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  metric.labelNames.forEach((name, i) => (labels[name] = values[i]));
  return labels;
}

/** A counter series resolved once: `inc` is an addition (see above). */
export function counterHandle(metric: Counter<string>, ...values: string[]): { inc(by?: number): void } {
  const m = metric as unknown as Internals<{ value: number }>;
  const labels = labelsOf(m, values);
  const hash = hashObject(labels, m.sortedLabelNames);
  metric.inc(labels, 0); // the series is listed from its first use, as before prom-client
  return {
    inc(by = 1) {
      const entry = m.hashMap[hash];
      if (entry !== undefined) entry.value += by;
      else metric.inc(labels, by);
    },
  };
}

/** A histogram series resolved once: `observe` adds to its bucket, sum and count (see above). */
export function histogramHandle(metric: Histogram<string>, ...values: string[]): { observe(value: number): void } {
  const m = metric as unknown as Internals<{ sum: number; count: number; bucketValues: Record<string, number> }>;
  const labels = labelsOf(m, values);
  const hash = hashObject(labels, m.sortedLabelNames);
  const bounds = m.upperBounds;
  const keys = bounds.map(String);
  return {
    observe(value: number) {
      const entry = m.hashMap[hash];
      if (entry === undefined || !Number.isFinite(value)) {
        metric.observe(labels, value);
        return;
      }
      entry.sum += value;
      entry.count += 1;
      for (let i = 0; i < bounds.length; i++) {
        if (value <= bounds[i]) {
          entry.bucketValues[keys[i]] += 1;
          break;
        }
      }
    },
  };
}

/** A gauge with one label read at scrape time: only what `read` yields appears, so a webhook with nothing to report (or deleted) is absent. */
function readGauge(registry: Registry, name: string, help: string, label: string, read: () => Read, aggregator: 'sum' | 'max' = 'sum'): Gauge<string> {
  return new Gauge({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    aggregator,
    collect() {
      this.reset();
      for (const [value, n] of read()()) this.labels(value).set(n);
    },
  });
}

/**
 * The metrics the gateway, runtime and delivery pipeline record. Created once per server process.
 */
export function createMetrics(deps: MetricsDeps = {}) {
  const clockOffsetMs = deps.clockOffsetMs ?? (() => 0);
  const registry = new Registry();
  if (deps.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  /** Pending deliveries, refreshed in the background (a gauge must not query the store per scrape). */
  const queue = { depth: 0 };
  /**
   * Per webhook, set by the webhook half (src/webhooks/index.ts): attempts in
   * flight on this node (read live from the engine) and pending deliveries (the
   * deepest queues, refreshed in the background). Only webhooks with some are listed.
   */
  const webhookLoad = {
    inflight: (): Iterable<readonly [string, number]> => [],
    /** Per webhook measured so far: its current limit of attempts in flight on this node. */
    limits: (): Iterable<readonly [string, number]> => [],
    pending: [] as Array<readonly [string, number]>,
    /** Held deliveries per webhook, the largest counts (refreshed by src/webhooks/health/monitor.ts). */
    held: [] as Array<readonly [string, number]>,
    /** Webhooks whose breaker is not closed: 1 open, 2 half open (refreshed the same way). */
    breakers: [] as Array<readonly [string, number]>,
  };
  /** The function runtime's counts per worker (or the one in-process host), read at collection time; set by server.ts. */
  const runtime = {
    workers: (): ReadonlyArray<{ restarts: number; isolates: number; coldStarts: number }> => [],
  };
  const sumOf = (field: 'restarts' | 'isolates' | 'coldStarts') => runtime.workers().reduce((n, w) => n + w[field], 0);
  // GET /metrics: scrapes share one collection, at most one a second, at most MAX_WAITING_SCRAPES waiting (shared-collection.ts).
  const local: SharedCollection<string> = new SharedCollection({
    collect: () => registry.metrics(),
    minIntervalMs: METRICS_MIN_INTERVAL_MS,
    maxWaiting: MAX_WAITING_SCRAPES,
    refuse: () => new TooManyScrapesError(MAX_WAITING_SCRAPES),
  });
  let scrapes = local;
  // Read at collection time: the process's own count (a cluster answer carries the primary's instead, metrics-aggregate.ts).
  new Counter({
    name: 'switchyard_metrics_collections_total',
    help: COLLECTIONS_HELP,
    registers: [registry],
    aggregator: 'max',
    collect() {
      this.reset();
      this.inc(local.collections);
    },
  });
  new Gauge({
    name: 'switchyard_build_info',
    help: 'Always 1: the Switchyard version, Node.js version and store kind of this process',
    labelNames: ['version', 'node_version', 'store'],
    registers: [registry],
    aggregator: 'max',
  })
    .labels(VERSION, process.version, deps.store ?? 'unknown')
    .set(1);
  new Gauge({
    name: 'switchyard_clock_offset_seconds',
    help: "The database server's clock minus this node's (PostgreSQL; 0 on SQLite)",
    registers: [registry],
    // Every process reads the same database clock: summing would count it N times.
    aggregator: 'max',
    collect() {
      this.set(clockOffsetMs() / 1000);
    },
  });
  const counter = (name: string, help: string, labelNames: string[] = []) => new Counter({ name, help, labelNames, registers: [registry] });
  const histogram = (name: string, help: string, labelNames: string[] = []) =>
    new Histogram({ name, help, labelNames, buckets: DEFAULT_BUCKETS, registers: [registry] });

  const metrics = {
    /**
     * What GET /metrics answers: this process's series, or the whole node's after answerWith (cluster.ts).
     * Rejects with TooManyScrapesError past MAX_WAITING_SCRAPES waiting.
     */
    exposition: () => scrapes.get(),
    /** This process's series as prom-client's JSON, for the cluster primary's gathering. */
    json: async () => (await registry.getMetricsAsJSON()) as unknown as MetricFamily[],
    /**
     * In a server process of a cluster: GET /metrics answers what `collect` gathers from every process.
     * The primary paces the node's collections; here scrapes only share the one in flight.
     */
    answerWith(collect: () => Promise<string>) {
      scrapes = new SharedCollection({
        collect,
        minIntervalMs: 0,
        maxWaiting: MAX_WAITING_SCRAPES,
        refuse: () => new TooManyScrapesError(MAX_WAITING_SCRAPES),
      });
    },
    queue,
    deliveries: counter('switchyard_webhook_attempts_total', 'Webhook delivery attempts by outcome', ['outcome']),
    attemptLatency: histogram('switchyard_webhook_attempt_duration_seconds', 'Duration of one webhook delivery attempt'),
    queueDepth: new Gauge({
      name: 'switchyard_webhook_queue_depth',
      help: 'Pending webhook deliveries (refreshed every 5 s)',
      registers: [registry],
      // Read from the shared store by every process: one value, not N times it.
      aggregator: 'max',
      collect() {
        this.set(queue.depth);
      },
    }),
    webhookLoad,
    webhookInflight: readGauge(
      registry,
      'switchyard_webhook_inflight_attempts',
      'Delivery attempts in flight on this node per webhook id (webhooks with none are not listed)',
      'webhook',
      () => webhookLoad.inflight,
    ),
    webhookConcurrencyLimit: readGauge(
      registry,
      'switchyard_webhook_concurrency_limit',
      "Attempts a webhook may have in flight on this node now, following its target's latency (webhooks not measured yet are not listed: they have the initial 50)",
      'webhook',
      () => webhookLoad.limits,
    ),
    webhookPending: readGauge(
      registry,
      'switchyard_webhook_pending_deliveries',
      'Pending deliveries per webhook id, the 200 deepest queues (refreshed every 5 s; webhooks with none are not listed)',
      'webhook',
      () => () => webhookLoad.pending,
      'max',
    ),
    webhookHeld: readGauge(
      registry,
      'switchyard_webhook_held_deliveries',
      'Held deliveries per webhook id (not attempted while the webhook is disabled, paused or its breaker open), the 200 largest counts (refreshed every 5 s; webhooks with none are not listed)',
      'webhook',
      () => () => webhookLoad.held,
      'max',
    ),
    webhookBreakers: readGauge(
      registry,
      'switchyard_webhook_breaker_state',
      'Webhooks whose circuit breaker is not closed: 1 open, 2 half open (a probe in flight); closed ones are not listed (refreshed every 5 s)',
      'webhook',
      () => () => webhookLoad.breakers,
      'max',
    ),
    webhookHealthEvents: counter('switchyard_webhook_health_events_total', 'Webhooks paused, resumed and disabled (as their operational events), and probes that failed', ['event']),
    webhookHeldDiscarded: counter('switchyard_webhook_held_discarded_total', 'Held deliveries discarded: by the held bound (oldest first) or by an operator', ['reason']),
    webhookDeferred: counter('switchyard_webhook_deferred_total', "Claimed deliveries put back unsent: a webhook's rate limit had no token, or its target's Retry-After had not passed", ['reason']),
    schedulerLag: histogram('switchyard_scheduler_lateness_seconds', 'How late a cron slot was claimed after its time'),
    registry,
    requests: counter('switchyard_http_requests_total', 'Invocation requests by API, route and status (route "" for answers no route took: no such API or route, a wrong method)', ['api', 'route', 'status']),
    latency: histogram('switchyard_http_request_duration_seconds', 'Invocation request latency by API and route', ['api', 'route']),
    refusals: counter('switchyard_gateway_refusals_total', "Invocations a route's policy refused before its function ran, by API, route and reason", ['api', 'route', 'reason']),
    invocations: counter('switchyard_function_invocations_total', 'Function invocations by function and outcome', ['function', 'outcome']),
    functionRuns: counter('switchyard_function_runs_total', 'Attempts of background, scheduled and event-triggered function runs by outcome (succeeded, retry, failed)', [
      'function',
      'trigger',
      'outcome',
    ]),
    timeouts: counter('switchyard_function_timeouts_total', 'Invocations stopped by the time limit', ['function']),
    errors: counter('switchyard_function_errors_total', 'Invocations that failed (throw, memory, crash, bad result)', ['function', 'code']),
    managementRequests: counter('switchyard_management_requests_total', 'Management API requests by method, route template and status', ['method', 'route', 'status']),
    managementLatency: histogram('switchyard_management_request_duration_seconds', 'Management API request latency by method and route template', ['method', 'route']),
    runtime,
    // Read from the runtime at collection time: the invocation path counts nothing for them.
    coldStarts: new Counter({
      name: 'switchyard_isolate_cold_starts_total',
      help: "Isolates created for a function version (its first call after a deploy or eviction, a crashed isolate's successor, a prewarm before a schedule)",
      registers: [registry],
      collect() {
        this.reset();
        this.inc(sumOf('coldStarts'));
      },
    }),
    warmIsolates: new Gauge({
      name: 'switchyard_isolates',
      help: "Function isolates alive now (warm or serving) in this node's runtime",
      registers: [registry],
      collect() {
        this.set(sumOf('isolates'));
      },
    }),
    workerRestarts: new Counter({
      name: 'switchyard_runtime_restarts_total',
      help: 'Isolate runtime restarts: a worker process started again after it exited or crashed, or (isolates in the server process) every isolate discarded over the memory bound',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(sumOf('restarts'));
      },
    }),
  };

  /** Drops every series of `metrics` whose labels `match`: what a deleted function, API or route leaves behind. */
  async function forget(list: ReadonlyArray<Counter<string> | Histogram<string>>, match: (labels: Record<string, string | number>) => boolean): Promise<void> {
    for (const metric of list) {
      const seen = new Set<string>();
      for (const v of (await metric.get()).values) {
        const { le: _le, ...labels } = v.labels as Record<string, string | number>;
        const key = JSON.stringify(labels);
        if (seen.has(key) || !match(labels)) continue;
        seen.add(key);
        metric.remove(labels);
      }
    }
  }
  return {
    ...metrics,
    /** Removes a deleted webhook from the gauges refreshed in the background (the live ones follow the engine). */
    forgetWebhook(id: string): void {
      const other = ([webhook]: readonly [string, number]) => webhook !== id;
      webhookLoad.pending = webhookLoad.pending.filter(other);
      webhookLoad.held = webhookLoad.held.filter(other);
      webhookLoad.breakers = webhookLoad.breakers.filter(other);
    },
    /** Removes the series of a deleted function. */
    forgetFunction: (name: string) => forget([metrics.invocations, metrics.functionRuns, metrics.timeouts, metrics.errors], (l) => l.function === name),
    /** Removes the series of an API's routes that `keep` does not list (`METHOD resource`); keep null: the API is deleted, all go. */
    forgetRoutes: (apiId: string, keep: ReadonlySet<string> | null) =>
      forget([metrics.requests, metrics.latency, metrics.refusals], (l) => l.api === apiId && (keep === null || !keep.has(String(l.route)))),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** One sample's value (0 when absent): for tests and the gateway's own checks. */
export async function sampleOf(metric: Counter<string> | Gauge<string>, labels: Record<string, string> = {}): Promise<number> {
  const keys = Object.keys(labels);
  const found = (await metric.get()).values.find((v) => keys.every((k) => String(v.labels[k]) === labels[k]) && Object.keys(v.labels).length === keys.length);
  return found?.value ?? 0;
}
