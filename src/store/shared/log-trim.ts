/**
 * When a store trims a function's console lines to its retention. Trimming
 * after every append would walk `retention` index entries each time, so a
 * function is trimmed once a tenth of its retention was appended since the
 * last trim. The counts are per process: a hint, not state to keep.
 */
export class LogTrimCounter {
  /** Lines kept per function; undefined: unbounded, never trimmed. */
  readonly retention: number | undefined;
  private readonly every: number;
  private readonly counts = new Map<string, number>();

  constructor(deps: { retention: number | undefined }) {
    this.retention = deps.retention;
    this.every = Math.max(1, Math.floor((deps.retention ?? 0) / 10));
  }

  /** Counts `lines` appended to `name`; true when it is time to trim it (the count starts over). */
  add(name: string, lines: number): boolean {
    if (this.retention === undefined) return false;
    const pending = (this.counts.get(name) ?? 0) + lines;
    this.counts.set(name, pending >= this.every ? 0 : pending);
    return pending >= this.every;
  }

  /** A deleted function's count goes with it. */
  forget(name: string): void {
    this.counts.delete(name);
  }
}
