/**
 * Response serializers and request validators compiled on a route's first use
 * instead of at start-up. Fastify builds a fast-json-stringify function for
 * every response schema and an Ajv validator for every request part of every
 * route when the server becomes ready; with the management API's few hundred
 * schemas that was about 2.5 s of CPU and 100 MB of memory in each server
 * process before it answered anything, mostly for routes nobody calls
 * (bench/README.md, "Start-up and idle memory"). No library offers this:
 * Fastify's compiler factories are the documented seam, so these wrap them.
 *
 * Fastify's own factories do the compiling, unchanged; the wrappers only
 * defer the call, so a request is validated and an answer serialized exactly
 * as before. One difference needs care: with a validator factory of its own,
 * Fastify hands a `headers` schema over as written instead of with its
 * property names lower-cased (Node lower-cases every header name), so the
 * wrapper lower-cases them itself. The schemas are still all compiled
 * eagerly where it matters for correctness: buildOpenApiDocument
 * (src/http/management.ts) mounts the same routes on a default Fastify, and
 * its tests fail on a schema that does not build.
 */
import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type ValidatorFactory = ReturnType<typeof AjvCompiler>;
type ValidatorRoute = Parameters<ReturnType<ValidatorFactory>>[0];
type Validate = ((data: unknown, dataContext?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };

/** `buildFactory`: the factory that compiles (Fastify's default; a test passes one that counts). */
export function lazySerializerFactory(buildFactory: SerializerFactory = SerializerSelector()): SerializerFactory {
  return function lazyFactory(externalSchemas, options) {
    const compile = buildFactory(externalSchemas, options);
    return function deferredCompile(route) {
      let serialize: ((doc: unknown) => string) | null = null;
      return function serializeOnDemand(doc: unknown): string {
        serialize ??= compile(route);
        return serialize(doc);
      };
    };
  };
}

/**
 * A headers schema as Fastify's default path passes it on: `properties` and `required` named in lower
 * case. Only at the top level, where Switchyard's header schemas name their headers; Fastify's own
 * copy also walks combinators (`anyOf` and the like), which none of them use.
 */
export function lowerCaseHeaderNames(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = { ...(schema as Record<string, unknown>) };
  const properties = out.properties;
  if (properties !== null && typeof properties === 'object') {
    out.properties = Object.fromEntries(Object.entries(properties).map(([name, value]) => [name.toLowerCase(), value]));
  }
  if (Array.isArray(out.required)) out.required = out.required.map((name) => (typeof name === 'string' ? name.toLowerCase() : name));
  return out;
}

/** `buildFactory`: the factory that compiles (Fastify's default, @fastify/ajv-compiler; a test passes one that counts). */
export function lazyValidatorFactory(buildFactory: ValidatorFactory = AjvCompiler()): ValidatorFactory {
  return function lazyFactory(externalSchemas, options) {
    const compile = buildFactory(externalSchemas, options);
    return function deferredCompile(route: ValidatorRoute) {
      const given = route.httpPart === 'headers' ? { ...route, schema: lowerCaseHeaderNames(route.schema) as typeof route.schema } : route;
      let validate: Validate | null = null;
      // Fastify reads `errors` off the function it called once it returns false, and passes an Ajv
      // function (one with `schemaEnv`) the request as the value's parent, so that Ajv may replace
      // the root value: both are handed through.
      const validateOnDemand: Validate = (data: unknown, dataContext?: unknown) => {
        const compiled: Validate = (validate ??= compile(given) as Validate);
        const result = compiled.schemaEnv === undefined ? compiled(data) : compiled(data, dataContext);
        validateOnDemand.errors = compiled.errors;
        return result;
      };
      validateOnDemand.schemaEnv = true;
      return validateOnDemand as ReturnType<ReturnType<ValidatorFactory>>;
    };
  } as ValidatorFactory;
}
