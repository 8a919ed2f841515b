/**
 * The APIs resource of the API, request and answer side by side (Api, Route,
 * and the bodies of their routes), written with TypeBox so that the views'
 * types (../views/apis.ts) and the bodies' types are derived from them (`Static`).
 */
import { ROUTE_METHODS } from '../types.js';
import { Type, instant, named, nullableInteger, refTo, stringEnum, type InputDefaults, type Static } from './kit.js';

const string = () => Type.String();

/** The largest `minimumCompressionSize`, as on API Gateway (10 MB). */
export const MAX_MINIMUM_COMPRESSION_SIZE = 10_485_760;

const minimumCompressionSizeSchema = nullableInteger({
  minimum: 0,
  maximum: MAX_MINIMUM_COMPRESSION_SIZE,
  description:
    'Invoke answers whose body is larger than this many bytes are compressed (gzip or br, as the caller\'s ' +
    'Accept-Encoding allows); null: never (as on a REST API without minimumCompressionSize)',
});

/** `type/subtype`, either part a wildcard (`image/` then `*`, or both `*`), as a REST API's binaryMediaTypes. */
const mediaTypeSchema = Type.String({
  minLength: 3,
  maxLength: 255,
  pattern: "^(\\*|[A-Za-z0-9!#$&^_.+-]+)/(\\*|[A-Za-z0-9!#$&^_.+-]+)$",
  description: 'A media type (`image/png`), `*` allowed for either part (`image/*`, `*/*`)',
});
const binaryMediaTypesSchema = Type.Unsafe<string[] | null>({
  type: ['array', 'null'],
  items: mediaTypeSchema,
  maxItems: 100,
  description:
    'aws-v1 functions only, with REST API semantics: an isBase64Encoded answer is decoded when its Content-Type ' +
    "or the request's first Accept type matches one, else sent as the base64 text; a request body whose " +
    'Content-Type matches arrives base64 with isBase64Encoded. null: every isBase64Encoded answer is decoded ' +
    'and only non-UTF-8 request bodies arrive base64 (docs/functions.md)',
});

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
    minimumCompressionSize: minimumCompressionSizeSchema,
    binaryMediaTypes: binaryMediaTypesSchema,
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
export const createApiBody = Type.Object(
  {
    name: nameSchema,
    basePath: basePathSchema,
    routes: routesSchema,
    minimumCompressionSize: Type.Optional(minimumCompressionSizeSchema),
    binaryMediaTypes: Type.Optional(binaryMediaTypesSchema),
  },
  { additionalProperties: false },
);
export const updateApiBody = Type.Object(
  {
    name: Type.Optional(nameSchema),
    basePath: Type.Optional(basePathSchema),
    routes: Type.Optional(routesSchema),
    minimumCompressionSize: Type.Optional(minimumCompressionSizeSchema),
    binaryMediaTypes: Type.Optional(binaryMediaTypesSchema),
  },
  { additionalProperties: false },
);
export type ApiInput = Static<typeof createApiBody>;
/** What an API's optional fields mean when left out (null: off), read by the service and src/project. */
export const API_INPUT_DEFAULTS = { minimumCompressionSize: null, binaryMediaTypes: null } satisfies InputDefaults<ApiInput>;
export const apiIdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
export const routeIdParams = Type.Object({ id: Type.String({ maxLength: 100 }), routeId: Type.String({ maxLength: 100 }) });
