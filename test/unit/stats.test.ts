/**
 * Per-minute statistics without a server: percentile estimates from buckets,
 * and the collector's minutes under a hand-moved clock (a request of a new
 * minute moves the old one's counts aside; a take hands over everything).
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { StatsCollector } from '../../src/stats/collector.js';
import { percentile } from '../../src/stats/percentiles.js';
import { statsAnswer } from '../../src/stats/report.js';
import { BUCKETS } from '../../src/stats/types.js';

const buckets = (entries: Record<number, number>) => {
  const b = new Array<number>(BUCKETS).fill(0);
  for (const [i, n] of Object.entries(entries)) b[Number(i)] = n;
  return b;
};

describe('percentile', () => {
  it('interpolates within the bucket that holds the rank, capped by the largest value', () => {
    // 100 values in (10, 25] ms: the median lies halfway through that bucket.
    expect(percentile(buckets({ 4: 100 }), 0.5, 25)).toBe(17.5);
    expect(percentile(buckets({ 4: 100 }), 0.5, 12)).toBe(12);
    // 99 fast values and one slow one: p50 is fast, p99 still in the fast bucket, the max is not.
    expect(percentile(buckets({ 0: 99, 9: 1 }), 0.5, 800)).toBeLessThanOrEqual(1);
    expect(percentile(buckets({ 0: 98, 9: 2 }), 0.99, 800)).toBeGreaterThan(500);
    // The overflow bucket is estimated by the largest value seen.
    expect(percentile(buckets({ 14: 3 }), 0.5, 45_000)).toBe(45_000);
    expect(percentile(buckets({}), 0.5, 0)).toBeNull();
  });
});

describe('StatsCollector', () => {
  it('keeps each minute apart under a moved clock and hands everything over once', () => {
    const clock = new ManualClock(Date.parse('2026-07-01T10:00:10Z'));
    const stats = new StatsCollector({ clock, owner: 'test:1' });
    const cell = stats.requestCell('api_1', 'GET', '/x');
    const ok = stats.okCell('f');
    cell.add(false, 3);
    cell.add(true, 40);
    ok.add();
    clock.advance(60_000);
    cell.add(false, 2);
    stats.invocationFailed('f', 'function_error', 'boom', 'req-1');

    const batch = stats.take();
    const minute = Math.floor(Date.parse('2026-07-01T10:00:00Z') / 60_000);
    expect(batch.owner).toBe('test:1');
    expect(batch.requests.map((r) => [r.minute - minute, r.count, r.errors, r.maxMs])).toEqual([
      [0, 2, 1, 40],
      [1, 1, 0, 2],
    ]);
    expect(batch.requests[0].buckets[2]).toBe(1); // 3 ms: (2.5, 5]
    expect(batch.outcomes.map((o) => [o.minute - minute, o.outcome, o.count]).sort()).toEqual([
      [0, 'ok', 1],
      [1, 'function_error', 1],
    ]);
    expect(batch.failures).toMatchObject([{ source: 'invocation', id: 'req-1', subject: 'f', code: 'function_error' }]);
    // Nothing twice.
    const again = stats.take();
    expect(again.requests.length + again.outcomes.length + again.failures.length).toBe(0);

    const answer = statsAnswer({ requests: batch.requests, outcomes: batch.outcomes, lateness: [], failures: [] }, minute, 3);
    expect(answer.routes[0]).toMatchObject({ count: [2, 1, 0], errors: [1, 0, 0], total: { count: 3, errors: 1 } });
    expect(answer.time).toEqual([minute * 60, minute * 60 + 60, minute * 60 + 120]);
  });

  it('measures the lateness of scheduled first attempts and keeps deliveries failed for good', () => {
    const clock = new ManualClock(Date.parse('2026-07-01T10:00:00Z'));
    const stats = new StatsCollector({ clock, owner: 'test:1' });
    const slot = '2026-07-01T10:00:00.000Z';
    const at = Date.parse(slot) + 250;
    stats.attempted({ target: 'webhook', subject: 'wh_1', deliveryId: 'dlv_1', status: 'pending', attempt: 1, startedMs: at, scheduledFor: slot, error: 'HTTP 500' });
    stats.attempted({ target: 'webhook', subject: 'wh_1', deliveryId: 'dlv_1', status: 'failed', attempt: 2, startedMs: at + 5000, scheduledFor: slot, error: 'HTTP 500' });
    const batch = stats.take();
    expect(batch.lateness).toMatchObject([{ count: 1, maxMs: 250 }]);
    expect(batch.outcomes.map((o) => o.outcome).sort()).toEqual(['failed', 'retrying']);
    expect(batch.failures).toMatchObject([{ source: 'webhook', id: 'dlv_1', subject: 'wh_1', code: 'delivery_failed' }]);
  });
});
