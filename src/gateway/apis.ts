/**
 * API and route management on top of the store: path rules the schema cannot
 * express, and a change published after every write so route tables rebuild.
 */
import type { ChangeBus } from '../changes.js';
import { InvalidRequestError, apiNotFound, routeNotFound } from '../errors.js';
import type { ApiPatch, NewApi, NewRoute, Store } from '../store/store.js';
import type { Api, Page, Route } from '../types.js';
import { validateBasePath, validateRoutePath } from './paths.js';

export function apiView(api: Api, origin: string) {
  return {
    id: api.id,
    name: api.name,
    basePath: api.basePath,
    routes: api.routes.map(routeView),
    createdAt: api.createdAt,
    updatedAt: api.updatedAt,
    invokeUrl: `${origin}/api/invoke/fn/${api.id}${api.basePath === '/' ? '' : api.basePath}`,
  };
}

export function routeView(route: Route) {
  return { id: route.id, method: route.method, path: route.path, function: route.function };
}

function checkBasePath(basePath: string): void {
  const problem = validateBasePath(basePath);
  if (problem) throw new InvalidRequestError(`basePath: ${problem}`, { field: 'basePath' });
}

function checkRoutes(routes: NewRoute[], field = 'routes'): void {
  routes.forEach((route, i) => {
    const problem = validateRoutePath(route.path);
    const name = field === 'routes' ? `routes[${i}].path` : 'path';
    if (problem) throw new InvalidRequestError(`${name}: ${problem}`, { field: name });
  });
}

/** What API changes tell the rest of the service (webhooks' operational events and mock endpoints). */
export interface ApiHooks {
  /** Throws when something still depends on the API (a webhook's mock endpoint). */
  beforeDelete?(id: string): Promise<void>;
  emitOperational?(event: `switchyard.${string}`, data: unknown): void;
}

export class ApiService {
  constructor(
    private readonly store: Store,
    private readonly changes: ChangeBus,
    private readonly hooks: ApiHooks = {},
  ) {}

  private changed(id: string, what: 'created' | 'updated' | 'deleted', api?: Api): void {
    this.changes.publish({ kind: 'api', id });
    this.hooks.emitOperational?.(`switchyard.api.${what}`, api ? { id, name: api.name, basePath: api.basePath } : { id });
  }

  async create(input: NewApi): Promise<Api> {
    checkBasePath(input.basePath);
    checkRoutes(input.routes);
    const api = await this.store.createApi(input);
    this.changed(api.id, 'created', api);
    return api;
  }

  async get(id: string): Promise<Api> {
    const api = await this.store.getApi(id);
    if (!api) throw apiNotFound(id);
    return api;
  }

  list(page: Page): Promise<Api[]> {
    return this.store.listApis(page);
  }

  async update(id: string, patch: ApiPatch): Promise<Api> {
    if (patch.basePath !== undefined) checkBasePath(patch.basePath);
    if (patch.routes !== undefined) checkRoutes(patch.routes);
    const api = await this.store.updateApi(id, patch);
    if (!api) throw apiNotFound(id);
    this.changed(id, 'updated', api);
    return api;
  }

  async delete(id: string): Promise<void> {
    await this.hooks.beforeDelete?.(id);
    if (!(await this.store.deleteApi(id))) throw apiNotFound(id);
    this.changed(id, 'deleted');
  }

  async addRoute(apiId: string, route: NewRoute): Promise<Route> {
    checkRoutes([route], 'route');
    const created = await this.store.addRoute(apiId, route);
    if (!created) throw apiNotFound(apiId);
    this.changed(apiId, 'updated');
    return created;
  }

  async deleteRoute(apiId: string, routeId: string): Promise<void> {
    await this.get(apiId);
    if (!(await this.store.deleteRoute(apiId, routeId))) throw routeNotFound(routeId);
    this.changed(apiId, 'updated');
  }
}
