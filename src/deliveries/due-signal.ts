/**
 * "A delivery is due now": what every producer of deliveries (the event bus,
 * background invocations, the scheduler, the services) tells the engine.
 * Producers are built before the engine (the engine needs the targets, the
 * function target needs the runtime, and the runtime's emits reach the
 * producers), so they hold this signal rather than the engine.
 */
export class DueSignal {
  private listener: (() => void) | null = null;

  /** The engine's end: one listener; a second replaces the first. Answers a function that detaches it. */
  listen(listener: () => void): () => void {
    this.listener = listener;
    return () => {
      if (this.listener === listener) this.listener = null;
    };
  }

  wake(): void {
    this.listener?.();
  }
}
