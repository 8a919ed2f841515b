/**
 * Management routes for APIs and their routes: /api/apis[/:id[/routes[/:routeId]]],
 * one registration per operation, each typed from its own schemas (../typed.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { ApiService } from '../gateway/apis.js';
import { LINK_HEADER, originOf, pageOf, pageQuerySchema, readPage, type InvokeOrigin } from './common.js';
import { sendDryRun } from './dry-run.js';
import { dryRunQuerySchema } from '../schema/dry-run.js';
import { addRouteBody, apiIdParams, createApiBody, routeIdParams, updateApiBody } from '../schema/apis.js';
import { DRY_RUN_ANSWER, ERRORS_BY_ID, ERRORS_BY_ID_WITH_BODY, ERRORS_WITH_BODY, errors, listOf, orDryRun, ref } from './schemas.js';
import { typed, type TypedApp } from './typed.js';
import { apiView, routeView } from './views/apis.js';

export interface ApiRouteDeps {
  apis: ApiService;
  /**
   * Where the caller reaches invocations, for `invokeUrl` (the public
   * listener's origin when the management API has its own listener).
   */
  invokeOrigin: InvokeOrigin;
}

export function createApiRoute(app: TypedApp, { apis, invokeOrigin }: ApiRouteDeps): void {
  app.post(
    '/api/apis',
    {
      schema: {
        tags: ['apis'],
        operationId: 'createApi',
        summary: 'Create an API with its routes',
        querystring: dryRunQuerySchema,
        body: createApiBody,
        response: { 200: DRY_RUN_ANSWER, 201: { description: 'The API with its routes', ...ref('Api') }, ...ERRORS_WITH_BODY },
      },
    },
    async function createApi(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await apis.checkCreate(request.body));
      const api = await apis.create(request.body);
      return reply.code(201).send(apiView(api, invokeOrigin(request)));
    },
  );
}

export function listApisRoute(app: TypedApp, { apis, invokeOrigin }: ApiRouteDeps): void {
  app.get(
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
}

export function getApiRoute(app: TypedApp, { apis, invokeOrigin }: ApiRouteDeps): void {
  app.get(
    '/api/apis/:id',
    {
      schema: {
        tags: ['apis'],
        operationId: 'getApi',
        summary: 'Get an API',
        params: apiIdParams,
        response: { 200: { description: 'The API with its routes', ...ref('Api') }, ...ERRORS_BY_ID },
      },
    },
    async function getApi(request) {
      return apiView(await apis.get(request.params.id), invokeOrigin(request));
    },
  );
}

export function updateApiRoute(app: TypedApp, { apis, invokeOrigin }: ApiRouteDeps): void {
  app.put(
    '/api/apis/:id',
    {
      schema: {
        tags: ['apis'],
        operationId: 'updateApi',
        summary: 'Update an API (partial; routes, when given, replace all routes)',
        params: apiIdParams,
        querystring: dryRunQuerySchema,
        body: updateApiBody,
        response: { 200: orDryRun('Api', 'The API as updated'), ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function updateApi(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await apis.checkUpdate(request.params.id, request.body ?? {}));
      return apiView(await apis.update(request.params.id, request.body ?? {}), invokeOrigin(request));
    },
  );
}

export function deleteApiRoute(app: TypedApp, { apis }: ApiRouteDeps): void {
  app.delete(
    '/api/apis/:id',
    {
      schema: {
        tags: ['apis'],
        operationId: 'deleteApi',
        summary: 'Delete an API and its routes',
        params: apiIdParams,
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
}

export function addRouteRoute(app: TypedApp, { apis }: ApiRouteDeps): void {
  app.post(
    '/api/apis/:id/routes',
    {
      schema: {
        tags: ['apis'],
        operationId: 'addRoute',
        summary: 'Add one route to an API',
        params: apiIdParams,
        querystring: dryRunQuerySchema,
        body: addRouteBody,
        response: { 200: DRY_RUN_ANSWER, 201: { description: 'The new route', ...ref('Route') }, ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function addRoute(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await apis.checkAddRoute(request.params.id, request.body));
      const route = await apis.addRoute(request.params.id, request.body);
      return reply.code(201).send(routeView(route));
    },
  );
}

export function deleteRouteRoute(app: TypedApp, { apis }: ApiRouteDeps): void {
  app.delete(
    '/api/apis/:id/routes/:routeId',
    {
      schema: {
        tags: ['apis'],
        operationId: 'deleteRoute',
        summary: 'Delete one route',
        querystring: dryRunQuerySchema,
        params: routeIdParams,
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

/** In the order the document lists them. */
const OPERATIONS = [createApiRoute, listApisRoute, getApiRoute, updateApiRoute, deleteApiRoute, addRouteRoute, deleteRouteRoute];

export function registerApiRoutes(app: FastifyInstance, deps: { apis: ApiService; invokeOrigin?: InvokeOrigin }): void {
  const api = typed(app);
  const full: ApiRouteDeps = { apis: deps.apis, invokeOrigin: deps.invokeOrigin ?? originOf };
  for (const register of OPERATIONS) register(api, full);
}
