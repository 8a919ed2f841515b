/**
 * What one process counted of its webhooks' attempts since it last reported
 * them (health/monitor.ts adds them to the store once a second): a handful of
 * numbers per webhook, so the hot path pays a Map lookup per attempt.
 */
import type { HealthSample } from '../../store/shared/target-health.js';

export class HealthSamples {
  private pending = new Map<string, HealthSample>();

  /** One attempt of `webhookId` (sending to `origin`) that ended at `at` (clock ms). */
  add(webhookId: string, origin: string, succeeded: boolean, at: number): void {
    let s = this.pending.get(webhookId);
    if (s === undefined) {
      s = { webhookId, origin, attempts: 0, failures: 0, firstFailureAt: null, lastFailureAt: null, lastSuccessAt: null };
      this.pending.set(webhookId, s);
    }
    s.attempts++;
    if (succeeded) {
      if (s.lastSuccessAt === null || at > s.lastSuccessAt) s.lastSuccessAt = at;
    } else {
      s.failures++;
      if (s.firstFailureAt === null || at < s.firstFailureAt) s.firstFailureAt = at;
      if (s.lastFailureAt === null || at > s.lastFailureAt) s.lastFailureAt = at;
    }
  }

  get size(): number {
    return this.pending.size;
  }

  /** Everything counted so far, and a fresh start. */
  take(): HealthSample[] {
    const taken = [...this.pending.values()];
    this.pending = new Map();
    return taken;
  }

  /** Samples a report could not write, counted again with what came since. */
  putBack(samples: readonly HealthSample[]): void {
    for (const s of samples) {
      const now = this.pending.get(s.webhookId);
      if (now === undefined) {
        this.pending.set(s.webhookId, { ...s });
        continue;
      }
      now.attempts += s.attempts;
      now.failures += s.failures;
      if (s.firstFailureAt !== null && (now.firstFailureAt === null || s.firstFailureAt < now.firstFailureAt)) now.firstFailureAt = s.firstFailureAt;
      if (s.lastFailureAt !== null && (now.lastFailureAt === null || s.lastFailureAt > now.lastFailureAt)) now.lastFailureAt = s.lastFailureAt;
      if (s.lastSuccessAt !== null && (now.lastSuccessAt === null || s.lastSuccessAt > now.lastSuccessAt)) now.lastSuccessAt = s.lastSuccessAt;
    }
  }
}
