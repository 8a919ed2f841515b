/**
 * A node's answer over several server processes (src/telemetry/metrics-aggregate.ts):
 * two real registries (createMetrics), their JSON aggregated as the cluster does.
 */
import { describe, expect, it } from 'vitest';
import { aggregateParts } from '../../src/telemetry/metrics-aggregate.js';
import { createMetrics } from '../../src/telemetry/metrics.js';

describe('aggregateParts', async () => {
  const a = createMetrics({ defaultMetrics: false });
  const b = createMetrics({ defaultMetrics: false });
  a.requests.labels('api_1', 'GET /', '200').inc(3);
  b.requests.labels('api_1', 'GET /', '200').inc(4);
  b.requests.labels('api_1', 'GET /', '500').inc();
  a.schedulerLag.observe(0.5);
  b.schedulerLag.observe(2);
  b.schedulerLag.observe(40);
  a.queue.depth = 40;
  b.queue.depth = 38;
  a.webhookLoad.inflight = () => [['w1', 2]];
  b.webhookLoad.inflight = () => [['w1', 5]];
  const text = await aggregateParts([await a.json(), await b.json()], 7);
  const value = (key: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${key} `));
    return line === undefined ? undefined : Number(line.slice(key.length + 1));
  };

  it('adds counters and histograms series by series, keeping series only one process has', () => {
    expect(value('switchyard_http_requests_total{api="api_1",route="GET /",status="200"}')).toBe(7);
    expect(value('switchyard_http_requests_total{api="api_1",route="GET /",status="500"}')).toBe(1);
    expect(value('switchyard_scheduler_lateness_seconds_bucket{le="1"}')).toBe(1);
    expect(value('switchyard_scheduler_lateness_seconds_bucket{le="+Inf"}')).toBe(3);
    expect(value('switchyard_scheduler_lateness_seconds_sum')).toBe(42.5);
    expect(value('switchyard_scheduler_lateness_seconds_count')).toBe(3);
  });

  it('adds per-process gauges, and reports a gauge read from the shared database once', () => {
    expect(value('switchyard_webhook_inflight_attempts{webhook="w1"}')).toBe(7);
    expect(value('switchyard_webhook_queue_depth')).toBe(40);
    expect(value('switchyard_build_info{version="' + /version="([^"]+)"/.exec(text)![1] + '",node_version="' + process.version + '",store="unknown"}')).toBe(1);
  });

  it("reports the primary's count of collections and how many processes it adds up", () => {
    expect(value('switchyard_metrics_collections_total')).toBe(7);
    expect(value('switchyard_server_processes')).toBe(2);
    expect(text.match(/^# TYPE switchyard_http_requests_total counter$/gm)).toHaveLength(1);
    expect(text.match(/^switchyard_metrics_collections_total /gm)).toHaveLength(1);
  });
});
