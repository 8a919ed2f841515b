/**
 * Query and path integers (src/http/integer-parameters.ts) on a real Fastify
 * app with the server's strict validator: a value written plainly becomes a
 * number the handler gets, anything else is refused naming the field, and a
 * route without integer parameters gets no hook.
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integerFields, registerIntegerParameters } from '../../src/http/integer-parameters.js';
import { registerErrorHandling } from '../../src/http/errors.js';

const app = Fastify({ ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } } });

beforeAll(async () => {
  registerErrorHandling(app);
  registerIntegerParameters(app);
  app.get(
    '/items/:n',
    {
      schema: {
        params: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] },
        querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 1000 }, after: { type: 'string' } }, additionalProperties: false },
      },
    },
    async (request) => ({ params: request.params, query: request.query }),
  );
  app.post('/plain', { schema: { body: { type: 'object', properties: { n: { type: 'integer' } } } } }, async (request) => request.routeOptions.config);
  await app.ready();
});
afterAll(() => app.close());

describe('integer query and path parameters', () => {
  it('hands the handler numbers for values written plainly', async () => {
    const res = await app.inject({ method: 'GET', url: '/items/7?limit=20&after=b' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ params: { n: 7 }, query: { limit: 20, after: 'b' } });
    expect((await app.inject({ method: 'GET', url: '/items/1?limit=0' })).json().code).toBe('invalid_request');
  });

  it('refuses every other spelling, naming the field', async () => {
    for (const bad of ['020', '1e1', '+20', '20.0', '%2020', '0x14', '-1', 'twenty', '', '20&limit=21']) {
      const res = await app.inject({ method: 'GET', url: `/items/1?limit=${bad}` });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().details, bad).toEqual({ field: 'limit' });
    }
    const path = await app.inject({ method: 'GET', url: '/items/07' });
    expect(path.statusCode).toBe(400);
    expect(path.json().details).toEqual({ field: 'n' });
  });

  it('leaves bodies strict: a number sent as a string is still refused', async () => {
    const res = await app.inject({ method: 'POST', url: '/plain', payload: { n: '5' } });
    expect(res.statusCode).toBe(400);
  });

  it('finds integer properties only', () => {
    expect(integerFields({ properties: { a: { type: 'integer' }, b: { type: 'string' }, c: { type: 'number' } } })).toEqual(['a']);
    expect(integerFields(undefined)).toEqual([]);
  });
});
