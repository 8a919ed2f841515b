/**
 * The delivery engine's attempts in flight: by delivery (a lease that ran out
 * under a long attempt must not start a second attempt here), by target (its
 * share, and the per-target metric), and when a finished attempt makes a new
 * claim worthwhile.
 */
export class InflightAttempts {
  private readonly byDelivery = new Map<string, Promise<unknown>>();
  private readonly perTarget = new Map<string, number>();
  /** Targets given all the room they had at the last claim: they may have more due. */
  private readonly atShare = new Set<string>();
  /** Whether the last claim left most of the room taken. */
  private crowded = false;

  readonly total: number;
  /** A target's share now (its adaptive limit: concurrency-limit.ts). */
  private readonly shareOf: (target: string) => number;

  constructor(deps: { total: number; shareOf(target: string): number }) {
    this.total = deps.total;
    this.shareOf = deps.shareOf;
  }

  get size(): number {
    return this.byDelivery.size;
  }

  get room(): number {
    return this.total - this.byDelivery.size;
  }

  has(deliveryId: string): boolean {
    return this.byDelivery.has(deliveryId);
  }

  /** The run of a delivery in flight here, if any. */
  runOf(deliveryId: string): Promise<unknown> | undefined {
    return this.byDelivery.get(deliveryId);
  }

  running(): Array<Promise<unknown>> {
    return [...this.byDelivery.values()];
  }

  /** Attempts in flight per target, only targets with some: a live view. */
  byTarget(): ReadonlyMap<string, number> {
    return this.perTarget;
  }

  /** Attempts of `target` in flight now. */
  of(target: string): number {
    return this.perTarget.get(target) ?? 0;
  }

  add(deliveryId: string, target: string, run: Promise<unknown>): void {
    this.byDelivery.set(deliveryId, run);
    this.perTarget.set(target, (this.perTarget.get(target) ?? 0) + 1);
  }

  /**
   * Takes the attempt `run` out; true when a claim is worthwhile now: once a
   * quarter of a share, or of all attempts, is free. Batches, not one claim per
   * finished attempt, yet slow targets keep most of the room busy (the figures:
   * bench/README.md). A target not at its share had nothing more due at the
   * last claim: new deliveries wake the engine themselves, retries come due by
   * its poll.
   */
  remove(deliveryId: string, target: string, run: Promise<unknown>): boolean {
    if (this.byDelivery.get(deliveryId) === run) this.byDelivery.delete(deliveryId);
    const left = (this.perTarget.get(target) ?? 1) - 1;
    if (left > 0) this.perTarget.set(target, left);
    else this.perTarget.delete(target);
    if (this.atShare.has(target) && left <= (this.shareOf(target) * 3) / 4) {
      this.atShare.delete(target);
      return true;
    }
    if (this.crowded && this.byDelivery.size <= (this.total * 3) / 4) {
      this.crowded = false;
      return true;
    }
    // The last attempt here ended: claim once more. The rules above trust the last claim's
    // count of a target, which on PostgreSQL can lag the leases (a delivery re-claimed while
    // its attempt ran); this bounds such a miss to the attempts in flight, not the poll.
    return this.byDelivery.size === 0;
  }

  /** What each target holds now, to pass to `claimed` once the claim is back. */
  beforeClaim(): Map<string, number> {
    return new Map(this.perTarget);
  }

  /**
   * After a claim: a target that got all the room it had when the claim began
   * (under `claimedShare`, the shares the claim was given) may have more due.
   * The store counted no more than `held` (a lease is given back before its
   * attempt ends here), while attempts ending during the claim have lowered
   * the count since, so `held` is the measure. True when such a target has
   * room again already: claiming again at once keeps a fast target's share
   * full, as a full batch would.
   */
  claimed(held: Map<string, number>, targets: readonly string[], claimedShare: (target: string) => number): boolean {
    let again = false;
    for (const id of targets) {
      const got = (held.get(id) ?? 0) + 1;
      held.set(id, got);
      // The share the claim enforced: one that grew meanwhile must not hide that this one was filled.
      if (got < claimedShare(id)) continue;
      this.atShare.add(id);
      if ((this.perTarget.get(id) ?? 0) < this.shareOf(id)) again = true;
    }
    this.crowded = this.byDelivery.size > (this.total * 3) / 4;
    return again;
  }
}
