/**
 * Event fan-out: `POST /api/events`, functions' `emit(event, data)` and the
 * service's own `switchyard.*` events all end here. Each webhook subscribed
 * to the event gets a delivery row (the outbox) before anything is sent:
 * pending, or held when the webhook may not be sent to now (disabled, paused,
 * its breaker open), to be released in publish order when it may; each
 * subscribed function gets a function-target delivery (an `event`
 * invocation). The delivery engine takes it from there.
 */
import type { Clock } from '../clock.js';
import { checkUserEventName, isOperationalEvent } from '../events/names.js';
import type { ViolationSource } from '../events/types.js';
import type { EventValidator, ValidationOutcome } from '../events/validation.js';
import type { Store } from '../store/store.js';
import type { Logger } from '../types.js';

/** What one published event reached. */
export interface Published {
  /** Webhook deliveries created. */
  deliveries: string[];
  /** Function invocations created, one per subscribed function. */
  functions: Array<{ name: string; invocationId: string }>;
  /** What the catalogue's schema said (absent: the type is not catalogued, has no schema, or its mode is off). */
  validation?: ValidationOutcome;
}

/** How a publish came: where from (for violation records) and the schema version it names. */
export interface PublishOptions {
  source?: ViolationSource;
  version?: number;
}

/** Creates the invocations of the functions subscribed to an event (src/functions/invocations.ts). */
export type FunctionFanOut = (event: string, data: unknown, depth: number) => Promise<Published['functions']>;

export interface EventBusDeps {
  store: Store;
  clock: Clock;
  /** Tells the delivery engine that a delivery is due now. */
  wake(): void;
  /** Functions subscribed to events are reached through this; none: events reach webhooks only. */
  functionFanOut?: FunctionFanOut;
  /** The catalogue's schemas (src/events/validation.ts); none: nothing is validated. */
  validator?: EventValidator;
  log: Logger;
}

export class EventBus {
  constructor(private readonly deps: EventBusDeps) {}

  /** Validates a user-supplied event name: operational names are the service's own. */
  static checkUserEvent(event: string, field = 'event'): void {
    checkUserEventName(event, field);
  }

  /**
   * Creates one pending delivery per subscribed webhook and one invocation per
   * subscribed function. `depth` counts the hops that led here (0: published
   * from outside; src/hops.ts); every delivery and run it makes keeps it.
   */
  async publish(event: string, data: unknown, depth = 0, opts: PublishOptions = {}): Promise<Published> {
    // Before anything is created: a reject-mode type's invalid data throws EventInvalidError here.
    const validation = this.deps.validator && !isOperationalEvent(event)
      ? await this.deps.validator.check(event, data ?? null, opts.source ?? 'publish', opts.version)
      : null;
    const fanOut = this.deps.functionFanOut;
    const functions = fanOut ? await fanOut(event, data ?? null, depth) : [];
    const deliveries = await this.publishToWebhooks(event, data, depth);
    return validation ? { deliveries, functions, validation } : { deliveries, functions };
  }

  private async publishToWebhooks(event: string, data: unknown, depth: number): Promise<string[]> {
    const subscribers = await this.deps.store.subscribersOf(event);
    if (subscribers.length === 0) return [];
    const now = new Date(this.deps.clock.now()).toISOString();
    const ids: string[] = [];
    let due = false;
    for (const { webhook, hold } of subscribers) {
      due ||= !hold;
      const delivery = await this.deps.store.createDelivery({
        webhookId: webhook.id,
        trigger: 'event',
        // A webhook that reaches one of this server's routes passes the depth on (Switchyard-Depth).
        triggerDetail: depth > 0 ? { type: 'event', depth } : null,
        scheduledFor: null,
        event,
        eventData: data ?? null,
        nextAttemptAt: now,
        // A webhook that may not be sent to now (disabled, paused, its breaker open) keeps it for later.
        held: hold,
      });
      ids.push(delivery.id);
    }
    if (due) this.deps.wake();
    return ids;
  }

  /** Operational events: never fail the operation that raised them. */
  emitOperational(event: `switchyard.${string}`, data: unknown): void {
    this.publish(event, data).catch((err) => this.deps.log.warn({ err, event }, 'could not publish an operational event'));
  }
}
