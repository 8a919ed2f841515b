/**
 * The endpoint-health gate: the one place the engine asks, before an attempt,
 * whether a delivery's target may be tried now (a held endpoint, an open
 * circuit breaker, a per-target rate limit). Without one the engine skips the
 * question entirely, so the default costs nothing per attempt.
 */
import type { Delivery } from './types.js';

export type GateAnswer = 'go' | { deferUntil: number };

export interface DeliveryGate {
  /**
   * `go`, or the clock time (ms) before which the delivery must not be tried:
   * the engine keeps its lease until then and does not attempt it (the lease
   * then expires and any process claims it again, once due).
   */
  check(delivery: Delivery): GateAnswer;
}

/** The gate that always says go (the default): the engine treats it as no gate at all. */
export const openGate: DeliveryGate = Object.freeze({ check: (): GateAnswer => 'go' });
