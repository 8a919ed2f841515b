/**
 * Delivery domain types, shared by the pipeline, both kinds of target and the
 * stores. Imports nothing: these sit at the bottom of the dependency graph.
 *
 * Glossary
 * - Delivery: one message for one target, for one trigger (`dlv_...`). Stored
 *   before its first attempt (outbox); its `id` is a webhook's `webhook-id`
 *   header and a function's request id, stable across retries.
 * - Target: what a delivery reaches; its kind is a webhook (an HTTP request,
 *   rendered once: every attempt sends the same bytes) or a function (one
 *   invocation, through the runtime manual invoke uses;
 *   `GET /api/functions/:name/invocations`). A `DeliveryTarget` attempts the
 *   deliveries of one kind; a delivery's `target` field names its target (the
 *   webhook id, or `fn:<name>`), the key of its fair share of attempts.
 * - Attempt: one try of a delivery, with its outcome.
 * - Lease: a worker's claim on a due delivery until `leaseUntil`; an expired
 *   lease (a crashed worker) lets another worker take the delivery.
 */

/** Webhooks: test, schedule, event, destination. Functions: async, schedule, event, destination. */
export type DeliveryTrigger = 'test' | 'schedule' | 'event' | 'async' | 'destination';
/**
 * `held`: a webhook delivery kept without an attempt while its webhook may not
 * be sent to (disabled, paused, its circuit breaker open); released to
 * `pending` in publish order when it may again. `discarded`: a held delivery
 * an operator (or the held bound) dropped; finished, never attempted again.
 * `cancelled`: the webhook's transformation cancelled it (an attempt sent
 * nothing); finished. Function deliveries are only ever pending, succeeded or failed.
 */
export const DELIVERY_STATUSES = ['pending', 'held', 'succeeded', 'failed', 'discarded', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
/** What an attempt leaves a delivery in. */
export type AttemptStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';
export type DeliveryKind = 'webhook' | 'function';

export interface Attempt {
  attempt: number;
  startedAt: string;
  durationMs: number;
  responseStatus: number | null;
  error: string | null;
  /**
   * Function targets: `ok` or the invocation's error code. Webhook attempts of a
   * webhook with a transformation: `transformed`, `cancelled` or the
   * transformation's error code; null for other webhook attempts.
   */
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
  /**
   * The request this attempt actually sent, as a transformation made it from
   * the delivery's rendered `request`; null without one, or when nothing was
   * sent. Read like `response`.
   */
  sent?: DeliveryRequest | null;
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
  /** First 16 KiB (RESPONSE_BODY_LIMIT in src/webhooks/sender.ts). */
  body: string;
}

/** The fair-share key of a function target (a webhook's is its id). */
export const functionTarget = (name: string) => `fn:${name}`;

interface DeliveryFields {
  id: string;
  /** The trace context of its cause (NewDelivery.traceContext); only on traced deliveries. */
  traceContext?: string;
  /** The claim's fair-share key: the webhook id, or `fn:<function name>`. */
  target: string;
  /** The function schedule whose slot this is (function schedule deliveries). */
  scheduleId: string | null;
  /** What fired the delivery as the API shows it (`trigger` plus details, the hop count); null when nothing to add. */
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
  /** Webhooks: set when rendered (before the first attempt); retries resend it as is. */
  request: DeliveryRequest | null;
  response: DeliveryResponse | null;
  /** When the next attempt is due; null once finished. */
  nextAttemptAt: string | null;
  /**
   * Attempts made before the delivery was last reopened by a recovery: its
   * retry schedule counts from there (a recovered delivery gets its retries
   * again), while attempt numbers keep counting from the first.
   */
  retryBase: number;
  createdAt: string;
  completedAt: string | null;
}

export interface WebhookDelivery extends DeliveryFields {
  kind: 'webhook';
  webhookId: string;
  functionName: null;
}

export interface FunctionDelivery extends DeliveryFields {
  kind: 'function';
  webhookId: null;
  functionName: string;
}

export type Delivery = WebhookDelivery | FunctionDelivery;

export interface NewDelivery {
  /** Exactly one of webhookId and functionName (the schema checks it); the stored delivery's `kind` follows. */
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
  /** Stored `held` instead of `pending` (its webhook may not be sent to now). */
  held?: boolean;
  /** The trace context of its cause (a TraceCarrier, src/telemetry/types.ts), while tracing; absent: untraced. */
  traceContext?: string | null;
}

/** What one attempt changed, written together with the attempt record. */
export interface AttemptOutcome {
  attempt: Attempt;
  status: AttemptStatus;
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
