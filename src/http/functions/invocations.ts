/**
 * A function's background invocations (asynchronous, scheduled, event,
 * destination): list, read one, retry a failed one.
 */
import { LINK_HEADER, pageOf, pageQuerySchema, readPage } from '../common.js';
import { ERRORS_BY_ID, errors, listOf, ref } from '../schemas.js';
import { Type } from '../../schema/kit.js';
import type { TypedApp } from '../typed.js';
import { functionInvocationView } from '../views/functions.js';
import type { FunctionRouteDeps } from './deps.js';
import { invocationParams, invocationStatusSchema, nameParams } from '../../schema/functions.js';

export function listFunctionInvocationsRoute(app: TypedApp, { background }: FunctionRouteDeps): void {
  app.get(
    '/api/functions/:name/invocations',
    {
      schema: {
        tags: ['functions'],
        operationId: 'listFunctionInvocations',
        summary: 'Background invocations of a function (asynchronous, scheduled, event, destination), newest first',
        params: nameParams,
        querystring: Type.Object(
          { ...pageQuerySchema.properties, status: Type.Optional(invocationStatusSchema) },
          { additionalProperties: false },
        ),
        response: { 200: { description: 'A page of invocations', headers: LINK_HEADER, ...listOf('FunctionInvocation') }, ...ERRORS_BY_ID },
      },
    },
    async function listFunctionInvocations(request, reply) {
      const page = readPage(request.query);
      const items = await background.list(request.params.name, request.query.status ?? null, page);
      return pageOf(items, page, request, reply, (d) => d.id).map(functionInvocationView);
    },
  );
}

export function getFunctionInvocationRoute(app: TypedApp, { background }: FunctionRouteDeps): void {
  app.get(
    '/api/functions/:name/invocations/:id',
    {
      schema: {
        tags: ['functions'],
        operationId: 'getFunctionInvocation',
        summary: 'One background invocation with its attempts',
        params: invocationParams,
        response: { 200: { description: 'The invocation', ...ref('FunctionInvocation') }, ...ERRORS_BY_ID },
      },
    },
    async function getFunctionInvocation(request) {
      return functionInvocationView(await background.get(request.params.name, request.params.id));
    },
  );
}

export function retryFunctionInvocationRoute(app: TypedApp, { background }: FunctionRouteDeps): void {
  app.post(
    '/api/functions/:name/invocations/:id/retry',
    {
      schema: {
        tags: ['functions'],
        operationId: 'retryFunctionInvocation',
        summary: 'Run a failed invocation once more, in the background',
        params: invocationParams,
        response: { 202: { description: 'Pending again', ...ref('FunctionInvocation') }, ...errors(404, 409, 414) },
      },
    },
    async function retryFunctionInvocation(request, reply) {
      const reopened = await background.retry(request.params.name, request.params.id);
      return reply.code(202).send(functionInvocationView(reopened));
    },
  );
}
