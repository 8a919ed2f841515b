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

