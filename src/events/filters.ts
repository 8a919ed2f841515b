/**
 * Payload filters of webhook subscriptions: the JSON filter language Convoy
 * and Hookdeck Outpost use (`$eq`, `$neq`, `$gt`, `$gte`, `$lt`, `$lte`, `$in`,
 * `$nin`, `$exist`, `$regex`, `$and`, `$or`), checked once when a webhook is
 * written (`compileFilter`, which throws `invalid_filter` naming the bad part's
 * path) and evaluated at fan-out against an event's `{event, data, headers}`
 * without running any user code. The rules, array handling included, are in
 * docs/webhooks.md ("Filters").
 *
 * Written here rather than taken from a library: the Mongo-style matchers on
 * npm (sift, mingo) take JavaScript RegExp for `$regex`, which backtracks, and
 * follow Mongo's array rules rather than Convoy's. `$regex` runs on re2js (RE2
 * ported to JavaScript: linear-time matching, no backreferences or lookaround),
 * so a publisher's data cannot make a pattern take exponential time in the main
 * process; the pattern's length is bounded as well.
 */
import { RE2JS } from 're2js';
import { InvalidFilterError } from '../errors.js';

/** Bounds on a filter, checked when it is written. */
export const FILTER_LIMITS = Object.freeze({
  /** The filter as JSON text, in characters. */
  maxChars: 16_384,
  /** Nesting of objects and arrays (the filter itself is depth 1). */
  maxDepth: 12,
  /** Field conditions and operators, all counted. */
  maxConditions: 200,
  /** Values of one `$in` / `$nin` list. */
  maxList: 200,
  /** A `$regex` pattern, in characters. */
  maxRegex: 512,
  /** Segments of one dotted path. */
  maxSegments: 16,
  /** `$` (any element) segments in one path, as Convoy allows. */
  maxPositional: 3,
});

/** What a filter is evaluated against: header names lowercased. */
export interface FilterSubject {
  event: string;
  data: unknown;
  headers: Readonly<Record<string, string>>;
}

/** The first part of a filter an event failed: its path in the filter, the operator, what it wanted and what the event had. */
export interface FilterFailure {
  path: string;
  operator: string;
  expected?: unknown;
  /** Absent: the field is not in the event. */
  actual?: unknown;
}

export interface CompiledFilter {
  /** Null: the event matches; else the first part that failed. */
  check(subject: FilterSubject): FilterFailure | null;
}

const COMPARISONS = ['$eq', '$neq', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exist', '$regex'] as const;
type Comparison = (typeof COMPARISONS)[number];
const LOGICAL = ['$and', '$or'] as const;
const ROOT_SCOPES = ['event', 'data', 'headers'] as const;

/** A part of a compiled filter: returns null when it holds, else why not. */
type Node = (value: unknown, present: boolean) => FilterFailure | null;

const MATCH_ALL: CompiledFilter = Object.freeze({ check: () => null });

/** Validates a filter (already parsed JSON) and compiles it; throws InvalidFilterError naming the path of the bad part. */
export function compileFilter(filter: unknown, field = 'filter'): CompiledFilter {
  let text: string;
  try {
    text = JSON.stringify(filter) ?? '';
  } catch {
    throw new InvalidFilterError(field, 'must be JSON');
  }
  if (text.length > FILTER_LIMITS.maxChars) {
    throw new InvalidFilterError(field, `is longer than ${FILTER_LIMITS.maxChars} characters as JSON`, { max_chars: FILTER_LIMITS.maxChars });
  }
  if (!isPlainObject(filter)) throw new InvalidFilterError(field, 'must be an object');
  const compiler = new Compiler(field);
  const node = compiler.root(filter);
  if (node === null) return MATCH_ALL;
  return {
    check: (subject) => node(subject, true),
  };
}

class Compiler {
  private conditions = 0;
  constructor(private readonly field: string) {}

  /** The top level: scopes (`event`, `data`, `headers`) and `$and` / `$or` over them. Null: `{}`, which matches every event. */
  root(filter: Record<string, unknown>, depth = 1): Node | null {
    const parts: Node[] = [];
    for (const [key, value] of Object.entries(filter)) {
      const path = `${this.field}.${key}`;
      if ((LOGICAL as readonly string[]).includes(key)) {
        parts.push(this.logical(key as '$and' | '$or', value, path, depth + 1, (clause, at, d) => this.rootClause(clause, at, d)));
      } else if ((ROOT_SCOPES as readonly string[]).includes(key)) {
        parts.push(this.scope(key as (typeof ROOT_SCOPES)[number], value, path, depth + 1));
      } else {
        throw new InvalidFilterError(path, 'is not event, data, headers, $and or $or: a filter names what it matches at its top level, e.g. {"data": {"status": "paid"}}');
      }
    }
    return parts.length === 0 ? null : all(parts);
  }

  private rootClause(clause: unknown, path: string, depth: number): Node {
    if (!isPlainObject(clause)) throw new InvalidFilterError(path, 'must be an object');
    return this.root(clause, depth) ?? (() => null);
  }

  private scope(scope: (typeof ROOT_SCOPES)[number], value: unknown, path: string, depth: number): Node {
    const pick = (subject: unknown) => (subject as Record<string, unknown>)[scope];
    if (scope !== 'event' && !isPlainObject(value)) throw new InvalidFilterError(path, `must be an object of ${scope === 'data' ? 'fields' : 'header names'}`);
    const inner = this.condition(value, path, depth, [scope]);
    return (subject) => inner(pick(subject), true);
  }

  /**
   * A condition on a value: a bare value (equality, or containment in an array),
   * an object of operators, or an object of field names (nested, dotted keys allowed),
   * with `$and` / `$or` at any level, their paths relative to it.
   */
  private condition(cond: unknown, path: string, depth: number, prefix: string[]): Node {
    if (depth > FILTER_LIMITS.maxDepth) throw new InvalidFilterError(path, `nests deeper than ${FILTER_LIMITS.maxDepth} levels`, { max_depth: FILTER_LIMITS.maxDepth });
    this.count(path);
    if (!isPlainObject(cond)) return this.bare(cond, path, depth);
    const keys = Object.keys(cond);
    if (keys.length === 0) throw new InvalidFilterError(path, 'is an empty object: name a field or an operator');
    const operators = keys.filter((k) => (COMPARISONS as readonly string[]).includes(k));
    if (operators.length > 0) {
      if (operators.length !== keys.length) {
        const other = keys.find((k) => !operators.includes(k))!;
        throw new InvalidFilterError(`${path}.${other}`, 'cannot stand beside operators: put field conditions and operators in separate objects');
      }
      return all(operators.map((op) => this.operator(op as Comparison, cond[op], `${path}.${op}`, depth + 1)));
    }
    const parts: Node[] = [];
    for (const key of keys) {
      const at = `${path}.${key}`;
      if ((LOGICAL as readonly string[]).includes(key)) {
        parts.push(this.logical(key as '$and' | '$or', cond[key], at, depth + 1, (clause, p, d) => this.objectClause(clause, p, d, prefix)));
        continue;
      }
      if (key.startsWith('$') && key !== '$' && !key.startsWith('$.')) throw new InvalidFilterError(at, `is not an operator: use one of ${[...COMPARISONS, ...LOGICAL].join(', ')}`);
      parts.push(this.field_(key, cond[key], at, depth + 1, prefix));
    }
    return all(parts);
  }

  private objectClause(clause: unknown, path: string, depth: number, prefix: string[]): Node {
    if (!isPlainObject(clause)) throw new InvalidFilterError(path, 'must be an object');
    return this.condition(clause, path, depth, prefix);
  }

  /** A field of the value: its dotted key split into segments, `$` meaning any element of an array. */
  private field_(key: string, cond: unknown, path: string, depth: number, prefix: string[]): Node {
    // Header names are case-insensitive: the subject's are lowercased, so the filter's are too.
    const segments = (prefix.length === 1 && prefix[0] === 'headers' ? key.toLowerCase() : key).split('.');
    if (segments.some((s) => s === '')) throw new InvalidFilterError(path, 'has an empty segment in its dotted path');
    if (segments.length > FILTER_LIMITS.maxSegments) {
      throw new InvalidFilterError(path, `has more than ${FILTER_LIMITS.maxSegments} segments`, { max_segments: FILTER_LIMITS.maxSegments });
    }
    const positional = segments.filter((s) => s === '$').length;
    if (positional > FILTER_LIMITS.maxPositional) {
      throw new InvalidFilterError(path, `has more than ${FILTER_LIMITS.maxPositional} $ (any element) segments`, { max_positional: FILTER_LIMITS.maxPositional });
    }
    const inner = this.condition(cond, path, depth, [...prefix, ...segments]);
    if (positional === 0) {
      return (value) => {
        const found = resolve(value, segments);
        return inner(found, found !== ABSENT);
      };
    }
    // Any element: holds when some element reached through the `$` segments satisfies the whole condition.
    const where = stripRoot(path, this.field);
    return (value) => {
      const reached: unknown[] = [];
      collect(value, segments, 0, reached);
      // No element at all: the field is absent (so `$exist: false` holds).
      if (reached.length === 0) return inner(ABSENT, false) === null ? null : { path: where, operator: 'any element', expected: cond };
      for (const v of reached) if (inner(v, true) === null) return null;
      return { path: where, operator: 'any element', expected: cond };
    };
  }

  /** A bare value: equality; against an array field, containment (Convoy's "array contains"); a bare array: the whole array. */
  private bare(expected: unknown, path: string, depth: number): Node {
    checkJsonValue(expected, path, depth);
    const where = stripRoot(path, this.field);
    return (value, present) => {
      if (!present || value === ABSENT) return { path: where, operator: '$eq', expected };
      if (Array.isArray(value) && !Array.isArray(expected)) {
        for (const item of value) if (deepEqual(item, expected)) return null;
        return { path: where, operator: 'contains', expected, actual: value };
      }
      return deepEqual(value, expected) ? null : { path: where, operator: '$eq', expected, actual: value };
    };
  }

  private operator(op: Comparison, arg: unknown, path: string, depth: number): Node {
    this.count(path);
    const where = stripRoot(path.slice(0, path.length - op.length - 1), this.field);
    const fail = (value: unknown, present: boolean): FilterFailure =>
      present && value !== ABSENT ? { path: where, operator: op, expected: arg, actual: value } : { path: where, operator: op, expected: arg };
    switch (op) {
      case '$eq':
      case '$neq': {
        checkJsonValue(arg, path, depth);
        const want = op === '$eq';
        return (value, present) => (present && value !== ABSENT && deepEqual(value, arg)) === want ? null : fail(value, present);
      }
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte': {
        if (!(typeof arg === 'number' || typeof arg === 'string')) throw new InvalidFilterError(path, 'must be a number or a string');
        const test = ORDER[op];
        // Only like with like: numbers by value, strings by code unit (ISO times order as text); anything else fails.
        return (value, present) => (typeof value === typeof arg && test(value as number | string, arg) ? null : fail(value, present));
      }
      case '$in':
      case '$nin': {
        if (!Array.isArray(arg)) throw new InvalidFilterError(path, 'must be an array of values');
        if (arg.length === 0) throw new InvalidFilterError(path, 'must list at least one value');
        if (arg.length > FILTER_LIMITS.maxList) throw new InvalidFilterError(path, `lists more than ${FILTER_LIMITS.maxList} values`, { max_items: FILTER_LIMITS.maxList });
        arg.forEach((v, i) => checkJsonValue(v, `${path}.${i}`, depth + 1));
        const scalars = arg.every((v) => v === null || typeof v !== 'object') ? new Set<unknown>(arg) : null;
        const within = (v: unknown) => (scalars !== null ? scalars.has(v) : arg.some((a) => deepEqual(a, v)));
        const want = op === '$in';
        // An array field is in the list when one of its elements is (none of them: $nin).
        return (value, present) => {
          const hit = present && value !== ABSENT && (within(value) || (Array.isArray(value) && value.some(within)));
          return hit === want ? null : fail(value, present);
        };
      }
      case '$exist': {
        if (typeof arg !== 'boolean') throw new InvalidFilterError(path, 'must be true or false');
        return (value, present) => ((present && value !== ABSENT) === arg ? null : fail(value, present));
      }
      case '$regex': {
        if (typeof arg !== 'string') throw new InvalidFilterError(path, 'must be a string (an RE2 regular expression)');
        if (arg.length > FILTER_LIMITS.maxRegex) throw new InvalidFilterError(path, `is longer than ${FILTER_LIMITS.maxRegex} characters`, { max_chars: FILTER_LIMITS.maxRegex });
        let re: RE2JS;
        try {
          re = RE2JS.compile(arg);
        } catch (err) {
          throw new InvalidFilterError(path, `is not a regular expression RE2 accepts (no backreferences or lookaround): ${(err as Error).message}`);
        }
        // Unanchored, as Convoy's: a match anywhere in the string; only strings match.
        const test = literalTest(arg) ?? ((v: string) => re.test(v));
        return (value, present) => (typeof value === 'string' && test(value) ? null : fail(value, present));
      }
    }
  }

  private logical(op: '$and' | '$or', clauses: unknown, path: string, depth: number, compile: (clause: unknown, path: string, depth: number) => Node): Node {
    if (!Array.isArray(clauses)) throw new InvalidFilterError(path, 'must be an array of conditions');
    if (clauses.length === 0) throw new InvalidFilterError(path, 'must hold at least one condition');
    if (depth > FILTER_LIMITS.maxDepth) throw new InvalidFilterError(path, `nests deeper than ${FILTER_LIMITS.maxDepth} levels`, { max_depth: FILTER_LIMITS.maxDepth });
    this.count(path);
    const nodes = clauses.map((c, i) => compile(c, `${path}.${i}`, depth + 1));
    if (op === '$and') return all(nodes);
    const where = stripRoot(path, this.field);
    return (value, present) => {
      for (const n of nodes) if (n(value, present) === null) return null;
      return { path: where, operator: '$or' };
    };
  }

  private count(path: string): void {
    if (++this.conditions > FILTER_LIMITS.maxConditions) {
      throw new InvalidFilterError(path, `makes the filter hold more than ${FILTER_LIMITS.maxConditions} conditions and operators`, { max_conditions: FILTER_LIMITS.maxConditions });
    }
  }
}

/** Marks a field the event does not have (distinct from a null value, which `$exist: true` accepts). */
const ABSENT: unique symbol = Symbol('absent');

function resolve(value: unknown, segments: readonly string[]): unknown {
  let v = value;
  for (const s of segments) {
    v = step(v, s);
    if (v === ABSENT) return ABSENT;
  }
  return v;
}

function step(v: unknown, segment: string): unknown {
  if (v === null || typeof v !== 'object') return ABSENT;
  if (Array.isArray(v)) {
    // A numeric segment indexes an array (`items.0.sku`), as Convoy's flattened keys do.
    if (!/^\d+$/.test(segment)) return ABSENT;
    const i = Number(segment);
    return i < v.length ? v[i] : ABSENT;
  }
  return Object.prototype.hasOwnProperty.call(v, segment) ? (v as Record<string, unknown>)[segment] : ABSENT;
}

function collect(v: unknown, segments: readonly string[], from: number, out: unknown[]): void {
  let cur = v;
  for (let i = from; i < segments.length; i++) {
    if (segments[i] === '$') {
      if (!Array.isArray(cur)) return;
      for (const item of cur) collect(item, segments, i + 1, out);
      return;
    }
    cur = step(cur, segments[i]);
    if (cur === ABSENT) return;
  }
  out.push(cur);
}

/**
 * Patterns that are plain text, optionally anchored (`^eu-`, `@example.com$`), the most common
 * kind, tested with startsWith / endsWith / includes: the same answer as RE2's (whose `^` and `$`
 * are the text's ends without `(?m)`), several times faster than running the automaton.
 */
function literalTest(pattern: string): ((v: string) => boolean) | null {
  const m = /^(\^?)([A-Za-z0-9 _:/@,=#%&'"<>~`!;-]*)(\$?)$/.exec(pattern);
  if (m === null) return null;
  const [, start, text, end] = m;
  if (start && end) return (v) => v === text;
  if (start) return (v) => v.startsWith(text);
  if (end) return (v) => v.endsWith(text);
  return (v) => v.includes(text);
}

const ORDER = {
  $gt: (a: number | string, b: number | string) => a > b,
  $gte: (a: number | string, b: number | string) => a >= b,
  $lt: (a: number | string, b: number | string) => a < b,
  $lte: (a: number | string, b: number | string) => a <= b,
} as const;

function all(nodes: Node[]): Node {
  if (nodes.length === 1) return nodes[0];
  return (value, present) => {
    for (const n of nodes) {
      const failed = n(value, present);
      if (failed !== null) return failed;
    }
    return null;
  };
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A value to compare with: JSON whose objects hold no operator keys (a `$` key there is a misplaced operator). */
function checkJsonValue(v: unknown, path: string, depth: number): void {
  if (depth > FILTER_LIMITS.maxDepth) throw new InvalidFilterError(path, `nests deeper than ${FILTER_LIMITS.maxDepth} levels`, { max_depth: FILTER_LIMITS.maxDepth });
  if (Array.isArray(v)) v.forEach((x, i) => checkJsonValue(x, `${path}.${i}`, depth + 1));
  else if (isPlainObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (k.startsWith('$')) throw new InvalidFilterError(`${path}.${k}`, 'is an operator inside a value');
      checkJsonValue(x, `${path}.${k}`, depth + 1);
    }
  }
}

/** `filter.data.amount` -> `data.amount`: a failure names the path in the event, not in the request. */
function stripRoot(path: string, field: string): string {
  return path.startsWith(`${field}.`) ? path.slice(field.length + 1) : path;
}
