/**
 * Writes the engine's attempt outcomes to the store. Outcomes that finish in
 * the same turn of the event loop are written together (one commit instead
 * of one per attempt: the commit, not the statements, is what a write
 * costs); each keeps its own lease check. Most attempts need
 * only to know that they were recorded: those ask for no read-back of the
 * delivery (`recordLean`), which saves reading the row and its attempts back
 * and turning them into objects, a tenth of an attempt's CPU.
 */
import type { WebhookStore } from '../store/store.js';
import type { Logger } from '../types.js';
import type { AttemptOutcome, AttemptRecord, Delivery } from './types.js';

/** The batch form of `recordAttempt` (declared on the store: `WebhookStore.recordAttempts`). */
export type BatchAttemptRecorder = Pick<WebhookStore, 'recordAttempts'>;

interface QueuedRecord extends AttemptRecord {
  resolve(d: Delivery | true | null): void;
  reject(err: unknown): void;
}

export class AttemptRecorder {
  private queue: QueuedRecord[] = [];
  private flushScheduled = false;

  private readonly store: WebhookStore;
  private readonly owner: string;
  private readonly log: Logger;

  constructor(deps: { store: WebhookStore; owner: string; log: Logger }) {
    this.store = deps.store;
    this.owner = deps.owner;
    this.log = deps.log;
  }

  /** The delivery after the outcome, or null when the lease was lost (or the delivery deleted). */
  record(id: string, outcome: AttemptOutcome): Promise<Delivery | null> {
    return this.enqueue(id, outcome, false) as Promise<Delivery | null>;
  }

  /** Whether the outcome was recorded (false: the lease was lost, or the delivery deleted). */
  async recordLean(id: string, outcome: AttemptOutcome): Promise<boolean> {
    return (await this.enqueue(id, outcome, true)) !== null;
  }

  private enqueue(id: string, outcome: AttemptOutcome, lean: boolean): Promise<Delivery | true | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id, outcome, lean, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    try {
      const results = await this.store.recordAttempts(
        this.owner,
        batch.map(({ id, outcome, lean }) => ({ id, outcome, lean })),
      );
      batch.forEach((item, i) => item.resolve(results[i] ?? null));
      return;
    } catch (err) {
      // The batch was rolled back as a whole: record one by one so one bad item fails alone.
      this.log.warn({ err, size: batch.length }, 'recording a batch of attempts failed; recording them one by one');
    }
    for (const item of batch) {
      this.store.recordAttempt(item.id, this.owner, item.outcome).then(item.resolve, item.reject);
    }
  }
}
