/**
 * Background invocations of functions: asynchronous invokes
 * (`x-invocation-type: Event`), schedule slots (created by the scheduler),
 * events (the EventBus's fan-out, with the emit loop guard) and destinations.
 * Each one is a function-target delivery of the one delivery pipeline
 * (src/deliveries/): stored before it is attempted (outbox), claimed under a
 * lease with a fair share per function, retried on error, kept with its
 * attempts. This module creates them and shows them; target.ts and runner.ts
 * run them, outcomes.ts acts on their end.
 */
import { randomUUID } from 'node:crypto';
import { AWS_ACCOUNT_ID, AWS_REGION } from '../aws-placeholders.js';
import type { Clock } from '../clock.js';
import type { Delivery, DeliveryStatus, DeliveryTrigger } from '../deliveries/types.js';
import { ConflictError, NotFoundError, functionNotFound, invocationNotFound } from '../errors.js';
import { MAX_HOPS, RunDepths } from '../hops.js';
import type { Store } from '../store/store.js';
import type { Logger, Page } from '../types.js';
import { subscribedEvent } from './bus-event.js';

/**
 * The record a destination receives: the shape of Lambda's asynchronous
 * invocation record. `requestId` is the invocation id; on failure
 * `responsePayload` is `{errorMessage, errorType}` with Switchyard's error
 * code as the type.
 */
export function destinationRecord(functionName: string, d: Delivery) {
  const success = d.status === 'succeeded';
  const last = d.attempts[d.attempts.length - 1];
  return {
    version: '1.0',
    timestamp: d.completedAt ?? d.createdAt,
    requestContext: {
      requestId: d.id,
      functionArn: `arn:aws:lambda:${AWS_REGION}:${AWS_ACCOUNT_ID}:function:${functionName}:$LATEST`,
      condition: success ? ('Success' as const) : ('RetriesExhausted' as const),
      approximateInvokeCount: d.attempts.length,
    },
    requestPayload: d.eventData ?? null,
    responseContext: success
      ? { statusCode: 200, executedVersion: '$LATEST' }
      : { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    responsePayload: success
      ? (d.result ?? null)
      : { errorMessage: d.error ?? 'unknown error', errorType: last?.outcome ?? 'function_error' },
  };
}


export interface NewInvocation {
  trigger: DeliveryTrigger;
  /** Details shown under `trigger` besides its type (cron and slot, event name and id, source invocation). */
  detail?: Record<string, unknown>;
  event: unknown;
  scheduleId?: string | null;
  scheduledFor?: string | null;
  eventName?: string | null;
  /** The trace context of its cause (tracing on): the run joins that trace. */
  trace?: string;
}

export interface FunctionInvocationsDeps {
  store: Store;
  clock: Clock;
  /** Tells the delivery engine that a delivery is due now. */
  wake(): void;
  log?: Logger;
  /** The runs of this process that are part of a chain (shared with the gateway and manual invokes). */
  hops?: RunDepths;
}

export class FunctionInvocations {
  private readonly hops: RunDepths;

  constructor(private readonly deps: FunctionInvocationsDeps) {
    this.hops = deps.hops ?? new RunDepths();
  }

  /**
   * The invocations of the functions subscribed to a published event (the
   * EventBus's function fan-out), one per function, due now; `trace`: the
   * publish's trace context, which each run joins.
   */
  async fanOut(event: string, data: unknown, depth: number, trace?: string): Promise<Array<{ name: string; invocationId: string }>> {
    const functions = await this.deps.store.functionsForEvent(event);
    if (functions.length === 0) return [];
    const id = randomUUID();
    const time = this.iso();
    const reached: Array<{ name: string; invocationId: string }> = [];
    for (const fn of functions) {
      try {
        const created = await this.deps.store.createDelivery({
          functionName: fn.name,
          trigger: 'event',
          triggerDetail: { type: 'event', event, event_id: id, depth },
          scheduledFor: null,
          event,
          eventData: subscribedEvent(fn.eventFormat, event, id, time, data),
          nextAttemptAt: time,
          traceContext: trace,
        });
        reached.push({ name: fn.name, invocationId: created.id });
      } catch (err) {
        // Deleted since it was listed: it is no longer subscribed.
        if (!(err instanceof NotFoundError)) throw err;
      }
    }
    if (reached.length > 0) this.deps.wake();
    return reached;
  }

  /**
   * A function's `emit(event, data)`, with the loop guard: the event is one hop
   * deeper than the function's deepest run in progress here (src/hops.ts).
   * Past MAX_HOPS the emit is refused: those runs are recorded as failed
   * (`loop_stopped`, not retried) and `switchyard.function.loop_stopped` is published.
   */
  async emitFrom(
    functionName: string,
    event: string,
    data: unknown,
    publish: (event: string, data: unknown, depth: number) => Promise<unknown>,
    emitOperational: (event: `switchyard.${string}`, data: unknown) => void,
  ): Promise<void> {
    const { depth, from } = this.hops.next(functionName);
    if (depth <= MAX_HOPS) {
      await publish(event, data, depth);
      return;
    }
    const why = `emit of '${event}' refused: the chain of runs reached ${MAX_HOPS} hops (a loop?)`;
    for (const run of from.values()) run.stopped = why;
    this.deps.log?.warn({ function: functionName, event, depth }, 'loop stopped: emit refused');
    emitOperational('switchyard.function.loop_stopped', {
      function: functionName,
      invocation_ids: [...from.keys()],
      event,
      destination: null,
      depth,
      max_hops: MAX_HOPS,
    });
  }

  private iso(ms = this.deps.clock.now()): string {
    return new Date(ms).toISOString();
  }

  /** Stores one pending invocation of `name`, due now, and wakes the engine. Throws when the function does not exist. */
  async enqueue(name: string, inv: NewInvocation): Promise<Delivery> {
    const delivery = await this.deps.store.createDelivery({
      functionName: name,
      trigger: inv.trigger,
      triggerDetail: { type: inv.trigger, ...(inv.detail ?? {}) },
      scheduleId: inv.scheduleId ?? null,
      scheduledFor: inv.scheduledFor ?? null,
      event: inv.eventName ?? null,
      eventData: inv.event ?? null,
      nextAttemptAt: this.iso(),
      traceContext: inv.trace,
    });
    this.deps.wake();
    return delivery;
  }

  /**
   * `POST /api/functions/:name/invoke` with `x-invocation-type: Event`: stored, answered at once, run in the
   * background. `depth`: the request's hop count (`Switchyard-Depth`), which the run keeps.
   */
  async invokeAsync(name: string, event: unknown, depth = 0, trace?: string): Promise<Delivery> {
    if (!(await this.deps.store.getFunction(name))) throw functionNotFound(name);
    return this.enqueue(name, { trigger: 'async', event: event ?? {}, detail: depth > 0 ? { depth } : undefined, trace });
  }

  async list(name: string, status: DeliveryStatus | null, page: Page): Promise<Delivery[]> {
    if (!(await this.deps.store.getFunction(name))) throw functionNotFound(name);
    return this.deps.store.listFunctionDeliveries(name, status, page);
  }

  async get(name: string, id: string): Promise<Delivery> {
    const delivery = await this.deps.store.getDelivery(id);
    if (!delivery || delivery.functionName !== name) {
      if (!(await this.deps.store.getFunction(name))) throw functionNotFound(name);
      throw invocationNotFound(name, id);
    }
    return delivery;
  }

  /** Runs a failed invocation once more, in the background (one attempt; its retries were spent). */
  async retry(name: string, id: string): Promise<Delivery> {
    const current = await this.get(name, id);
    if (current.status !== 'failed') {
      throw new ConflictError('invocation_not_failed', `Invocation '${id}' is ${current.status}; only a failed one can be retried`);
    }
    const reopened = await this.deps.store.reopenDelivery(id, this.iso());
    if (!reopened) throw new ConflictError('invocation_not_failed', `Invocation '${id}' is already being retried`);
    this.deps.wake();
    return reopened;
  }
}
