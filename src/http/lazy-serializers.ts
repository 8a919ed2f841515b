/**
 * Response serializers compiled on a route's first answer instead of at
 * start-up. Fastify builds a fast-json-stringify function for every response
 * schema of every route when the server becomes ready; with the management
 * API's few hundred schemas that was about 4 s of CPU in each server process
 * before it answered anything, and the compiled code stays in memory even for
 * routes nobody calls (bench/README.md, "Start-up and idle memory").
 *
 * Fastify's own compiler factory does the compiling, unchanged; this wrapper
 * only defers the call, so an answer is serialized exactly as before. The
 * schemas themselves are still compiled eagerly where it matters for
 * correctness: buildOpenApiDocument (src/http/management.ts) mounts the same
 * routes on a default Fastify, and its tests fail on a schema that does not
 * build.
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Factory = ReturnType<typeof SerializerSelector>;

/** `buildFactory`: the factory that compiles (Fastify's default; a test passes one that counts). */
export function lazySerializerFactory(buildFactory: Factory = SerializerSelector()): Factory {
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
