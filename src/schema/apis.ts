/**
 * The APIs resource of the API, request and answer side by side (Api, Route,
 * and the bodies of their routes), written with TypeBox so that the views'
 * types (../views/apis.ts) and the bodies' types are derived from them (`Static`).
 */
import { API_POLICY_DEFAULTS, AUTHORIZER_KINDS, AUTHORIZER_PAYLOAD_VERSIONS, CORS_METHODS, JWT_ALGORITHMS, ERROR_FORMATS, ROUTE_METHODS } from '../types.js';
import { Type, instant, named, nullableInteger, nullableString, refTo, stringEnum, type InputDefaults, type Static } from './kit.js';
import { projectField } from './common.js';

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

/** Bounds on a route's request model (src/json-schema.ts enforces them). */
export const REQUEST_MODEL_LIMITS = {
  /** The body schema as JSON text, in bytes. */
  schemaBytes: 65_536,
  /** Nesting of the body schema's objects and arrays (the schema itself is depth 1). */
  schemaDepth: 32,
  /** Names in `querystrings`, and in `headers`. */
  parameters: 50,
  /** Length of one parameter name. */
  nameLength: 128,
} as const;

/** A map of parameter names to whether each is required, as a REST API's `requestParameters`. */
const parameterMap = (where: string, namePattern?: string) =>
  Type.Unsafe<Record<string, boolean>>({
    type: 'object',
    additionalProperties: { type: 'boolean' },
    propertyNames: { minLength: 1, maxLength: REQUEST_MODEL_LIMITS.nameLength, ...(namePattern ? { pattern: namePattern } : {}) },
    maxProperties: REQUEST_MODEL_LIMITS.parameters,
    description:
      `${where} by name: true, required (present and not blank, or the request is refused with 400); false, documented only. ` +
      `As API Gateway's method.request.${where === 'Headers' ? 'header' : 'querystring'}.<name>: true`,
  });

const requestModelSchema = Type.Object(
  {
    body: Type.Optional(
      Type.Unsafe<Record<string, unknown>>({
        type: 'object',
        additionalProperties: true,
        description:
          'The JSON Schema a JSON body must match (2020-12; draft-07 or draft-04 when $schema names them). ' +
          `At most ${REQUEST_MODEL_LIMITS.schemaBytes} bytes and ${REQUEST_MODEL_LIMITS.schemaDepth} levels; $ref only inside the schema; ` +
          'unknown keywords and formats refused. A request without a body, or whose body is not JSON, is refused',
      }),
    ),
    querystrings: Type.Optional(parameterMap('Query strings')),
    headers: Type.Optional(parameterMap('Headers', "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")),
  },
  {
    additionalProperties: false,
    description:
      "What a request must carry before the route's function runs (a REST API's request validator); " +
      'a request that does not is answered 400 request_invalid naming what failed',
  },
);

/**
 * A route's policy fields (src/types.ts RoutePolicy) as the API shows them and as
 * it takes them: each policy feature adds its entry to both. All optional.
 */
const routeAuthorizerSchema = Type.String({
  minLength: 1,
  maxLength: 128,
  description: "The name of one of the API's authorizers, or `NONE` for an open route under a default authorizer; absent: the API's default",
});
const authorizationScopesSchema = Type.Array(Type.String({ minLength: 1, maxLength: 256, pattern: '^\\S+$' }), {
  maxItems: 50,
  description: "JWT authorizers: the token's `scope` (or `scp`) must hold at least one of these, or the answer is 403",
});
const routePolicyView = {
  throttle: Type.Optional(refTo(ThrottleSchema)),
  apiKeyRequired: Type.Optional(apiKeyRequiredSchema),
  authorizer: Type.Optional(routeAuthorizerSchema),
  authorizationScopes: Type.Optional(authorizationScopesSchema),
  request: Type.Optional(requestModelSchema),
};
const routePolicyInput = {
  throttle: Type.Optional(throttleInput),
  apiKeyRequired: Type.Optional(apiKeyRequiredSchema),
  authorizer: Type.Optional(routeAuthorizerSchema),
  authorizationScopes: Type.Optional(authorizationScopesSchema),
  request: Type.Optional(requestModelSchema),
};

/** Bounds on an API's authorizers (API Gateway allows 10 per API). */
export const AUTHORIZER_LIMITS = { authorizers: 10, audience: 50, keys: 20, identitySources: 10, maxTtl: 3600, maxLeeway: 300 } as const;
/** What answers show instead of a JWT authorizer's secret; an update that sends it back keeps the stored one. */
export const SECRET_MASK = '****';

const authorizerName = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$', description: 'Unique in the API; routes name it' });
const authorizerType = stringEnum(['jwt', 'function'] as const, { description: '`jwt`: a JWT authorizer; `function`: a Switchyard function decides (a Lambda authorizer)' });
const identitySourceSchema = Type.String({
  minLength: 1,
  maxLength: 256,
  description: '`$request.header.Name` or `$request.querystring.name` (AWS\'s REST spellings `method.request.header.Name`, `method.request.querystring.name` too)',
});
const jwkSchema = Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, maxProperties: 30 });
const authorizerFields = {
  issuer: Type.String({ minLength: 1, maxLength: 2048, description: 'jwt: the `iss` tokens must carry' }),
  audience: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
    maxItems: AUTHORIZER_LIMITS.audience,
    description: "jwt: the token's `aud` (or `client_id`) must be one of these",
  }),
  jwksUrl: Type.String({ minLength: 1, maxLength: 2048, description: 'jwt: where the public keys are fetched (https, or http); cached, fetched again for an unknown kid' }),
  keys: Type.Object(
    { keys: Type.Array(jwkSchema, { minItems: 1, maxItems: AUTHORIZER_LIMITS.keys }) },
    { additionalProperties: false, description: 'jwt: a JWK set of public keys, instead of jwksUrl' },
  ),
  secret: Type.String({ minLength: 1, maxLength: 1024, description: `jwt: an HS256 shared secret (at least 32 bytes); write-only, answered as ${SECRET_MASK}` }),
  algorithms: Type.Array(stringEnum(JWT_ALGORITHMS), { minItems: 1, maxItems: JWT_ALGORITHMS.length, description: "jwt: accepted `alg` values; default: the keys' own" }),
  identitySource: { ...identitySourceSchema, description: 'jwt: where the token is read; default `$request.header.Authorization` (a `Bearer ` prefix is taken off)' },
  leewaySeconds: Type.Integer({ minimum: 0, maximum: AUTHORIZER_LIMITS.maxLeeway, description: 'jwt: clock difference allowed on exp and nbf, seconds; default 5' }),
  function: Type.String({ minLength: 1, maxLength: 64, description: 'function: the name of the function that decides' }),
  payloadFormatVersion: stringEnum(AUTHORIZER_PAYLOAD_VERSIONS, { description: "function: the authorizer event's format: `1.0` (REST API) or `2.0` (HTTP API); default 2.0" }),
  kind: stringEnum(AUTHORIZER_KINDS, { description: 'function, 1.0: `TOKEN` (the token alone) or `REQUEST` (the whole request); default TOKEN for 1.0, always REQUEST for 2.0' }),
  identitySources: Type.Array(identitySourceSchema, {
    maxItems: AUTHORIZER_LIMITS.identitySources,
    description: 'function: where the identity is read; a request without one of them is refused (401) before the function runs; the cache key. Default [`$request.header.Authorization`]',
  }),
  resultTtlSeconds: Type.Integer({ minimum: 0, maximum: AUTHORIZER_LIMITS.maxTtl, description: 'function: seconds an answer is kept per identity; 0: the function runs for every request; default 300' }),
  enableSimpleResponses: Type.Boolean({ description: 'function, 2.0: the function answers `{isAuthorized, context}` instead of an IAM policy; default false' }),
};
type AuthorizerFields = typeof authorizerFields;
const optionalFields = <K extends keyof AuthorizerFields>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, Type.Optional(authorizerFields[k])])) as { [P in K]: ReturnType<typeof Type.Optional<AuthorizerFields[P]>> };
const AUTHORIZER_FIELD_NAMES = Object.keys(authorizerFields) as (keyof AuthorizerFields)[];

export const AuthorizerSchema = named(
  'Authorizer',
  Type.Object(
    { name: authorizerName, type: authorizerType, ...optionalFields(AUTHORIZER_FIELD_NAMES) },
    { description: `A JWT authorizer (issuer, audience, keys) or a function authorizer (function, payloadFormatVersion, kind, identitySources, resultTtlSeconds, enableSimpleResponses); secret answered as ${SECRET_MASK}` },
  ),
);
const authorizerInput = Type.Object({ name: authorizerName, type: authorizerType, ...optionalFields(AUTHORIZER_FIELD_NAMES) }, { additionalProperties: false });
export type AuthorizerInput = Static<typeof authorizerInput>;
const authorizersInput = Type.Array(authorizerInput, { maxItems: AUTHORIZER_LIMITS.authorizers, description: 'The API\'s authorizers; routes name one in `authorizer`' });
const defaultAuthorizerSchema = nullableString({ maxLength: 128, description: "The authorizer of every route that names none (routes opt out with `NONE`); null: those routes are open" });

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
    authorizers: Type.Array(refTo(AuthorizerSchema)),
    defaultAuthorizer: defaultAuthorizerSchema,
    project: projectField(),
    invokeUrl: Type.String({ description: 'Where the routes answer (absolute, as the caller reached this server)' }),
  }),
);

export type RouteView = Static<typeof RouteSchema>;
export type ApiView = Static<typeof ApiSchema>;
export type CorsView = Static<typeof CorsSchema>;
export type AuthorizerView = Static<typeof AuthorizerSchema>;

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
    authorizers: Type.Optional(authorizersInput),
    defaultAuthorizer: Type.Optional(defaultAuthorizerSchema),
    project: Type.Optional(projectField()),
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
    authorizers: Type.Optional(authorizersInput),
    defaultAuthorizer: Type.Optional(defaultAuthorizerSchema),
    project: Type.Optional(projectField()),
  },
  { additionalProperties: false },
);
export type ApiInput = Static<typeof createApiBody>;
/** What an API's optional fields mean when left out (null: off), read by the service and src/project. */
export const API_INPUT_DEFAULTS = {
  cors: null,
  minimumCompressionSize: null,
  binaryMediaTypes: null,
  project: null,
  ...API_POLICY_DEFAULTS,
} satisfies InputDefaults<ApiInput>;
export const apiIdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
export const routeIdParams = Type.Object({ id: Type.String({ maxLength: 100 }), routeId: Type.String({ maxLength: 100 }) });
