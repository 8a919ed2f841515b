/**
 * Management routes for APIs and their routes: /api/apis[/:id[/routes[/:routeId]]].
 */
import type { FastifyInstance } from 'fastify';
import type { ApiService } from '../gateway/apis.js';
import { apiView, routeView } from './views/apis.js';
import type { ApiPatch, NewApi, NewRoute } from '../store/store.js';
import { ROUTE_METHODS } from '../types.js';
import { dryRunQuerySchema, sendDryRun, type DryRunQuery } from './dry-run.js';
import { LINK_HEADER, originOf, pageOf, pageQuerySchema, readPage, type InvokeOrigin, type PageQuery } from './common.js';
import { DRY_RUN_ANSWER, ERRORS_BY_ID, ERRORS_BY_ID_WITH_BODY, ERRORS_WITH_BODY, errors, listOf, orDryRun, ref } from './schemas.js';

const newRouteSchema = {
  type: 'object',
  required: ['method', 'path', 'function'],
  additionalProperties: false,
  properties: {
    method: { type: 'string', enum: [...ROUTE_METHODS] },
    path: {
      type: 'string',
      minLength: 1,
      maxLength: 1024,
      description:
        'Starts with /; segments static, :name, or a final * (greedy). ' +
        "API Gateway's {name} and final {proxy+} are the same as :name and *; stored as written.",
    },
    function: { type: 'string', minLength: 1, maxLength: 64, description: 'Name of an existing function' },
  },
} as const;


const nameSchema = { type: 'string', minLength: 1, maxLength: 200 } as const;
const basePathSchema = { type: 'string', minLength: 1, maxLength: 512, description: 'Starts with /, static segments' } as const;
const idParams = { type: 'object', properties: { id: { type: 'string', maxLength: 100 } }, required: ['id'] } as const;

/**
 * `invokeOrigin`: where the caller reaches invocations, for `invokeUrl` (the
 * public listener's origin when the management API has its own listener).
 */
export function registerApiRoutes(app: FastifyInstance, apis: ApiService, invokeOrigin: InvokeOrigin = originOf): void {
  app.post<{ Body: NewApi; Querystring: DryRunQuery }>(
    '/api/apis',
    {
      schema: {
        tags: ['apis'],
        operationId: 'createApi',
        summary: 'Create an API with its routes',
        querystring: dryRunQuerySchema,
        body: {
          type: 'object',
          required: ['name', 'basePath', 'routes'],
          additionalProperties: false,
          properties: {
            name: nameSchema,
            basePath: basePathSchema,
            routes: { type: 'array', items: newRouteSchema, maxItems: 1000 },
          },
        },
        response: { 200: DRY_RUN_ANSWER, 201: { description: 'The API with its routes', ...ref('Api') }, ...ERRORS_WITH_BODY },
      },
    },
    async function createApi(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await apis.checkCreate(request.body));
      const api = await apis.create(request.body);
      return reply.code(201).send(apiView(api, invokeOrigin(request)));
    },
  );

  app.get<{ Querystring: PageQuery }>(
    '/api/apis',
    {
      schema: {
        tags: ['apis'],
        operationId: 'listApis',
        summary: 'List APIs (oldest first)',
        querystring: pageQuerySchema,
        response: { 200: { description: 'A page of APIs', headers: LINK_HEADER, ...listOf('Api') }, ...errors() },
      },
    },
    async function listApis(request, reply) {
      const page = readPage(request.query);
      const items = pageOf(await apis.list(page), page, request, reply, (a) => a.id);
      const origin = invokeOrigin(request);
      return items.map((a) => apiView(a, origin));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/apis/:id',
    {
      schema: {
        tags: ['apis'],
        operationId: 'getApi',
        summary: 'Get an API',
        params: idParams,
        response: { 200: { description: 'The API with its routes', ...ref('Api') }, ...ERRORS_BY_ID },
      },
    },
    async function getApi(request) {
      return apiView(await apis.get(request.params.id), invokeOrigin(request));
    },
  );

  app.put<{ Params: { id: string }; Body: ApiPatch; Querystring: DryRunQuery }>(
    '/api/apis/:id',
    {
      schema: {
        tags: ['apis'],
        operationId: 'updateApi',
        summary: 'Update an API (partial; routes, when given, replace all routes)',
        params: idParams,
        querystring: dryRunQuerySchema,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            name: nameSchema,
            basePath: basePathSchema,
            routes: { type: 'array', items: newRouteSchema, maxItems: 1000 },
          },
        },
        response: { 200: orDryRun('Api', 'The API as updated'), ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function updateApi(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await apis.checkUpdate(request.params.id, request.body ?? {}));
      return apiView(await apis.update(request.params.id, request.body ?? {}), invokeOrigin(request));
    },
  );

  app.delete<{ Params: { id: string }; Querystring: DryRunQuery }>(
    '/api/apis/:id',
    {
      schema: {
        tags: ['apis'],
        operationId: 'deleteApi',
        summary: 'Delete an API and its routes',
        params: idParams,
        querystring: dryRunQuerySchema,
        response: { 200: orDryRun('Deleted', 'Deleted'), ...errors(404, 409, 414) },
      },
    },
    async function deleteApi(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await apis.checkDelete(request.params.id));
      await apis.delete(request.params.id);
      return { deleted: true, id: request.params.id };
    },
  );

  app.post<{ Params: { id: string }; Body: NewRoute; Querystring: DryRunQuery }>(
    '/api/apis/:id/routes',
    {
      schema: {
        tags: ['apis'],
        operationId: 'addRoute',
        summary: 'Add one route to an API',
        params: idParams,
        querystring: dryRunQuerySchema,
        body: newRouteSchema,
        response: { 200: DRY_RUN_ANSWER, 201: { description: 'The new route', ...ref('Route') }, ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function addRoute(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await apis.checkAddRoute(request.params.id, request.body));
      const route = await apis.addRoute(request.params.id, request.body);
      return reply.code(201).send(routeView(route));
    },
  );

  app.delete<{ Params: { id: string; routeId: string }; Querystring: DryRunQuery }>(
    '/api/apis/:id/routes/:routeId',
    {
      schema: {
        tags: ['apis'],
        operationId: 'deleteRoute',
        summary: 'Delete one route',
        querystring: dryRunQuerySchema,
        params: {
          type: 'object',
          properties: { id: { type: 'string', maxLength: 100 }, routeId: { type: 'string', maxLength: 100 } },
          required: ['id', 'routeId'],
        },
        response: { 200: orDryRun('Deleted', 'Deleted'), ...ERRORS_BY_ID },
      },
    },
    async function deleteRoute(request, reply) {
      if (request.query.dry_run === 'true') {
        return sendDryRun(reply, await apis.checkDeleteRoute(request.params.id, request.params.routeId));
      }
      await apis.deleteRoute(request.params.id, request.params.routeId);
      return { deleted: true, id: request.params.routeId };
    },
  );
}
