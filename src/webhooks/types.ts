/**
 * Webhook domain types. The deliveries a webhook makes, their attempts and
 * leases are the pipeline's: src/deliveries/types.ts.
 *
 * Glossary
 * - Webhook: an HTTP callback definition (target, method, headers, payload
 *   template) fired by a test request, a cron schedule or an event (`wh_...`).
 * - Slot: one scheduled fire time of a cron webhook (UTC instant). A delivery
 *   of trigger `schedule` carries its slot in `scheduledFor`; (webhook, slot)
 *   is unique in the store, so a slot fires at most once across processes.
 */

export const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type WebhookMethod = (typeof WEBHOOK_METHODS)[number];

export interface MockEndpoint {
  apiId: string;
  /** What follows `/api/invoke/fn/<apiId>`, e.g. `/users`. */
  path: string;
}

export interface RetryPolicy {
  /** 1 to 30, default 8. */
  maxAttempts: number;
  /** Seconds to wait before attempt 2, 3, ...; null = the Standard Webhooks schedule. */
  scheduleS: number[] | null;
}

/**
 * When a webhook's circuit breaker opens (src/store/shared/target-health.ts):
 * at least `minAttempts` attempts in the sliding `windowS` and at least
 * `failureRatio` of them failed, or `minAttempts` failed in a row however
 * slowly they came (a webhook with little traffic never fills a window). Off:
 * the webhook is never paused for its own failures (its origin's still pause it).
 */
export interface BreakerSettings {
  enabled: boolean;
  minAttempts: number;
  /** 0.01 to 1. */
  failureRatio: number;
  windowS: number;
}

export const BREAKER_DEFAULTS: Readonly<BreakerSettings> = Object.freeze({ enabled: true, minAttempts: 20, failureRatio: 0.5, windowS: 60 });

/** Sends per second for the whole cluster (a token bucket shared by every process), and how many may go at once after a pause. */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

/**
 * The burst a rate limit gets when none is given: a fiftieth of a second's
 * sends (at least 1), so a 10 s window sees at most 0.2 % more than the rate
 * from it, which leaves room in a 2 % bound for the leases and the send's jitter.
 */
export const defaultBurst = (perSecond: number): number => Math.max(1, Math.ceil(perSecond / 50));

/**
 * A webhook is disabled once every attempt has failed for `afterS` and its
 * failed attempts span at least `minSpanS` (so a server that was off meanwhile
 * does not count as days of failure).
 */
export interface AutoDisable {
  afterS: number;
  minSpanS: number;
}

export const AUTO_DISABLE_DEFAULTS: Readonly<AutoDisable> = Object.freeze({ afterS: 5 * 86_400, minSpanS: 12 * 3_600 });

/** Why Switchyard disabled a webhook: a 410 Gone, or failing for the auto-disable span. */
export const DISABLED_REASONS = ['gone', 'failing'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/**
 * A secret replaced by a rotation: deliveries are still signed with it until
 * `expiresAt` (decided at send time by the clock, so nothing has to remove it
 * for it to stop signing; the next rotation prunes it from the row).
 */
export interface PreviousSecret {
  secret: string;
  createdAt: string | null;
  expiresAt: string;
}

/** Secrets a webhook keeps at most, the current one included; a rotation past it drops the oldest. */
export const MAX_SECRETS = 10;
/** How long a replaced secret keeps signing when a rotation does not say (Svix's default), and the longest it may. */
export const SECRET_OVERLAP_DEFAULT_S = 86_400;
export const SECRET_OVERLAP_MAX_S = 30 * 86_400;

/** The secrets that sign at `nowMs`, newest first: the current one and those whose overlap has not ended. */
export function signingSecrets(w: Pick<Webhook, 'secret' | 'previousSecrets'>, nowMs: number): string[] {
  const out: string[] = w.secret === null ? [] : [w.secret];
  for (const p of w.previousSecrets) if (Date.parse(p.expiresAt) > nowMs) out.push(p.secret);
  return out;
}

/** A rotation as the store applies it under the row's lock: the new secret, now, and when the replaced one stops signing. */
export interface SecretRotation {
  secret: string;
  at: string;
  /** ISO; at or before `at`: the replaced secret is dropped at once (an overlap of 0). */
  overlapUntil: string;
}

/**
 * The secrets after a rotation: the new one current, the replaced one kept
 * until `overlapUntil`, older ones until their own expiry or `overlapUntil`,
 * whichever is sooner, the expired dropped, and at most MAX_SECRETS in all
 * (the oldest go: a rotation after a leak must never be refused for a full list).
 */
export function rotatedSecrets(current: Pick<Webhook, 'secret' | 'secretCreatedAt' | 'previousSecrets'>, rotation: SecretRotation): Pick<Webhook, 'secret' | 'secretCreatedAt' | 'previousSecrets'> {
  const now = Date.parse(rotation.at);
  const kept: PreviousSecret[] = [];
  if (current.secret !== null && current.secret !== rotation.secret && Date.parse(rotation.overlapUntil) > now) {
    kept.push({ secret: current.secret, createdAt: current.secretCreatedAt, expiresAt: rotation.overlapUntil });
  }
  // No older secret outlives the new overlap either: an overlap of 0 after a leak leaves only the new one.
  const until = Date.parse(rotation.overlapUntil);
  for (const p of current.previousSecrets) {
    if (p.secret === rotation.secret) continue;
    const expires = Math.min(Date.parse(p.expiresAt), until);
    if (expires > now) kept.push(expires === until ? { ...p, expiresAt: rotation.overlapUntil } : p);
  }
  return { secret: rotation.secret, secretCreatedAt: rotation.at, previousSecrets: kept.slice(0, MAX_SECRETS - 1) };
}

export interface Webhook {
  id: string;
  name: string;
  targetUrl: string;
  method: WebhookMethod;
  headers: Record<string, string>;
  payloadTemplate: Record<string, unknown>;
  cron: string | null;
  timezone: string;
  mockEndpoint: MockEndpoint | null;
  /** JavaScript run on each attempt's request before it is signed (transformation.ts); null or absent: none. */
  transformation?: string | null;
  events: string[];
  enabled: boolean;
  /** The current secret, `whsec_...` (HMAC) or `whsk_...` (ed25519); never leaves the service through the API (write-only). */
  secret: string | null;
  /** When the current secret was set (ISO); null without one, or set before rotation existed. */
  secretCreatedAt: string | null;
  /** Secrets replaced by a rotation that still sign until their `expiresAt`, newest first (write-only too). */
  previousSecrets: PreviousSecret[];
  retry: RetryPolicy;
  timeoutMs: number;
  /** Next slot (UTC ISO), null without cron or when disabled. */
  nextFireAt: string | null;
  /** When an operator paused it: its deliveries are held until it is resumed. Null: not paused. */
  pausedAt: string | null;
  /** Set when Switchyard disabled it; null when enabled or disabled by hand. */
  disabledReason: DisabledReason | null;
  breaker: BreakerSettings;
  /** Null: no limit. */
  rateLimit: RateLimit | null;
  /** Null: never disabled for failing (a 410 still disables it). */
  autoDisable: AutoDisable | null;
  /** The payload filter of its event subscription (src/events/filters.ts, checked when written); null: every subscribed event. */
  filter: Record<string, unknown> | null;
  /** The project whose `switchyard apply` made (or last took over) the webhook; null: none (made by hand). */
  project?: string | null;
  /** The application (customer) that owns it: it receives only events published to it. Null or absent: global. */
  applicationId?: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The origin (`https://host:port`) whose breaker a webhook shares with the other webhooks sending there. */
export function originOf(targetUrl: string): string {
  try {
    return new URL(targetUrl).origin;
  } catch {
    return targetUrl;
  }
}

/** A webhook to store; without rotation fields it has no previous secrets (and no recorded time for its secret). */
export type NewWebhook = Omit<Webhook, 'id' | 'createdAt' | 'updatedAt' | 'secretCreatedAt' | 'previousSecrets'> &
  Partial<Pick<Webhook, 'secretCreatedAt' | 'previousSecrets'>>;
export type WebhookPatch = Partial<NewWebhook>;

/** How many of a webhook's newest deliveries its health counts (the webhook list). */
export const HEALTH_WINDOW = 20;

/** A webhook's health over its HEALTH_WINDOW newest deliveries. */
export interface WebhookHealth {
  /** The newest attempted delivery's latest outcome (a retrying one: failed); null when none was attempted. */
  lastOutcome: 'succeeded' | 'failed' | null;
  /**
   * Deliveries that failed, newest first, before the newest that succeeded: finished ones and
   * pending ones whose latest attempt failed (retrying); pending ones not tried yet are skipped.
   */
  failuresInARow: number;
  pending: number;
  /** Pending deliveries whose latest attempt failed, waiting for their next attempt. */
  retrying: number;
}

export const NO_DELIVERIES: WebhookHealth = Object.freeze({ lastOutcome: null, failuresInARow: 0, pending: 0, retrying: 0 });


/**
 * Circuit breaker states (as Svix and resilience libraries name them): closed
 * sends; open holds every delivery and waits for its next probe; half_open has
 * one probe in flight and holds the rest.
 */
export const BREAKER_STATES = ['closed', 'open', 'half_open'] as const;
export type BreakerState = (typeof BREAKER_STATES)[number];

/**
 * A target's health as stored (table `target_health`): its circuit breaker, its
 * failure streak, its Retry-After. One per webhook (`webhook:<id>`) and one per
 * target origin (`origin:<origin>`), whose breaker opens only while several
 * webhooks send there. Times are epoch ms. The sliding window is two fixed
 * windows, the previous one weighted by how much of it the window still covers.
 */
export interface TargetHealth {
  key: string;
  webhookId: string | null;
  origin: string | null;
  state: BreakerState;
  /** When the state was entered. */
  since: number;
  windowStart: number;
  attempts: number;
  failures: number;
  prevAttempts: number;
  prevFailures: number;
  /** Failed attempts since the last one that succeeded: a target with little traffic opens on these, whatever the window. */
  consecutiveFailures: number;
  /** Open: when the next probe may go. */
  probeAt: number | null;
  /** The wait before the probe after the next failed one (5 s, doubling, up to 5 min). */
  probeDelayMs: number;
  /** Half open: the delivery sent as the probe, and until when it is waited for. */
  probeDeliveryId: string | null;
  probeUntil: number | null;
  /** The first failure since the last success (null: the last attempt succeeded, or none yet). */
  failingSince: number | null;
  lastFailureAt: number | null;
  lastSuccessAt: number | null;
  /** A target's Retry-After: nothing is sent to it before this time. */
  notBefore: number | null;
  /** Held deliveries dropped by the held bound so far (the oldest first); webhook rows only. */
  heldDiscarded: number;
}

/** Statuses a recovery resends: failed ones by default, succeeded ones to replay, discarded ones to undo a discard. */
export const RECOVERABLE_STATUSES = ['failed', 'succeeded', 'discarded', 'cancelled'] as const;
export type RecoverableStatus = (typeof RECOVERABLE_STATUSES)[number];

/** Which deliveries a recovery resends. Created between `since` and `until` (ISO), in these statuses, of these events. */
export interface RecoveryFilter {
  /** Null: every webhook's (a bulk retry). */
  webhookIds: string[] | null;
  since: string;
  until: string;
  statuses: RecoverableStatus[];
  /** Null: every event and trigger; else only `event` deliveries of these names. */
  events: string[] | null;
}

export const RECOVERY_STATES = ['running', 'done', 'cancelled'] as const;
export type RecoveryState = (typeof RECOVERY_STATES)[number];

/**
 * A recovery job (`rcv_...`): resends the deliveries its filter selected when
 * it was created, in id order, a chunk at a time, each once. `total` is the
 * count at creation; `resent` counts the deliveries reopened so far (a
 * delivery deleted or resent by hand meanwhile is passed over).
 */
export interface Recovery {
  id: string;
  /** The webhook of `POST /api/webhooks/{id}/recover`; null for a bulk retry across webhooks. */
  webhookId: string | null;
  filter: RecoveryFilter;
  status: RecoveryState;
  total: number;
  resent: number;
  /** The last delivery id handled (resumes from here after a restart). */
  cursor: string;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

export interface NewRecovery {
  webhookId: string | null;
  filter: RecoveryFilter;
}

/** A webhook's health as its answer shows it: the outcomes of its newest deliveries and its endpoint health, times as ISO. */
export interface HealthReport extends WebhookHealth {
  state: BreakerState;
  since: string | null;
  failureRatio: number;
  windowAttempts: number;
  held: number;
  heldDiscarded: number;
  nextProbeAt: string | null;
  probeDeliveryId: string | null;
  notBefore: string | null;
  failingSince: string | null;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
}
