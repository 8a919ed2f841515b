/**
 * The APIs resource's answers (Api, Route), written with TypeBox so that the
 * views' types (../views/apis.ts) are derived from them (`Static`).
 */
import { ROUTE_METHODS } from '../../types.js';
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
