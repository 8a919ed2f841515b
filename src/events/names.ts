/**
 * Event names: the one place that says which names are the service's own.
 * A subscription to `*` means "every event a producer publishes", never the
 * service's operational `switchyard.*` events (delivery failures and the
 * like): a catch-all subscriber that fails would otherwise be told about its
 * own failure, and again about that, without end. Those are reached only by
 * subscribing to their exact name, and producers may not publish them.
 */

export const OPERATIONAL_EVENT_PREFIX = 'switchyard.';

/** Whether `name` is one of the service's own events (reserved for it). */
export function isOperationalEvent(name: string): boolean {
  return name.startsWith(OPERATIONAL_EVENT_PREFIX);
}

/** The subscription that, besides the exact name, reaches `event`: `*`, or nothing else for an operational event. */
export function wildcardFor(event: string): string {
  return isOperationalEvent(event) ? event : '*';
}
