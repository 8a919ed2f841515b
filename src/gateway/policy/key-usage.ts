/**
 * The daily use of API keys whose usage plan has no quota, counted in this
 * process and added to the store in one batch a second, so such a request
 * costs no database write. A plan with a quota is different: each admitted
 * request is counted in one atomic statement (LimitsPart.countKeyUse), since
 * the quota must hold for the whole cluster.
 *
 * What this costs: usage read through the API (GET /api/api-keys/{id}/usage)
 * lags by up to FLUSH_MS, as the statistics do; a process killed without a
 * shutdown loses at most that second's counts. A failed write keeps its counts
 * for the next one.
 */
import type { KeyUse, LimitsPart } from '../../store/store.js';
import type { Logger } from '../../types.js';

/** How long counts wait in this process before they are added to the store. */
export const FLUSH_MS = 1000;

export class KeyUseCounter {
  private pending = new Map<string, KeyUse>();
  private timer: NodeJS.Timeout | null = null;
  private readonly limits: Pick<LimitsPart, 'addKeyUses'>;
  private readonly log: Logger | null;
  private readonly flushMs: number;

  constructor(deps: { limits: Pick<LimitsPart, 'addKeyUses'>; log?: Logger | null; flushMs?: number }) {
    this.limits = deps.limits;
    this.log = deps.log ?? null;
    this.flushMs = deps.flushMs ?? FLUSH_MS;
  }

  /** Counts one request of `keyId` on `day` (UTC, YYYY-MM-DD). */
  add(keyId: string, day: string, count = 1): void {
    const key = `${keyId} ${day}`;
    const use = this.pending.get(key);
    if (use) use.count += count;
    else this.pending.set(key, { keyId, day, count });
    this.timer ??= setTimeout(() => void this.flush(), this.flushMs).unref();
  }

  /** Writes what is counted; at shutdown, and by the timer. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.size === 0) return;
    // In one order on every process, so two batches on PostgreSQL never wait on each other's rows.
    const batch = [...this.pending.values()].sort((a, b) => (a.keyId === b.keyId ? a.day.localeCompare(b.day) : a.keyId.localeCompare(b.keyId)));
    this.pending = new Map();
    try {
      await this.limits.addKeyUses(batch);
    } catch (err) {
      for (const use of batch) this.add(use.keyId, use.day, use.count);
      this.log?.warn({ err }, 'API key usage not written yet; kept for the next write');
    }
  }
}
