/**
 * The APIs resource of the API, request and answer side by side (Api, Route,
 * and the bodies of their routes), written with TypeBox so that the views'
 * types (../views/apis.ts) and the bodies' types are derived from them (`Static`).
 */
import { ROUTE_METHODS } from '../types.js';
import { Type, instant, named, refTo, stringEnum, type Static } from './kit.js';

const string = () => Type.String();

export const RouteSchema = named(
  'Route',
  Type.Object({ id: string(), method: stringEnum(ROUTE_METHODS), path: string(), function: string() }),
);

export const ApiSchema = named(
  'Api',
  Type.Object({
    id: string(),
    name: string(),
    basePath: string(),
    routes: Type.Array(refTo(RouteSchema)),
    createdAt: instant(),
    updatedAt: instant(),
    invokeUrl: Type.String({ description: 'Where the routes answer (absolute, as the caller reached this server)' }),
  }),
);

export type RouteView = Static<typeof RouteSchema>;
export type ApiView = Static<typeof ApiSchema>;

// Requests.

const newRouteSchema = Type.Object(
  {
    method: stringEnum(ROUTE_METHODS),
    path: Type.String({
      minLength: 1,
      maxLength: 1024,
      description:
        'Starts with /; segments static, :name, or a final * (greedy). ' +
        "API Gateway's {name} and final {proxy+} are the same as :name and *; stored as written.",
    }),
    function: Type.String({ minLength: 1, maxLength: 64, description: 'Name of an existing function' }),
  },
  { additionalProperties: false },
);

const nameSchema = Type.String({ minLength: 1, maxLength: 200 });
const basePathSchema = Type.String({ minLength: 1, maxLength: 512, description: 'Starts with /, static segments' });
const routesSchema = Type.Array(newRouteSchema, { maxItems: 1000 });

export { newRouteSchema as addRouteBody };
export const createApiBody = Type.Object({ name: nameSchema, basePath: basePathSchema, routes: routesSchema }, { additionalProperties: false });
export const updateApiBody = Type.Object(
  { name: Type.Optional(nameSchema), basePath: Type.Optional(basePathSchema), routes: Type.Optional(routesSchema) },
  { additionalProperties: false },
);
export const apiIdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
export const routeIdParams = Type.Object({ id: Type.String({ maxLength: 100 }), routeId: Type.String({ maxLength: 100 }) });
