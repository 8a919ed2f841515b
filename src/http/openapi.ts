/**
 * The OpenAPI 3.1 document's frame: @fastify/swagger options (info, servers,
 * security, named components) and the invocation endpoint, which is served
 * ahead of Fastify (src/http/invoke.ts) and so has no route to describe it.
 * Used by the running server (`GET /api/openapi.json`) and by the build
 * (scripts/build-openapi.mjs writes dist/openapi.json for the typed client).
 */
import type { SwaggerOptions } from '@fastify/swagger';
import { HTTP_METHODS } from '../types.js';

const errorAnswer = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** An invocation error the gateway words itself: Switchyard's Error, or API Gateway's `{message}` for an API with errorFormat `aws`. */
const gatewayAnswer = (description: string) => ({
  description,
  content: {
    'application/json': {
      schema: {
        oneOf: [
          { $ref: '#/components/schemas/Error' },
          {
            type: 'object',
            required: ['message'],
            properties: { message: { type: 'string', description: "API Gateway's wording (`Internal server error`, `Not Found`, ...)" } },
            description: 'The answer of an API whose errorFormat is `aws` (docs/securing-apis.md, "Error answers")',
          },
        ],
      },
    },
  },
});

/** `ANY /api/invoke/fn/{apiId}/{path}`: one operation per method (`invokeGet`, `invokePost`, ...). */
function invokePathItem() {
  const item: Record<string, unknown> = {
    parameters: [
      { name: 'apiId', in: 'path', required: true, schema: { type: 'string' }, description: 'The API id (`invokeUrl` of the API)' },
      {
        name: 'path',
        in: 'path',
        required: true,
        schema: { type: 'string' },
        examples: { route: { summary: 'GET /v1/users/{id} with id 42', value: 'v1/users/42' } },
        description:
          "The request path after the API id, without its leading slash: the API's basePath, then the route's path " +
          '(`v1/users/42`). Generated clients send its slashes encoded (`v1%2Fusers%2F42`): when all that follows the ' +
          'API id is one segment, the server reads `%2F` there as `/`, so both spellings reach the same route with the ' +
          'same event. See docs/api.md, "Invocation".',
      },
    ],
  };
  for (const method of HTTP_METHODS) {
    const lower = method.toLowerCase();
    item[lower] = {
      tags: ['invoke'],
      operationId: `invoke${method[0]}${lower.slice(1)}`,
      summary: `Call the function a route binds (${method})`,
      description:
        "Public: no admin key. The function's result becomes the answer (status, headers and body are the function's). " +
        "Errors of the gateway itself use the Error shape, or API Gateway's `{message}` for an API whose errorFormat is " +
        "`aws`; a function's error message reaches the caller only when its API sets exposeErrors. " +
        'docs/functions.md explains events and results.',
      security: [],
      ...(method === 'GET' || method === 'HEAD' || method === 'OPTIONS'
        ? {}
        : { requestBody: { required: false, content: { '*/*': { schema: {} } } } }),
      responses: {
        default: { description: "The function's answer", content: { '*/*': { schema: {} } } },
        400: errorAnswer(
          "The route's request model refused the request (request_invalid: `details.errors` names each failure); the function did not run",
        ),
        403: errorAnswer('A service worker script was asked for (service_worker_refused: functions cannot serve one)'),
        404: gatewayAnswer('No such API, or no route matches (api_not_found, no_route; errorFormat aws: also a wrong method)'),
        405: errorAnswer('The route exists for other methods (method_not_allowed; `Allow` lists them)'),
        413: errorAnswer('Request body larger than the limit'),
        500: gatewayAnswer('errorFormat aws: a function of the aws-v2 or switchyard format failed'),
        502: gatewayAnswer('The function failed or returned an invalid result'),
        503: gatewayAnswer('The server is shutting down (errorFormat aws: also a function of the aws-v2 or switchyard format timed out)'),
        504: gatewayAnswer('The function ran past its timeout'),
      },
    };
  }
  return item;
}

export interface DocumentOptions {
  /** Whether the management API needs the admin key (it does when SWITCHYARD_ADMIN_KEY is set). */
  secured: boolean;
  /** Where the document says the server is; default: relative to where the document was fetched. */
  servers?: Array<{ url: string; description?: string }>;
}

export function swaggerOptions(opts: DocumentOptions): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Switchyard management API',
        version: '0.1.0',
        description:
          'Functions, APIs and routes, webhooks, deliveries and events, log streams, and the invocation endpoint. ' +
          'How invocations behave: docs/functions.md; every error code: docs/errors.md.',
      },
      servers: opts.servers ?? [{ url: '/', description: 'The server that serves this document' }],
      tags: [
        { name: 'functions', description: 'Deploy, invoke and watch functions' },
        { name: 'apis', description: 'APIs and the routes that bind functions' },
        { name: 'api-keys', description: 'API keys (secrets shown once) and the usage plans that throttle and count them' },
        { name: 'webhooks', description: 'Webhooks, their deliveries, and events' },
        { name: 'event-types', description: "The event-type catalogue: each type's schema versions, examples and validation mode (also the document's `webhooks`)" },
        { name: 'applications', description: 'Applications (one per customer): their webhooks receive only the events published to them; portal access for their customers' },
        { name: 'consumer', description: "The consumer API: what a portal token (not the admin key) opens, on its application's resources only (`Authorization: Bearer <portal token>`)" },
        { name: 'invoke', description: 'The public invocation endpoint' },
        { name: 'operations', description: 'Probes and metrics (public)' },
        { name: 'stats', description: 'Per-minute statistics of every node, and the deliveries stream (the dashboard overview)' },
      ],
      components: {
        securitySchemes: {
          adminKey: { type: 'http', scheme: 'bearer', description: 'SWITCHYARD_ADMIN_KEY' },
          portalToken: { type: 'http', scheme: 'bearer', description: 'A portal token (POST /api/applications/{id}/portal-access): the consumer API only' },
        },
      },
      security: opts.secured ? [{ adminKey: [] }] : [],
      paths: { '/api/invoke/fn/{apiId}/{path}': invokePathItem() },
    },
    // Components are named after their `$id` (src/http/schemas.ts), not `def-N`.
    refResolver: {
      buildLocalReference(json, _baseUri, _fragment, i) {
        return typeof json.$id === 'string' ? json.$id : `def-${i}`;
      },
    },
  };
}
