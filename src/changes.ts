/**
 * In-process notifications that something cached in memory changed in the store.
 * Route tables and function records are cached on the hot path; every write goes
 * through a service that publishes here, and the caches drop what changed. A
 * multi-node store (PostgreSQL LISTEN/NOTIFY) feeds the same bus from other nodes.
 */
export type Change = { kind: 'api'; id: string } | { kind: 'function'; name: string };

export type ChangeListener = (change: Change) => void;

export class ChangeBus {
  private readonly listeners = new Set<ChangeListener>();

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(change: Change): void {
    for (const listener of this.listeners) listener(change);
  }
}
