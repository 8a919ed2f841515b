/**
 * The public invocation endpoint `ANY /api/invoke/fn/:apiId/*`. Registered in
 * its own encapsulated context so every body arrives raw (a Buffer, whatever
 * its content type): the event builder decides between JSON, text and base64.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Gateway } from '../gateway/gateway.js';

const PREFIX = '/api/invoke/fn/';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

/** Splits the raw URL into API id, path after it (still encoded) and query text. */
export function splitInvokeUrl(url: string): { apiId: string; path: string; rawQuery: string } {
  const q = url.indexOf('?');
  const pathPart = q === -1 ? url : url.slice(0, q);
  const rawQuery = q === -1 ? '' : url.slice(q + 1);
  const rest = pathPart.slice(PREFIX.length);
  const slash = rest.indexOf('/');
  return slash === -1
    ? { apiId: rest, path: '', rawQuery }
    : { apiId: rest.slice(0, slash), path: rest.slice(slash), rawQuery };
}

export function registerInvokeRoutes(app: FastifyInstance, gateway: Gateway, bodyLimit: number): void {
  app.register(async function invokeContext(scope) {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, function rawBody(_req, body, done) {
      done(null, body);
    });

    const handler = async function invoke(request: FastifyRequest, reply: import('fastify').FastifyReply) {
      const { apiId, path, rawQuery } = splitInvokeUrl(request.raw.url ?? request.url);
      const body = request.body as Buffer | undefined;
      const response = await gateway.handle({
        method: request.method,
        path,
        rawQuery,
        rawHeaders: request.raw.rawHeaders,
        body: body && body.length > 0 ? body : null,
        sourceIp: request.ip,
        requestId: request.id,
        apiId,
        requestTimeEpoch: Date.now(),
      });
      reply.code(response.status).headers(response.headers);
      return reply.send(response.body ?? undefined);
    };

    for (const url of ['/api/invoke/fn/:apiId', '/api/invoke/fn/:apiId/*']) {
      scope.route({ method: [...METHODS], url, handler, schema: { hide: true } as object });
    }
  });
}
