/**
 * Read-your-writes between the server processes of one node (`--processes`):
 * a process that changed something tells its siblings through the cluster's
 * channel (the primary relays it, src/cluster.ts) and waits until each has
 * applied it. The store's feed also carries the change, but in its own time
 * (SQLite is polled every 200 ms; a notification is not an acknowledgement),
 * and the primary hands the next connection to any process: without the wait,
 * a call made right after a write's answer could be served by a process that
 * has not heard of it yet.
 *
 * The wait is bounded (a process stuck in a long synchronous task must not
 * hold every write): past it the write answers anyway, and the late process
 * catches up when it reads the message, or from the store's feed.
 */
import type { Change, ChangeListener, Siblings } from './changes.js';
import type { ClusterMessage } from './cluster.js';

/** How long a write waits for the primary's word that every sibling applied its change. */
export const SIBLING_WAIT_MS = 2000;

export interface SiblingChangesDeps {
  /** Sends a message to the primary (process.send in a cluster worker). */
  send(message: ClusterMessage): void;
  /** Subscribes to the primary's messages; returns an unsubscribe function. */
  receive(handler: (message: ClusterMessage) => void): () => void;
  /** Told when the wait ran out or some sibling did not confirm in time. */
  onLate?(missing: number): void;
}

/** This process's end of the node's change channel. */
export function siblingChanges(deps: SiblingChangesDeps): Siblings {
  const waiting = new Map<number, (missing: number) => void>();
  const listeners = new Set<ChangeListener>();
  let nextId = 0;

  const stop = deps.receive(function onClusterMessage(message) {
    if (message?.type === 'switchyard:change-apply') {
      // Apply first, then confirm: the confirmation is the promise that this process serves the change.
      for (const listener of listeners) listener(message.change, message.seq);
      deps.send({ type: 'switchyard:change-applied', id: message.id });
    } else if (message?.type === 'switchyard:change-done') {
      waiting.get(message.id)?.(message.missing);
    }
  });

  return {
    tell(change: Change, seq: number): Promise<void> {
      const id = nextId++;
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => finish(-1), SIBLING_WAIT_MS);
        const finish = (missing: number) => {
          clearTimeout(timer);
          waiting.delete(id);
          if (missing !== 0) deps.onLate?.(missing);
          resolve();
        };
        waiting.set(id, finish);
        try {
          deps.send({ type: 'switchyard:change', id, change, seq });
        } catch {
          // The channel to the primary is gone (the node is stopping): nobody left to tell.
          finish(0);
        }
      });
    },
    listen(listener: ChangeListener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) stop();
      };
    },
  };
}
