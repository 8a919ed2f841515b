/**
 * Management routes for functions: /api/functions[/:name[/invoke|/logs|/versions[/:version]|/invocations[/:id[/retry]]]],
 * one registration per operation (crud.ts, invoke.ts, invocations.ts, history.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { FunctionInvocations } from '../../functions/invocations.js';
import type { FunctionService } from '../../functions/service.js';
import { typed } from '../typed.js';
import { createFunctionRoute, deleteFunctionRoute, getFunctionRoute, listFunctionsRoute, updateFunctionRoute } from './crud.js';
import { listFunctionLogsRoute, listFunctionVersionsRoute, getFunctionVersionRoute } from './history.js';
import { getFunctionInvocationRoute, listFunctionInvocationsRoute, retryFunctionInvocationRoute } from './invocations.js';
import { invokeFunctionRoute } from './invoke.js';


export interface FunctionRouteDeps {
  functions: FunctionService;
  /** Background invocations: `x-invocation-type: Event` and the invocations routes. */
  background: FunctionInvocations;
}

/** In the order the document lists them. */
const OPERATIONS = [
  createFunctionRoute,
  listFunctionsRoute,
  getFunctionRoute,
  updateFunctionRoute,
  deleteFunctionRoute,
  invokeFunctionRoute,
  listFunctionInvocationsRoute,
  getFunctionInvocationRoute,
  retryFunctionInvocationRoute,
  listFunctionVersionsRoute,
  getFunctionVersionRoute,
  listFunctionLogsRoute,
];

export function registerFunctionRoutes(app: FastifyInstance, deps: FunctionRouteDeps): void {
  const api = typed(app);
  for (const register of OPERATIONS) register(api, deps);
}
