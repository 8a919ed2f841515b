/**
 * Who an event reaches, as the server decides it (webhooksForEvent and
 * functionsForEvent in the stores): its exact name, or `*`, which stands for
 * every event except the service's own `switchyard.*` ones.
 */

const OPERATIONAL_PREFIX = 'switchyard.';

export function subscribes(events: readonly string[] | null | undefined, event: string): boolean {
  if (!events || !event) return false;
  return events.includes(event) || (!event.startsWith(OPERATIONAL_PREFIX) && events.includes('*'));
}

/** The items subscribed to `event`, in their order. */
export function subscribersOf<T extends { events?: readonly string[] | null }>(items: readonly T[], event: string): T[] {
  return items.filter((item) => subscribes(item.events, event));
}
