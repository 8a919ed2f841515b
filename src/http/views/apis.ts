/**
 * APIs and routes as the API shows them, with the absolute URL where the
 * routes answer. Typed by the component schemas (../schemas.ts).
 */
import { invokePathOf } from '../../gateway/paths.js';
import { routePolicyOf, type Api, type Authorizer, type Route } from '../../types.js';
import { SECRET_MASK, type ApiView, type AuthorizerView, type RouteView } from '../../schema/apis.js';

export function apiView(api: Api, origin: string): ApiView {
  return {
    id: api.id,
    name: api.name,
    basePath: api.basePath,
    routes: api.routes.map(routeView),
    cors: api.cors,
    createdAt: api.createdAt,
    updatedAt: api.updatedAt,
    minimumCompressionSize: api.minimumCompressionSize,
    binaryMediaTypes: api.binaryMediaTypes,
    errorFormat: api.errorFormat,
    exposeErrors: api.exposeErrors,
    throttle: api.throttle,
    authorizers: api.authorizers.map(authorizerView),
    defaultAuthorizer: api.defaultAuthorizer,
    project: api.project ?? null,
    invokeUrl: `${origin}${invokePathOf(api.id, api.basePath)}`,
  };
}

export function routeView(route: Route): RouteView {
  return { ...routePolicyOf(route), id: route.id, method: route.method, path: route.path, function: route.function };
}

/** A JWT authorizer's shared secret is write-only: answers show the mask. */
export function authorizerView(authorizer: Authorizer): AuthorizerView {
  if (authorizer.type === 'jwt' && authorizer.secret !== undefined) return { ...authorizer, secret: SECRET_MASK };
  return { ...authorizer };
}
