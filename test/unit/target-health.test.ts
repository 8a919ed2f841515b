/**
 * The rules of endpoint health (src/store/shared/target-health.ts), pure:
 * the two-window estimate of the sliding window, when a breaker opens, the
 * failure streak and auto-disable, probes and their backoff, and an origin's
 * counts opening the breakers of the webhooks that share it.
 */
import { describe, expect, it } from 'vitest';
import {
  addSample,
  failureRatio,
  newTargetHealth,
  originKey,
  planHealth,
  PROBE_FIRST_MS,
  PROBE_MAX_MS,
  probeDue,
  probeEnded,
  probing,
  webhookKey,
  windowCounts,
  type HealthRules,
  type HealthSample,
} from '../../src/store/shared/target-health.js';
import { AUTO_DISABLE_DEFAULTS, BREAKER_DEFAULTS, type TargetHealth } from '../../src/webhooks/types.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const RULES: HealthRules = { breaker: { ...BREAKER_DEFAULTS, minAttempts: 10 }, autoDisable: null };
const fresh = (now = T0) => newTargetHealth(webhookKey('wh_1'), { webhookId: 'wh_1', origin: null }, now);

function sample(attempts: number, failures: number, at: number): HealthSample {
  return {
    webhookId: 'wh_1',
    origin: 'https://hooks.example',
    attempts,
    failures,
    firstFailureAt: failures > 0 ? at : null,
    lastFailureAt: failures > 0 ? at : null,
    lastSuccessAt: attempts > failures ? at : null,
  };
}

describe('the sliding window', () => {
  it('weighs the previous fixed window by how much of it the window still covers', () => {
    let h = fresh();
    h = addSample(h, sample(10, 4, T0 + 1000), RULES, T0 + 1000, true).row;
    // Half way into the next window: half of the previous one counts.
    expect(windowCounts(h, 60_000, T0 + 90_000)).toEqual({ attempts: 5, failures: 2 });
    // Two windows on: nothing.
    expect(windowCounts(h, 60_000, T0 + 121_000)).toEqual({ attempts: 0, failures: 0 });
    expect(failureRatio(h, 60_000, T0 + 30_000)).toBeCloseTo(0.4);
  });

  it('opens only with enough attempts at the failure ratio', () => {
    let h = fresh();
    const first = addSample(h, sample(9, 9, T0 + 1), RULES, T0 + 1, true);
    expect(first.row.state).toBe('closed');
    h = first.row;
    const second = addSample(h, sample(1, 1, T0 + 2), RULES, T0 + 2, true);
    expect(second.row.state).toBe('open');
    expect(second.row.probeAt).toBe(T0 + 2 + PROBE_FIRST_MS);
    expect(second.transitions).toEqual([expect.objectContaining({ kind: 'opened', failureRatio: 1, byOrigin: false })]);
    // Below the ratio it stays closed, however many attempts.
    const mostlyOk = addSample(fresh(), sample(100, 49, T0 + 1), RULES, T0 + 1, true);
    expect(mostlyOk.row.state).toBe('closed');
  });

  it('opens on failures in a row however slowly they come, and a success starts the count again', () => {
    let h = fresh();
    // One failure a minute: never 10 in one window, but 10 in a row.
    for (let i = 0; i < 9; i++) h = addSample(h, sample(1, 1, T0 + i * 60_000), RULES, T0 + i * 60_000, true).row;
    expect(h).toMatchObject({ state: 'closed', consecutiveFailures: 9 });
    const tenth = addSample(h, sample(1, 1, T0 + 540_000), RULES, T0 + 540_000, true);
    expect(tenth.row.state).toBe('open');
    expect(tenth.transitions).toEqual([expect.objectContaining({ kind: 'opened', failureRatio: 1, attempts: 10 })]);
    const reset = addSample(h, sample(1, 0, T0 + 540_000), RULES, T0 + 540_000, true).row;
    expect(reset).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
  });

  it('never opens a breaker that is off, nor one it may not open', () => {
    const off = { ...RULES, breaker: { ...RULES.breaker, enabled: false } };
    expect(addSample(fresh(), sample(50, 50, T0), off, T0, true).row.state).toBe('closed');
    expect(addSample(fresh(), sample(50, 50, T0), RULES, T0, false).row.state).toBe('closed');
  });
});

describe('probes', () => {
  it('start when the wait is over, and back off from 5 s doubling up to 5 min', () => {
    let h: TargetHealth = addSample(fresh(), sample(20, 20, T0), RULES, T0, true).row;
    expect(probeDue(h, T0 + PROBE_FIRST_MS - 1)).toBe(false);
    let now = T0 + PROBE_FIRST_MS;
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      expect(probeDue(h, now)).toBe(true);
      h = probing(h, `dlv_${i}`, now + 60_000);
      expect(probeDue(h, now)).toBe(false);
      const ended = probeEnded(h, `dlv_${i}`, false, now)!;
      expect(ended.transition.kind).toBe('probe_failed');
      waits.push(ended.row.probeAt! - now);
      h = ended.row;
      now = h.probeAt!;
    }
    expect(waits).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, PROBE_MAX_MS, PROBE_MAX_MS, PROBE_MAX_MS, PROBE_MAX_MS]);
  });

  it('close the breaker on success with a fresh window, and ignore the answer of a probe given up on', () => {
    const open = addSample(fresh(), sample(20, 20, T0), RULES, T0, true).row;
    const half = probing(open, 'dlv_probe', T0 + 60_000);
    expect(probeEnded(half, 'dlv_other', true, T0 + 6000)).toBeNull();
    const ended = probeEnded(half, 'dlv_probe', true, T0 + 6000)!;
    expect(ended.transition).toEqual({ kind: 'closed', key: webhookKey('wh_1'), webhookId: 'wh_1', origin: null });
    expect(ended.row).toMatchObject({ state: 'closed', attempts: 0, failures: 0, prevAttempts: 0, probeDeliveryId: null });
    // A half-open breaker whose probe was never answered may probe again after its wait.
    expect(probeDue(half, T0 + 60_001)).toBe(true);
  });
});

describe('the failure streak and auto-disable', () => {
  const disabling: HealthRules = { breaker: { ...BREAKER_DEFAULTS, enabled: false }, autoDisable: { afterS: 3600, minSpanS: 600 } };

  it('disables after the span only when the failures themselves span the minimum', () => {
    let h = addSample(fresh(), sample(1, 1, T0), disabling, T0, true).row;
    expect(h.failingSince).toBe(T0);
    // An hour on, but only one failure at its start: the span is not there.
    expect(addSample(h, sample(0, 0, T0), disabling, T0 + 3_700_000, true).transitions).toEqual([]);
    h = addSample(h, sample(1, 1, T0 + 700_000), disabling, T0 + 700_000, true).row;
    const late = addSample(h, sample(1, 1, T0 + 3_700_000), disabling, T0 + 3_700_000, true);
    expect(late.transitions).toEqual([{ kind: 'disable', key: webhookKey('wh_1'), webhookId: 'wh_1', failingSince: T0 }]);
  });

  it('starts over at a success', () => {
    let h = addSample(fresh(), sample(1, 1, T0), disabling, T0, true).row;
    h = addSample(h, sample(1, 0, T0 + 1000), disabling, T0 + 1000, true).row;
    expect(h.failingSince).toBeNull();
    h = addSample(h, sample(1, 1, T0 + 2000), disabling, T0 + 2000, true).row;
    expect(h.failingSince).toBe(T0 + 2000);
    expect(addSample(h, sample(1, 1, T0 + 3_601_000), disabling, T0 + 3_601_000, true).transitions).toEqual([]);
  });

  it('never disables with auto-disable off', () => {
    const off: HealthRules = { ...disabling, autoDisable: null };
    let h = addSample(fresh(), sample(1, 1, T0), off, T0, true).row;
    h = addSample(h, sample(1, 1, T0 + 86_400_000), off, T0 + 86_400_000, true).row;
    expect(addSample(h, sample(1, 1, T0 + 10 * 86_400_000), off, T0 + 10 * 86_400_000, true).transitions).toEqual([]);
    expect(AUTO_DISABLE_DEFAULTS).toEqual({ afterS: 432_000, minSpanS: 43_200 });
  });
});

describe('an origin shared by several webhooks', () => {
  const origin = 'https://hooks.example';
  const lenient: HealthRules = { breaker: { ...BREAKER_DEFAULTS, minAttempts: 1000 }, autoDisable: null };
  const webhooks = (n: number) =>
    new Map(Array.from({ length: n }, (_, i) => [`wh_${i}`, { rules: lenient, enabled: true, origin }] as const));
  const failing = (id: string, n: number): HealthSample => ({ ...sample(n, n, T0), webhookId: id, origin });

  it("opens every sharing webhook's own breaker when they fail together past the default breaker, and starts its counts over", () => {
    const plan = planHealth({ rows: new Map(), webhooks: webhooks(2) }, [failing('wh_0', 10), failing('wh_1', 10)], T0);
    const opened = plan.transitions.filter((t) => t.kind === 'opened');
    expect(opened.map((t) => [t.webhookId, t.kind === 'opened' && t.byOrigin])).toEqual([
      ['wh_0', true],
      ['wh_1', true],
    ]);
    const rows = new Map(plan.save.map((r) => [r.key, r]));
    expect(rows.get(webhookKey('wh_0'))!.state).toBe('open');
    expect(rows.get(originKey(origin))).toMatchObject({ state: 'closed', attempts: 0, failures: 0 });
  });

  it('does not open for an origin only one webhook sends to (its own breaker decides)', () => {
    const plan = planHealth({ rows: new Map(), webhooks: webhooks(1) }, [failing('wh_0', 30)], T0);
    expect(plan.transitions).toEqual([]);
    expect(plan.save.find((r) => r.key === originKey(origin))).toMatchObject({ attempts: 30, failures: 30 });
  });

  it('ignores the samples of a webhook deleted meanwhile', () => {
    const plan = planHealth({ rows: new Map(), webhooks: new Map() }, [failing('wh_gone', 30)], T0);
    expect(plan).toEqual({ save: [], disable: [], transitions: [] });
  });
});
