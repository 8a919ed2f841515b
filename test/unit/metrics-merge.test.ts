import { describe, expect, it } from 'vitest';
import { mergeExpositions } from '../../src/metrics-merge.js';

const processA = `# HELP switchyard_http_requests_total Invocation requests
# TYPE switchyard_http_requests_total counter
switchyard_http_requests_total{api="a",route="GET /",status="200"} 3
# HELP switchyard_webhook_queue_depth Pending webhook deliveries
# TYPE switchyard_webhook_queue_depth gauge
switchyard_webhook_queue_depth 40
# HELP switchyard_webhook_inflight_attempts In flight on this node
# TYPE switchyard_webhook_inflight_attempts gauge
switchyard_webhook_inflight_attempts{webhook="w1"} 2
# HELP switchyard_scheduler_lateness_seconds Lateness
# TYPE switchyard_scheduler_lateness_seconds histogram
switchyard_scheduler_lateness_seconds_bucket{le="1"} 1
switchyard_scheduler_lateness_seconds_bucket{le="+Inf"} 2
switchyard_scheduler_lateness_seconds_sum 3.5
switchyard_scheduler_lateness_seconds_count 2
`;
const processB = `# HELP switchyard_http_requests_total Invocation requests
# TYPE switchyard_http_requests_total counter
switchyard_http_requests_total{api="a",route="GET /",status="200"} 4
switchyard_http_requests_total{api="a",route="GET /",status="500"} 1
# HELP switchyard_webhook_queue_depth Pending webhook deliveries
# TYPE switchyard_webhook_queue_depth gauge
switchyard_webhook_queue_depth 38
# HELP switchyard_webhook_inflight_attempts In flight on this node
# TYPE switchyard_webhook_inflight_attempts gauge
switchyard_webhook_inflight_attempts{webhook="w1"} 5
# HELP switchyard_scheduler_lateness_seconds Lateness
# TYPE switchyard_scheduler_lateness_seconds histogram
switchyard_scheduler_lateness_seconds_bucket{le="1"} 0
switchyard_scheduler_lateness_seconds_bucket{le="+Inf"} 1
switchyard_scheduler_lateness_seconds_sum 2
switchyard_scheduler_lateness_seconds_count 1
`;

describe('mergeExpositions', () => {
  const merged = mergeExpositions([processA, processB]);
  const value = (key: string) => {
    const line = merged.split('\n').find((l) => l.startsWith(`${key} `));
    return line === undefined ? undefined : Number(line.slice(key.length + 1));
  };

  it('adds counters and histograms series by series, keeping series only one process has', () => {
    expect(value('switchyard_http_requests_total{api="a",route="GET /",status="200"}')).toBe(7);
    expect(value('switchyard_http_requests_total{api="a",route="GET /",status="500"}')).toBe(1);
    expect(value('switchyard_scheduler_lateness_seconds_bucket{le="1"}')).toBe(1);
    expect(value('switchyard_scheduler_lateness_seconds_bucket{le="+Inf"}')).toBe(3);
    expect(value('switchyard_scheduler_lateness_seconds_sum')).toBe(5.5);
    expect(value('switchyard_scheduler_lateness_seconds_count')).toBe(3);
  });

  it("adds per-process gauges, and reports a gauge read from the shared database once", () => {
    expect(value('switchyard_webhook_inflight_attempts{webhook="w1"}')).toBe(7);
    expect(value('switchyard_webhook_queue_depth')).toBe(40);
  });

  it('prints each family once, with its help and type, samples under it', () => {
    expect(merged.match(/^# TYPE switchyard_http_requests_total counter$/gm)).toHaveLength(1);
    expect(merged.match(/^# HELP switchyard_scheduler_lateness_seconds Lateness$/gm)).toHaveLength(1);
    const lines = merged.trim().split('\n');
    const type = lines.indexOf('# TYPE switchyard_scheduler_lateness_seconds histogram');
    expect(lines[type + 1]).toBe('switchyard_scheduler_lateness_seconds_bucket{le="1"} 1');
    expect(mergeExpositions([processA])).toBe(processA);
  });
});
