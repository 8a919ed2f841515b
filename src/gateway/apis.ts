/**
 * API and route management on top of the store: path rules the schema cannot
 * express, and a change published after every write so route tables rebuild.
 */
import type { ChangeBus } from '../changes.js';
import { dryRunResult, sameJson, type DryRunResult } from '../dry-run.js';
import { InvalidRequestError, UnknownFunctionError, apiNotFound, routeConflict, routeNotFound } from '../errors.js';
import { routeShape, type ApiPatch, type NewApi, type NewRoute, type Store } from '../store/store.js';
import type { AuthorizerInput, CorsInput } from '../schema/apis.js';
import { API_POLICY_DEFAULTS, type Api, type ApiPolicy, type Authorizer, type Page, type RequestModel, type Route, routePolicyOf } from '../types.js';
import { canonicalJson } from '../canonical-json.js';
import { validateBasePath, validateRoutePath } from './paths.js';
import { authorizersOf, checkAuthorizerNames, type AuthorizerCheckOptions } from './policy/authorizer-config.js';
import { corsConfigOf } from './policy/cors.js';
import { checkRequestModel, RequestModelError } from '../json-schema.js';

/** An API as the management API takes it: `cors` and `authorizers` as given, its optional fields not yet filled. */
export type ApiInput = Omit<NewApi, 'cors' | 'authorizers'> & { cors?: CorsInput | null; authorizers?: AuthorizerInput[] };
export type ApiPatchInput = Omit<ApiPatch, 'cors' | 'authorizers'> & { cors?: CorsInput | null; authorizers?: AuthorizerInput[] };

function newApiOf(input: ApiInput, opts: AuthorizerCheckOptions): NewApi {
  const { authorizers, ...rest } = input;
  const api: NewApi = { ...rest, cors: corsConfigOf(input.cors) };
  if (authorizers !== undefined) api.authorizers = authorizersOf(authorizers, [], opts);
  checkAuthorizerNames(api.authorizers ?? [], api.defaultAuthorizer, api.routes, (i) => `routes[${i}]`);
  return api;
}

/** `current`: the API as stored, which gives back kept secrets and the fields the patch leaves as they are. */
function patchOf(input: ApiPatchInput, current: Api, opts: AuthorizerCheckOptions): ApiPatch {
  const { cors, authorizers, ...rest } = input;
  const patch: ApiPatch = cors === undefined ? rest : { ...rest, cors: corsConfigOf(cors) };
  if (authorizers !== undefined) patch.authorizers = authorizersOf(authorizers, current.authorizers, opts);
  if (patch.authorizers !== undefined || patch.defaultAuthorizer !== undefined || patch.routes !== undefined) {
    const routes = patch.routes ?? current.routes;
    const field = patch.routes !== undefined ? (i: number) => `routes[${i}]` : (i: number) => `routes[${i}] (${current.routes[i].method} ${current.routes[i].path})`;
    checkAuthorizerNames(patch.authorizers ?? current.authorizers, patch.defaultAuthorizer === undefined ? current.defaultAuthorizer : patch.defaultAuthorizer, routes, field);
  }
  return patch;
}

/** The API's fields beyond name, base path, routes and CORS that a dry run names when they change. */
const API_SETTING_FIELDS = ['minimumCompressionSize', 'binaryMediaTypes', 'project', ...(Object.keys(API_POLICY_DEFAULTS) as (keyof ApiPolicy)[])] as const;

/** A setting's value when left out: null, or the policy field's default. */
function defaultOf(field: (typeof API_SETTING_FIELDS)[number]): unknown {
  return field in API_POLICY_DEFAULTS ? API_POLICY_DEFAULTS[field as keyof ApiPolicy] : null;
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
    if (route.request !== undefined && route.request !== null) checkRequest(route.request, field === 'routes' ? `routes[${i}].request` : 'request');
  });
}

/** A route's request model as the gateway will compile it: a schema it cannot compile is refused now, naming the field. */
function checkRequest(model: RequestModel, at: string): void {
  try {
    checkRequestModel(model);
  } catch (err) {
    if (!(err instanceof RequestModelError)) throw err;
    const field = err.key === '' ? at : `${at}.${err.key}`;
    throw new InvalidRequestError(`${field}: ${err.message}`, { field });
  }
}

/** What API changes tell the rest of the service (webhooks' operational events and mock endpoints). */
export interface ApiHooks {
  /** Throws when something still depends on the API (a webhook's mock endpoint). */
  beforeDelete?(id: string): Promise<void>;
  emitOperational?(event: `switchyard.${string}`, data: unknown): void;
}

export interface ApiServiceDeps {
  store: Store;
  changes: ChangeBus;
  hooks?: ApiHooks;
  /** SWITCHYARD_ALLOW_PRIVATE_TARGETS: a JWT authorizer's JWKS URL may name a private address; default false. */
  allowPrivateTargets?: boolean;
}

export class ApiService {
  private readonly store: Store;
  private readonly changes: ChangeBus;
  private readonly hooks: ApiHooks;
  private readonly authorizerOptions: AuthorizerCheckOptions;

  constructor(deps: ApiServiceDeps) {
    this.store = deps.store;
    this.changes = deps.changes;
    this.hooks = deps.hooks ?? {};
    this.authorizerOptions = { allowPrivateTargets: deps.allowPrivateTargets ?? false };
  }

  /** A function authorizer must name a function that exists (checked like a route's function). */
  private async checkAuthorizerFunctions(authorizers: readonly Authorizer[] | undefined): Promise<void> {
    for (const [i, authorizer] of (authorizers ?? []).entries()) {
      if (authorizer.type === 'function' && !(await this.store.getFunction(authorizer.function))) {
        throw new UnknownFunctionError(authorizer.function, `authorizers[${i}].function`);
      }
    }
  }

  /** Resolves once every process of this node serves the change (the write's answer waits for it). */
  private async changed(id: string, what: 'created' | 'updated' | 'deleted', api?: Api): Promise<void> {
    const propagated = this.changes.publish({ kind: 'api', id });
    this.hooks.emitOperational?.(`switchyard.api.${what}`, api ? { id, name: api.name, basePath: api.basePath } : { id });
    await propagated;
  }

  async create(input: ApiInput): Promise<Api> {
    checkBasePath(input.basePath);
    checkRoutes(input.routes);
    const fields = newApiOf(input, this.authorizerOptions);
    await this.checkAuthorizerFunctions(fields.authorizers);
    const api = await this.store.createApi(fields);
    await this.changed(api.id, 'created', api);
    return api;
  }

  /** What the store's constraints would refuse, checked without writing: unknown functions, two routes of one shape. */
  private async checkReferences(routes: NewRoute[], field = 'routes', existing: Route[] = []): Promise<void> {
    const shapes = new Map(existing.map((r) => [`${r.method} ${routeShape(r.path)}`, r]));
    for (const [i, route] of routes.entries()) {
      const name = field === 'routes' ? `routes[${i}].function` : 'function';
      if (!(await this.store.getFunction(route.function))) throw new UnknownFunctionError(route.function, name);
      const shape = `${route.method} ${routeShape(route.path)}`;
      const other = shapes.get(shape);
      if (other) {
        throw routeConflict(route, { id: other.id ?? null, method: other.method, path: other.path });
      }
      shapes.set(shape, { id: '', ...route });
    }
  }

  /** `POST /api/apis?dry_run=true`. */
  async checkCreate(input: ApiInput): Promise<DryRunResult> {
    checkBasePath(input.basePath);
    checkRoutes(input.routes);
    const cors = corsConfigOf(input.cors);
    const fields = newApiOf(input, this.authorizerOptions);
    await this.checkAuthorizerFunctions(fields.authorizers);
    await this.checkReferences(input.routes);
    const given = API_SETTING_FIELDS.filter((f) => input[f] !== undefined && input[f] !== null && !sameJson(input[f], defaultOf(f)));
    return dryRunResult('create', ['name', 'basePath', 'routes', ...(cors === null ? [] : ['cors']), ...given]);
  }

  /** `PUT /api/apis/:id?dry_run=true`: routes compare as a set of method, path, function and policy. */
  async checkUpdate(id: string, input: ApiPatchInput): Promise<DryRunResult> {
    const current = await this.get(id);
    const patch = patchOf(input, current, this.authorizerOptions);
    await this.checkAuthorizerFunctions(patch.authorizers);
    if (patch.basePath !== undefined) checkBasePath(patch.basePath);
    const changes: string[] = [];
    if (patch.name !== undefined && patch.name !== current.name) changes.push('name');
    if (patch.basePath !== undefined && patch.basePath !== current.basePath) changes.push('basePath');
    for (const field of API_SETTING_FIELDS) {
      if (patch[field] !== undefined && !sameJson(patch[field], current[field])) changes.push(field);
    }
    if (patch.routes !== undefined) {
      checkRoutes(patch.routes);
      await this.checkReferences(patch.routes);
      // A route's policy (its request model...) is part of it: a change there is a change of routes.
      const key = (r: NewRoute) => `${r.method} ${r.path} ${r.function} ${canonicalJson(routePolicyOf(r))}`;
      if (!sameJson(patch.routes.map(key).sort(), current.routes.map(key).sort())) changes.push('routes');
    }
    if (patch.cors !== undefined && !sameJson(patch.cors, current.cors)) changes.push('cors');
    return dryRunResult('update', changes);
  }

  /** `POST /api/apis/:id/routes?dry_run=true`. */
  async checkAddRoute(apiId: string, route: NewRoute): Promise<DryRunResult> {
    const api = await this.get(apiId);
    checkRoutes([route], 'route');
    checkAuthorizerNames(api.authorizers, api.defaultAuthorizer, [route], () => 'route');
    await this.checkReferences([route], 'route', api.routes);
    return dryRunResult('create', ['method', 'path', 'function']);
  }

  async get(id: string): Promise<Api> {
    const api = await this.store.getApi(id);
    if (!api) throw apiNotFound(id);
    return api;
  }

  list(page: Page): Promise<Api[]> {
    return this.store.listApis(page);
  }

  async update(id: string, input: ApiPatchInput): Promise<Api> {
    const patch = patchOf(input, await this.get(id), this.authorizerOptions);
    await this.checkAuthorizerFunctions(patch.authorizers);
    if (patch.basePath !== undefined) checkBasePath(patch.basePath);
    if (patch.routes !== undefined) checkRoutes(patch.routes);
    const api = await this.store.updateApi(id, patch);
    if (!api) throw apiNotFound(id);
    await this.changed(id, 'updated', api);
    return api;
  }

  /** `DELETE ?dry_run=true`: the same 404 and 409 (a webhook renders from it) as the delete. */
  async checkDelete(id: string): Promise<DryRunResult> {
    await this.get(id);
    await this.hooks.beforeDelete?.(id);
    return dryRunResult('delete', []);
  }

  /** `DELETE /api/apis/:id/routes/:routeId?dry_run=true`. */
  async checkDeleteRoute(apiId: string, routeId: string): Promise<DryRunResult> {
    const api = await this.get(apiId);
    if (!api.routes.some((r) => r.id === routeId)) throw routeNotFound(routeId);
    return dryRunResult('delete', []);
  }

  async delete(id: string): Promise<void> {
    await this.hooks.beforeDelete?.(id);
    if (!(await this.store.deleteApi(id))) throw apiNotFound(id);
    await this.changed(id, 'deleted');
  }

  async addRoute(apiId: string, route: NewRoute): Promise<Route> {
    checkRoutes([route], 'route');
    if (route.authorizer !== undefined || route.authorizationScopes !== undefined) {
      const api = await this.get(apiId);
      checkAuthorizerNames(api.authorizers, api.defaultAuthorizer, [route], () => 'route');
    }
    const created = await this.store.addRoute(apiId, route);
    if (!created) throw apiNotFound(apiId);
    await this.changed(apiId, 'updated');
    return created;
  }

  async deleteRoute(apiId: string, routeId: string): Promise<void> {
    await this.get(apiId);
    if (!(await this.store.deleteRoute(apiId, routeId))) throw routeNotFound(routeId);
    await this.changed(apiId, 'updated');
  }
}
