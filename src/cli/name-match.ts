/**
 * The name a person typed on the command line, matched against the names
 * there are: exactly first, then ignoring case, then as the start of one
 * name (ignoring case), as git takes an abbreviated ref. A match that is not
 * exact is taken only when it is the only one; two or more are an error that
 * lists them, so a typed prefix never silently picks one of several.
 */
import { UsageError } from './errors.js';

export type NameMatch =
  | { kind: 'exact' | 'case' | 'prefix'; name: string }
  | { kind: 'ambiguous'; candidates: string[] }
  | { kind: 'none' };

export function matchName(given: string, names: Iterable<string>): NameMatch {
  const all = [...names];
  if (all.includes(given)) return { kind: 'exact', name: given };
  const lower = given.toLowerCase();
  const sameCase = all.filter((n) => n.toLowerCase() === lower);
  if (sameCase.length === 1) return { kind: 'case', name: sameCase[0] };
  if (sameCase.length > 1) return { kind: 'ambiguous', candidates: sameCase.sort() };
  const prefixed = lower === '' ? [] : all.filter((n) => n.toLowerCase().startsWith(lower));
  if (prefixed.length === 1) return { kind: 'prefix', name: prefixed[0] };
  if (prefixed.length > 1) return { kind: 'ambiguous', candidates: prefixed.sort() };
  return { kind: 'none' };
}

/** At most `max` names, quoted, for an error line. */
export function listNames(names: string[], max = 20): string {
  const shown = names.slice(0, max).map((n) => `'${n}'`);
  return `${shown.join(', ')}${names.length > max ? `, ... (${names.length - max} more)` : ''}`;
}

/**
 * The one name `given` means among `names` (`what`: `function`, `webhook`),
 * null when none matches; an ambiguous one is a usage error listing the
 * candidates.
 */
export function pickName(given: string, names: string[], what: string): string | null {
  const match = matchName(given, names);
  if (match.kind === 'none') return null;
  if (match.kind === 'ambiguous') {
    throw new UsageError(`'${given}' matches ${match.candidates.length} ${what}s: ${listNames(match.candidates)}; give more of the name`);
  }
  return match.name;
}
