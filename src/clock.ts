/**
 * Time as the scheduler and the delivery engine see it. Production uses the
 * system clock; tests (and `SWITCHYARD_TEST_HOOKS=1`) use a ManualClock they
 * move forward, so minutes of schedule run in milliseconds.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `listener` whenever the clock is moved by hand (never for the system clock). */
  onJump(listener: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  onJump: () => () => undefined,
};

export class ManualClock implements Clock {
  private listeners = new Set<() => void>();
  constructor(private current: number = Date.now()) {}

  now(): number {
    return this.current;
  }

  set(ms: number): void {
    this.current = ms;
    for (const listener of this.listeners) listener();
  }

  advance(ms: number): void {
    this.set(this.current + ms);
  }

  onJump(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
