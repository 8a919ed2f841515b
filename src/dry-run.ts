/**
 * `?dry_run=true` on the management writes: the service runs every check of
 * the real write (function code compiled in a worker included) and answers
 * what it would change, writing nothing. `switchyard apply` uses it to refuse
 * a project before its first write, and to compare write-only values (env,
 * sensitive headers, secrets) that the API never shows.
 */
export interface DryRunResult {
  dry_run: true;
  /** `none`: the write would change nothing. */
  action: 'create' | 'update' | 'delete' | 'none';
  /** The fields (API names) the write would set or change. */
  changes: string[];
}

export function dryRunResult(action: 'create' | 'update' | 'delete', changes: string[]): DryRunResult {
  return { dry_run: true, action: action === 'update' && changes.length === 0 ? 'none' : action, changes };
}

/** JSON equality whatever the key order. */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
