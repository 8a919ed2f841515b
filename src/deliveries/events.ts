/**
 * Lifecycle events of the delivery pipeline as a typed map, and a small
 * emitter for them. Hand-written rather than node:events: a listener that
 * throws must not reach the engine (it is logged, the others still run, as
 * graphile-worker's safeEmit does), and the map types both sides.
 */
import type { Logger } from '../types.js';
import type { Delivery } from './types.js';

export interface DeliveryEventMap {
  /** A delivery failed for good; `delivery` as recorded with its last attempt. */
  'delivery:failed': { delivery: Delivery };
  /** A delivery succeeded, for kinds whose target reports success (DeliveryTarget.reportsSuccess). */
  'delivery:succeeded': { delivery: Delivery };
}

type Listener<T> = (payload: T) => void;

export class TypedEvents<M extends object> {
  private readonly listeners = new Map<keyof M, Array<Listener<never>>>();

  constructor(private readonly deps: { log: Logger; source: string }) {}

  /** Adds a listener; the answer removes it. */
  on<K extends keyof M>(name: K, listener: Listener<M[K]>): () => void {
    const list = this.listeners.get(name) ?? [];
    list.push(listener as Listener<never>);
    this.listeners.set(name, list);
    return () => {
      const at = list.indexOf(listener as Listener<never>);
      if (at !== -1) list.splice(at, 1);
    };
  }

  emit<K extends keyof M>(name: K, payload: M[K]): void {
    const list = this.listeners.get(name) as Array<Listener<M[K]>> | undefined;
    if (!list) return;
    for (const listener of list) {
      try {
        listener(payload);
      } catch (err) {
        this.deps.log.error({ err, event: name }, `${this.deps.source} event listener failed`);
      }
    }
  }
}

export type DeliveryEvents = TypedEvents<DeliveryEventMap>;
