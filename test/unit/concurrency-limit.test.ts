/**
 * The per-target adaptive limit of attempts in flight, fed with chosen
 * latencies: no clock, no network, every step counted.
 */
import { describe, expect, it } from 'vitest';
import { AdaptiveLimit, TargetLimits } from '../../src/deliveries/concurrency-limit.js';

const BOUNDS = { initial: 50, min: 1, max: 500 };

/** One window's worth of samples (the current limit's), all in use, at `latencyMs`. */
function window(limit: AdaptiveLimit, latencyMs: number, opts: { inflight?: number; saturated?: boolean } = {}): number {
  const n = Math.max(10, limit.limit);
  for (let i = 0; i < n; i++) limit.sample(latencyMs, false, opts.inflight ?? limit.limit, opts.saturated ?? false);
  return limit.limit;
}

describe('adaptive concurrency limit of one target', () => {
  it('doubles per window while the latency holds, up to its ceiling', () => {
    const l = new AdaptiveLimit(BOUNDS);
    expect(l.limit).toBe(50);
    expect([window(l, 50), window(l, 50), window(l, 50), window(l, 50)]).toEqual([100, 200, 400, 500]);
    expect(window(l, 50)).toBe(500);
  });

  it('does not grow on a trickle: a window that used less than half the limit proves nothing', () => {
    const l = new AdaptiveLimit(BOUNDS);
    expect(window(l, 50, { inflight: 3 })).toBe(50);
    expect(window(l, 50, { inflight: 24 })).toBe(50);
    expect(window(l, 50, { inflight: 25 })).toBe(100);
  });

  it('decides only once a window is full', () => {
    const l = new AdaptiveLimit(BOUNDS);
    for (let i = 0; i < 49; i++) l.sample(50, false, 50);
    expect(l.limit).toBe(50);
    l.sample(50, false, 50);
    expect(l.limit).toBe(100);
  });

  it('shrinks in proportion when the latency grows past tolerance x baseline + slack, at most halving', () => {
    const l = new AdaptiveLimit(BOUNDS);
    window(l, 100); // baseline 100 ms, limit 100
    expect(l.limit).toBe(100);
    // Allowed: 2 x 100 + 5 = 205 ms. 410 ms: halved.
    expect(window(l, 410)).toBe(50);
    // 1000 ms is worse than twice allowed: still only halved.
    expect(window(l, 1000)).toBe(25);
  });

  it('grows by sqrt(limit) per window once slow start has ended', () => {
    const l = new AdaptiveLimit(BOUNDS);
    window(l, 100); // 100
    window(l, 300); // over 205: 100 x 205/300 = 68.3, slow start over
    expect(l.limit).toBe(68);
    const before = 205 / 3;
    expect(window(l, 100)).toBe(Math.floor(before + Math.sqrt(before)));
  });

  it('holds instead of shrinking when the latency grew while this node was saturated', () => {
    const l = new AdaptiveLimit(BOUNDS);
    window(l, 100);
    expect(window(l, 1000, { saturated: true })).toBe(100);
    expect(window(l, 1000, { saturated: true })).toBe(100);
    // Not saturated any more and still slow: the target it is.
    expect(window(l, 1000)).toBe(50);
  });

  it('falls to its floor when the attempts in flight to a hung target time out', () => {
    const l = new AdaptiveLimit(BOUNDS);
    window(l, 20);
    window(l, 20);
    expect(l.limit).toBe(200);
    // Each timeout counts at once, not per window.
    l.sample(15_000, true, 200);
    expect(l.limit).toBe(180);
    for (let i = 0; i < 199; i++) l.sample(15_000, true, 200 - i);
    expect(l.limit).toBe(1);
    // One probe at a time, and back up by doubling... only after slow start is over: by sqrt.
    expect(window(l, 20)).toBe(2);
  });

  it('lets the baseline drift up slowly, so that a latency risen for good is accepted in time', () => {
    const l = new AdaptiveLimit({ initial: 100, min: 1, max: 100 });
    window(l, 10); // baseline 10: allowed 25
    expect(window(l, 40)).toBeLessThan(100);
    let windows = 0;
    while (window(l, 40) < 100 && windows < 500) windows++;
    expect(windows).toBeGreaterThan(10);
    expect(windows).toBeLessThan(500);
  });
});

describe('limits of every target', () => {
  it('lists for the claim only the targets measured away from the initial limit', () => {
    const limits = new TargetLimits(BOUNDS);
    expect(limits.of('wh_a')).toBe(50);
    for (let i = 0; i < 50; i++) limits.sample('wh_a', 50, false, 50);
    limits.sample('wh_b', 50, false, 1);
    limits.sample('wh_c', 15_000, true, 1);
    expect(limits.of('wh_a')).toBe(100);
    expect([...limits.measured()]).toEqual([
      ['wh_a', 100],
      ['wh_c', 45],
    ]);
    expect([...limits.entries()]).toEqual([
      ['wh_a', 100],
      ['wh_b', 50],
      ['wh_c', 45],
    ]);
  });

  it('forgets targets back at the initial limit when it tracks too many', () => {
    const limits = new TargetLimits(BOUNDS, undefined, 3);
    limits.sample('wh_a', 15_000, true, 1);
    limits.sample('wh_b', 50, false, 1);
    limits.sample('wh_c', 50, false, 1);
    limits.sample('wh_d', 50, false, 1);
    expect([...limits.entries()].map(([t]) => t)).toEqual(['wh_a', 'wh_d']);
    expect(limits.of('wh_a')).toBe(45);
  });
});
