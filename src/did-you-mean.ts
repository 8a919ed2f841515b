/**
 * "Did you mean" for a misspelt key or option: the known word closest to the
 * one typed, by edit distance with transpositions (`fucntions` is one edit
 * from `functions`), taken only when close for its length, as commander
 * does for options; else the only known word the typed one begins
 * (`timeout` for `timeout_ms`).
 *
 * Written here rather than taken from a package: commander keeps its own
 * (suggestSimilar) private, and the rule is the twenty lines below.
 */

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The known word `typed` most likely stands for, or null. Case is ignored. */
export function closest(typed: string, known: readonly string[]): string | null {
  const word = typed.toLowerCase();
  let best: string | null = null;
  let bestDistance = 3;
  for (const candidate of known) {
    const distance = editDistance(word, candidate.toLowerCase());
    const length = Math.max(word.length, candidate.length);
    // At most two edits, and most of the word kept: `ab` is not a typo of `cd`.
    if ((length - distance) / length > 0.4 && distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  if (best !== null) return best;
  const started = word.length >= 3 ? known.filter((k) => k.toLowerCase().startsWith(word)) : [];
  return started.length === 1 ? started[0] : null;
}
