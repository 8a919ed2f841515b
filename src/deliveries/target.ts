/**
 * What a kind of target does for the engine: one attempt of one delivery,
 * reported as facts. The engine turns them into the recorded attempt, the
 * delivery's next state, metrics and events, the same way for every kind.
 */
import type { Delivery, DeliveryRequest, DeliveryResponse } from './types.js';

export interface AttemptContext {
  /** 1-based number of this attempt. */
  readonly number: number;
  /**
   * Its place in the retry schedule: `number`, less the attempts made before a
   * recovery last reopened the delivery (which gets its retries again).
   */
  readonly retryNumber: number;
  /** A final attempt, asked for by a person (test-fire, manual retry): never retried. */
  readonly final: boolean;
  /** The lease the engine took, in ms from the claim. */
  readonly leaseMs: number;
  /** Keeps this delivery's lease until `untilMs` (a run longer than the lease); false: the lease is lost. */
  extendLease(untilMs: number): Promise<boolean>;
  /**
   * False once this process may have been taken for dead (its heartbeat went
   * stale: heartbeat.ts): a target asks right before it sends, after any
   * awaited work (rendering, a transformation), and answers null instead.
   */
  mayStillSend(): boolean;
}

/** One attempt as the target saw it. Fields a kind has no use for are null. */
export interface AttemptResult {
  /** Clock time when the attempt began (before rendering or loading). */
  startedMs: number;
  durationMs: number;
  succeeded: boolean;
  /** Ms until the next attempt of a failed one; null: no retry (the last allowed, a final attempt, a verdict). */
  retryInMs: number | null;
  error: string | null;
  /** Webhooks: the target's status and answer. */
  responseStatus: number | null;
  response: DeliveryResponse | null;
  /** Functions: `ok` or the invocation's error code, and the request id of its log lines. */
  outcome: string | null;
  requestId: string | null;
  /** Webhooks: the request a transformation made of the rendered one, which this attempt sent. */
  sent?: DeliveryRequest;
  /** Webhooks: the transformation cancelled the delivery; it ends `cancelled`, never retried. */
  cancelled?: boolean;
  /** Webhooks: the request rendered by this attempt (the first), kept for retries. */
  request?: DeliveryRequest;
  /** Functions: the result of a run that succeeded. */
  result?: unknown;
  /** A sample for the target's adaptive share (concurrency-limit.ts): only attempts that reached the target. */
  load?: { latencyMs: number; overloaded: boolean };
  /** Work that must follow the recorded attempt, awaited before the engine reports it (a webhook gone: disable it). */
  afterRecorded?: () => Promise<void>;
  /** The target asked for nothing before this clock time (a Retry-After): for the whole target, not this delivery only. */
  targetNotBefore?: number;
}

export interface DeliveryTarget<D extends Delivery = Delivery> {
  /** What the logs call one of its deliveries: `delivery`, `invocation`. */
  readonly noun: string;
  /**
   * Whether a delivery that succeeded is read back and reported
   * (`delivery:succeeded`): a read per attempt, so only for kinds that
   * act on success (a function's destination).
   */
  readonly reportsSuccess: boolean;
  /** Null: nothing to do, the target is gone (its deliveries go with it); the engine gives the lease back. */
  attempt(delivery: D, ctx: AttemptContext): Promise<AttemptResult | null>;
  /** Called once the engine stopped: attempts still running lost their lease, cut them off. */
  close?(): Promise<void>;
}

/** A target per kind; a kind left out is not attempted here (its deliveries' leases are given back). */
export type DeliveryTargets = {
  [K in Delivery['kind']]?: DeliveryTarget<Extract<Delivery, { kind: K }>>;
};
