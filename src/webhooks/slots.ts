/**
 * The delivery engine's attempts in flight: by delivery (a lease that ran out
 * under a long attempt must not start a second attempt here), by webhook (its
 * share, and the per-webhook metric), and when a finished attempt makes a new
 * claim worthwhile.
 */
export class InflightSlots {
  private readonly byDelivery = new Map<string, Promise<unknown>>();
  private readonly perWebhookCount = new Map<string, number>();
  /** Webhooks given all the room they had at the last claim: they may have more due. */
  private readonly atShare = new Set<string>();
  /** Whether the last claim left most slots taken. */
  private crowded = false;

  constructor(
    readonly total: number,
    /** A webhook's share now (its adaptive limit: concurrency-limit.ts). */
    private readonly shareOf: (webhookId: string) => number,
  ) {}

  get size(): number {
    return this.byDelivery.size;
  }

  get room(): number {
    return this.total - this.byDelivery.size;
  }

  has(deliveryId: string): boolean {
    return this.byDelivery.has(deliveryId);
  }

  running(): Array<Promise<unknown>> {
    return [...this.byDelivery.values()];
  }

  /** Attempts in flight per webhook id, only webhooks with some: a live view. */
  byWebhook(): ReadonlyMap<string, number> {
    return this.perWebhookCount;
  }

  /** Attempts of `webhookId` in flight now. */
  of(webhookId: string): number {
    return this.perWebhookCount.get(webhookId) ?? 0;
  }

  add(deliveryId: string, webhookId: string, run: Promise<unknown>): void {
    this.byDelivery.set(deliveryId, run);
    this.perWebhookCount.set(webhookId, (this.perWebhookCount.get(webhookId) ?? 0) + 1);
  }

  /**
   * Takes the attempt `run` out; true when a claim is worthwhile now: once a
   * quarter of a share, or of all slots, is free. Batches, not one claim per
   * finished attempt, yet slow targets keep most slots busy (at half, a 50 ms
   * target averaged ~600/s of a possible 1000/s; at a quarter ~715/s:
   * bench/nodes.js --target-latency-ms 50). A webhook not at its share had
   * nothing more due at the last claim: new deliveries wake the engine
   * themselves, retries come due by its poll.
   */
  remove(deliveryId: string, webhookId: string, run: Promise<unknown>): boolean {
    if (this.byDelivery.get(deliveryId) === run) this.byDelivery.delete(deliveryId);
    const left = (this.perWebhookCount.get(webhookId) ?? 1) - 1;
    if (left > 0) this.perWebhookCount.set(webhookId, left);
    else this.perWebhookCount.delete(webhookId);
    if (this.atShare.has(webhookId) && left <= (this.shareOf(webhookId) * 3) / 4) {
      this.atShare.delete(webhookId);
      return true;
    }
    if (this.crowded && this.byDelivery.size <= (this.total * 3) / 4) {
      this.crowded = false;
      return true;
    }
    return false;
  }

  /** What each webhook holds now, to pass to `claimed` once the claim is back. */
  beforeClaim(): Map<string, number> {
    return new Map(this.perWebhookCount);
  }

  /**
   * After a claim: a webhook that got all the room it had when the claim began
   * (under `claimedShare`, the shares the claim was given) may have more due. The store counted no more than `held` (a lease is given
   * back before its attempt ends here), while attempts ending during the claim
   * have lowered the count since, so `held` is the measure. True when such a
   * webhook has room again already (its attempts ended during the claim):
   * claiming again at once keeps a fast target's share full, as a full batch
   * did before shares (without it, one webhook to an instant target lost ~10 %).
   */
  claimed(held: Map<string, number>, webhookIds: readonly string[], claimedShare: (webhookId: string) => number): boolean {
    let again = false;
    for (const id of webhookIds) {
      const got = (held.get(id) ?? 0) + 1;
      held.set(id, got);
      // The share the claim enforced: one that grew meanwhile must not hide that this one was filled.
      if (got < claimedShare(id)) continue;
      this.atShare.add(id);
      if ((this.perWebhookCount.get(id) ?? 0) < this.shareOf(id)) again = true;
    }
    this.crowded = this.byDelivery.size > (this.total * 3) / 4;
    return again;
  }
}
