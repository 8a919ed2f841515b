/**
 * The worker's last line against memory no isolate limit counts (a leak in
 * the host side of the sandbox, an allocation kind isolated-vm misses): when
 * the process's resident set grows past a bound derived from the isolates it
 * holds, the worker fails its in-flight calls and restarts (worker.ts).
 */

/**
 * What a worker needs besides its isolates: Node and undici, the compiled
 * bootstrap and user code caches, frame buffers, and fetch bodies held on
 * the host side while they cross into an isolate. An idle worker measured
 * about 63 MB; the rest is headroom, so only a real runaway crosses it.
 */
export const RSS_BASE_MB = 512;
/**
 * Per isolate: its limit twice over (ivm's limit is soft: the heap check
 * allows 1.25 times, plus garbage awaiting collection), plus the isolate's
 * own fixed cost (a warm hello-world isolate measured about 1.5 MB).
 */
export const RSS_PER_ISOLATE_FACTOR = 2;
export const RSS_PER_ISOLATE_MB = 16;
export const RSS_CHECK_EVERY_MS = 1000;

/** The bound (MB) for a worker holding isolates with these memory limits (MB). */
export function rssBoundMb(isolateLimitsMb: readonly number[]): number {
  let bound = RSS_BASE_MB;
  for (const mb of isolateLimitsMb) bound += RSS_PER_ISOLATE_FACTOR * mb + RSS_PER_ISOLATE_MB;
  return bound;
}

export interface RssWatchdogOptions {
  /** Resident set size in bytes (process.memoryUsage.rss). */
  rss: () => number;
  /** Memory limits (MB) of the isolates alive now. */
  limits: () => readonly number[];
  /** Called once, on the first check over the bound. */
  onBreach: (rssMb: number, boundMb: number) => void;
  everyMs?: number;
  /** Test hook: a fixed bound instead of the computed one. */
  boundOverrideMb?: () => number | null;
}

/** Starts checking; returns the function that stops it. */
export function startRssWatchdog(opts: RssWatchdogOptions): () => void {
  let tripped = false;
  const check = () => {
    if (tripped) return;
    const rssMb = Math.round(opts.rss() / (1024 * 1024));
    const boundMb = opts.boundOverrideMb?.() ?? rssBoundMb(opts.limits());
    if (rssMb <= boundMb) return;
    tripped = true;
    clearInterval(timer);
    opts.onBreach(rssMb, boundMb);
  };
  const timer = setInterval(check, opts.everyMs ?? RSS_CHECK_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
