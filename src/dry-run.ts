/**
 * `?dry_run=true` on the management writes: the service runs every check of
 * the real write (function code compiled in a worker included) and answers
 * what it would change, writing nothing. `switchyard apply` uses it to refuse
 * a project before its first write, and to compare write-only values (env,
 * sensitive headers, secrets) that the API never shows.
 */
import { canonicalJson } from './canonical-json.js';

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
