/**
 * Event names: the one place that says which names are the service's own.
 * A subscription to `*` means "every event a producer publishes", never the
 * service's operational `switchyard.*` events (delivery failures and the
 * like): a catch-all subscriber that fails would otherwise be told about its
 * own failure, and again about that, without end. Those are reached only by
 * subscribing to their exact name, and producers may not publish them.
 */
import { InvalidRequestError } from '../errors.js';

export const OPERATIONAL_EVENT_PREFIX = 'switchyard.';

/** A name producers may publish, subscribe to and catalogue. */
export const EVENT_NAME = /^[A-Za-z0-9_.:-]{1,200}$/;

/** Refuses a user-supplied event name, naming `field`: operational names are the service's own. */
export function checkUserEventName(event: string, field = 'event'): void {
  if (!EVENT_NAME.test(event)) {
    throw new InvalidRequestError(`${field} must be 1 to 200 characters of letters, digits and _ . : -`, { field });
  }
  if (isOperationalEvent(event)) {
    throw new InvalidRequestError(`${field}: names starting with switchyard. are reserved for the service's own events`, { field });
  }
}

/** Whether `name` is one of the service's own events (reserved for it). */
export function isOperationalEvent(name: string): boolean {
  return name.startsWith(OPERATIONAL_EVENT_PREFIX);
}

/** The subscription that, besides the exact name, reaches `event`: `*`, or nothing else for an operational event. */
export function wildcardFor(event: string): string {
  return isOperationalEvent(event) ? event : '*';
}
