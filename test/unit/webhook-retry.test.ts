import { describe, expect, it } from 'vitest';
import { classify, nextDelayMs, parseRetryAfter } from '../../src/webhooks/retry.js';

const policy = (maxAttempts = 8, scheduleS: number[] | null = null) => ({ maxAttempts, scheduleS });
const mid = () => 0.5; // no jitter

describe('classify', () => {
  it('maps statuses and errors to outcomes', () => {
    expect(classify({ status: 200 })).toBe('succeeded');
    expect(classify({ status: 204 })).toBe('succeeded');
    expect(classify({ status: 301 })).toBe('failed');
    expect(classify({ status: 302 })).toBe('failed');
    expect(classify({ status: 400 })).toBe('failed');
    expect(classify({ status: 404 })).toBe('failed');
    expect(classify({ status: 408 })).toBe('retry');
    expect(classify({ status: 410 })).toBe('disable');
    expect(classify({ status: 429 })).toBe('retry');
    expect(classify({ status: 500 })).toBe('retry');
    expect(classify({ status: 503 })).toBe('retry');
    expect(classify({ error: 'connection refused (ECONNREFUSED)' })).toBe('retry');
    expect(classify({ error: 'timeout after 15000 ms' })).toBe('retry');
  });
});

describe('nextDelayMs', () => {
  it('follows the Standard Webhooks schedule, 10 h beyond it', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => nextDelayMs(n, policy(30), undefined, mid));
    expect(delays).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000, 36000, 36000].map((s) => s * 1000));
  });

  it('stops when the attempts are exhausted', () => {
    expect(nextDelayMs(7, policy(8), undefined, mid)).toBe(36_000_000);
    expect(nextDelayMs(8, policy(8), undefined, mid)).toBeNull();
    expect(nextDelayMs(1, policy(1), undefined, mid)).toBeNull();
  });

  it('uses a custom schedule, repeating its last value', () => {
    const p = policy(10, [1, 2]);
    expect([1, 2, 3, 4].map((n) => nextDelayMs(n, p, undefined, mid))).toEqual([1000, 2000, 2000, 2000]);
  });

  it('jitters by at most 20 %', () => {
    expect(nextDelayMs(2, policy(), undefined, () => 0)).toBe(240_000);
    expect(nextDelayMs(2, policy(), undefined, () => 0.999999)).toBeCloseTo(360_000, -1);
    expect(nextDelayMs(2, policy(), undefined, () => 0.75)).toBe(330_000);
  });

  it('honours Retry-After as a minimum, capped at 24 h', () => {
    expect(nextDelayMs(1, policy(), '120', mid)).toBe(120_000);
    expect(nextDelayMs(1, policy(), '1', mid)).toBe(5_000); // shorter than the schedule: schedule wins
    expect(nextDelayMs(1, policy(), String(7 * 86400), mid)).toBe(86_400_000);
    const now = Date.parse('2024-01-01T00:00:00Z');
    expect(nextDelayMs(1, policy(), 'Mon, 01 Jan 2024 00:10:00 GMT', mid, now)).toBe(600_000);
    expect(nextDelayMs(1, policy(), 'soon', mid)).toBe(5_000);
  });

  it('parses Retry-After seconds and dates', () => {
    expect(parseRetryAfter(' 30 ', 0)).toBe(30_000);
    expect(parseRetryAfter(undefined, 0)).toBeNull();
    expect(parseRetryAfter('Thu, 01 Jan 1970 00:00:10 GMT', 0)).toBe(10_000);
    expect(parseRetryAfter('Thu, 01 Jan 1970 00:00:10 GMT', 60_000)).toBe(0);
  });
});
