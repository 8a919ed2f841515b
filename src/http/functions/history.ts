/**
 * What a function ran and printed: its version history, one version with its
 * code, and its recent console lines.
 */
import { pageLimit } from '../common.js';
import { Type } from '../../schema/kit.js';
import { ERRORS_BY_ID, listOf, ref } from '../schemas.js';
import type { TypedApp } from '../typed.js';
import { functionVersionView, logView } from '../views/functions.js';
import type { FunctionRouteDeps } from './deps.js';
import { nameParams, versionParams } from '../../schema/functions.js';

export function listFunctionVersionsRoute(app: TypedApp, { functions }: FunctionRouteDeps): void {
  app.get(
    '/api/functions/:name/versions',
    {
      schema: {
        tags: ['functions'],
        operationId: 'listFunctionVersions',
        summary: "A function's version history, newest first (the newest 50, without code or env)",
        params: nameParams,
        response: { 200: { description: 'The kept versions, newest first', ...listOf('FunctionVersion') }, ...ERRORS_BY_ID },
      },
    },
    async function listFunctionVersions(request) {
      return (await functions.versions(request.params.name)).map(functionVersionView);
    },
  );
}

export function getFunctionVersionRoute(app: TypedApp, { functions }: FunctionRouteDeps): void {
  app.get(
    '/api/functions/:name/versions/:version',
    {
      schema: {
        tags: ['functions'],
        operationId: 'getFunctionVersion',
        summary: 'One kept version of a function, with its code (restore it by sending its fields with PUT)',
        params: versionParams,
        response: { 200: { description: 'The version with its code', ...ref('FunctionVersion') }, ...ERRORS_BY_ID },
      },
    },
    async function getFunctionVersion(request) {
      return functionVersionView(await functions.version(request.params.name, request.params.version));
    },
  );
}

export function listFunctionLogsRoute(app: TypedApp, { functions }: FunctionRouteDeps): void {
  app.get(
    '/api/functions/:name/logs',
    {
      schema: {
        tags: ['functions'],
        operationId: 'listFunctionLogs',
        summary: "Recent console lines of a function's invocations, oldest first",
        params: nameParams,
        querystring: Type.Object(
          { limit: Type.Optional(pageLimit('How many of the newest lines, 1 to 1000 (default 100)')) },
          { additionalProperties: false },
        ),
        response: { 200: { description: 'The newest lines, oldest first', ...listOf('LogEntry') }, ...ERRORS_BY_ID },
      },
    },
    async function functionLogs(request) {
      return (await functions.logs(request.params.name, request.query.limit ?? 100)).map(logView);
    },
  );
}
