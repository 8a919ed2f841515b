/**
 * The filter language of src/events/filters.ts, in the idioms of Convoy's and
 * Outpost's documentation: each operator, nesting (objects and dotted keys),
 * arrays (containment, indexes, `$` any element), `$and` / `$or` at every
 * level, headers, and the refusals of malformed filters with the path named.
 */
import { describe, expect, it } from 'vitest';
import { InvalidFilterError } from '../../src/errors.js';
import { FILTER_LIMITS, compileFilter, type FilterSubject } from '../../src/events/filters.js';

const order = {
  status: 'paid',
  amount: 150,
  currency: 'usd',
  region: 'eu-west-1',
  created_at: '2026-12-01T10:00:00Z',
  deleted_at: null,
  customer: { tier: 'premium', address: { country: 'DE' } },
  tags: ['urgent', 'support'],
  scores: [3, 9],
  items: [
    { sku: 'A-1', qty: 1, options: [{ colour: 'red' }] },
    { sku: 'B-2', qty: 5, options: [{ colour: 'blue' }, { colour: 'green' }] },
  ],
};

const subject = (data: unknown = order, headers: Record<string, string> = { 'x-source': 'checkout', 'x-env': 'prod' }): FilterSubject => ({
  event: 'order.created',
  data,
  headers,
});

const matches = (filter: unknown, s: FilterSubject = subject()) => compileFilter(filter).check(s) === null;

const refusal = (filter: unknown): { path: string; message: string } => {
  try {
    compileFilter(filter);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidFilterError);
    const e = err as InvalidFilterError;
    expect(e.code).toBe('invalid_filter');
    expect(e.status).toBe(400);
    return { path: (e.details as { path: string }).path, message: e.message };
  }
  throw new Error(`accepted ${JSON.stringify(filter)}`);
};

describe('filters: exact match and nesting', () => {
  it('matches a field exactly, several fields with AND', () => {
    expect(matches({ data: { status: 'paid' } })).toBe(true);
    expect(matches({ data: { status: 'refunded' } })).toBe(false);
    expect(matches({ data: { status: 'paid', currency: 'usd' } })).toBe(true);
    expect(matches({ data: { status: 'paid', currency: 'eur' } })).toBe(false);
  });

  it('matches nested objects and the same path written as a dotted key', () => {
    expect(matches({ data: { customer: { tier: 'premium' } } })).toBe(true);
    expect(matches({ data: { 'customer.tier': 'premium' } })).toBe(true);
    expect(matches({ data: { 'customer.address.country': 'DE' } })).toBe(true);
    expect(matches({ data: { customer: { 'address.country': 'FR' } } })).toBe(false);
  });

  it('matches the event name, and {} matches every event', () => {
    expect(matches({ event: 'order.created' })).toBe(true);
    expect(matches({ event: { $regex: '^invoice\\.' } })).toBe(false);
    expect(matches({})).toBe(true);
  });

  it('does not match a field the event lacks, nor reach through a scalar', () => {
    expect(matches({ data: { missing: 'x' } })).toBe(false);
    expect(matches({ data: { 'status.deep': 'x' } })).toBe(false);
    expect(matches({ data: { status: 'paid' } }, subject(null))).toBe(false);
  });

  it('does not read inherited properties', () => {
    expect(matches({ data: { constructor: { $exist: true } } })).toBe(false);
    expect(matches({ data: { 'tags.length': 2 } })).toBe(false);
  });
});

describe('filters: comparison operators', () => {
  it('$eq and $neq compare deeply; $neq holds for an absent field', () => {
    expect(matches({ data: { status: { $eq: 'paid' } } })).toBe(true);
    expect(matches({ data: { customer: { $eq: { tier: 'premium', address: { country: 'DE' } } } } })).toBe(true);
    expect(matches({ data: { customer: { $eq: { tier: 'premium' } } } })).toBe(false);
    expect(matches({ data: { status: { $neq: 'created' } } })).toBe(true);
    expect(matches({ data: { status: { $neq: 'paid' } } })).toBe(false);
    expect(matches({ data: { missing: { $neq: 'paid' } } })).toBe(true);
    expect(matches({ data: { deleted_at: { $eq: null } } })).toBe(true);
  });

  it('$gt $gte $lt $lte on numbers, combined with AND on one field', () => {
    expect(matches({ data: { amount: { $gt: 100 } } })).toBe(true);
    expect(matches({ data: { amount: { $gt: 150 } } })).toBe(false);
    expect(matches({ data: { amount: { $gte: 150 } } })).toBe(true);
    expect(matches({ data: { amount: { $lt: 150 } } })).toBe(false);
    expect(matches({ data: { amount: { $lte: 150 } } })).toBe(true);
    expect(matches({ data: { amount: { $gte: 100, $lt: 500 } } })).toBe(true);
    expect(matches({ data: { amount: { $gte: 100, $lt: 120 } } })).toBe(false);
  });

  it('orders strings as text (ISO times) and never compares unlike types', () => {
    expect(matches({ data: { created_at: { $gte: '2026-12-01T00:00:00Z' } } })).toBe(true);
    expect(matches({ data: { created_at: { $lt: '2026-01-01' } } })).toBe(false);
    expect(matches({ data: { status: { $gt: 1 } } })).toBe(false);
    expect(matches({ data: { amount: { $lt: '999' } } })).toBe(false);
    expect(matches({ data: { missing: { $lt: 1 } } })).toBe(false);
  });

  it('$in and $nin: a value in (or not in) the list; $nin holds for an absent field', () => {
    expect(matches({ data: { status: { $in: ['pending', 'paid'] } } })).toBe(true);
    expect(matches({ data: { status: { $in: ['pending', 'processing'] } } })).toBe(false);
    expect(matches({ data: { status: { $nin: ['updated', 'truncated'] } } })).toBe(true);
    expect(matches({ data: { status: { $nin: ['paid'] } } })).toBe(false);
    expect(matches({ data: { missing: { $in: ['x'] } } })).toBe(false);
    expect(matches({ data: { missing: { $nin: ['x'] } } })).toBe(true);
    expect(matches({ data: { customer: { $in: [{ tier: 'premium', address: { country: 'DE' } }] } } })).toBe(true);
  });

  it('$exist: present (null counts) or absent', () => {
    expect(matches({ data: { deleted_at: { $exist: true } } })).toBe(true);
    expect(matches({ data: { deleted_at: { $exist: false } } })).toBe(false);
    expect(matches({ data: { refunded_at: { $exist: false } } })).toBe(true);
    expect(matches({ data: { 'customer.address.zip': { $exist: true } } })).toBe(false);
  });

  it('$regex: RE2, unanchored, strings only', () => {
    expect(matches({ data: { region: { $regex: '^eu-' } } })).toBe(true);
    expect(matches({ data: { region: { $regex: 'west' } } })).toBe(true);
    expect(matches({ data: { region: { $regex: '^us-' } } })).toBe(false);
    expect(matches({ data: { region: { $regex: '(?i)^EU-' } } })).toBe(true);
    expect(matches({ data: { amount: { $regex: '150' } } })).toBe(false);
  });

  it('$regex of plain text, anchored or not, answers as RE2 does', async () => {
    const { RE2JS } = await import('re2js');
    const patterns = ['^eu-', '-1$', '^eu-west-1$', 'west', '^$', '^', '$', '', 'a b', "it's"];
    const inputs = ['eu-west-1', 'us-east-1', '', 'a b c', "it's", 'xeu-'];
    for (const pattern of patterns) {
      const f = compileFilter({ data: { s: { $regex: pattern } } });
      for (const input of inputs) expect(f.check(subject({ s: input })) === null, `${pattern} on ${input}`).toBe(RE2JS.compile(pattern).test(input));
    }
  });

  it('$regex stays linear on input made to make a backtracking engine take exponential time', () => {
    const f = compileFilter({ data: { s: { $regex: '^(a+)+$' } } });
    // V8's own RegExp takes longer than the test's timeout on this; RE2 answers at once.
    expect(f.check(subject({ s: `${'a'.repeat(50_000)}!` }))).not.toBeNull();
    expect(f.check(subject({ s: 'a'.repeat(50_000) }))).toBeNull();
  });
});

describe('filters: arrays (Convoy rules)', () => {
  it('a bare value matches an array that contains it', () => {
    expect(matches({ data: { tags: 'urgent' } })).toBe(true);
    expect(matches({ data: { tags: 'billing' } })).toBe(false);
    expect(matches({ data: { scores: 9 } })).toBe(true);
  });

  it('a bare array matches the whole array; $eq never looks inside', () => {
    expect(matches({ data: { tags: ['urgent', 'support'] } })).toBe(true);
    expect(matches({ data: { tags: ['support', 'urgent'] } })).toBe(false);
    expect(matches({ data: { tags: { $eq: 'urgent' } } })).toBe(false);
  });

  it('$in matches an array with an element in the list; $nin one with none', () => {
    expect(matches({ data: { tags: { $in: ['billing', 'urgent'] } } })).toBe(true);
    expect(matches({ data: { tags: { $in: ['billing'] } } })).toBe(false);
    expect(matches({ data: { tags: { $nin: ['billing'] } } })).toBe(true);
    expect(matches({ data: { tags: { $nin: ['support'] } } })).toBe(false);
  });

  it('numeric segments index arrays', () => {
    expect(matches({ data: { 'items.0.sku': 'A-1' } })).toBe(true);
    expect(matches({ data: { 'items.1.qty': { $gt: 4 } } })).toBe(true);
    expect(matches({ data: { 'items.2.sku': { $exist: true } } })).toBe(false);
    expect(matches({ data: { items: { '1': { sku: 'B-2' } } } })).toBe(true);
  });

  it('$ matches when some element satisfies the whole condition', () => {
    expect(matches({ data: { 'items.$.sku': 'B-2' } })).toBe(true);
    expect(matches({ data: { 'items.$.sku': 'C-3' } })).toBe(false);
    // One element must hold both: none has sku A-1 and qty 5.
    expect(matches({ data: { 'items.$': { sku: 'A-1', qty: 5 } } })).toBe(false);
    expect(matches({ data: { 'items.$': { sku: 'B-2', qty: 5 } } })).toBe(true);
    expect(matches({ data: { 'items.$.options.$.colour': 'green' } })).toBe(true);
    expect(matches({ data: { 'items.$.options.$.colour': 'pink' } })).toBe(false);
    expect(matches({ data: { 'items.$.qty': { $gte: 5 } } })).toBe(true);
  });

  it('matches arrays at the root of data', () => {
    expect(matches({ data: { '$.id': 2 } }, subject([{ id: 1 }, { id: 2 }]))).toBe(true);
    expect(matches({ data: { '0.id': 2 } }, subject([{ id: 1 }, { id: 2 }]))).toBe(false);
  });
});

describe('filters: $and and $or', () => {
  it('at the top level, over scopes', () => {
    expect(matches({ $or: [{ data: { status: 'refunded' } }, { headers: { 'x-source': 'checkout' } }] })).toBe(true);
    expect(matches({ $or: [{ data: { status: 'refunded' } }, { headers: { 'x-source': 'admin' } }] })).toBe(false);
    expect(matches({ $and: [{ data: { amount: { $gte: 10 } } }, { $or: [{ data: { tags: 'weekly' } }, { data: { currency: 'usd' } }] }] })).toBe(true);
  });

  it('inside a scope or a field, their paths relative to where they stand', () => {
    expect(matches({ data: { $or: [{ status: 'created' }, { amount: { $gt: 100 } }] } })).toBe(true);
    expect(matches({ data: { customer: { $and: [{ tier: 'premium' }, { 'address.country': { $in: ['DE', 'AT'] } }] } } })).toBe(true);
    expect(matches({ data: { customer: { $and: [{ tier: 'premium' }, { 'address.country': 'FR' }] } } })).toBe(false);
  });
});

describe('filters: headers', () => {
  it('matches header names whatever their case, values with every operator', () => {
    expect(matches({ headers: { 'X-Source': 'checkout' } })).toBe(true);
    expect(matches({ headers: { 'x-env': { $in: ['prod', 'staging'] } } })).toBe(true);
    expect(matches({ headers: { 'x-env': { $regex: '^dev' } } })).toBe(false);
    expect(matches({ headers: { 'x-trace': { $exist: false } } })).toBe(true);
    expect(matches({ data: { status: 'paid' }, headers: { 'x-source': 'admin' } })).toBe(false);
  });
});

describe('filters: which part failed', () => {
  it('names the path in the filter, the operator, what it wanted and what the event had', () => {
    expect(compileFilter({ data: { status: 'paid', amount: { $gte: 200 } } }).check(subject())).toEqual({
      path: 'data.amount',
      operator: '$gte',
      expected: 200,
      actual: 150,
    });
    expect(compileFilter({ data: { missing: 'x' } }).check(subject())).toEqual({ path: 'data.missing', operator: '$eq', expected: 'x' });
    expect(compileFilter({ $or: [{ data: { status: 'a' } }, { data: { status: 'b' } }] }).check(subject())).toMatchObject({ path: '$or', operator: '$or' });
  });
});

describe('filters: refused when written', () => {
  it('names the bad part of a malformed filter', () => {
    expect(refusal([{ data: {} }]).path).toBe('filter');
    expect(refusal('x').path).toBe('filter');
    expect(refusal({ body: { a: 1 } }).path).toBe('filter.body');
    expect(refusal({ data: 'paid' }).path).toBe('filter.data');
    expect(refusal({ data: { amount: { $gte: true } } }).path).toBe('filter.data.amount.$gte');
    expect(refusal({ data: { amount: { $gte: 1, other: 2 } } }).path).toBe('filter.data.amount.other');
    expect(refusal({ data: { amount: { $between: [1, 2] } } }).path).toBe('filter.data.amount.$between');
    expect(refusal({ data: { a: { $in: 'x' } } }).path).toBe('filter.data.a.$in');
    expect(refusal({ data: { a: { $in: [] } } }).path).toBe('filter.data.a.$in');
    expect(refusal({ data: { a: { $exist: 'yes' } } }).path).toBe('filter.data.a.$exist');
    expect(refusal({ data: { a: { $regex: 5 } } }).path).toBe('filter.data.a.$regex');
    expect(refusal({ data: { a: { $regex: '(a)\\1' } } }).message).toMatch(/RE2/);
    expect(refusal({ data: { a: { $regex: '(?=x)' } } }).path).toBe('filter.data.a.$regex');
    expect(refusal({ data: { $or: {} } }).path).toBe('filter.data.$or');
    expect(refusal({ data: { $or: [] } }).path).toBe('filter.data.$or');
    expect(refusal({ data: { $or: ['x'] } }).path).toBe('filter.data.$or.0');
    expect(refusal({ data: { a: {} } }).path).toBe('filter.data.a');
    expect(refusal({ data: { 'a..b': 1 } }).path).toBe('filter.data.a..b');
    expect(refusal({ data: { a: [{ $gt: 1 }] } }).path).toBe('filter.data.a.0.$gt');
  });

  it('bounds size, depth, conditions, list length, pattern length and $ segments', () => {
    expect(refusal({ data: { a: 'x'.repeat(FILTER_LIMITS.maxChars) } }).message).toMatch(/longer than/);
    let deep: Record<string, unknown> = { v: 1 };
    for (let i = 0; i < FILTER_LIMITS.maxDepth; i++) deep = { n: deep };
    expect(refusal({ data: deep }).message).toMatch(/deeper than/);
    const many = Object.fromEntries(Array.from({ length: FILTER_LIMITS.maxConditions + 1 }, (_, i) => [`f${i}`, i]));
    expect(refusal({ data: many }).message).toMatch(/more than 200 conditions/);
    expect(refusal({ data: { a: { $in: Array.from({ length: FILTER_LIMITS.maxList + 1 }, (_, i) => i) } } }).path).toBe('filter.data.a.$in');
    expect(refusal({ data: { a: { $regex: 'a'.repeat(FILTER_LIMITS.maxRegex + 1) } } }).path).toBe('filter.data.a.$regex');
    expect(refusal({ data: { 'a.$.b.$.c.$.d.$.e': 1 } }).message).toMatch(/\$ \(any element\)/);
    let ands: unknown = { data: { a: 1 } };
    for (let i = 0; i < FILTER_LIMITS.maxDepth; i++) ands = { $and: [ands] };
    expect(refusal(ands).message).toMatch(/deeper than/);
  });
});
