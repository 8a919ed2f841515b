/**
 * The APIs resource of the API, request and answer side by side (Api, Route,
 * and the bodies of their routes), written with TypeBox so that the views'
 * types (../views/apis.ts) and the bodies' types are derived from them (`Static`).
 */
import { API_POLICY_DEFAULTS, CORS_METHODS, ERROR_FORMATS, ROUTE_METHODS } from '../types.js';
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

/** Bounds on a token bucket (API Gateway's own account limits are 10,000 per second and a burst of 5,000). */
export const THROTTLE_LIMITS = { rateLimit: 1_000_000, burstLimit: 1_000_000 } as const;

const throttleObject = () =>
  Type.Object(
    {
      rateLimit: Type.Number({
        exclusiveMinimum: 0,
        maximum: THROTTLE_LIMITS.rateLimit,
        description: 'Requests per second the bucket refills (fractions allowed: 0.5 is one request every 2 s)',
      }),
      burstLimit: Type.Integer({
        minimum: 1,
        maximum: THROTTLE_LIMITS.burstLimit,
        description: 'Requests the bucket holds: how many may arrive at once after a quiet spell',
      }),
    },
    {
      additionalProperties: false,
      description:
        'A token bucket shared by every process and node on the database; past it the gateway answers 429 with Retry-After',
    },
  );
export const ThrottleSchema = named('Throttle', throttleObject());
/** The same shape in request bodies (a component's `$id` must not be repeated inline). */
export const throttleInput = throttleObject();
const apiKeyRequiredSchema = Type.Boolean({
  description: "Callers must send an enabled API key in `x-api-key` whose usage plan covers the API; else 403 (as API Gateway answers)",
});

/**
 * A route's policy fields (src/types.ts RoutePolicy) as the API shows them and as
 * it takes them: each policy feature adds its entry to both. All optional.
 */
const routePolicyView = {
  throttle: Type.Optional(refTo(ThrottleSchema)),
  apiKeyRequired: Type.Optional(apiKeyRequiredSchema),
};
const routePolicyInput = {
  throttle: Type.Optional(throttleInput),
  apiKeyRequired: Type.Optional(apiKeyRequiredSchema),
};

export const RouteSchema = named(
  'Route',
  Type.Object({ id: string(), method: stringEnum(ROUTE_METHODS), path: string(), function: string(), ...routePolicyView }),
);

const errorFormatSchema = stringEnum(ERROR_FORMATS, {
  description:
    'How the gateway words the answers it writes itself (a function\'s failure, no route, a refusal): `switchyard` ' +
    '({error, code, requestId}) or `aws` (API Gateway\'s {"message": ...}: a function failure 502 for aws-v1 functions ' +
    'and 500 for the others, a timeout 504 or 503, a refusal 401, 403, 429 or 400, no route 404)',
});
const exposeErrorsSchema = Type.Boolean({
  description:
    "true: a failing function's error message and source position reach the caller; false: the caller gets a generic " +
    'answer with the request id, and the details go to the function\'s logs under it',
});

/** Bounds on what an API's CORS configuration holds: each list, and each string of one. */
export const CORS_LIMITS = { origins: 100, headers: 100, originLength: 512, headerLength: 128, maxAge: 86_400 } as const;

export const CorsSchema = named(
  'Cors',
  Type.Object(
    {
      allowOrigins: Type.Array(string(), { description: 'Origins allowed (exact, as browsers send them), or `*` for any' }),
      allowMethods: Type.Array(stringEnum(CORS_METHODS), { description: 'Answered to preflights; `*` allows whatever method the browser asks for' }),
      allowHeaders: Type.Array(string(), { description: 'Request headers allowed; `*` allows whatever the browser asks for' }),
      exposeHeaders: Type.Array(string(), { description: 'Answer headers a page may read' }),
      maxAge: nullableInteger({ description: 'Seconds a browser may keep a preflight answer; null: its own default' }),
      allowCredentials: Type.Boolean({ description: 'Cookies and Authorization may be sent (never with the origin `*`)' }),
    },
    { description: "The API's CORS policy, as an HTTP API's CorsConfiguration: the gateway answers preflights itself" },
  ),
);

export const ApiSchema = named(
  'Api',
  Type.Object({
    id: string(),
    name: string(),
    basePath: string(),
    routes: Type.Array(refTo(RouteSchema)),
    cors: Type.Union([Type.Null(), refTo(CorsSchema)]),
    createdAt: instant(),
    updatedAt: instant(),
    minimumCompressionSize: minimumCompressionSizeSchema,
    binaryMediaTypes: binaryMediaTypesSchema,
    errorFormat: errorFormatSchema,
    exposeErrors: exposeErrorsSchema,
    throttle: Type.Union([Type.Null(), refTo(ThrottleSchema)], { description: "One token bucket for all the API's routes together; null: none" }),
    invokeUrl: Type.String({ description: 'Where the routes answer (absolute, as the caller reached this server)' }),
  }),
);

export type RouteView = Static<typeof RouteSchema>;
export type ApiView = Static<typeof ApiSchema>;
export type CorsView = Static<typeof CorsSchema>;

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
    ...routePolicyInput,
  },
  { additionalProperties: false },
);

const nameSchema = Type.String({ minLength: 1, maxLength: 200 });
const basePathSchema = Type.String({ minLength: 1, maxLength: 512, description: 'Starts with /, static segments' });
const routesSchema = Type.Array(newRouteSchema, { maxItems: 1000 });

const headerName = Type.String({ minLength: 1, maxLength: CORS_LIMITS.headerLength, pattern: "^(\\*|[!#$%&'*+.^_`|~0-9A-Za-z-]+)$" });
const headerList = (description: string) => Type.Optional(Type.Array(headerName, { maxItems: CORS_LIMITS.headers, description }));
const corsInput = Type.Object(
  {
    allowOrigins: Type.Array(
      Type.String({
        minLength: 1,
        maxLength: CORS_LIMITS.originLength,
        pattern: '^(\\*|[A-Za-z][A-Za-z0-9+.-]*://[^/?#\\s*]+)$',
        description: '`*`, or scheme://host[:port] with no path',
      }),
      { minItems: 1, maxItems: CORS_LIMITS.origins, description: 'Origins allowed: exact (`https://app.example.com`) or `*`' },
    ),
    allowMethods: Type.Optional(
      Type.Array(stringEnum(CORS_METHODS), { maxItems: CORS_METHODS.length, description: 'Default none: only simple requests' }),
    ),
    allowHeaders: headerList('Request headers a page may send; default none beyond the CORS-safelisted ones'),
    exposeHeaders: headerList('Answer headers a page may read; default none beyond the CORS-safelisted ones'),
    maxAge: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: CORS_LIMITS.maxAge }), Type.Null()], { description: 'Seconds; default null (no header)' }),
    ),
    allowCredentials: Type.Optional(Type.Boolean({ description: 'Default false; refused with the origin `*`' })),
  },
  { additionalProperties: false },
);
export type CorsInput = Static<typeof corsInput>;
/** What each optional field of `cors` means when left out. */
export const CORS_INPUT_DEFAULTS = {
  allowMethods: [],
  allowHeaders: [],
  exposeHeaders: [],
  maxAge: null,
  allowCredentials: false,
} satisfies InputDefaults<CorsInput>;
const corsField = Type.Optional(Type.Union([corsInput, Type.Null()], { description: 'CORS policy; null or absent: none (no CORS headers)' }));

const throttleField = Type.Optional(
  Type.Union([throttleInput, Type.Null()], { description: "One token bucket for all the API's routes together; null or absent: none" }),
);

export { newRouteSchema as addRouteBody };
export const createApiBody = Type.Object(
  {
    name: nameSchema,
    basePath: basePathSchema,
    routes: routesSchema,
    cors: corsField,
    minimumCompressionSize: Type.Optional(minimumCompressionSizeSchema),
    binaryMediaTypes: Type.Optional(binaryMediaTypesSchema),
    errorFormat: Type.Optional(errorFormatSchema),
    exposeErrors: Type.Optional(exposeErrorsSchema),
    throttle: throttleField,
  },
  { additionalProperties: false },
);
export const updateApiBody = Type.Object(
  {
    name: Type.Optional(nameSchema),
    basePath: Type.Optional(basePathSchema),
    routes: Type.Optional(routesSchema),
    cors: corsField,
    minimumCompressionSize: Type.Optional(minimumCompressionSizeSchema),
    binaryMediaTypes: Type.Optional(binaryMediaTypesSchema),
    errorFormat: Type.Optional(errorFormatSchema),
    exposeErrors: Type.Optional(exposeErrorsSchema),
    throttle: throttleField,
  },
  { additionalProperties: false },
);
export type ApiInput = Static<typeof createApiBody>;
/** What an API's optional fields mean when left out (null: off), read by the service and src/project. */
export const API_INPUT_DEFAULTS = {
  cors: null,
  minimumCompressionSize: null,
  binaryMediaTypes: null,
  ...API_POLICY_DEFAULTS,
} satisfies InputDefaults<ApiInput>;
export const apiIdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
export const routeIdParams = Type.Object({ id: Type.String({ maxLength: 100 }), routeId: Type.String({ maxLength: 100 }) });
