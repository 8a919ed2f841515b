/**
 * The endpoint-health gate: the one place the engine asks, before an attempt,
 * whether a delivery's target may be tried now (a held endpoint, an open
 * circuit breaker, a rate limit, a target's Retry-After), and tells, after
 * one, how it went. Without one the engine skips the question entirely, so
 * the default costs nothing per attempt. The webhooks implement it
 * (src/webhooks/health-gate.ts); the pipeline knows no kind of target.
 */
import type { AttemptResult } from './target.js';
import type { Delivery } from './types.js';

export type GateAnswer =
  | 'go'
  /** The delivery becomes `held`: its target may not be sent to now. */
  | 'hold'
  /**
   * Not before `deferUntil` (clock ms): the engine gives its lease back with
   * that due time. `wholeTarget`: the target as a whole waits (a rate limit's
   * next token, a Retry-After): the delivery keeps its due time, and so its
   * place in line, and this engine claims nothing of the target before then.
   */
  | { deferUntil: number; wholeTarget: boolean };

export interface DeliveryGate {
  /** At once when the answer is known here (nearly always), else a promise. */
  check(delivery: Delivery): GateAnswer | Promise<GateAnswer>;
  /** Each attempt the gate let go, once its outcome is known (not attempts a person asked for). */
  observe?(delivery: Delivery, result: AttemptResult): void;
  /** Shares for claims of the targets the gate limits (a rate-limited one claims no more than it may soon send). */
  shares?(): ReadonlyMap<string, number>;
}

/** The gate that always says go (the default): the engine treats it as no gate at all. */
export const openGate: DeliveryGate = Object.freeze({ check: (): GateAnswer => 'go' });
