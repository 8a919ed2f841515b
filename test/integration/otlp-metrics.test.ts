/**
 * OTLP metrics export over real HTTP: a server with OTEL_METRICS_EXPORTER=otlp
 * pushes the same series GET /metrics shows to the test's OTLP receiver —
 * the invocation counter as a monotonic cumulative Sum with its function's
 * attributes and count, the request latency as a Histogram with the
 * registry's buckets, the resource naming the service and the process — in
 * JSON and in protobuf, once more at the close, each process of a cluster under its own instance;
 * and nothing is pushed by default.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

interface KeyValue {
  key: string;
  value: Record<string, unknown>;
}
const valueOf = (v: Record<string, unknown> | undefined): unknown =>
  v === undefined ? undefined : (v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.boolValue)));
const attrsOf = (list: KeyValue[] | undefined): Record<string, unknown> => Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

/** Every metric of every JSON metrics post, latest last, with its post's resource attributes. */
function metricsIn(otlp: OtlpReceiver): Array<{ resource: Record<string, unknown>; metric: any }> {
  const out: Array<{ resource: Record<string, unknown>; metric: any }> = [];
  for (const post of otlp.posts) {
    if (post.path !== '/v1/metrics' || post.json === null) continue;
    for (const rm of post.json.resourceMetrics ?? []) {
      const resource = attrsOf(rm.resource?.attributes);
      for (const sm of rm.scopeMetrics ?? []) for (const metric of sm.metrics ?? []) out.push({ resource, metric });
    }
  }
  return out;
}

const latest = (otlp: OtlpReceiver, name: string) => metricsIn(otlp).filter((m) => m.metric.name === name).at(-1);

async function invokeScene(svc: RunningService, name: string, times: number): Promise<string> {
  const fn = await svc.request('POST', '/api/functions', { name, code: 'export const handler = async () => ({ statusCode: 200, body: "ok" });' });
  expect(fn.status, fn.text).toBe(201);
  const api = await svc.request('POST', '/api/apis', { name, basePath: '/', routes: [{ method: 'GET', path: '/items/{id}', function: name }] });
  expect(api.status, api.text).toBe(201);
  for (let i = 0; i < times; i++) {
    const r = await svc.request('GET', `/api/invoke/fn/${api.json.id}/items/${i}`);
    expect(r.status, r.text).toBe(200);
  }
  return api.json.id as string;
}

describe('OTLP metrics export', () => {
  let otlp: OtlpReceiver;
  beforeAll(async () => {
    otlp = await startOtlpReceiver();
  });
  afterAll(async () => {
    await otlp?.close();
  });

  it('pushes the invocation counter, a histogram and the resource over OTLP/HTTP JSON', async () => {
    otlp.posts.length = 0;
    // The metrics endpoint alone: OTEL_EXPORTER_OTLP_ENDPOINT would turn tracing on as well.
    const svc = await startService({
      env: {
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${otlp.url}/v1/metrics`,
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
        OTEL_METRIC_EXPORT_INTERVAL: '200',
        OTEL_SERVICE_NAME: 'yard-test',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
      },
      startTimeoutMs: 60_000,
    });
    try {
      await invokeScene(svc, 'counted', 3);
      const counter = await until(() => {
        const m = latest(otlp, 'switchyard_function_invocations_total');
        const points = (m?.metric.sum?.dataPoints ?? []).filter((p: any) => attrsOf(p.attributes).function === 'counted');
        const total = points.reduce((n: number, p: any) => n + Number(p.asDouble ?? p.asInt), 0);
        return total === 3 ? m : undefined;
      }, 'three invocations of "counted" in a pushed switchyard_function_invocations_total', 30_000);
      expect(counter.metric.sum.isMonotonic).toBe(true);
      expect(counter.metric.sum.aggregationTemporality).toBe(2); // CUMULATIVE
      expect(counter.resource['service.name']).toBe('yard-test');
      expect(counter.resource['service.version']).toMatch(/^\d+\.\d+\.\d+/);
      expect(counter.resource['service.instance.id']).toMatch(/:\d+$/);
      expect(counter.resource['deployment.environment.name']).toBe('test');

      const requests = latest(otlp, 'switchyard_http_requests_total')!;
      const ok = requests.metric.sum.dataPoints.map((p: any) => attrsOf(p.attributes)).find((a: any) => a.status === '200' || a.status === 200);
      expect(ok).toMatchObject({ route: expect.any(String), api: expect.any(String) });

      const latency = latest(otlp, 'switchyard_http_request_duration_seconds')!;
      expect(latency.metric.histogram.aggregationTemporality).toBe(2);
      const point = latency.metric.histogram.dataPoints.find((p: any) => Number(p.count) >= 3)!;
      expect(point).toBeDefined();
      // The registry's bounds (metrics.ts DEFAULT_BUCKETS), one count per bucket plus the one above them all.
      expect(point.explicitBounds).toEqual([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);
      expect(point.bucketCounts).toHaveLength(15);
      expect(point.bucketCounts.reduce((n: number, c: unknown) => n + Number(c), 0)).toBe(Number(point.count));

      // A gauge stays a gauge.
      expect(latest(otlp, 'switchyard_build_info')?.metric.gauge.dataPoints.length).toBeGreaterThan(0);
    } finally {
      await svc.stop();
    }
  });

  it('pushes protobuf by default', async () => {
    otlp.posts.length = 0;
    const svc = await startService({
      env: { OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${otlp.url}/v1/metrics`, OTEL_METRIC_EXPORT_INTERVAL: '200' },
      startTimeoutMs: 60_000,
    });
    try {
      const post = await until(() => otlp.posts.find((p) => p.path === '/v1/metrics'), 'a protobuf metrics post', 30_000);
      expect(post.contentType).toMatch(/^application\/x-protobuf/);
      expect(post.bytes).toBeGreaterThan(0);
    } finally {
      await svc.stop();
    }
  });

  it('pushes the last values when the server stops', async () => {
    otlp.posts.length = 0;
    // An interval no test waits for: the only push is the one the close makes.
    const svc = await startService({
      env: {
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${otlp.url}/v1/metrics`,
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
        OTEL_METRIC_EXPORT_INTERVAL: '600000',
      },
      startTimeoutMs: 60_000,
    });
    try {
      await invokeScene(svc, 'last', 2);
    } finally {
      await svc.stop();
    }
    const points = (latest(otlp, 'switchyard_function_invocations_total')?.metric.sum.dataPoints ?? []).filter((p: any) => attrsOf(p.attributes).function === 'last');
    expect(points.reduce((n: number, p: any) => n + Number(p.asDouble ?? p.asInt), 0)).toBe(2);
  });

  it('pushes each server process of a node under its own service.instance.id', async () => {
    otlp.posts.length = 0;
    const svc = await startService({
      args: ['--processes', '2'],
      env: {
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${otlp.url}/v1/metrics`,
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
        OTEL_METRIC_EXPORT_INTERVAL: '200',
      },
      startTimeoutMs: 90_000,
    });
    try {
      const ids = await until(() => {
        const seen = new Set(metricsIn(otlp).map((m) => m.resource['service.instance.id']));
        return seen.size >= 2 ? seen : undefined;
      }, 'pushes from two server processes', 60_000);
      expect([...ids].every((id) => typeof id === 'string' && /:\d+$/.test(id))).toBe(true);
    } finally {
      await svc.stop();
    }
  });

  it('pushes nothing by default, even with a metrics endpoint set (GET /metrics only)', async () => {
    otlp.posts.length = 0;
    const svc = await startService({
      env: { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${otlp.url}/v1/metrics`, OTEL_METRIC_EXPORT_INTERVAL: '200' },
      startTimeoutMs: 60_000,
    });
    try {
      await invokeScene(svc, 'quiet', 1);
      const scrape = await svc.request('GET', '/metrics');
      expect(scrape.text).toContain('switchyard_function_invocations_total{function="quiet"');
    } finally {
      // A push that were on would send its last values at the close.
      await svc.stop();
    }
    expect(otlp.posts).toEqual([]);
  });
});
