/**
 * Management routes for API keys and usage plans: /api/api-keys[/:id[/usage]],
 * /api/usage-plans[/:id]; one registration per operation (keys.ts, plans.ts).
 */
import type { FastifyInstance } from 'fastify';
import { typed } from '../typed.js';
import type { ApiKeyRouteDeps } from './deps.js';
import { apiKeyUsageRoute, createApiKeyRoute, deleteApiKeyRoute, getApiKeyRoute, listApiKeysRoute, updateApiKeyRoutes } from './keys.js';
import { createUsagePlanRoute, deleteUsagePlanRoute, getUsagePlanRoute, listUsagePlansRoute, updateUsagePlanRoute } from './plans.js';

/** In the order the document lists them. */
const OPERATIONS = [
  createUsagePlanRoute,
  listUsagePlansRoute,
  getUsagePlanRoute,
  updateUsagePlanRoute,
  deleteUsagePlanRoute,
  createApiKeyRoute,
  listApiKeysRoute,
  getApiKeyRoute,
  updateApiKeyRoutes,
  deleteApiKeyRoute,
  apiKeyUsageRoute,
];

export function registerApiKeyRoutes(app: FastifyInstance, deps: ApiKeyRouteDeps): void {
  const api = typed(app);
  for (const register of OPERATIONS) register(api, deps);
}
