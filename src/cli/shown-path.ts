/** A path as people read it in the CLI's lines: relative when under `cwd`, else absolute. */
import { isAbsolute, relative } from 'node:path';

export function shownPath(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  if (rel === '') return '.';
  return !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
