/**
 * One run of an expensive collection at a time, shared by everyone who asks
 * meanwhile: `GET /metrics` (metrics.ts) and the cluster primary's gathering
 * of every process's series (cluster.ts) each go through one. A caller that
 * arrives while a collection runs gets that collection's result; runs start
 * at most once per `minIntervalMs` (a caller that comes sooner waits for the
 * next run and shares it), so a flood of scrapes costs one collection a
 * second, and every answer was collected after its caller asked (no answer
 * older than the request, as a cache would give). At most `maxWaiting`
 * callers wait at once; the next is refused at once with `refuse()`, so a
 * flood holds no unbounded queue of sockets and promises.
 */
export interface SharedCollectionOptions<T> {
  collect(): Promise<T>;
  /** Milliseconds from the start of one run to the start of the next, at least. */
  minIntervalMs: number;
  /** Callers waiting at once, at most (Infinity: no bound). */
  maxWaiting: number;
  /** The error a caller past `maxWaiting` gets. */
  refuse(): Error;
  now?: () => number;
}

export class SharedCollection<T> {
  private next: Promise<T> | null = null;
  private waiting = 0;
  private lastStart = -Infinity;
  private runs = 0;
  private readonly now: () => number;

  constructor(private readonly opts: SharedCollectionOptions<T>) {
    this.now = opts.now ?? Date.now;
  }

  /** How many runs have started: what `switchyard_metrics_collections_total` reports. */
  get collections(): number {
    return this.runs;
  }

  get(): Promise<T> {
    if (this.waiting >= this.opts.maxWaiting) return Promise.reject(this.opts.refuse());
    this.next ??= this.schedule();
    this.waiting++;
    return this.next.finally(() => {
      this.waiting--;
    });
  }

  private schedule(): Promise<T> {
    const delay = this.lastStart + this.opts.minIntervalMs - this.now();
    const start = () => {
      this.lastStart = this.now();
      this.runs++;
      return this.opts.collect();
    };
    const run =
      delay > 0
        ? new Promise<void>((resolve) => setTimeout(resolve, delay).unref()).then(start)
        : Promise.resolve().then(start);
    return run.finally(() => {
      this.next = null;
    });
  }
}
