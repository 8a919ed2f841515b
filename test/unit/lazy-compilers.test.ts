/**
 * Response serializers and request validators built on a route's first use
 * (src/http/lazy-compilers.ts): nothing compiles at start-up, each route
 * compiles once, and a real Fastify answers through the lazily built
 * functions exactly as it does with its default eager ones (unknown fields
 * dropped, the status's own schema chosen, the same 400 for a bad body, and a
 * headers schema that names a header in capitals still matched).
 */
import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { lazySerializerFactory, lazyValidatorFactory, lowerCaseHeaderNames } from '../../src/http/lazy-compilers.js';

const widget = {
  type: 'object',
  properties: { id: { type: 'string' }, count: { type: 'integer' }, at: { type: 'string', format: 'date-time' } },
  required: ['id'],
} as const;
const problem = { type: 'object', properties: { error: { type: 'string' } } } as const;

function countingFactory() {
  const real = SerializerSelector();
  const counts = { compiles: 0 };
  const factory: typeof real = (externals, options) => {
    const compile = real(externals, options);
    return (route) => {
      counts.compiles++;
      return compile(route);
    };
  };
  return { factory, counts };
}

describe('lazySerializerFactory', () => {
  it('compiles nothing until a serializer is called, then each route once', () => {
    const { factory, counts } = countingFactory();
    const compiler = lazySerializerFactory(factory)({}, {});
    const first = compiler({ method: 'GET', url: '/a', httpStatus: '200', schema: widget });
    const second = compiler({ method: 'GET', url: '/b', httpStatus: '200', schema: widget });
    expect(counts.compiles).toBe(0);
    expect(first({ id: 'w1', count: 2, extra: true })).toBe('{"id":"w1","count":2}');
    expect(counts.compiles).toBe(1);
    first({ id: 'w2' });
    expect(counts.compiles).toBe(1);
    second({ id: 'w3' });
    expect(counts.compiles).toBe(2);
  });

  it('throws what the compiled serializer throws, at the call', () => {
    const compiler = lazySerializerFactory()({}, {});
    const serialize = compiler({ method: 'GET', url: '/a', httpStatus: '200', schema: widget });
    expect(() => serialize({ count: 1 })).toThrow(/"id" is required/);
  });
});

describe('lazyValidatorFactory', () => {
  const ajvOptions = { customOptions: {}, plugins: [] } as never;

  it('compiles a validator on its first call and hands on its errors', () => {
    const real = AjvCompiler();
    let compiles = 0;
    const counting: typeof real = ((externals: never, options: never) => {
      const compile = real(externals, options);
      return (route: never) => {
        compiles++;
        return compile(route);
      };
    }) as never;
    const compiler = lazyValidatorFactory(counting)({}, ajvOptions);
    const validate = compiler({ schema: widget, method: 'POST', url: '/w', httpPart: 'body' }) as ((d: unknown) => boolean) & { errors?: unknown };
    expect(compiles).toBe(0);
    expect(validate({ id: 'w1' })).toBe(true);
    expect(validate.errors).toBeNull();
    expect(validate({ count: 1 })).toBe(false);
    expect(validate.errors).toEqual([expect.objectContaining({ keyword: 'required', params: { missingProperty: 'id' } })]);
    expect(compiles).toBe(1);
  });

  it('lower-cases the header names a headers schema lists, as Fastify does for its own compiler', () => {
    expect(lowerCaseHeaderNames({ type: 'object', properties: { 'X-Trace': { type: 'string' } }, required: ['X-Trace'] })).toEqual({
      type: 'object',
      properties: { 'x-trace': { type: 'string' } },
      required: ['x-trace'],
    });
  });
});

describe('a Fastify server with lazy compilers', () => {
  it('lets Ajv replace a root value, as Fastify does for its own validators (a coerced body)', async () => {
    const bodies: unknown[] = [];
    for (const lazy of [false, true]) {
      const app = Fastify({
        ajv: { customOptions: { coerceTypes: true } },
        ...(lazy ? { schemaController: { compilersFactory: { buildValidator: lazyValidatorFactory() } } } : {}),
      });
      app.post('/n', { schema: { body: { type: 'integer' } } }, async (request) => {
        bodies.push(request.body);
        return { ok: true };
      });
      const res = await app.inject({ method: 'POST', url: '/n', headers: { 'content-type': 'application/json' }, payload: '"5"' });
      expect(res.statusCode).toBe(200);
      await app.close();
    }
    expect(bodies).toEqual([5, 5]);
  });

  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });

  async function serve(lazy: boolean): Promise<FastifyInstance> {
    const app = Fastify(lazy ? { schemaController: { compilersFactory: { buildValidator: lazyValidatorFactory(), buildSerializer: lazySerializerFactory() } } } : {});
    apps.push(app);
    app.get('/widget', { schema: { response: { 200: widget, 404: problem } } }, async (request, reply) => {
      if ((request.query as { missing?: string }).missing) return reply.code(404).send({ error: 'no such widget', secret: 'x' });
      return { id: 'w1', count: 3, at: '2026-12-06T21:00:00.000Z', internal: 'never shown' };
    });
    app.post(
      '/widget',
      { schema: { body: widget, headers: { type: 'object', properties: { 'X-Trace': { type: 'string', pattern: '^t-' } }, required: ['X-Trace'] } } },
      async (request) => ({ got: (request.body as { id: string }).id }),
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    return app;
  }

  it('answers byte for byte as the default eager serializers do', async () => {
    const eager = await serve(false);
    const lazy = await serve(true);
    for (const query of ['', '?missing=1']) {
      const answers = await Promise.all(
        [eager, lazy].map(async (app) => {
          const { port } = app.server.address() as { port: number };
          const res = await fetch(`http://127.0.0.1:${port}/widget${query}`);
          return { status: res.status, body: await res.text() };
        }),
      );
      expect(answers[1]).toEqual(answers[0]);
    }
    const posts: Array<[Record<string, string>, string]> = [
      [{ 'x-trace': 't-1' }, '{"id":"w9"}'],
      [{ 'x-trace': 't-1' }, '{"count":"many"}'],
      [{ 'x-trace': 'nope' }, '{"id":"w9"}'],
      [{}, '{"id":"w9"}'],
    ];
    for (const [headers, body] of posts) {
      const answers = await Promise.all(
        [eager, lazy].map(async (app) => {
          const { port } = app.server.address() as { port: number };
          const res = await fetch(`http://127.0.0.1:${port}/widget`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
          return { status: res.status, body: await res.text() };
        }),
      );
      expect(answers[1]).toEqual(answers[0]);
    }
    const { port } = lazy.server.address() as { port: number };
    const ok = await fetch(`http://127.0.0.1:${port}/widget`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Trace': 't-2' }, body: '{"id":"w5"}' });
    expect([ok.status, await ok.text()]).toEqual([200, '{"got":"w5"}']);
    const refused = await fetch(`http://127.0.0.1:${port}/widget`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"w5"}' });
    expect(refused.status).toBe(400);
    expect(await (await fetch(`http://127.0.0.1:${port}/widget`)).text()).toBe('{"id":"w1","count":3,"at":"2026-12-06T21:00:00.000Z"}');
    expect(await (await fetch(`http://127.0.0.1:${port}/widget?missing=1`)).text()).toBe('{"error":"no such widget"}');
  });
});
