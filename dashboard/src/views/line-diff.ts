/**
 * The version page's line diff: jsdiff's `diffLines` (Myers: time grows with
 * the size of the change, not with the product of the files' lengths), split
 * into marked lines. Two large files with little in common can still take
 * long; past `TIMEOUT_MS` the diff is the files' common first and last lines
 * with everything between them removed and added, which is true, only longer
 * than it needs to be, and is said to be so.
 */
import { diffLines } from 'diff';

export type DiffLine = [mark: ' ' | '-' | '+', text: string];

export interface LineDiff {
  lines: DiffLine[];
  /** False when the diff is the coarse one (the search took longer than TIMEOUT_MS). */
  minimal: boolean;
}

export const TIMEOUT_MS = 1000;

/** A change's text as lines: its final newline ends its last line, it does not start another. */
function linesOf(value: string): string[] {
  const lines = value.split('\n');
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}

/** Common first and last lines kept, the rest of `from` removed and of `to` added. */
function coarse(from: string, to: string): DiffLine[] {
  const a = linesOf(from);
  const b = linesOf(to);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return [
    ...a.slice(0, head).map((l): DiffLine => [' ', l]),
    ...a.slice(head, a.length - tail).map((l): DiffLine => ['-', l]),
    ...b.slice(head, b.length - tail).map((l): DiffLine => ['+', l]),
    ...a.slice(a.length - tail).map((l): DiffLine => [' ', l]),
  ];
}

/** The lines of `from` -> `to`, each marked kept (' '), removed ('-') or added ('+'). */
export function lineDiff(from: string, to: string, timeout = TIMEOUT_MS): LineDiff {
  // A last line without its newline is the same line as with one (an editor adds it, a paste may not).
  const changes = diffLines(from, to, { timeout, ignoreNewlineAtEof: true });
  if (!changes) return { lines: coarse(from, to), minimal: false };
  const lines: DiffLine[] = [];
  for (const change of changes) {
    const mark = change.added ? '+' : change.removed ? '-' : ' ';
    for (const line of linesOf(change.value)) lines.push([mark, line]);
  }
  return { lines, minimal: true };
}
