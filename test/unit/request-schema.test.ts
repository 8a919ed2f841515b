/**
 * A route's request model as the gateway compiles it: the dialect `$schema`
 * picks, the bounds on untrusted schemas (size, nesting, no remote `$ref`,
 * strict keywords and formats), schemas of different routes kept apart, and
 * no check at all for a route that requires nothing.
 */
import { describe, expect, it } from 'vitest';
import { checkRequestModel, compileBodySchema, REQUEST_MODEL_LIMITS, RequestModelError } from '../../src/json-schema.js';
import { compileRequestValidation } from '../../src/gateway/policy/validation.js';
import { PolicyRefusalError } from '../../src/errors.js';
import type { Api, Route } from '../../src/types.js';

function refusal(model: unknown): RequestModelError {
  try {
    checkRequestModel(model as never);
  } catch (err) {
    if (err instanceof RequestModelError) return err;
    throw err;
  }
  throw new Error('accepted');
}

function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 1; i < depth; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

describe('dialects', () => {
  it('reads 2020-12 by default, draft-04 and draft-07 when $schema names them (with or without #)', () => {
    // exclusiveMaximum: a number in 2020-12 and draft-07, a boolean beside maximum in draft-04.
    const v2020 = compileBodySchema({ type: 'integer', exclusiveMaximum: 10 });
    expect([v2020(9), v2020(10)]).toEqual([true, false]);
    for (const id of ['http://json-schema.org/draft-04/schema#', 'http://json-schema.org/draft-04/schema']) {
      const v4 = compileBodySchema({ $schema: id, type: 'integer', maximum: 10, exclusiveMaximum: true });
      expect([v4(9), v4(10)]).toEqual([true, false]);
    }
    const v7 = compileBodySchema({ $schema: 'http://json-schema.org/draft-07/schema#', definitions: { n: { type: 'integer' } }, $ref: '#/definitions/n' });
    expect([v7(1), v7('1')]).toEqual([true, false]);
    expect(refusal({ body: { $schema: 'https://json-schema.org/draft/2019-09/schema' } }).message).toMatch(/not supported/);
  });

  it('checks formats (ajv-formats) and refuses unknown ones and unknown keywords', () => {
    const v = compileBodySchema({ type: 'string', format: 'date-time' });
    expect([v('2026-11-27T12:00:00Z'), v('yesterday')]).toEqual([true, false]);
    expect(refusal({ body: { type: 'string', format: 'postcode' } }).message).toMatch(/unknown format "postcode"/);
    expect(refusal({ body: { type: 'object', requird: ['a'] } }).message).toMatch(/unknown keyword: "requird"/);
    // OpenAPI's `example` is known and checks nothing.
    expect(compileBodySchema({ type: 'string', example: 42 })('x')).toBe(true);
  });

  it('keeps routes apart: two schemas with one $id both compile, each its own', () => {
    const a = compileBodySchema({ $id: 'https://example.com/pet.json', type: 'string' });
    const b = compileBodySchema({ $id: 'https://example.com/pet.json', type: 'number' });
    expect([a('x'), b('x'), b(1)]).toEqual([true, false, true]);
  });

  it('compiles on across many schemas (ajv instances are replaced as they fill)', () => {
    for (let i = 0; i < 3 * 100 + 5; i++) {
      const v = compileBodySchema({ type: 'object', properties: { [`p${i}`]: { type: 'string', pattern: `^x${i}$` } } });
      expect(v({ [`p${i}`]: `x${i}` })).toBe(true);
    }
  });
});

describe('bounds on untrusted schemas', () => {
  it('refuses a schema over the size or nesting bound', () => {
    expect(refusal({ body: { type: 'string', description: 'x'.repeat(REQUEST_MODEL_LIMITS.schemaBytes) } }).message).toMatch(/bytes of JSON/);
    expect(() => compileBodySchema(nested(REQUEST_MODEL_LIMITS.schemaDepth / 2))).not.toThrow();
    expect(refusal({ body: nested(REQUEST_MODEL_LIMITS.schemaDepth) }).message).toMatch(/nests deeper/);
  });

  it('fetches nothing: a $ref outside the schema does not compile', () => {
    for (const $ref of ['https://example.com/pet.json', 'pet.json', 'file:///etc/passwd']) {
      const err = refusal({ body: { type: 'object', properties: { a: { $ref } } } });
      expect(err.key).toBe('body');
      expect(err.message).toMatch(/nothing is fetched/);
    }
  });

  it('keeps $data off: a $data reference is a literal, not a pointer into the body', () => {
    expect(refusal({ body: { $data: '/x' } }).message).toMatch(/unknown keyword: "\$data"/);
    const v = compileBodySchema({ properties: { a: { const: { $data: '1/b' } } } });
    expect([v({ a: 1, b: 1 }), v({ a: { $data: '1/b' } })]).toEqual([false, true]);
  });

  it('refuses bad parameter maps, naming the key', () => {
    expect(refusal({ querystrings: { a: 'yes' } }).key).toBe('querystrings.a');
    expect(refusal({ headers: { 'a b': true } }).key).toBe('headers');
    expect(refusal({ headers: { 'X-A': true, 'x-a': false } }).message).toMatch(/twice/);
    const many = Object.fromEntries(Array.from({ length: REQUEST_MODEL_LIMITS.parameters + 1 }, (_, i) => [`q${i}`, true]));
    expect(refusal({ querystrings: many }).key).toBe('querystrings');
    expect(refusal({ schema: {} }).key).toBe('schema');
  });
});

describe('the route check', () => {
  const api = {} as Api;
  const route = (request?: unknown) => ({ id: 'rt_1', method: 'POST', path: '/', function: 'f', request }) as Route;
  const req = (over: Partial<{ rawQuery: string; rawHeaders: string[]; body: Buffer | null }>) => ({
    req: { method: 'POST', path: '/', rawQuery: '', rawHeaders: [], body: null, sourceIp: '127.0.0.1', requestId: 'r', apiId: 'a', requestTimeEpoch: 0, ...over },
    route: route(),
  });

  it('is no check at all for a route that requires nothing', () => {
    expect(compileRequestValidation(api, route())).toBeNull();
    expect(compileRequestValidation(api, route({ querystrings: { a: false }, headers: { b: false } }))).toBeNull();
  });

  it('lists a few failures at most', () => {
    const querystrings = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`q${i}`, true]));
    const guard = compileRequestValidation(api, route({ querystrings }))!;
    try {
      guard.check(req({}), {});
      throw new Error('admitted');
    } catch (err) {
      expect(err).toBeInstanceOf(PolicyRefusalError);
      const { details, message } = err as PolicyRefusalError;
      expect((details as { errors: unknown[] }).errors).toHaveLength(5);
      expect(message).toMatch(/and 15 more/);
    }
  });

  it('takes header names in any case and a body within the nesting bound only', () => {
    const guard = compileRequestValidation(api, route({ headers: { 'X-Tenant': true }, body: {} }))!;
    expect(() => guard.check(req({ rawHeaders: ['x-TENANT', 'acme'], body: Buffer.from('{}') }), {})).not.toThrow();
    const deep = '['.repeat(200) + ']'.repeat(200);
    expect(() => guard.check(req({ rawHeaders: ['X-Tenant', 'acme'], body: Buffer.from(deep) }), {})).toThrow(/too deep/);
  });

  it('hands the body it parsed on, so the event builder does not parse it again', () => {
    const guard = compileRequestValidation(api, route({ body: { type: 'object', required: ['sku'] } }))!;
    const grant: { parsedBody?: { value: unknown } } = {};
    guard.check(req({ body: Buffer.from('{"sku":"ABC-1234"}') }), grant);
    expect(grant.parsedBody).toEqual({ value: { sku: 'ABC-1234' } });
  });
});
