/**
 * Create, list, read, update, delete API keys and read their usage: one
 * registration per operation, each typed from its own schemas (../typed.ts).
 * The secret is answered by the create only.
 */
import { LINK_HEADER, pageOf, pageQuerySchema, readPage } from '../common.js';
import { ERRORS_BY_ID, ERRORS_BY_ID_WITH_BODY, ERRORS_WITH_BODY, errors, listOf, ref } from '../schemas.js';
import type { TypedApp } from '../typed.js';
import { apiKeyView } from '../views/api-keys.js';
import { createApiKeyBody, keyIdParams, updateApiKeyBody, usageQuery } from '../../schema/api-keys.js';
import type { ApiKeyRouteDeps } from './deps.js';

export function createApiKeyRoute(app: TypedApp, { apiKeys }: ApiKeyRouteDeps): void {
  app.post(
    '/api/api-keys',
    {
      schema: {
        tags: ['api-keys'],
        operationId: 'createApiKey',
        summary: 'Create an API key: the answer holds its secret (`value`), shown this once',
        body: createApiKeyBody,
        response: { 201: { description: 'The key with its secret in `value`', ...ref('ApiKey') }, ...ERRORS_WITH_BODY },
      },
    },
    async function createApiKey(request, reply) {
      const { key, secret } = await apiKeys.createKey(request.body);
      return reply.code(201).header('cache-control', 'no-store').send(apiKeyView(key, secret));
    },
  );
}

export function listApiKeysRoute(app: TypedApp, { apiKeys }: ApiKeyRouteDeps): void {
  app.get(
    '/api/api-keys',
    {
      schema: {
        tags: ['api-keys'],
        operationId: 'listApiKeys',
        summary: 'List API keys (oldest first; prefixes, never secrets)',
        querystring: pageQuerySchema,
        response: { 200: { description: 'A page of API keys', headers: LINK_HEADER, ...listOf('ApiKey') }, ...errors() },
      },
    },
    async function listApiKeys(request, reply) {
      const page = readPage(request.query);
      return pageOf(await apiKeys.listKeys(page), page, request, reply, (k) => k.id).map((k) => apiKeyView(k));
    },
  );
}

export function getApiKeyRoute(app: TypedApp, { apiKeys }: ApiKeyRouteDeps): void {
  app.get(
    '/api/api-keys/:id',
    {
      schema: {
        tags: ['api-keys'],
        operationId: 'getApiKey',
        summary: 'Get an API key (its prefix, never its secret)',
        params: keyIdParams,
        response: { 200: { description: 'The API key', ...ref('ApiKey') }, ...ERRORS_BY_ID },
      },
    },
    async function getApiKey(request) {
      return apiKeyView(await apiKeys.getKey(request.params.id));
    },
  );
}

/** PUT and PATCH alike: both take any of the fields (a partial update); every process serves the change when it answers. */
export function updateApiKeyRoutes(app: TypedApp, { apiKeys }: ApiKeyRouteDeps): void {
  for (const method of ['put', 'patch'] as const) {
    app[method](
      '/api/api-keys/:id',
      {
        schema: {
          tags: ['api-keys'],
          operationId: method === 'put' ? 'updateApiKey' : 'patchApiKey',
          summary: 'Enable or disable an API key, rename it, or move it to another usage plan (partial)',
          params: keyIdParams,
          body: updateApiKeyBody,
          response: { 200: { description: 'The API key as updated', ...ref('ApiKey') }, ...ERRORS_BY_ID_WITH_BODY },
        },
      },
      async function updateApiKey(request) {
        return apiKeyView(await apiKeys.updateKey(request.params.id, request.body ?? {}));
      },
    );
  }
}

export function deleteApiKeyRoute(app: TypedApp, { apiKeys }: ApiKeyRouteDeps): void {
  app.delete(
    '/api/api-keys/:id',
    {
      schema: {
        tags: ['api-keys'],
        operationId: 'deleteApiKey',
        summary: 'Revoke an API key (deleted with its usage); refused everywhere once this answers',
        params: keyIdParams,
        response: { 200: { description: 'Deleted', ...ref('Deleted') }, ...ERRORS_BY_ID },
      },
    },
    async function deleteApiKey(request) {
      await apiKeys.deleteKey(request.params.id);
      return { deleted: true, id: request.params.id };
    },
  );
}

export function apiKeyUsageRoute(app: TypedApp, { apiKeys }: ApiKeyRouteDeps): void {
  app.get(
    '/api/api-keys/:id/usage',
    {
      schema: {
        tags: ['api-keys'],
        operationId: 'getApiKeyUsage',
        summary: 'Requests admitted with the key per UTC day (every day of the range listed; at most 366 days)',
        params: keyIdParams,
        querystring: usageQuery,
        response: { 200: { description: 'Usage per day', ...ref('ApiKeyUsage') }, ...ERRORS_BY_ID },
      },
    },
    async function getApiKeyUsage(request) {
      const usage = await apiKeys.usage(request.params.id, request.query.from, request.query.to);
      return { id: request.params.id, ...usage };
    },
  );
}
