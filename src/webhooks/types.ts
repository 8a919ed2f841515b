/**
 * Webhook domain types.
 *
 * Glossary
 * - Webhook: an HTTP callback definition (target, method, headers, payload
 *   template) fired by a test request, a cron schedule or an event (`wh_...`).
 * - Delivery: one message to send for one trigger (`dlv_...`). Stored before
 *   its first attempt (outbox); its `id` is the `webhook-id` header, stable
 *   across retries. Rendered once: every attempt sends the same bytes.
 * - Attempt: one HTTP request of a delivery, with its outcome.
 * - Slot: one scheduled fire time of a cron webhook (UTC instant). A delivery
 *   of trigger `schedule` carries its slot in `scheduledFor`; (webhook, slot)
 *   is unique in the store, so a slot fires at most once across processes.
 * - Target: what a delivery reaches: a webhook (an HTTP request) or a
 *   function (one invocation, through the runtime manual invoke uses). A
 *   function-target delivery is an invocation (`GET /api/functions/:name/invocations`);
 *   it has no rendered request and keeps the function's result instead.
 * - Lease: a worker's claim on a due delivery until `leaseUntil`; an expired
 *   lease (a crashed worker) lets another worker take the delivery.
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
  events: string[];
  enabled: boolean;
  /** `whsec_...`; never leaves the service through the API (write-only). */
  secret: string | null;
  retry: RetryPolicy;
  timeoutMs: number;
  /** Next slot (UTC ISO), null without cron or when disabled. */
  nextFireAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export type NewWebhook = Omit<Webhook, 'id' | 'createdAt' | 'updatedAt'>;
export type WebhookPatch = Partial<NewWebhook>;

/** Webhooks: test, schedule, event, destination. Functions: async, schedule, event, destination. */
export type DeliveryTrigger = 'test' | 'schedule' | 'event' | 'async' | 'destination';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

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

export interface Attempt {
  attempt: number;
  startedAt: string;
  durationMs: number;
  responseStatus: number | null;
  error: string | null;
  /** Function targets: `ok` or the invocation's error code; null for webhook attempts. */
  outcome: string | null;
  /** Function targets: the request id the invocation's log lines carry. */
  requestId: string | null;
  /**
   * The target's answer to this attempt; null when none came (a network error,
   * a function target, an attempt recorded before migration 13). Only read by
   * `getDeliveryDetail` (one delivery): absent from lists and the engine's reads,
   * which would otherwise carry up to 16 KiB of body per attempt.
   */
  response?: DeliveryResponse | null;
}

export interface DeliveryRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The rendered JSON body; null for GET. */
  body: string | null;
}

export interface DeliveryResponse {
  status: number;
  headers: Record<string, string>;
  /** First 16 KiB (RESPONSE_BODY_LIMIT in sender.ts). */
  body: string;
}

/** The fair-share key of a function target (a webhook's is its id). */
export const functionTarget = (name: string) => `fn:${name}`;

export interface Delivery {
  id: string;
  /** The claim's fair-share key: the webhook id, or `fn:<function name>`. */
  target: string;
  /** Exactly one of webhookId and functionName is set. */
  webhookId: string | null;
  functionName: string | null;
  /** The function schedule whose slot this is (function schedule deliveries). */
  scheduleId: string | null;
  /** What fired a function target, as the API shows it (`trigger` plus details); null for webhooks. */
  triggerDetail: Record<string, unknown> | null;
  /** Function targets: the function's result once it succeeded. */
  result: unknown;
  trigger: DeliveryTrigger;
  status: DeliveryStatus;
  error: string | null;
  /** The slot of a scheduled delivery; else null. */
  scheduledFor: string | null;
  /** Event name for `event` deliveries. */
  event: string | null;
  /** Event data, kept until the delivery is rendered. */
  eventData: unknown;
  attempts: Attempt[];
  /** Set when rendered (before the first attempt); retries resend it as is. */
  request: DeliveryRequest | null;
  response: DeliveryResponse | null;
  /** When the next attempt is due; null once finished. */
  nextAttemptAt: string | null;
  createdAt: string;
  completedAt: string | null;
}

export interface NewDelivery {
  /** One of webhookId and functionName. */
  webhookId?: string | null;
  functionName?: string | null;
  scheduleId?: string | null;
  triggerDetail?: Record<string, unknown> | null;
  trigger: DeliveryTrigger;
  scheduledFor: string | null;
  event: string | null;
  eventData: unknown;
  /** First attempt due at (ISO). */
  nextAttemptAt: string;
}

/** What one attempt changed, written together with the attempt record. */
export interface AttemptOutcome {
  attempt: Attempt;
  status: DeliveryStatus;
  /** Next attempt time when `status` is pending. */
  nextAttemptAt: string | null;
  error: string | null;
  /** Kept on the delivery (its latest answer) and on the attempt's own row. */
  response: DeliveryResponse | null;
  /** Present on the first attempt: the rendered request to keep for retries. */
  request?: DeliveryRequest;
  /** Function targets: the result to keep. */
  result?: unknown;
}

/** One outcome of a batch to record; `lean`: answer `true` instead of reading the delivery back. */
export interface AttemptRecord {
  id: string;
  outcome: AttemptOutcome;
  lean?: boolean;
}
