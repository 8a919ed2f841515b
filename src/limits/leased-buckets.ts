/**
 * Token buckets shared by every process of every node on the database, spent
 * through leases: the gateway's throttles (src/gateway/policy/throttle.ts) and
 * the webhooks' rate limits (src/webhooks/health-gate.ts) both take from here.
 *
 * Why leases. The bucket's state lives in the store (rate_buckets: one atomic
 * upsert refills it and takes tokens, ../store/sqlite/limits.ts), so no
 * process can spend a token another one took. A round trip per token would
 * be the simplest correct design; instead each process takes tokens in small
 * batches and spends them locally (a lease), which removes most round trips
 * on busy buckets. The bounds, for P processes in the cluster:
 * - A batch is at most 1 % of a second's rate (and of a quarter of the burst),
 *   at least 1: buckets below 100 per second take one token per use, exactly
 *   as a round trip per use would.
 * - Tokens are taken from the shared bucket before they are spent, so over any
 *   window the uses admitted are at most the tokens the bucket gave in it
 *   plus what the processes held when it opened: at most P batches, i.e.
 *   P x 0.01 s of rate. Over 10 s that is P x 0.1 % above burst + 10 x rate:
 *   a 2 % bound holds up to 20 processes in the cluster.
 * - A lease unspent after LEASE_MS is dropped (never returned): its tokens are
 *   lost, so the error of leasing is to admit slightly fewer, never more.
 * - One take at a time per bucket and process: concurrent uses that find the
 *   lease empty wait for that take rather than each taking a batch.
 * Time is the caller's clock (the database's on PostgreSQL), so buckets refill
 * alike on every node; in tests a manual clock moves them. Written by hand: the
 * rate-limit libraries keep buckets in one process or in Redis, not in the
 * SQL database every node already shares.
 */
import type { Clock } from '../clock.js';
import type { LimitsPart, TokenTake } from '../store/store.js';
import type { ThrottleConfig } from '../types.js';

/** How long a process may keep tokens it took and has not spent. */
export const LEASE_MS = 1000;
/** Local views of buckets kept per process. */
const MAX_BUCKETS = 10_000;
/** A batch is at most this share of a second's rate. */
const BATCH_SECONDS = 0.01;

/** The tokens one process takes from a bucket at a time. */
export function batchOf(throttle: ThrottleConfig): number {
  return Math.max(1, Math.min(Math.floor(throttle.rateLimit * BATCH_SECONDS), Math.floor(throttle.burstLimit / 4)));
}

export interface LeasedBucketsDeps {
  limits: Pick<LimitsPart, 'takeTokens'>;
  clock: Clock;
}

/** A shared bucket as one process sees it: the tokens it holds and the take under way. */
class LeasedBucket {
  private held = 0;
  private heldUntil = 0;
  private taking: Promise<TokenTake> | null = null;

  constructor(
    private readonly name: string,
    private readonly throttle: ThrottleConfig,
    private readonly deps: LeasedBucketsDeps,
  ) {}

  /**
   * 0 when a token was spent; else the milliseconds until one is back. At once
   * (no promise) while this process holds a token, as for nearly every use.
   */
  spend(): number | Promise<number> {
    if (this.held > 0 && this.deps.clock.now() < this.heldUntil) {
      this.held--;
      return 0;
    }
    return this.spendAfterTake();
  }

  private async spendAfterTake(): Promise<number> {
    // Bounded: each pass either spends, is refused, or waited on a take that gave its tokens to others.
    for (let pass = 0; pass < 8; pass++) {
      if (this.held > 0 && this.deps.clock.now() < this.heldUntil) {
        this.held--;
        return 0;
      }
      const taking = this.taking ?? this.take();
      const took = await taking;
      if (took.taken === 0) return took.retryAfterMs;
    }
    // Others kept spending the batches this use waited for: it takes one token for itself.
    const own = await this.deps.limits.takeTokens(this.name, this.throttle, 1, this.deps.clock.now());
    return own.taken > 0 ? 0 : own.retryAfterMs;
  }

  private take(): Promise<TokenTake> {
    const now = this.deps.clock.now();
    const taking = this.deps.limits.takeTokens(this.name, this.throttle, batchOf(this.throttle), now).then(
      (took) => {
        this.taking = null;
        // Whatever was still held is dropped: a process holds at most one batch (the bound above).
        this.held = took.taken;
        this.heldUntil = now + LEASE_MS;
        return took;
      },
      (err: unknown) => {
        this.taking = null;
        throw err;
      },
    );
    this.taking = taking;
    return taking;
  }
}

/**
 * This process's view of the shared buckets, by name (`api:<id>`, `route:<id>`,
 * `key:<id>`, `webhook:<id>`). A bucket whose settings change starts a new
 * local view; the shared state (tokens) carries over.
 */
export class LeasedBuckets {
  private readonly buckets = new Map<string, { throttle: ThrottleConfig; bucket: LeasedBucket }>();

  constructor(private readonly deps: LeasedBucketsDeps) {}

  /** Spends one token of the named bucket: 0, or the milliseconds until one is back; at once while this process holds one. */
  spend(name: string, throttle: ThrottleConfig): number | Promise<number> {
    return this.bucket(name, throttle).spend();
  }

  private bucket(name: string, throttle: ThrottleConfig): LeasedBucket {
    const known = this.buckets.get(name);
    if (known && known.throttle.rateLimit === throttle.rateLimit && known.throttle.burstLimit === throttle.burstLimit) return known.bucket;
    const bucket = new LeasedBucket(name, throttle, this.deps);
    // Bounded (a bucket per API key or webhook): starting over only drops the tokens the views held.
    if (this.buckets.size >= MAX_BUCKETS) this.buckets.clear();
    this.buckets.set(name, { throttle, bucket });
    return bucket;
  }
}
