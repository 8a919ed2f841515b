/**
 * What follows a background invocation's end, told by the delivery engine's
 * events: a run that failed for good raises
 * `switchyard.function.invocation_failed`, and a finished run's record goes
 * to the function's destination (a webhook or another function), one hop
 * deeper than the run it tells of.
 */
import type { DeliveryEvents } from '../deliveries/events.js';
import type { Delivery, FunctionDelivery } from '../deliveries/types.js';
import { isOperationalEvent } from '../events/names.js';
import { MAX_HOPS, depthOf } from '../hops.js';
import type { Store } from '../store/store.js';
import type { Logger } from '../types.js';
import { destinationRecord, type FunctionInvocations } from './invocations.js';

export interface InvocationOutcomesDeps {
  store: Store;
  invocations: FunctionInvocations;
  clock: { now(): number };
  /** Tells the delivery engine that a delivery is due now. */
  wake(): void;
  /** Publishes the service's own events. */
  emitOperational(event: `switchyard.${string}`, data: unknown): void;
  log: Logger;
}

export class InvocationOutcomes {
  constructor(private readonly deps: InvocationOutcomesDeps) {}

  /** Follows the engine's events for function targets; the answer stops following. */
  follow(events: DeliveryEvents): () => void {
    const onEnd = ({ delivery }: { delivery: Delivery }) => {
      if (delivery.kind === 'function') this.finished(delivery);
    };
    const offFailed = events.on('delivery:failed', onEnd);
    const offSucceeded = events.on('delivery:succeeded', onEnd);
    return () => {
      offFailed();
      offSucceeded();
    };
  }

  /**
   * An invocation finished (succeeded, or failed for good). Never throws: a
   * destination that cannot be reached is logged.
   */
  finished(delivery: FunctionDelivery): void {
    // Runs of switchyard.* events never raise it, so a failing subscriber of it cannot loop.
    if (delivery.status === 'failed' && !isOperationalEvent(delivery.event ?? '')) {
      this.deps.emitOperational('switchyard.function.invocation_failed', {
        function: delivery.functionName,
        invocation_id: delivery.id,
        trigger: delivery.trigger,
        error: delivery.error,
        attempts: delivery.attempts.length,
      });
    }
    this.sendToDestination(delivery).catch((err) =>
      this.deps.log.warn({ err, invocation: delivery.id }, 'could not hand an invocation record to its destination'),
    );
  }

  private async sendToDestination(delivery: FunctionDelivery): Promise<void> {
    const name = delivery.functionName;
    if (delivery.status === 'pending') return;
    const fn = await this.deps.store.getFunction(name);
    if (!fn) return;
    const success = delivery.status === 'succeeded';
    const destination = success ? fn.async.onSuccess : fn.async.onFailure;
    if (!destination) return;
    // The record is one hop deeper than the run it tells of, whatever started that run.
    const depth = depthOf(delivery.triggerDetail) + 1;
    if (depth > MAX_HOPS) {
      this.deps.log.warn({ invocation: delivery.id, function: name, depth }, 'loop stopped: destination record not sent');
      this.deps.emitOperational('switchyard.function.loop_stopped', {
        function: name,
        invocation_ids: [delivery.id],
        event: null,
        destination,
        depth,
        max_hops: MAX_HOPS,
      });
      return;
    }
    const record = destinationRecord(name, delivery);
    if (destination.type === 'webhook') {
      await this.deps.store.createDelivery({
        webhookId: destination.id,
        trigger: 'destination',
        triggerDetail: { type: 'destination', depth },
        scheduledFor: null,
        event: null,
        eventData: record,
        nextAttemptAt: new Date(this.deps.clock.now()).toISOString(),
      });
      this.deps.wake();
      return;
    }
    await this.deps.invocations.enqueue(destination.name, {
      trigger: 'destination',
      detail: {
        source_function: name,
        source_invocation_id: delivery.id,
        condition: record.requestContext.condition,
        depth,
      },
      event: record,
    });
  }
}
