/** Create, list, read, update and delete usage plans: one registration per operation (../typed.ts). */
import { LINK_HEADER, pageOf, pageQuerySchema, readPage } from '../common.js';
import { ERRORS_BY_ID, ERRORS_BY_ID_WITH_BODY, ERRORS_WITH_BODY, errors, listOf, ref } from '../schemas.js';
import type { TypedApp } from '../typed.js';
import { usagePlanView } from '../views/api-keys.js';
import { createUsagePlanBody, keyIdParams, updateUsagePlanBody } from '../../schema/api-keys.js';
import type { ApiKeyRouteDeps } from './deps.js';

export function createUsagePlanRoute(app: TypedApp, { apiKeys }: ApiKeyRouteDeps): void {
  app.post(
    '/api/usage-plans',
    {
      schema: {
        tags: ['api-keys'],
        operationId: 'createUsagePlan',
        summary: 'Create a usage plan: the APIs its keys may call, with a throttle and a quota per key',
        body: createUsagePlanBody,
        response: { 201: { description: 'The usage plan', ...ref('UsagePlan') }, ...ERRORS_WITH_BODY },
      },
    },
    async function createUsagePlan(request, reply) {
      const { name, apiIds, throttle, quota } = request.body;
      return reply.code(201).send(usagePlanView(await apiKeys.createPlan({ name, apiIds, throttle: throttle ?? null, quota: quota ?? null })));
    },
  );
}

export function listUsagePlansRoute(app: TypedApp, { apiKeys }: ApiKeyRouteDeps): void {
  app.get(
    '/api/usage-plans',
    {
      schema: {
        tags: ['api-keys'],
        operationId: 'listUsagePlans',
        summary: 'List usage plans (oldest first)',
        querystring: pageQuerySchema,
        response: { 200: { description: 'A page of usage plans', headers: LINK_HEADER, ...listOf('UsagePlan') }, ...errors() },
      },
    },
    async function listUsagePlans(request, reply) {
      const page = readPage(request.query);
      return pageOf(await apiKeys.listPlans(page), page, request, reply, (p) => p.id).map(usagePlanView);
    },
  );
}

export function getUsagePlanRoute(app: TypedApp, { apiKeys }: ApiKeyRouteDeps): void {
  app.get(
    '/api/usage-plans/:id',
    {
      schema: {
        tags: ['api-keys'],
        operationId: 'getUsagePlan',
        summary: 'Get a usage plan',
        params: keyIdParams,
        response: { 200: { description: 'The usage plan', ...ref('UsagePlan') }, ...ERRORS_BY_ID },
      },
    },
    async function getUsagePlan(request) {
      return usagePlanView(await apiKeys.getPlan(request.params.id));
    },
  );
}

export function updateUsagePlanRoute(app: TypedApp, { apiKeys }: ApiKeyRouteDeps): void {
  app.put(
    '/api/usage-plans/:id',
    {
      schema: {
        tags: ['api-keys'],
        operationId: 'updateUsagePlan',
        summary: 'Update a usage plan (partial; null removes the throttle or quota); applies at once to its keys',
        params: keyIdParams,
        body: updateUsagePlanBody,
        response: { 200: { description: 'The usage plan as updated', ...ref('UsagePlan') }, ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function updateUsagePlan(request) {
      return usagePlanView(await apiKeys.updatePlan(request.params.id, request.body ?? {}));
    },
  );
}

export function deleteUsagePlanRoute(app: TypedApp, { apiKeys }: ApiKeyRouteDeps): void {
  app.delete(
    '/api/usage-plans/:id',
    {
      schema: {
        tags: ['api-keys'],
        operationId: 'deleteUsagePlan',
        summary: 'Delete a usage plan no key is on (409 usage_plan_in_use otherwise)',
        params: keyIdParams,
        response: { 200: { description: 'Deleted', ...ref('Deleted') }, ...errors(404, 409, 414) },
      },
    },
    async function deleteUsagePlan(request) {
      await apiKeys.deletePlan(request.params.id);
      return { deleted: true, id: request.params.id };
    },
  );
}
