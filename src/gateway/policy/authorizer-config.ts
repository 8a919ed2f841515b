/**
 * An API's authorizers as the management API takes them, checked and filled
 * in before they are stored: the rules the schema cannot say (which fields
 * each type takes, one key source per JWT authorizer, identity sources AWS
 * would accept, names routes and the default refer to), each refused with a
 * 400 naming the field. A JWT authorizer's secret is write-only: an update
 * that leaves it out or sends the mask back keeps the stored one.
 */
import { InvalidRequestError } from '../../errors.js';
import { PrivateTargetError, checkUrlTarget } from '../../net/ssrf.js';
import { SECRET_MASK, type AuthorizerInput } from '../../schema/apis.js';
import { NO_AUTHORIZER, type Authorizer, type FunctionAuthorizer, type JwtAuthorizer, type RoutePolicy } from '../../types.js';

/** Leeway on exp and nbf when the authorizer names none. */
export const DEFAULT_LEEWAY_SECONDS = 5;
export const DEFAULT_JWT_IDENTITY_SOURCE = '$request.header.Authorization';
export const DEFAULT_RESULT_TTL_SECONDS = 300;
/** HS256 wants a key at least as long as its hash (RFC 7518, 3.2). */
const MIN_SECRET_BYTES = 32;

const JWT_ONLY = ['issuer', 'audience', 'jwksUrl', 'keys', 'secret', 'algorithms', 'identitySource', 'leewaySeconds'] as const;
const FUNCTION_ONLY = ['function', 'payloadFormatVersion', 'kind', 'identitySources', 'resultTtlSeconds', 'enableSimpleResponses'] as const;
/** JWK members that only private or symmetric keys have: a key set here holds public keys (a secret goes in `secret`). */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

/** Where an identity source reads: a header or a query string parameter (names as written). */
export interface IdentitySource {
  in: 'header' | 'querystring';
  name: string;
}

const SOURCE_FORMS: [RegExp, IdentitySource['in']][] = [
  [/^\$request\.header\.([!#$%&'*+.^_`|~0-9A-Za-z-]+)$/, 'header'],
  [/^method\.request\.header\.([!#$%&'*+.^_`|~0-9A-Za-z-]+)$/, 'header'],
  [/^\$request\.querystring\.(\S+)$/, 'querystring'],
  [/^method\.request\.querystring\.(\S+)$/, 'querystring'],
];

/** `$request.header.Authorization` -> {in: 'header', name: 'Authorization'}; null for a form this gateway cannot read. */
export function parseIdentitySource(source: string): IdentitySource | null {
  for (const [pattern, where] of SOURCE_FORMS) {
    const m = pattern.exec(source);
    if (m) return { in: where, name: m[1] };
  }
  return null;
}

function invalid(field: string, problem: string): InvalidRequestError {
  return new InvalidRequestError(`${field}: ${problem}`, { field });
}

function checkSource(source: string, field: string): void {
  if (parseIdentitySource(source) === null) {
    throw invalid(field, `'${source}' is not a header or query string source ($request.header.Name, $request.querystring.name)`);
  }
}

export interface AuthorizerCheckOptions {
  /** SWITCHYARD_ALLOW_PRIVATE_TARGETS: a JWKS URL may name a private address. */
  allowPrivateTargets: boolean;
}

/**
 * The authorizers to store. `current` (the API's stored ones) gives back a
 * secret the input leaves out or masks, matched by name.
 */
export function authorizersOf(input: AuthorizerInput[], current: readonly Authorizer[], opts: AuthorizerCheckOptions): Authorizer[] {
  const names = new Set<string>();
  return input.map((given, i) => {
    const at = `authorizers[${i}]`;
    if (given.name === NO_AUTHORIZER) throw invalid(`${at}.name`, `'${NO_AUTHORIZER}' is reserved for routes without an authorizer`);
    if (names.has(given.name)) throw invalid(`${at}.name`, `a second authorizer is named '${given.name}'`);
    names.add(given.name);
    const foreign = given.type === 'jwt' ? FUNCTION_ONLY : JWT_ONLY;
    for (const key of foreign) if (given[key] !== undefined) throw invalid(`${at}.${key}`, `not a field of a ${given.type} authorizer`);
    const previous = current.find((a) => a.name === given.name);
    return given.type === 'jwt' ? jwtAuthorizerOf(given, at, previous, opts) : functionAuthorizerOf(given, at);
  });
}

function jwtAuthorizerOf(given: AuthorizerInput, at: string, previous: Authorizer | undefined, opts: AuthorizerCheckOptions): JwtAuthorizer {
  if (given.issuer === undefined) throw invalid(`${at}.issuer`, 'a jwt authorizer needs an issuer');
  if (given.audience === undefined || given.audience.length === 0) throw invalid(`${at}.audience`, 'a jwt authorizer needs at least one audience');
  let secret = given.secret;
  if (secret === SECRET_MASK || (secret === undefined && given.jwksUrl === undefined && given.keys === undefined)) {
    secret = previous?.type === 'jwt' ? previous.secret : undefined;
    if (secret === undefined && given.secret === SECRET_MASK) throw invalid(`${at}.secret`, 'no secret is stored to keep: send the secret itself');
  }
  const sources = [given.jwksUrl, given.keys, secret].filter((s) => s !== undefined).length;
  if (sources !== 1) throw invalid(`${at}.jwksUrl`, 'give exactly one of jwksUrl, keys and secret');
  if (given.jwksUrl !== undefined) {
    try {
      checkUrlTarget(given.jwksUrl, opts.allowPrivateTargets);
    } catch (err) {
      if (err instanceof PrivateTargetError) {
        throw new PrivateTargetError(err.message.replace(/^target_url/, `${at}.jwksUrl`), { field: `${at}.jwksUrl` });
      }
      throw err;
    }
  }
  given.keys?.keys.forEach((key, k) => {
    const field = `${at}.keys.keys[${k}]`;
    if (typeof key.kty !== 'string') throw invalid(field, 'a JWK needs kty');
    const member = PRIVATE_JWK_MEMBERS.find((m) => key[m] !== undefined);
    if (member !== undefined) throw invalid(`${field}.${member}`, 'public keys only (an HS256 secret goes in secret)');
  });
  if (secret !== undefined && Buffer.byteLength(secret) < MIN_SECRET_BYTES) {
    throw invalid(`${at}.secret`, `an HS256 secret needs at least ${MIN_SECRET_BYTES} bytes`);
  }
  if (given.identitySource !== undefined) checkSource(given.identitySource, `${at}.identitySource`);
  const authorizer: JwtAuthorizer = {
    name: given.name,
    type: 'jwt',
    issuer: given.issuer,
    audience: given.audience,
    identitySource: given.identitySource ?? DEFAULT_JWT_IDENTITY_SOURCE,
    leewaySeconds: given.leewaySeconds ?? DEFAULT_LEEWAY_SECONDS,
  };
  if (given.jwksUrl !== undefined) authorizer.jwksUrl = given.jwksUrl;
  if (given.keys !== undefined) authorizer.keys = given.keys;
  if (secret !== undefined) authorizer.secret = secret;
  if (given.algorithms !== undefined) authorizer.algorithms = given.algorithms;
  return authorizer;
}

function functionAuthorizerOf(given: AuthorizerInput, at: string): FunctionAuthorizer {
  if (given.function === undefined) throw invalid(`${at}.function`, 'a function authorizer names its function');
  const version = given.payloadFormatVersion ?? '2.0';
  if (version === '2.0' && given.kind === 'TOKEN') throw invalid(`${at}.kind`, 'payload format 2.0 authorizers are REQUEST authorizers');
  if (version === '1.0' && given.enableSimpleResponses === true) {
    throw invalid(`${at}.enableSimpleResponses`, 'simple responses need payloadFormatVersion 2.0');
  }
  const kind = version === '2.0' ? 'REQUEST' : (given.kind ?? 'TOKEN');
  const sources = given.identitySources ?? [DEFAULT_JWT_IDENTITY_SOURCE];
  sources.forEach((s, k) => checkSource(s, `${at}.identitySources[${k}]`));
  if (kind === 'TOKEN' && (sources.length !== 1 || parseIdentitySource(sources[0])!.in !== 'header')) {
    throw invalid(`${at}.identitySources`, 'a TOKEN authorizer reads exactly one header');
  }
  const ttl = given.resultTtlSeconds ?? DEFAULT_RESULT_TTL_SECONDS;
  // The cache is keyed by the identity sources: without any, one caller's answer would serve every caller.
  if (ttl > 0 && sources.length === 0) throw invalid(`${at}.identitySources`, 'caching (resultTtlSeconds > 0) needs at least one identity source');
  return {
    name: given.name,
    type: 'function',
    function: given.function,
    payloadFormatVersion: version,
    kind,
    identitySources: sources,
    resultTtlSeconds: ttl,
    enableSimpleResponses: given.enableSimpleResponses ?? false,
  };
}

/**
 * A route's authorizer and the API's default must name one of its authorizers
 * (routes may say NONE); scopes belong to routes under a JWT authorizer.
 */
export function checkAuthorizerNames(
  authorizers: readonly Authorizer[],
  defaultAuthorizer: string | null | undefined,
  routes: readonly RoutePolicy[],
  routeField: (i: number) => string,
): void {
  const byName = new Map(authorizers.map((a) => [a.name, a]));
  if (defaultAuthorizer != null && !byName.has(defaultAuthorizer)) {
    throw invalid('defaultAuthorizer', `the API has no authorizer named '${defaultAuthorizer}'`);
  }
  routes.forEach((route, i) => {
    const name = route.authorizer;
    if (name !== undefined && name !== NO_AUTHORIZER && !byName.has(name)) {
      throw invalid(`${routeField(i)}.authorizer`, `the API has no authorizer named '${name}'`);
    }
    const effective = name === undefined ? defaultAuthorizer : name === NO_AUTHORIZER ? null : name;
    if (route.authorizationScopes !== undefined && route.authorizationScopes.length > 0 && (effective == null || byName.get(effective)!.type !== 'jwt')) {
      throw invalid(`${routeField(i)}.authorizationScopes`, 'scopes need a jwt authorizer on the route');
    }
  });
}
