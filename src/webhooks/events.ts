/**
 * Event fan-out: `POST /api/events`, functions' `emit(event, data)` and the
 * service's own `switchyard.*` events all end here. Each webhook subscribed
 * to the event gets a delivery row (the outbox) before anything is sent:
 * pending, or held when the webhook may not be sent to now (disabled, paused,
 * its breaker open), to be released in publish order when it may; each
 * subscribed function gets a function-target delivery (an `event`
 * invocation). The delivery engine takes it from there.
 */
import type { ApplicationScope } from '../applications/types.js';
import type { Clock } from '../clock.js';
import { compileFilter, type CompiledFilter } from '../events/filters.js';
import { checkUserEventName, isOperationalEvent } from '../events/names.js';
import type { ViolationSource } from '../events/types.js';
import type { EventValidator, ValidationOutcome } from '../events/validation.js';
import type { Store } from '../store/store.js';
import type { NewDelivery } from '../deliveries/types.js';
import type { Logger } from '../types.js';
import { InvalidRequestError } from '../errors.js';

/** What one published event reached. */
export interface Published {
  /** Webhook deliveries created, one per matched webhook, in the order of `webhooks.matched`. */
  deliveries: string[];
  /** The subscribed webhooks whose filter the event matched (or that have none), and those it did not (no delivery). */
  webhooks: { matched: string[]; filteredOut: string[] };
  /** Function invocations created, one per subscribed function. */
  functions: Array<{ name: string; invocationId: string }>;
  /** What the catalogue's schema said (absent: the type is not catalogued, has no schema, or its mode is off). */
  validation?: ValidationOutcome;
  /** The id of the application it was published to; absent: none. */
  applicationId?: string;
}

/** How a publish came: where from (for violation records) and the schema version it names. */
export interface PublishOptions {
  source?: ViolationSource;
  version?: number;
  /** The publish request's event headers (lowercased names), for filters only. */
  headers?: Readonly<Record<string, string>>;
  /**
   * The application (id or uid) it is published to: only that application's webhooks get it, no
   * function does. Absent: the global webhooks and the subscribed functions.
   */
  application?: string;
  /** The trace context of the publish (an emit's span, a management request's), kept by each webhook delivery. */
  trace?: string;
}

/** Creates the invocations of the functions subscribed to an event (src/functions/invocations.ts). */
export type FunctionFanOut = (event: string, data: unknown, depth: number, trace?: string) => Promise<Published['functions']>;

export interface EventBusDeps {
  store: Store;
  clock: Clock;
  /** Tells the delivery engine that a delivery is due now. */
  wake(): void;
  /** Functions subscribed to events are reached through this; none: events reach webhooks only. */
  functionFanOut?: FunctionFanOut;
  /** The catalogue's schemas (src/events/validation.ts); none: nothing is validated. */
  validator?: EventValidator;
  /** Resolves and limits an event's `application`; none: publishing to one is refused. */
  applications?: ApplicationScope;
  log: Logger;
}

export class EventBus {
  /**
   * Compiled filters by the stored filter object: the store hands back one frozen object per filter
   * text (src/store/shared/webhook-rows.ts), so a webhook whose filter changed, here or on another
   * node, comes with another object and is compiled again; the old entry goes with its object.
   */
  private readonly filters = new WeakMap<object, CompiledFilter>();

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
    // Named and limited first: an unknown application or one past its rate creates nothing.
    const applicationId = opts.application === undefined ? null : await this.admit(opts.application);
    // Before anything is created: a reject-mode type's invalid data throws EventInvalidError here.
    const validation = this.deps.validator && !isOperationalEvent(event)
      ? await this.deps.validator.check(event, data ?? null, opts.source ?? 'publish', opts.version)
      : null;
    const fanOut = applicationId === null ? this.deps.functionFanOut : undefined;
    const functions = fanOut ? await fanOut(event, data ?? null, depth, opts.trace) : [];
    const { deliveries, webhooks } = await this.publishToWebhooks(event, data, depth, opts.headers ?? {}, applicationId, opts.trace);
    const published: Published = { deliveries, webhooks, functions };
    if (validation) published.validation = validation;
    if (applicationId !== null) published.applicationId = applicationId;
    return published;
  }

  /** The id of the application named, once one more event fits its rate. */
  private async admit(idOrUid: string): Promise<string> {
    const { applications } = this.deps;
    if (!applications) throw new InvalidRequestError('application: applications are not available here', { field: 'application' });
    const app = await applications.resolve(idOrUid, 'application');
    await applications.admitEvent(app);
    return app.id;
  }

  private async publishToWebhooks(
    event: string,
    data: unknown,
    depth: number,
    headers: Readonly<Record<string, string>>,
    applicationId: string | null,
    trace: string | undefined,
  ): Promise<Pick<Published, 'deliveries' | 'webhooks'>> {
    const subscribers = await this.deps.store.subscribersOf(event, applicationId);
    const matched: string[] = [];
    const filteredOut: string[] = [];
    if (subscribers.length === 0) return { deliveries: [], webhooks: { matched, filteredOut } };
    const now = new Date(this.deps.clock.now()).toISOString();
    const subject = { event, data: data ?? null, headers };
    const toCreate: NewDelivery[] = [];
    let due = false;
    for (const { webhook, hold } of subscribers) {
      if (webhook.filter != null && this.filterOf(webhook.id, webhook.filter).check(subject) !== null) {
        filteredOut.push(webhook.id);
        continue;
      }
      matched.push(webhook.id);
      due ||= !hold;
      toCreate.push({
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
        traceContext: trace,
      });
    }
    // One transaction for the fan-out: one commit, not one per endpoint, and no event half-delivered.
    const ids = toCreate.length === 0 ? [] : (await this.deps.store.createDeliveries(toCreate)).map((d) => d.id);
    if (due) this.deps.wake();
    return { deliveries: ids, webhooks: { matched, filteredOut } };
  }

  /** A webhook's compiled filter, compiled once per stored filter. */
  private filterOf(id: string, filter: Record<string, unknown>): CompiledFilter {
    const cached = this.filters.get(filter);
    if (cached !== undefined) return cached;
    let compiled: CompiledFilter;
    try {
      compiled = compileFilter(filter);
    } catch (err) {
      // Checked when written, so only a filter stored by an older Switchyard with looser bounds gets here:
      // that webhook gets nothing (never more than it asked for), and the others are not held up.
      this.deps.log.warn({ err, webhookId: id }, 'a stored webhook filter does not compile: the webhook is filtered out until it is rewritten');
      compiled = { check: () => ({ path: '', operator: 'invalid_filter' }) };
    }
    this.filters.set(filter, compiled);
    return compiled;
  }

  /** Operational events: never fail the operation that raised them. */
  emitOperational(event: `switchyard.${string}`, data: unknown): void {
    this.publish(event, data).catch((err) => this.deps.log.warn({ err, event }, 'could not publish an operational event'));
  }
}
