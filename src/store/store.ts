/**
 * The one storage interface. `sqlite/` and (later) `postgres/` implement it;
 * nothing above this file knows which database it talks to. SQL owns integrity:
 * uniqueness of names and route shapes, and references from routes to functions,
 * are constraints in the schema, surfaced as typed errors (ConflictError,
 * UnknownFunctionError) by the implementations.
 */
import type { Api, FunctionLogLine, FunctionRecord, Page, Route, RouteMethod } from '../types.js';

export interface NewRoute {
  method: RouteMethod;
  path: string;
  function: string;
}

export interface NewApi {
  name: string;
  basePath: string;
  routes: NewRoute[];
}

export interface ApiPatch {
  name?: string;
  basePath?: string;
  /** When present, replaces every route of the API. */
  routes?: NewRoute[];
}

export type NewFunction = Omit<FunctionRecord, 'version' | 'createdAt' | 'updatedAt'>;
export type FunctionPatch = Partial<Omit<FunctionRecord, 'name' | 'version' | 'createdAt' | 'updatedAt'>>;

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Cheap round trip, for /readyz. Throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;

  // Functions, keyed by name.
  /** Throws ConflictError('function_exists') on a duplicate name. */
  createFunction(fn: NewFunction): Promise<FunctionRecord>;
  getFunction(name: string): Promise<FunctionRecord | null>;
  /** Ordered by creation, oldest first; `page.after` is a function name. */
  listFunctions(page: Page): Promise<FunctionRecord[]>;
  /** Applies the patch and bumps `version` atomically. Null when the function does not exist. */
  updateFunction(name: string, patch: FunctionPatch): Promise<FunctionRecord | null>;
  /** Throws ConflictError('function_in_use', ..., {routes}) while a route binds it. False when absent. */
  deleteFunction(name: string): Promise<boolean>;
  /** Routes (with their API id) that bind the function. */
  routesUsingFunction(name: string): Promise<Array<Route & { apiId: string }>>;
  appendFunctionLogs(name: string, lines: FunctionLogLine[]): Promise<void>;
  /** Newest last; at most `limit` lines. */
  listFunctionLogs(name: string, limit: number): Promise<FunctionLogLine[]>;
  /** Keeps only the newest `keep` lines per function. */
  pruneFunctionLogs(keep: number): Promise<void>;

  // APIs and their routes. Route order within an API is creation order.
  /**
   * Throws UnknownFunctionError when a route names a missing function and
   * ConflictError('route_conflict') when two routes share method and path shape.
   */
  createApi(api: NewApi): Promise<Api>;
  getApi(id: string): Promise<Api | null>;
  listApis(page: Page): Promise<Api[]>;
  updateApi(id: string, patch: ApiPatch): Promise<Api | null>;
  deleteApi(id: string): Promise<boolean>;
  /** Null when the API does not exist. Same errors as createApi. */
  addRoute(apiId: string, route: NewRoute): Promise<Route | null>;
  deleteRoute(apiId: string, routeId: string): Promise<boolean>;
}

/**
 * Two route paths have the same shape when they differ only in parameter names:
 * `/users/:id` and `/users/:name` -> `/users/:`.
 */
export function routeShape(path: string): string {
  return path
    .split('/')
    .map((seg) => (seg.startsWith(':') ? ':' : seg))
    .join('/');
}
