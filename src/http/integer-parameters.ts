/**
 * Whole numbers in query strings and path parameters (`?limit=`, `?since=`,
 * `/versions/{version}`). Their schemas say `type: integer`, so the OpenAPI
 * document gives clients a number to send and to type, while the validator
 * keeps ajv's coercion off (a body's `"timeout_ms": "100"` stays refused).
 *
 * Fastify hands query and path values over as strings: for each route whose
 * querystring or params schema has integer properties, one preValidation hook
 * (added when the route is added; other routes get none) turns a value written
 * plainly in decimal (`0`, `42`: digits, no leading zero) into a number and
 * leaves anything else as it came, which the schema then refuses naming the
 * field. Ajv's coercion would not do: it also takes `1e3`, `+5`, ` 5`, `0x10`
 * and `0100`, which these parameters have always refused.
 */
import type { FastifyInstance, preValidationHookHandler } from 'fastify';

const PLAIN_DECIMAL = /^(?:0|[1-9][0-9]*)$/;

interface ObjectSchema {
  properties?: Record<string, { type?: unknown }>;
}

/** The properties a query or params schema types as integers. */
export function integerFields(schema: unknown): string[] {
  const properties = (schema as ObjectSchema | undefined)?.properties;
  if (!properties) return [];
  return Object.keys(properties).filter((key) => properties[key].type === 'integer');
}

/** Replaces each named field written plainly in decimal with its number. */
export function readIntegers(values: Record<string, unknown> | undefined, fields: string[]): void {
  if (!values) return;
  for (const field of fields) {
    const value = values[field];
    if (typeof value === 'string' && PLAIN_DECIMAL.test(value)) values[field] = Number(value);
  }
}

/** Call before the routes are added: only routes added afterwards are seen. */
export function registerIntegerParameters(app: FastifyInstance): void {
  app.addHook('onRoute', function integerParameters(route) {
    const query = integerFields(route.schema?.querystring);
    const params = integerFields(route.schema?.params);
    if (query.length === 0 && params.length === 0) return;
    const hook: preValidationHookHandler = function readIntegerParameters(request, _reply, done) {
      readIntegers(request.query as Record<string, unknown>, query);
      readIntegers(request.params as Record<string, unknown>, params);
      done();
    };
    const existing = route.preValidation;
    route.preValidation = existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
  });
}
