import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, jsonTextTooDeep, valueTooDeep } from '../../src/json-limits.js';

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);

describe('jsonTextTooDeep', () => {
  it('accepts nesting up to the bound and refuses one more', () => {
    expect(jsonTextTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTextTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonTextTooDeep('{"a":'.repeat(MAX_JSON_DEPTH + 1) + '1' + '}'.repeat(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ s: '['.repeat(500), t: 'a\\"[[[' + '{'.repeat(500) });
    expect(jsonTextTooDeep(text)).toBe(false);
  });

  it('counts objects and arrays together: neither kind alone is over the bound', () => {
    const half = MAX_JSON_DEPTH / 2 + 1;
    const mixed = '{"a":['.repeat(half) + ']}'.repeat(half);
    expect(jsonTextTooDeep(mixed)).toBe(true);
    expect(jsonTextTooDeep('{"a":['.repeat(MAX_JSON_DEPTH / 2) + ']}'.repeat(MAX_JSON_DEPTH / 2))).toBe(false);
  });

  it('counts depth, not the number of brackets', () => {
    expect(jsonTextTooDeep('[' + '[],'.repeat(10_000) + '[]]')).toBe(false);
  });

  it('scans 10k-deep text without overflowing', () => {
    expect(jsonTextTooDeep(nested(10_000))).toBe(true);
  });
});

describe('valueTooDeep', () => {
  it('measures values built in memory', () => {
    let v: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) v = [v];
    expect(valueTooDeep(v)).toBe(false);
    expect(valueTooDeep([v])).toBe(true);
    expect(valueTooDeep({ a: 'x', b: [1, 2, { c: null }] })).toBe(false);
    expect(valueTooDeep('text')).toBe(false);
  });

  it('treats a cycle as too deep instead of looping', () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(valueTooDeep(a)).toBe(true);
  });
});
