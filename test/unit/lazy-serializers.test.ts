/**
 * Response serializers built on a route's first answer (src/http/lazy-serializers.ts):
 * nothing compiles at start-up, each route compiles once, and a real Fastify
 * answers through the lazily built fast-json-stringify function exactly as it
 * does with its default eager one (unknown fields dropped, a `date-time` string
 * kept, the status's own schema chosen).
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { lazySerializerFactory } from '../../src/http/lazy-serializers.js';

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

describe('a Fastify server with lazy serializers', () => {
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });

  async function serve(lazy: boolean): Promise<FastifyInstance> {
    const app = Fastify(lazy ? { schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } } } : {});
    apps.push(app);
    app.get('/widget', { schema: { response: { 200: widget, 404: problem } } }, async (request, reply) => {
      if ((request.query as { missing?: string }).missing) return reply.code(404).send({ error: 'no such widget', secret: 'x' });
      return { id: 'w1', count: 3, at: '2026-12-06T21:00:00.000Z', internal: 'never shown' };
    });
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
    const { port } = lazy.server.address() as { port: number };
    expect(await (await fetch(`http://127.0.0.1:${port}/widget`)).text()).toBe('{"id":"w1","count":3,"at":"2026-12-06T21:00:00.000Z"}');
    expect(await (await fetch(`http://127.0.0.1:${port}/widget?missing=1`)).text()).toBe('{"error":"no such widget"}');
  });
});
