/**
 * Writes the engine's attempt outcomes to the store. Outcomes that finish in
 * the same turn of the event loop are written together when the store can
 * (one commit instead of one per attempt: the commit, not the statements, is
 * what a write costs); each keeps its own lease check.
 */
import type { WebhookStore } from '../store/store.js';
import type { AttemptOutcome, Delivery } from './types.js';

/**
 * Optional batch form of `WebhookStore.recordAttempt`: the same effect for
 * each item, in one transaction (one commit instead of one per attempt).
 * Used when the store has it.
 */
export interface BatchAttemptRecorder {
  recordAttempts(owner: string, items: Array<{ id: string; outcome: AttemptOutcome }>): Promise<Array<Delivery | null>>;
}

interface QueuedRecord {
  id: string;
  outcome: AttemptOutcome;
  resolve(d: Delivery | null): void;
  reject(err: unknown): void;
}

export class AttemptRecorder {
  private queue: QueuedRecord[] = [];
  private flushScheduled = false;

  constructor(
    private readonly store: WebhookStore,
    private readonly owner: string,
    private readonly log: { warn(o: object, m?: string): void },
  ) {}

  /** The delivery after the outcome, or null when the lease was lost (or the delivery deleted). */
  record(id: string, outcome: AttemptOutcome): Promise<Delivery | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id, outcome, resolve, reject });
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
    const batcher = this.store as Partial<BatchAttemptRecorder>;
    if (typeof batcher.recordAttempts === 'function') {
      try {
        const results = await batcher.recordAttempts(this.owner, batch.map(({ id, outcome }) => ({ id, outcome })));
        batch.forEach((item, i) => item.resolve(results[i] ?? null));
        return;
      } catch (err) {
        // The batch was rolled back as a whole: record one by one so one bad item fails alone.
        this.log.warn({ err, size: batch.length }, 'recording a batch of attempts failed; recording them one by one');
      }
    }
    for (const item of batch) {
      this.store.recordAttempt(item.id, this.owner, item.outcome).then(item.resolve, item.reject);
    }
  }
}
