/**
 * Deploy, list, read, update and delete functions: one registration per
 * operation, each typed from its own schemas (../typed.ts).
 */
import { functionView } from '../views/functions.js';
import { sendDryRun } from '../dry-run.js';
import { dryRunQuerySchema } from '../../schema/dry-run.js';
import { LINK_HEADER, pageOf, pageQuerySchema, readPage } from '../common.js';
import { DRY_RUN_ANSWER, ERRORS_BY_ID, ERRORS_BY_ID_WITH_BODY, ERRORS_WITH_BODY, errors, listOf, orDryRun, ref } from '../schemas.js';
import type { TypedApp } from '../typed.js';
import type { FunctionRouteDeps } from './deps.js';
import { FUNCTION_BODY_LIMIT, createFunctionBody, nameParams, updateFunctionBody } from '../../schema/functions.js';

export function createFunctionRoute(app: TypedApp, { functions }: FunctionRouteDeps): void {
  app.post(
    '/api/functions',
    {
      bodyLimit: FUNCTION_BODY_LIMIT,
      schema: {
        tags: ['functions'],
        operationId: 'createFunction',
        summary: 'Deploy a function',
        querystring: dryRunQuerySchema,
        body: createFunctionBody,
        response: { 200: DRY_RUN_ANSWER, 201: { description: 'The deployed function (version 1)', ...ref('Function') }, ...ERRORS_WITH_BODY },
      },
    },
    async function createFunction(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await functions.checkCreate(request.body));
      const fn = await functions.create(request.body);
      return reply.code(201).send(functionView(fn));
    },
  );
}

export function listFunctionsRoute(app: TypedApp, { functions }: FunctionRouteDeps): void {
  app.get(
    '/api/functions',
    {
      schema: {
        tags: ['functions'],
        operationId: 'listFunctions',
        summary: 'List functions (oldest first, without code)',
        querystring: pageQuerySchema,
        response: { 200: { description: 'A page of functions', headers: LINK_HEADER, ...listOf('Function') }, ...errors() },
      },
    },
    async function listFunctions(request, reply) {
      const page = readPage(request.query);
      const items = await functions.list(page);
      return pageOf(items, page, request, reply, (f) => f.name).map((f) => functionView(f));
    },
  );
}

export function getFunctionRoute(app: TypedApp, { functions }: FunctionRouteDeps): void {
  app.get(
    '/api/functions/:name',
    {
      schema: {
        tags: ['functions'],
        operationId: 'getFunction',
        summary: 'Get a function with its code',
        params: nameParams,
        response: { 200: { description: 'The function with its code', ...ref('Function') }, ...ERRORS_BY_ID },
      },
    },
    async function getFunction(request) {
      return functionView(await functions.get(request.params.name), true);
    },
  );
}

export function updateFunctionRoute(app: TypedApp, { functions }: FunctionRouteDeps): void {
  app.put(
    '/api/functions/:name',
    {
      bodyLimit: FUNCTION_BODY_LIMIT,
      schema: {
        tags: ['functions'],
        operationId: 'updateFunction',
        summary: 'Update a function (partial; null resets a field); bumps its version',
        params: nameParams,
        querystring: dryRunQuerySchema,
        body: updateFunctionBody,
        response: { 200: orDryRun('Function', 'The function as updated'), ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function updateFunction(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await functions.checkUpdate(request.params.name, request.body ?? {}));
      return functionView(await functions.update(request.params.name, request.body ?? {}));
    },
  );
}

export function deleteFunctionRoute(app: TypedApp, { functions }: FunctionRouteDeps): void {
  app.delete(
    '/api/functions/:name',
    {
      schema: {
        tags: ['functions'],
        operationId: 'deleteFunction',
        summary: 'Delete a function (409 while a route binds it)',
        params: nameParams,
        querystring: dryRunQuerySchema,
        response: { 200: orDryRun('Deleted', 'Deleted'), ...errors(404, 409, 414) },
      },
    },
    async function deleteFunction(request, reply) {
      if (request.query.dry_run === 'true') return sendDryRun(reply, await functions.checkDelete(request.params.name));
      await functions.delete(request.params.name);
      return { deleted: true, name: request.params.name };
    },
  );
}
