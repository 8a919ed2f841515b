/**
 * A small Prometheus registry: counters and histograms with labels, rendered in
 * the text exposition format at GET /metrics. Hand-written because the needs are
 * tiny and the hot path (one increment and one observation per request) must
 * stay a map lookup; label sets are cached as joined strings.
 */

import { TooManyScrapesError } from './errors.js';
import { SharedCollection } from './shared-collection.js';

type Labels = Record<string, string>;

/** A node collects its metrics at most this often, however many scrapes come. */
export const METRICS_MIN_INTERVAL_MS = 1000;
/** Scrapes of one server process waiting for a collection at once, at most; the next gets a 503. */
export const MAX_WAITING_SCRAPES = 4;

/** The collections counter of an answer: this process's own, or the cluster primary's for the node. */
export function collectionsText(collections: number): string {
  return (
    '# HELP switchyard_metrics_collections_total Collections of this node\'s metrics for GET /metrics (scrapes that arrive together share one)\n' +
    '# TYPE switchyard_metrics_collections_total counter\n' +
    `switchyard_metrics_collections_total ${collections}\n`
  );
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labelText(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return '';
  return '{' + names.map((n, i) => `${n}="${escapeLabel(values[i])}"`).join(',') + '}';
}

interface Metric {
  render(): string;
}

export class Counter implements Metric {
  private readonly values = new Map<string, { labels: string[]; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[] = [],
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const values = this.labelNames.map((n) => labels[n] ?? '');
    const key = values.join('\u0000');
    const entry = this.values.get(key);
    if (entry) entry.value += by;
    else this.values.set(key, { labels: values, value: by });
  }

  /** A pre-resolved label set, for hot paths that count the same series again and again. */
  series(values: string[]): { inc(by?: number): void } {
    const key = values.join('\u0000');
    let entry = this.values.get(key);
    if (!entry) {
      entry = { labels: values, value: 0 };
      this.values.set(key, entry);
    }
    const e = entry;
    return {
      inc(by = 1) {
        e.value += by;
      },
    };
  }

  get(labels: Labels = {}): number {
    return this.values.get(this.labelNames.map((n) => labels[n] ?? '').join('\u0000'))?.value ?? 0;
  }

  render(): string {
    let out = `# HELP ${this.name} ${this.help}\n# TYPE ${this.name} counter\n`;
    for (const { labels, value } of this.values.values()) {
      out += `${this.name}${labelText(this.labelNames, labels)} ${value}\n`;
    }
    return out;
  }
}

export class Gauge implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => number,
  ) {}

  render(): string {
    return `# HELP ${this.name} ${this.help}\n# TYPE ${this.name} gauge\n${this.name} ${this.read()}\n`;
  }
}

/**
 * A gauge with one label whose series are read at scrape time: only the label
 * values `read` yields appear, so a series with nothing to report is absent
 * rather than an ever-growing list of zeros.
 */
export class LabeledGauge implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelName: string,
    private readonly read: () => Iterable<readonly [string, number]>,
  ) {}

  render(): string {
    let out = `# HELP ${this.name} ${this.help}\n# TYPE ${this.name} gauge\n`;
    for (const [label, value] of this.read()) out += `${this.name}${labelText([this.labelName], [label])} ${value}\n`;
    return out;
  }
}

const DEFAULT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class Histogram implements Metric {
  private readonly series = new Map<string, { labels: string[]; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[] = [],
    readonly buckets: readonly number[] = DEFAULT_BUCKETS,
  ) {}

  observe(labels: Labels, seconds: number): void {
    this.seriesOf(this.labelNames.map((n) => labels[n] ?? '')).observe(seconds);
  }

  /** A pre-resolved label set (see Counter.series). */
  seriesOf(values: string[]): { observe(seconds: number): void } {
    const key = values.join('\u0000');
    let s = this.series.get(key);
    if (!s) {
      s = { labels: values, counts: new Array(this.buckets.length).fill(0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    const series = s;
    const buckets = this.buckets;
    return {
      observe(seconds: number) {
        series.sum += seconds;
        series.count++;
        for (let i = 0; i < buckets.length; i++) {
          if (seconds <= buckets[i]) {
            series.counts[i]++;
            break;
          }
        }
      },
    };
  }

  render(): string {
    let out = `# HELP ${this.name} ${this.help}\n# TYPE ${this.name} histogram\n`;
    const names = [...this.labelNames, 'le'];
    for (const s of this.series.values()) {
      let cumulative = 0;
      for (let i = 0; i < this.buckets.length; i++) {
        cumulative += s.counts[i];
        out += `${this.name}_bucket${labelText(names, [...s.labels, String(this.buckets[i])])} ${cumulative}\n`;
      }
      out += `${this.name}_bucket${labelText(names, [...s.labels, '+Inf'])} ${s.count}\n`;
      out += `${this.name}_sum${labelText(this.labelNames, s.labels)} ${s.sum}\n`;
      out += `${this.name}_count${labelText(this.labelNames, s.labels)} ${s.count}\n`;
    }
    return out;
  }
}

export class Registry {
  private readonly metrics: Metric[] = [];
  register<T extends Metric>(metric: T): T {
    this.metrics.push(metric);
    return metric;
  }
  render(): string {
    return this.metrics.map((m) => m.render()).join('');
  }
}

/**
 * The metrics the gateway and runtime record. Created once per server;
 * `clockOffsetMs` reads the node's offset from the database clock (clock.ts).
 */
export function createMetrics(clockOffsetMs: () => number = () => 0) {
  const registry = new Registry();
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
  // GET /metrics: scrapes share one collection, at most one a second, at most MAX_WAITING_SCRAPES waiting (shared-collection.ts).
  const local: SharedCollection<string> = new SharedCollection({
    collect: async () => registry.render() + collectionsText(local.collections),
    minIntervalMs: METRICS_MIN_INTERVAL_MS,
    maxWaiting: MAX_WAITING_SCRAPES,
    refuse: () => new TooManyScrapesError(MAX_WAITING_SCRAPES),
  });
  let scrapes = local;
  registry.register(
    new Gauge(
      'switchyard_clock_offset_seconds',
      "The database server's clock minus this node's (PostgreSQL; 0 on SQLite)",
      () => clockOffsetMs() / 1000,
    ),
  );
  return {
    /**
     * What GET /metrics answers: this process's series, or the whole node's after answerWith (cluster.ts).
     * Rejects with TooManyScrapesError past MAX_WAITING_SCRAPES waiting.
     */
    exposition: () => scrapes.get(),
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
    deliveries: registry.register(
      new Counter('switchyard_webhook_attempts_total', 'Webhook delivery attempts by outcome', ['outcome']),
    ),
    attemptLatency: registry.register(
      new Histogram('switchyard_webhook_attempt_duration_seconds', 'Duration of one webhook delivery attempt'),
    ),
    queueDepth: registry.register(
      new Gauge('switchyard_webhook_queue_depth', 'Pending webhook deliveries (refreshed every 5 s)', () => queue.depth),
    ),
    webhookLoad,
    webhookInflight: registry.register(
      new LabeledGauge(
        'switchyard_webhook_inflight_attempts',
        'Delivery attempts in flight on this node per webhook id (webhooks with none are not listed)',
        'webhook',
        () => webhookLoad.inflight(),
      ),
    ),
    webhookConcurrencyLimit: registry.register(
      new LabeledGauge(
        'switchyard_webhook_concurrency_limit',
        "Attempts a webhook may have in flight on this node now, following its target's latency (webhooks not measured yet are not listed: they have the initial 50)",
        'webhook',
        () => webhookLoad.limits(),
      ),
    ),
    webhookPending: registry.register(
      new LabeledGauge(
        'switchyard_webhook_pending_deliveries',
        'Pending deliveries per webhook id, the 200 deepest queues (refreshed every 5 s; webhooks with none are not listed)',
        'webhook',
        () => webhookLoad.pending,
      ),
    ),
    webhookHeld: registry.register(
      new LabeledGauge(
        'switchyard_webhook_held_deliveries',
        'Held deliveries per webhook id (not attempted while the webhook is disabled, paused or its breaker open), the 200 largest counts (refreshed every 5 s; webhooks with none are not listed)',
        'webhook',
        () => webhookLoad.held,
      ),
    ),
    webhookBreakers: registry.register(
      new LabeledGauge(
        'switchyard_webhook_breaker_state',
        "Webhooks whose circuit breaker is not closed: 1 open, 2 half open (a probe in flight); closed ones are not listed (refreshed every 5 s)",
        'webhook',
        () => webhookLoad.breakers,
      ),
    ),
    webhookHealthEvents: registry.register(
      new Counter('switchyard_webhook_health_events_total', 'Webhooks paused, resumed and disabled (as their operational events), and probes that failed', ['event']),
    ),
    webhookHeldDiscarded: registry.register(
      new Counter('switchyard_webhook_held_discarded_total', 'Held deliveries discarded: by the held bound (oldest first) or by an operator', ['reason']),
    ),
    webhookDeferred: registry.register(
      new Counter('switchyard_webhook_deferred_total', "Claimed deliveries put back unsent: a webhook's rate limit had no token, or its target's Retry-After had not passed", ['reason']),
    ),
    schedulerLag: registry.register(
      new Histogram('switchyard_scheduler_lateness_seconds', 'How late a cron slot was claimed after its time'),
    ),
    registry,
    requests: registry.register(
      new Counter('switchyard_http_requests_total', 'Invocation requests by API, route and status', [
        'api',
        'route',
        'status',
      ]),
    ),
    latency: registry.register(
      new Histogram('switchyard_http_request_duration_seconds', 'Invocation request latency by API and route', [
        'api',
        'route',
      ]),
    ),
    refusals: registry.register(
      new Counter('switchyard_gateway_refusals_total', "Invocations a route's policy refused before its function ran, by API, route and reason", [
        'api',
        'route',
        'reason',
      ]),
    ),
    invocations: registry.register(
      new Counter('switchyard_function_invocations_total', 'Function invocations by function and outcome', [
        'function',
        'outcome',
      ]),
    ),
    functionRuns: registry.register(
      new Counter('switchyard_function_runs_total', 'Attempts of background, scheduled and event-triggered function runs by outcome (succeeded, retry, failed)', [
        'function',
        'trigger',
        'outcome',
      ]),
    ),
    timeouts: registry.register(
      new Counter('switchyard_function_timeouts_total', 'Invocations stopped by the time limit', ['function']),
    ),
    errors: registry.register(
      new Counter('switchyard_function_errors_total', 'Invocations that failed (throw, memory, crash, bad result)', [
        'function',
        'code',
      ]),
    ),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
