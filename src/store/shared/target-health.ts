/**
 * Endpoint health as both stores keep it (table `target_health`), and the
 * rules of its circuit breaker, failure streak and probes. The rules are pure
 * functions of a row, applied by each dialect inside the transaction that
 * holds the row's lock: a transition (a breaker opening, a probe starting or
 * ending, a webhook to disable) is taken by exactly one process of the
 * cluster, which then tells the rest (src/webhooks/health-gate.ts).
 *
 * The sliding window is two fixed windows, aligned to the window's length:
 * the current one, and the previous one weighted by how much of it the
 * sliding window still covers (the estimate rate limiters such as
 * Cloudflare's use), so a row holds four counters whatever the traffic.
 * Written by hand: breaker libraries (opossum, cockatiel) keep their state in
 * one process, and this one must hold for every process on the database.
 */
import { BREAKER_DEFAULTS, type AutoDisable, type BreakerSettings, type BreakerState, type TargetHealth } from '../../webhooks/types.js';

/** The first wait before a probe, doubled after each failed one up to PROBE_MAX_MS. */
export const PROBE_FIRST_MS = 5_000;
export const PROBE_MAX_MS = 300_000;

export const webhookKey = (webhookId: string) => `webhook:${webhookId}`;
export const originKey = (origin: string) => `origin:${origin}`;

/** What one process counted for one webhook since its last report. */
export interface HealthSample {
  webhookId: string;
  origin: string;
  attempts: number;
  failures: number;
  firstFailureAt: number | null;
  lastFailureAt: number | null;
  lastSuccessAt: number | null;
}

/** The settings a row is judged by: the webhook's own, or the defaults for an origin. */
export interface HealthRules {
  breaker: BreakerSettings;
  /** Null: never disabled for failing (origin rows never are). */
  autoDisable: AutoDisable | null;
}

export type HealthTransition =
  /** `byOrigin`: opened because the webhooks sending to its origin failed together. */
  | { kind: 'opened'; key: string; webhookId: string | null; origin: string | null; failureRatio: number; attempts: number; probeAt: number; byOrigin: boolean }
  | { kind: 'closed'; key: string; webhookId: string | null; origin: string | null }
  | { kind: 'probe_failed'; key: string; webhookId: string | null; origin: string | null; probeAt: number }
  | { kind: 'disable'; key: string; webhookId: string; failingSince: number };

export interface TargetHealthRow {
  key: string;
  webhook_id: string | null;
  origin: string | null;
  state: string;
  since: number | string;
  window_start: number | string;
  attempts: number | string;
  failures: number | string;
  prev_attempts: number | string;
  prev_failures: number | string;
  consecutive_failures: number | string;
  probe_at: number | string | null;
  probe_delay_ms: number | string;
  probe_delivery_id: string | null;
  probe_until: number | string | null;
  failing_since: number | string | null;
  last_failure_at: number | string | null;
  last_success_at: number | string | null;
  not_before: number | string | null;
  held_discarded: number | string;
}

/** The columns of a row, in the order TARGET_HEALTH_COLUMNS lists them. */
export const TARGET_HEALTH_COLUMNS = [
  'key', 'webhook_id', 'origin', 'state', 'since', 'window_start', 'attempts', 'failures', 'prev_attempts', 'prev_failures',
  'consecutive_failures', 'probe_at', 'probe_delay_ms', 'probe_delivery_id', 'probe_until', 'failing_since', 'last_failure_at', 'last_success_at',
  'not_before', 'held_discarded',
] as const;

// PostgreSQL answers BIGINT as text.
const num = (v: number | string) => Number(v);
const numOrNull = (v: number | string | null) => (v === null ? null : Number(v));

export function toTargetHealth(r: TargetHealthRow): TargetHealth {
  return {
    key: r.key,
    webhookId: r.webhook_id,
    origin: r.origin,
    state: r.state as BreakerState,
    since: num(r.since),
    windowStart: num(r.window_start),
    attempts: num(r.attempts),
    failures: num(r.failures),
    prevAttempts: num(r.prev_attempts),
    prevFailures: num(r.prev_failures),
    consecutiveFailures: num(r.consecutive_failures ?? 0),
    probeAt: numOrNull(r.probe_at),
    probeDelayMs: num(r.probe_delay_ms),
    probeDeliveryId: r.probe_delivery_id,
    probeUntil: numOrNull(r.probe_until),
    failingSince: numOrNull(r.failing_since),
    lastFailureAt: numOrNull(r.last_failure_at),
    lastSuccessAt: numOrNull(r.last_success_at),
    notBefore: numOrNull(r.not_before),
    heldDiscarded: num(r.held_discarded),
  };
}

export function targetHealthColumns(h: TargetHealth): Record<(typeof TARGET_HEALTH_COLUMNS)[number], unknown> {
  return {
    key: h.key,
    webhook_id: h.webhookId,
    origin: h.origin,
    state: h.state,
    since: h.since,
    window_start: h.windowStart,
    attempts: h.attempts,
    failures: h.failures,
    prev_attempts: h.prevAttempts,
    prev_failures: h.prevFailures,
    consecutive_failures: h.consecutiveFailures,
    probe_at: h.probeAt,
    probe_delay_ms: h.probeDelayMs,
    probe_delivery_id: h.probeDeliveryId,
    probe_until: h.probeUntil,
    failing_since: h.failingSince,
    last_failure_at: h.lastFailureAt,
    last_success_at: h.lastSuccessAt,
    not_before: h.notBefore,
    held_discarded: h.heldDiscarded,
  };
}

/** A row for a target seen for the first time: closed, nothing counted. */
export function newTargetHealth(key: string, owner: { webhookId: string | null; origin: string | null }, now: number): TargetHealth {
  return {
    key,
    webhookId: owner.webhookId,
    origin: owner.origin,
    state: 'closed',
    since: now,
    windowStart: now,
    attempts: 0,
    failures: 0,
    prevAttempts: 0,
    prevFailures: 0,
    consecutiveFailures: 0,
    probeAt: null,
    probeDelayMs: PROBE_FIRST_MS,
    probeDeliveryId: null,
    probeUntil: null,
    failingSince: null,
    lastFailureAt: null,
    lastSuccessAt: null,
    notBefore: null,
    heldDiscarded: 0,
  };
}

/** The window moved on to the one holding `now` (a copy). */
function rolled(h: TargetHealth, windowMs: number, now: number): TargetHealth {
  const start = now - (now % windowMs);
  if (h.windowStart === start) return { ...h };
  const previous = h.windowStart === start - windowMs;
  return {
    ...h,
    windowStart: start,
    prevAttempts: previous ? h.attempts : 0,
    prevFailures: previous ? h.failures : 0,
    attempts: 0,
    failures: 0,
  };
}

/** Attempts and failures in the sliding window ending at `now`. */
export function windowCounts(h: TargetHealth, windowMs: number, now: number): { attempts: number; failures: number } {
  const r = rolled(h, windowMs, now);
  const weight = 1 - (now - r.windowStart) / windowMs;
  return { attempts: r.prevAttempts * weight + r.attempts, failures: r.prevFailures * weight + r.failures };
}

/** The failure ratio of the sliding window (0 when nothing was attempted in it). */
export function failureRatio(h: TargetHealth, windowMs: number, now: number): number {
  const { attempts, failures } = windowCounts(h, windowMs, now);
  return attempts > 0 ? failures / attempts : 0;
}

/**
 * A sample added: counts in the window, the failure streak. Returns the new
 * row and the transitions it calls for; `mayOpen` false keeps the breaker
 * closed whatever the counts (an origin that only one webhook sends to).
 */
export function addSample(
  current: TargetHealth,
  sample: Pick<HealthSample, 'attempts' | 'failures' | 'firstFailureAt' | 'lastFailureAt' | 'lastSuccessAt'>,
  rules: HealthRules,
  now: number,
  mayOpen: boolean,
): { row: TargetHealth; transitions: HealthTransition[] } {
  const windowMs = rules.breaker.windowS * 1000;
  const h = rolled(current, windowMs, now);
  h.attempts += sample.attempts;
  h.failures += sample.failures;
  if (sample.lastSuccessAt !== null && (h.lastSuccessAt === null || sample.lastSuccessAt > h.lastSuccessAt)) h.lastSuccessAt = sample.lastSuccessAt;
  if (sample.lastFailureAt !== null && (h.lastFailureAt === null || sample.lastFailureAt > h.lastFailureAt)) h.lastFailureAt = sample.lastFailureAt;
  // Failures in a row: the sample's order within itself is not kept, so after a success in it
  // only its last attempt is known to have failed (counting fewer opens later, never sooner).
  if (sample.attempts > sample.failures) h.consecutiveFailures = sample.lastFailureAt !== null && sample.lastSuccessAt !== null && sample.lastFailureAt > sample.lastSuccessAt ? 1 : 0;
  else h.consecutiveFailures += sample.failures;
  // The streak: from the first failure after the last success.
  if (h.lastFailureAt === null || (h.lastSuccessAt !== null && h.lastSuccessAt >= h.lastFailureAt)) h.failingSince = null;
  else if (h.failingSince === null || (h.lastSuccessAt !== null && h.failingSince <= h.lastSuccessAt)) {
    const first = sample.firstFailureAt ?? h.lastFailureAt;
    h.failingSince = h.lastSuccessAt !== null && first <= h.lastSuccessAt ? h.lastFailureAt : first;
  }

  const transitions: HealthTransition[] = [];
  if (h.state === 'closed' && mayOpen && rules.breaker.enabled) {
    const { attempts, failures } = windowCounts(h, windowMs, now);
    const windowTrips = attempts >= rules.breaker.minAttempts && failures / attempts >= rules.breaker.failureRatio;
    if (windowTrips || h.consecutiveFailures >= rules.breaker.minAttempts) {
      h.state = 'open';
      h.since = now;
      h.probeDelayMs = PROBE_FIRST_MS;
      h.probeAt = now + PROBE_FIRST_MS;
      // Opened by the streak: every one of those attempts failed.
      const [ratio, counted] = windowTrips ? [failures / attempts, attempts] : [1, h.consecutiveFailures];
      transitions.push({ kind: 'opened', key: h.key, webhookId: h.webhookId, origin: h.origin, failureRatio: ratio, attempts: counted, probeAt: h.probeAt, byOrigin: false });
    }
  }
  const disable = rules.autoDisable;
  if (
    disable !== null &&
    h.webhookId !== null &&
    h.failingSince !== null &&
    h.lastFailureAt !== null &&
    now - h.failingSince >= disable.afterS * 1000 &&
    h.lastFailureAt - h.failingSince >= disable.minSpanS * 1000
  ) {
    transitions.push({ kind: 'disable', key: h.key, webhookId: h.webhookId, failingSince: h.failingSince });
  }
  return { row: h, transitions };
}

/** Whether an open (or stuck half-open) breaker's probe may start now. */
export function probeDue(h: TargetHealth, now: number): boolean {
  if (h.state === 'open') return h.probeAt !== null && h.probeAt <= now;
  return h.state === 'half_open' && h.probeUntil !== null && h.probeUntil < now;
}

/** Half open, with `deliveryId` as its probe until `until`. */
export function probing(h: TargetHealth, deliveryId: string, until: number): TargetHealth {
  return { ...h, state: 'half_open', probeDeliveryId: deliveryId, probeUntil: until };
}

/**
 * A probe's outcome: success closes the breaker (a fresh window); failure opens
 * it again with the wait doubled. Null when `deliveryId` is not its probe (a
 * late answer of one given up on).
 */
export function probeEnded(h: TargetHealth, deliveryId: string, succeeded: boolean, now: number): { row: TargetHealth; transition: HealthTransition } | null {
  if (h.state !== 'half_open' || h.probeDeliveryId !== deliveryId) return null;
  const owner = { key: h.key, webhookId: h.webhookId, origin: h.origin };
  if (succeeded) {
    const row: TargetHealth = {
      ...h,
      state: 'closed',
      since: now,
      windowStart: now,
      attempts: 0,
      failures: 0,
      prevAttempts: 0,
      prevFailures: 0,
      consecutiveFailures: 0,
      probeAt: null,
      probeDelayMs: PROBE_FIRST_MS,
      probeDeliveryId: null,
      probeUntil: null,
    };
    return { row, transition: { kind: 'closed', ...owner } };
  }
  const delay = Math.min(h.probeDelayMs * 2, PROBE_MAX_MS);
  const row: TargetHealth = { ...h, state: 'open', probeDelayMs: delay, probeAt: now + delay, probeDeliveryId: null, probeUntil: null };
  return { row, transition: { kind: 'probe_failed', ...owner, probeAt: row.probeAt! } };
}

/** A breaker closed by hand (a webhook enabled or resumed): nothing held back by it any more. */
export function closedByHand(h: TargetHealth, now: number): TargetHealth {
  return {
    ...h,
    state: 'closed',
    since: now,
    probeAt: null,
    probeDelayMs: PROBE_FIRST_MS,
    probeDeliveryId: null,
    probeUntil: null,
    failingSince: null,
    consecutiveFailures: 0,
  };
}

/** A breaker opened from outside its own counts (its origin failing): the same state as addSample's opening. */
export function openedByOrigin(h: TargetHealth, failureRatio: number, attempts: number, now: number): { row: TargetHealth; transition: HealthTransition } {
  const row: TargetHealth = { ...h, state: 'open', since: now, probeDelayMs: PROBE_FIRST_MS, probeAt: now + PROBE_FIRST_MS, probeDeliveryId: null, probeUntil: null };
  return {
    row,
    transition: { kind: 'opened', key: h.key, webhookId: h.webhookId, origin: h.origin, failureRatio, attempts, probeAt: row.probeAt!, byOrigin: true },
  };
}

/** What a store reads, under lock, before it adds samples (planHealth). */
export interface HealthFacts {
  /** The rows that exist among the samples' webhooks and origins and the webhooks on those origins, by key. */
  rows: ReadonlyMap<string, TargetHealth>;
  /** The samples' webhooks, and every enabled webhook on their origins, by id. */
  webhooks: ReadonlyMap<string, { rules: HealthRules; enabled: boolean; origin: string | null }>;
}

/** Origins are judged by the default breaker, and never disabled. */
const ORIGIN_RULES: HealthRules = { breaker: BREAKER_DEFAULTS, autoDisable: null };

/**
 * The rows to write, the webhooks to disable and the transitions to tell, for
 * one report of samples. An origin's row only counts: when the webhooks that
 * share it (two or more, enabled) fail together past the default breaker, each
 * of their own breakers that is closed (and enabled) opens, and the origin's
 * counts start over. A webhook's own breaker then probes on its own.
 */
export function planHealth(facts: HealthFacts, samples: readonly HealthSample[], now: number): {
  save: TargetHealth[];
  disable: string[];
  transitions: HealthTransition[];
} {
  const rows = new Map(facts.rows);
  const changed = new Set<string>();
  const transitions: HealthTransition[] = [];
  const disable: string[] = [];
  const rowOf = (key: string, owner: { webhookId: string | null; origin: string | null }) => rows.get(key) ?? newTargetHealth(key, owner, now);
  const put = (row: TargetHealth) => {
    rows.set(row.key, row);
    changed.add(row.key);
  };

  for (const sample of samples) {
    const webhook = facts.webhooks.get(sample.webhookId);
    if (webhook === undefined) continue; // deleted meanwhile: its rows went with it
    const key = webhookKey(sample.webhookId);
    const own = addSample(rowOf(key, { webhookId: sample.webhookId, origin: null }), sample, webhook.rules, now, webhook.enabled);
    put(own.row);
    for (const t of own.transitions) {
      if (t.kind === 'disable') {
        if (webhook.enabled && !disable.includes(t.webhookId)) {
          disable.push(t.webhookId);
          transitions.push(t);
        }
      } else transitions.push(t);
    }

    const shared = [...facts.webhooks].filter(([, w]) => w.enabled && w.origin === sample.origin);
    const okey = originKey(sample.origin);
    const origin = addSample(rowOf(okey, { webhookId: null, origin: sample.origin }), sample, ORIGIN_RULES, now, shared.length >= 2);
    if (!origin.transitions.some((t) => t.kind === 'opened')) {
      put(origin.row);
      continue;
    }
    // Tripped: the origin's own state stays closed; its webhooks' breakers open.
    const counts = windowCounts(origin.row, ORIGIN_RULES.breaker.windowS * 1000, now);
    put({
      ...origin.row,
      state: 'closed',
      probeAt: null,
      probeDelayMs: PROBE_FIRST_MS,
      windowStart: now - (now % (ORIGIN_RULES.breaker.windowS * 1000)),
      attempts: 0,
      failures: 0,
      prevAttempts: 0,
      prevFailures: 0,
      consecutiveFailures: 0,
    });
    for (const [id, w] of shared) {
      if (!w.rules.breaker.enabled) continue;
      const wkey = webhookKey(id);
      const current = rowOf(wkey, { webhookId: id, origin: null });
      if (current.state !== 'closed') continue;
      const opened = openedByOrigin(current, counts.attempts > 0 ? counts.failures / counts.attempts : 0, counts.attempts, now);
      put(opened.row);
      transitions.push(opened.transition);
    }
  }
  return { save: [...changed].map((k) => rows.get(k)!), disable, transitions };
}
