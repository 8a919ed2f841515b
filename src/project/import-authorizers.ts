/**
 * Authorizers from serverless.yml and SAM templates, as the project file's
 * `authorizers` and `default_authorizer` of an API and a route's
 * `authorizer` and `authorization_scopes`.
 *
 * - serverless.yml `http` events: `authorizer: <function>` or `{name, type:
 *   token|request, identitySource, resultTtlInSeconds}` naming a function of
 *   the service: a payload 1.0 function authorizer of the REST API (TOKEN by
 *   default, reading `method.request.header.Authorization`, answers kept 300 s,
 *   as the Framework sets them). ARNs, `aws_iam`, Cognito user pools and
 *   shared authorizers (`authorizerId`) are reported.
 * - serverless.yml `provider.httpApi.authorizers`: `type: jwt` (`issuerUrl`,
 *   `audience`, `identitySource`) and `type: request` (`functionName`,
 *   `payloadVersion`, `enableSimpleResponses`, `identitySource`,
 *   `resultTtlInSeconds`); an `httpApi` event's `authorizer: {name, scopes}`.
 * - SAM `Auth` of an Api or HttpApi (and Globals): `Authorizers` whose
 *   `FunctionArn` is `!GetAtt Fn.Arn` of a function of the template, an
 *   HttpApi's `JwtConfiguration`, `DefaultAuthorizer`; an event's
 *   `Auth.Authorizer` (`NONE` included) and `Auth.AuthorizationScopes`.
 *   Cognito and AWS_IAM are reported.
 *
 * A JWT authorizer of AWS finds its keys through the issuer's OpenID
 * discovery document; the gateway reads a JWKS URL, so the import writes the
 * one most providers publish (`<issuer>/.well-known/jwks.json`) and says so.
 * Every authorizer is checked as the server would check it before it is
 * written; one that would be refused, or whose function was not carried, is
 * left out and the routes that named it are listed, never left open silently.
 */
import { parseIdentitySource } from '../gateway/policy/authorizer-config.js';
import { NO_AUTHORIZER } from '../types.js';
import { authorizersFromFile, type FileAuthorizer } from './authorizers.js';
import { functionName, isObj, type Obj, type ProjectBuilder } from './import-common.js';
import type { ProjectRoute } from './types.js';

/** What an event gives its route. */
export type RouteAuth = Pick<ProjectRoute, 'authorizer' | 'authorization_scopes'>;

const REST_TOKEN_SOURCE = 'method.request.header.Authorization';
const HTTP_TOKEN_SOURCE = '$request.header.Authorization';
/** API Gateway's TTL of an authorizer's answers when none is set. */
const DEFAULT_TTL = 300;
const MAX_TTL = 3600;
/** An API's authorizers at most (src/schema/apis.ts AUTHORIZER_LIMITS). */
const MAX_AUTHORIZERS = 10;
const NAME = /^[A-Za-z0-9_.:-]{1,128}$/;
const SCOPE = /^\S{1,256}$/;

/** One API's authorizers as the import found them. */
interface ApiAuth {
  /** Carried so far, by name, with where each was written. */
  carried: Map<string, { authorizer: FileAuthorizer; where: string }>;
  /** Named in the file but not carried (the reason is in the notes already). */
  uncarried: Set<string>;
  defaultAuthorizer?: string;
  /** Scopes a JWT authorizer gives the routes that name none (SAM's OAuth2Authorizer AuthorizationScopes). */
  defaultScopes: Map<string, string[]>;
}

const newApiAuth = (): ApiAuth => ({ carried: new Map(), uncarried: new Set(), defaultScopes: new Map() });

/** An authorizer name the file accepts: other characters become `-`. */
function authorizerName(name: string): string {
  return NAME.test(name) ? name : name.replace(/[^A-Za-z0-9_.:-]/g, '-').slice(0, 128) || 'authorizer';
}

/** A list given as a list or as one (comma separated) text. */
function listOf(value: unknown, split = false): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string' && split) return value.split(',').map((s) => s.trim()).filter(Boolean);
  return value === undefined || value === null ? [] : [value];
}

/** A TTL in seconds: AWS's 0 to 3600, the default when absent. */
function ttlOf(value: unknown, where: string, notes: string[]): number {
  if (value === undefined || value === null) return DEFAULT_TTL;
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= MAX_TTL) return n;
  notes.push(`${where}: ${JSON.stringify(value)} is not 0 to 3600 seconds; the default ${DEFAULT_TTL} is used`);
  return DEFAULT_TTL;
}

/** The identity sources the gateway can read (headers, query strings); the others named in the notes. */
function readableSources(sources: unknown[], where: string, notes: string[]): string[] {
  const kept: string[] = [];
  for (const source of sources) {
    if (typeof source === 'string' && parseIdentitySource(source.trim()) !== null) kept.push(source.trim());
    else notes.push(`${where}: ${typeof source === 'string' ? source : JSON.stringify(source)} not carried (identity sources here are headers and query strings)`);
  }
  return kept;
}

/**
 * The JWKS URL of an issuer: the one most identity providers publish (Cognito,
 * Auth0, ...), said in the notes since AWS finds it through OpenID discovery.
 */
function jwksOf(issuer: string, where: string, notes: string[]): string | null {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    notes.push(`${where}: the issuer ${issuer} is not a URL; the authorizer is not carried`);
    return null;
  }
  if (url.protocol !== 'https:') {
    notes.push(`${where}: the issuer ${issuer} is not an https URL; the authorizer is not carried`);
    return null;
  }
  const jwks = `${issuer.replace(/\/+$/, '')}/.well-known/jwks.json`;
  notes.push(`${where}: the keys are read from ${jwks} (AWS finds them through the issuer's OpenID discovery document; set jwks_url if they lie elsewhere)`);
  return jwks;
}

/** Strings of a list (scopes, audiences), the others named in the notes. */
function strings(value: unknown, where: string, notes: string[], pattern?: RegExp): string[] {
  const out: string[] = [];
  for (const v of listOf(value)) {
    if (typeof v === 'string' && v.trim() !== '' && (!pattern || pattern.test(v.trim()))) out.push(v.trim());
    else notes.push(`${where}: ${JSON.stringify(v)} not carried`);
  }
  return out;
}

/** Adds an authorizer to an API; a second one of the same name is kept only if it says the same. */
function register(auth: ApiAuth, authorizer: FileAuthorizer, where: string, notes: string[]): void {
  const seen = auth.carried.get(authorizer.name);
  if (!seen) auth.carried.set(authorizer.name, { authorizer, where });
  else if (JSON.stringify(seen.authorizer) !== JSON.stringify(authorizer)) {
    notes.push(`${where}: authorizer '${authorizer.name}' differs from the one of ${seen.where}; kept that one`);
  }
}

/** `open` or `under the API's default 'x'`: what becomes of a route whose authorizer is not carried. */
function fallback(auth: ApiAuth): string {
  return auth.defaultAuthorizer !== undefined && !auth.uncarried.has(auth.defaultAuthorizer)
    ? `the route is under the API's default '${auth.defaultAuthorizer}' instead`
    : 'the route is open';
}

/**
 * Writes an API's authorizers once its routes are in: each is checked as the
 * server will check it; one that would be refused, or whose function was not
 * carried, is left out, and so are the route settings that named it (listed).
 */
function writeAuthorizers(b: ProjectBuilder, api: string, auth: ApiAuth): void {
  const entry = b.document.apis?.[api];
  if (!entry) return;
  const functions = b.document.functions ?? {};
  const kept: FileAuthorizer[] = [];
  for (const [name, { authorizer, where }] of auth.carried) {
    if (authorizer.type === 'function' && !functions[authorizer.function!]) {
      b.notes.push(`${where}: the function '${authorizer.function}' was not carried; the authorizer is not carried`);
      auth.uncarried.add(name);
      continue;
    }
    const { problem } = authorizersFromFile([authorizer]);
    if (problem) {
      b.notes.push(`${where}: the authorizer is not carried (${problem.key ? `${problem.key}: ` : ''}${problem.message})`);
      auth.uncarried.add(name);
      continue;
    }
    if (kept.length >= MAX_AUTHORIZERS) {
      b.notes.push(`${where}: an API has at most ${MAX_AUTHORIZERS} authorizers; '${name}' is not carried`);
      auth.uncarried.add(name);
      continue;
    }
    kept.push(authorizer);
  }
  const byName = new Map(kept.map((a) => [a.name, a]));
  const defaultAuthorizer = auth.defaultAuthorizer !== undefined && byName.has(auth.defaultAuthorizer) ? auth.defaultAuthorizer : undefined;
  if (auth.defaultAuthorizer !== undefined && defaultAuthorizer === undefined) {
    b.notes.push(`apis.${api}: the default authorizer '${auth.defaultAuthorizer}' is not carried; routes that name no authorizer are open`);
  }
  (entry.routes ?? []).forEach((route, i) => {
    const at = `apis.${api}.routes[${i}]`;
    if (route.authorizer === NO_AUTHORIZER && defaultAuthorizer === undefined) delete route.authorizer;
    if (route.authorizer !== undefined && route.authorizer !== NO_AUTHORIZER && !byName.has(route.authorizer)) {
      b.notes.push(`${at}: ${route.method} ${route.path}: the authorizer '${route.authorizer}' is not carried; ${fallback({ ...auth, defaultAuthorizer })}`);
      delete route.authorizer;
      delete route.authorization_scopes;
    }
    const effective = route.authorizer === undefined ? defaultAuthorizer : route.authorizer === NO_AUTHORIZER ? undefined : route.authorizer;
    if (route.authorization_scopes === undefined && effective !== undefined) {
      const scopes = auth.defaultScopes.get(effective);
      if (scopes && scopes.length > 0) route.authorization_scopes = [...scopes];
    }
    if (route.authorization_scopes !== undefined && (effective === undefined || byName.get(effective)!.type !== 'jwt')) {
      b.notes.push(`${at}: ${route.method} ${route.path}: scopes ${route.authorization_scopes.join(', ')} not carried (scopes belong to a JWT authorizer)`);
      delete route.authorization_scopes;
    }
  });
  b.setAuthorizers(api, kept, defaultAuthorizer ?? null);
}

// ---------------------------------------------------------------- serverless.yml

/** Resolves a serverless.yml value's variables; undefined after a note when it cannot. */
export type ServerlessResolve = (value: string, where: string) => string | undefined;

/** Keys of an `http` event's authorizer that mean nothing here (permissions of the function). */
const HTTP_SILENT = ['managedExternally'];

/**
 * serverless.yml's authorizers: those of the REST API's `http` events and
 * the HTTP API's `provider.httpApi.authorizers`.
 */
export class ServerlessAuthorizers {
  private readonly rest = newApiAuth();
  private readonly http = newApiAuth();

  constructor(
    provider: Obj,
    /** The service's `functions`, as written: an authorizer names one. */
    private readonly functions: Obj,
    private readonly resolve: ServerlessResolve,
    private readonly notes: string[],
  ) {
    const httpApi = isObj(provider.httpApi) ? provider.httpApi : {};
    if (httpApi.authorizers === undefined) return;
    if (!isObj(httpApi.authorizers)) {
      notes.push('provider.httpApi.authorizers: not a mapping of names; not carried');
      return;
    }
    for (const [name, spec] of Object.entries(httpApi.authorizers)) this.httpApiAuthorizer(name, spec, `provider.httpApi.authorizers.${name}`);
  }

  /** A text value resolved, or undefined after a note. */
  private text(value: unknown, where: string): string | undefined {
    if (typeof value === 'string') return this.resolve(value, where);
    if (typeof value === 'number') return String(value);
    this.notes.push(`${where}: ${JSON.stringify(value)} cannot be resolved here`);
    return undefined;
  }

  /** The function of the service an authorizer names, by its name here; undefined after a note. */
  private functionOf(raw: unknown, where: string): string | undefined {
    const name = typeof raw === 'string' ? this.resolve(raw, where) : undefined;
    return name !== undefined && isObj(this.functions[name]) ? functionName(name, []) : undefined;
  }

  private httpApiAuthorizer(key: string, spec: unknown, at: string): void {
    const name = authorizerName(key);
    const uncarried = () => {
      this.http.uncarried.add(name);
    };
    if (!isObj(spec)) {
      this.notes.push(`${at}: not a mapping; the authorizer is not carried`);
      return uncarried();
    }
    const type = typeof spec.type === 'string' ? spec.type.toLowerCase() : 'jwt';
    const known = type === 'jwt' ? ['type', 'name', 'issuerUrl', 'audience', 'identitySource'] : ['type', 'name', 'functionName', 'functionArn', 'payloadVersion', 'enableSimpleResponses', 'identitySource', 'resultTtlInSeconds', ...HTTP_SILENT];
    const other = Object.keys(spec).filter((k) => !known.includes(k));
    if (other.length > 0) this.notes.push(`${at}: ${other.join(', ')} not carried`);
    if (type === 'jwt') {
      const issuer = spec.issuerUrl === undefined ? undefined : this.text(spec.issuerUrl, `${at}.issuerUrl`);
      const audience = listOf(spec.audience).map((a, i) => this.text(a, `${at}.audience[${i}]`)).filter((a): a is string => a !== undefined && a !== '');
      if (issuer === undefined || audience.length === 0) {
        this.notes.push(`${at}: a JWT authorizer needs an issuerUrl and an audience here; the authorizer is not carried`);
        return uncarried();
      }
      const jwks = jwksOf(issuer, `${at}.issuerUrl`, this.notes);
      if (jwks === null) return uncarried();
      const sources = readableSources(listOf(spec.identitySource ?? HTTP_TOKEN_SOURCE), `${at}.identitySource`, this.notes);
      if (sources.length > 1) this.notes.push(`${at}.identitySource: a JWT is read from ${sources[0]}; ${sources.slice(1).join(', ')} not carried`);
      const authorizer: FileAuthorizer = { name, type: 'jwt', issuer, audience, jwks_url: jwks };
      if (sources.length > 0 && sources[0] !== HTTP_TOKEN_SOURCE) authorizer.identity_source = sources[0];
      register(this.http, authorizer, at, this.notes);
      return;
    }
    if (type !== 'request') {
      this.notes.push(`${at}: type ${String(spec.type)} is not carried (jwt and request are)`);
      return uncarried();
    }
    if (spec.functionName === undefined) {
      this.notes.push(`${at}: ${spec.functionArn !== undefined ? `functionArn ${JSON.stringify(spec.functionArn)} is a function outside this service` : 'no functionName'}; the authorizer is not carried`);
      return uncarried();
    }
    const fn = this.functionOf(spec.functionName, `${at}.functionName`);
    if (fn === undefined) {
      this.notes.push(`${at}.functionName: ${JSON.stringify(spec.functionName)} is not a function of this service; the authorizer is not carried`);
      return uncarried();
    }
    const version = String(spec.payloadVersion ?? '2.0');
    if (version !== '1.0' && version !== '2.0') {
      this.notes.push(`${at}.payloadVersion: ${version} is not 1.0 or 2.0; the authorizer is not carried`);
      return uncarried();
    }
    const sources = readableSources(listOf(spec.identitySource), `${at}.identitySource`, this.notes);
    let ttl = ttlOf(spec.resultTtlInSeconds, `${at}.resultTtlInSeconds`, this.notes);
    if (sources.length === 0 && ttl > 0) {
      // AWS caches only by identity sources: without one, the function decides each request.
      if (spec.resultTtlInSeconds !== undefined) this.notes.push(`${at}: no identity source to cache answers by; result_ttl_seconds is 0`);
      ttl = 0;
    }
    const authorizer: FileAuthorizer = {
      name,
      type: 'function',
      function: fn,
      payload_format_version: version,
      kind: 'REQUEST',
      identity_sources: sources,
      result_ttl_seconds: ttl,
    };
    if (spec.enableSimpleResponses === true) authorizer.enable_simple_responses = true;
    register(this.http, authorizer, at, this.notes);
  }

  /** An `http` event's `authorizer`: a function authorizer (payload 1.0) of the REST API. */
  httpEvent(spec: unknown, where: string): RouteAuth {
    const at = `${where}.authorizer`;
    const open = (why: string): RouteAuth => {
      this.notes.push(`${at}: ${why}; the route is open`);
      return {};
    };
    const given = typeof spec === 'string' ? this.resolve(spec, at) : spec;
    if (given === undefined) return open('the authorizer cannot be resolved here');
    if (typeof given === 'string') {
      if (given.toLowerCase() === 'aws_iam') return open('aws_iam is not carried (requests signed with AWS credentials)');
      if (given.includes(':')) return open(`${given} is an ARN: ${given.includes('cognito-idp') ? 'a Cognito user pool' : 'a function outside this service'} is not carried`);
      return this.httpEvent({ name: given }, where);
    }
    if (!isObj(given)) return open(`${JSON.stringify(given)} is not a function name or a mapping`);
    const type = typeof given.type === 'string' ? given.type.toLowerCase() : 'token';
    if (type === 'aws_iam') return open('aws_iam is not carried (requests signed with AWS credentials)');
    const arn = typeof given.arn === 'string' ? given.arn : given.arn === undefined ? '' : JSON.stringify(given.arn);
    if (type === 'cognito_user_pools' || arn.includes('cognito-idp')) {
      return open('a Cognito user pool authorizer is not carried (a JWT authorizer of the pool\'s issuer can stand in)');
    }
    if (given.authorizerId !== undefined) return open('a shared authorizer (authorizerId) is not carried');
    if (given.arn !== undefined) return open(`the function ${arn} is outside this service: not carried`);
    if (type !== 'token' && type !== 'request') return open(`type ${String(given.type)} is not carried (token and request are)`);
    const fn = this.functionOf(given.name, `${at}.name`);
    if (fn === undefined) return open(`${JSON.stringify(given.name)} is not a function of this service`);
    const name = authorizerName(typeof given.name === 'string' ? given.name : fn);
    const other = Object.keys(given).filter((k) => !['name', 'type', 'identitySource', 'resultTtlInSeconds', ...HTTP_SILENT].includes(k));
    if (given.identityValidationExpression !== undefined) {
      this.notes.push(`${at}.identityValidationExpression: not carried (the authorizer function sees every token)`);
    }
    const rest = other.filter((k) => k !== 'identityValidationExpression');
    if (rest.length > 0) this.notes.push(`${at}: ${rest.join(', ')} not carried`);
    const kind = type === 'request' ? 'REQUEST' : 'TOKEN';
    const written = given.identitySource === undefined ? [REST_TOKEN_SOURCE] : listOf(given.identitySource, true);
    const sources = readableSources(written, `${at}.identitySource`, this.notes);
    let ttl = ttlOf(given.resultTtlInSeconds, `${at}.resultTtlInSeconds`, this.notes);
    if (kind === 'TOKEN' && (sources.length !== 1 || parseIdentitySource(sources[0])!.in !== 'header')) {
      return open('a TOKEN authorizer reads exactly one header; the authorizer is not carried');
    }
    if (sources.length === 0 && ttl > 0) {
      this.notes.push(`${at}: no identity source to cache answers by; result_ttl_seconds is 0`);
      ttl = 0;
    }
    register(
      this.rest,
      { name, type: 'function', function: fn, payload_format_version: '1.0', kind, identity_sources: sources, result_ttl_seconds: ttl },
      at,
      this.notes,
    );
    return { authorizer: name };
  }

  /** An `httpApi` event's `authorizer`: `{name, scopes}` of provider.httpApi.authorizers. */
  httpApiEvent(spec: unknown, where: string): RouteAuth {
    const at = `${where}.authorizer`;
    const given = typeof spec === 'string' ? { name: spec } : spec;
    if (!isObj(given)) {
      this.notes.push(`${at}: ${JSON.stringify(spec)} is not a mapping; the route is open`);
      return {};
    }
    if (typeof given.type === 'string' && given.type.toLowerCase() === 'aws_iam') {
      this.notes.push(`${at}: aws_iam is not carried (requests signed with AWS credentials); the route is open`);
      return {};
    }
    if (given.id !== undefined) {
      this.notes.push(`${at}: a shared authorizer (id) is not carried; the route is open`);
      return {};
    }
    const name = typeof given.name === 'string' ? authorizerName(given.name) : undefined;
    if (name === undefined || (!this.http.carried.has(name) && !this.http.uncarried.has(name))) {
      this.notes.push(`${at}: ${JSON.stringify(given.name)} is not an authorizer of provider.httpApi.authorizers; the route is open`);
      return {};
    }
    const other = Object.keys(given).filter((k) => !['name', 'scopes', 'type'].includes(k));
    if (other.length > 0) this.notes.push(`${at}: ${other.join(', ')} not carried`);
    const out: RouteAuth = { authorizer: name };
    if (given.scopes !== undefined) {
      const scopes = strings(given.scopes, `${at}.scopes`, this.notes, SCOPE);
      if (scopes.length > 0) out.authorization_scopes = scopes;
    }
    return out;
  }

  /** Writes the authorizers of the REST API (`http` events) and the HTTP API (`httpApi` events), of those the service has. */
  finish(b: ProjectBuilder, restApi: string | undefined, httpApi: string | undefined): void {
    if (restApi !== undefined) writeAuthorizers(b, restApi, this.rest);
    if (httpApi !== undefined) writeAuthorizers(b, httpApi, this.http);
  }
}

// ---------------------------------------------------------------- SAM

/** Resolves a SAM value (`!Ref` of a parameter, `!Sub`...); undefined when only a deployed stack could. */
export type SamResolve = (value: unknown) => string | undefined;
type ApiKind = 'Api' | 'HttpApi';

/** `Auth` keys of an Api or HttpApi this module reads; the API key import reads ApiKeyRequired and UsagePlan. */
export const SAM_AUTHORIZER_AUTH_KEYS = ['Authorizers', 'DefaultAuthorizer', 'AddDefaultAuthorizerToCorsPreflight', 'EnableIamAuthorizer'];
/** `Auth` keys of an event this module reads. */
export const SAM_EVENT_AUTHORIZER_KEYS = ['Authorizer', 'AuthorizationScopes'];
/** `Auth` keys the API key import carries (import-keys.ts): not listed as dropped here. */
const AUTH_CARRIED_ELSEWHERE: string[] = ['ApiKeyRequired', 'UsagePlan'];

/** Keys of a SAM authorizer that mean nothing here (the function's invoke permissions). */
const SAM_SILENT = ['DisableFunctionDefaultPermissions', 'EnableFunctionDefaultPermissions'];

/**
 * A SAM template's authorizers: each Api's and HttpApi's `Auth` (over
 * Globals.Api.Auth / Globals.HttpApi.Auth, as SAM merges them), read when the
 * API's first route is.
 */
export class SamAuthorizers {
  private readonly apis = new Map<string, ApiAuth>();

  constructor(
    private readonly doc: Obj,
    /** Logical id -> function name. */
    private readonly functionNames: Map<string, string>,
    private readonly resolve: SamResolve,
    private readonly notes: string[],
  ) {}

  /** The API's Auth keys, each with where it was written (its own, else Globals). */
  private authOf(api: string, kind: ApiKind): Array<[string, unknown, string]> {
    const globals = isObj(this.doc.Globals) && isObj(this.doc.Globals[kind]) ? (this.doc.Globals[kind] as Obj) : {};
    const resource = isObj(this.doc.Resources) ? (this.doc.Resources as Obj)[api] : undefined;
    const props = isObj(resource) && isObj(resource.Properties) ? resource.Properties : {};
    const keys = new Map<string, [unknown, string]>();
    if (globals.Auth !== undefined && !isObj(globals.Auth)) this.notes.push(`Globals.${kind}.Auth: not a mapping; not carried`);
    if (props.Auth !== undefined && !isObj(props.Auth)) this.notes.push(`Resources.${api}.Properties.Auth: not a mapping; not carried`);
    for (const [auth, where] of [[globals.Auth, `Globals.${kind}.Auth`], [props.Auth, `Resources.${api}.Properties.Auth`]] as const) {
      if (isObj(auth)) for (const [k, v] of Object.entries(auth)) keys.set(k, [v, where]);
    }
    return [...keys].map(([k, [v, where]]) => [k, v, where]);
  }

  private api(api: string, kind: ApiKind): ApiAuth {
    let auth = this.apis.get(api);
    if (auth) return auth;
    auth = newApiAuth();
    this.apis.set(api, auth);
    const other: Map<string, string[]> = new Map();
    for (const [key, value, where] of this.authOf(api, kind)) {
      if (key === 'Authorizers') {
        if (!isObj(value)) this.notes.push(`${where}.Authorizers: not a mapping of names; not carried`);
        else for (const [name, spec] of Object.entries(value)) this.authorizer(auth, kind, name, spec, `${where}.Authorizers.${name}`);
      } else if (key === 'DefaultAuthorizer') {
        const name = this.resolve(value);
        if (name === 'AWS_IAM') this.notes.push(`${where}.DefaultAuthorizer: AWS_IAM is not carried (requests signed with AWS credentials); routes without an authorizer of their own are open`);
        else if (name !== undefined && name !== NO_AUTHORIZER) auth.defaultAuthorizer = authorizerName(name);
        else if (name === undefined) this.notes.push(`${where}.DefaultAuthorizer: ${JSON.stringify(value)} cannot be resolved here; not carried`);
      } else if (key === 'AddDefaultAuthorizerToCorsPreflight') {
        if (value !== false) this.notes.push(`${where}.AddDefaultAuthorizerToCorsPreflight: not carried (the gateway answers preflights itself, under no authorizer)`);
      } else if (key === 'EnableIamAuthorizer') {
        if (value === true) this.notes.push(`${where}.EnableIamAuthorizer: not carried (requests signed with AWS credentials)`);
      } else if (!AUTH_CARRIED_ELSEWHERE.includes(key)) other.set(where, [...(other.get(where) ?? []), key]);
    }
    for (const [where, keys] of other) this.notes.push(`${where}: ${keys.join(', ')} not carried`);
    return auth;
  }

  /** The function a `FunctionArn` names: `!GetAtt Fn.Arn` (or `!Ref`) of a function of the template. */
  private functionOf(arn: unknown): string | undefined {
    if (!isObj(arn)) return undefined;
    const getAtt = arn['Fn::GetAtt'];
    const logical = Array.isArray(getAtt) ? (getAtt[1] === 'Arn' ? getAtt[0] : undefined) : arn.Ref;
    return typeof logical === 'string' ? this.functionNames.get(logical) : undefined;
  }

  private authorizer(auth: ApiAuth, kind: ApiKind, rawName: string, spec: unknown, at: string): void {
    const name = authorizerName(rawName);
    const skip = (why: string) => {
      this.notes.push(`${at}: ${why}; the authorizer is not carried`);
      auth.uncarried.add(name);
    };
    if (!isObj(spec)) return skip('not a mapping');
    if (spec.UserPoolArn !== undefined) return skip('a Cognito user pool authorizer is not carried (a JWT authorizer of the pool\'s issuer can stand in)');
    if (kind === 'HttpApi' && spec.JwtConfiguration !== undefined) return this.jwt(auth, name, spec, at, skip);
    if (spec.FunctionArn === undefined) return skip('neither FunctionArn nor JwtConfiguration');
    const fn = this.functionOf(spec.FunctionArn);
    if (fn === undefined) return skip(`FunctionArn ${JSON.stringify(spec.FunctionArn)} is not !GetAtt <function>.Arn of a function of this template`);
    const identity = isObj(spec.Identity) ? spec.Identity : {};
    if (spec.Identity !== undefined && !isObj(spec.Identity)) this.notes.push(`${at}.Identity: not a mapping; not carried`);
    const known = kind === 'Api' ? ['FunctionArn', 'FunctionPayloadType', 'Identity', ...SAM_SILENT] : ['FunctionArn', 'AuthorizerPayloadFormatVersion', 'EnableSimpleResponses', 'Identity', ...SAM_SILENT];
    const other = Object.keys(spec).filter((k) => !known.includes(k));
    if (other.length > 0) this.notes.push(`${at}: ${other.join(', ')} not carried`);
    const idKnown = ['Header', 'Headers', 'QueryStrings', 'ReauthorizeEvery'];
    const idOther = Object.keys(identity).filter((k) => !idKnown.includes(k));
    if (idOther.length > 0) {
      this.notes.push(`${at}.Identity: ${idOther.join(', ')} not carried${idOther.includes('ValidationExpression') ? ' (the authorizer function sees every token)' : ' (identity sources here are headers and query strings)'}`);
    }
    const prefix = kind === 'Api' ? 'method.request.' : '$request.';
    // An Api's authorizer is TOKEN unless it says REQUEST; an HttpApi's is always REQUEST.
    const type = kind === 'Api' ? (spec.FunctionPayloadType === undefined ? 'TOKEN' : (this.resolve(spec.FunctionPayloadType) ?? '').toUpperCase()) : 'REQUEST';
    if (type !== 'TOKEN' && type !== 'REQUEST') return skip(`FunctionPayloadType ${String(spec.FunctionPayloadType)} is not TOKEN or REQUEST`);
    let sources: string[];
    if (type === 'TOKEN') {
      const header = this.resolve(identity.Header) ?? 'Authorization';
      sources = readableSources([`${prefix}header.${header}`], `${at}.Identity.Header`, this.notes);
      if (sources.length !== 1) return skip('a TOKEN authorizer reads one header');
    } else {
      const named = (key: string, where: string) => listOf(identity[key]).map((v) => `${prefix}${where}.${this.resolve(v) ?? JSON.stringify(v)}`);
      sources = readableSources([...named('Headers', 'header'), ...named('QueryStrings', 'querystring')], `${at}.Identity`, this.notes);
    }
    let ttl = ttlOf(identity.ReauthorizeEvery === undefined ? undefined : (this.resolve(identity.ReauthorizeEvery) ?? identity.ReauthorizeEvery), `${at}.Identity.ReauthorizeEvery`, this.notes);
    if (sources.length === 0 && ttl > 0) {
      if (identity.ReauthorizeEvery !== undefined) this.notes.push(`${at}: no identity source to cache answers by; result_ttl_seconds is 0`);
      ttl = 0;
    }
    let version: '1.0' | '2.0' = '1.0';
    if (kind === 'HttpApi') {
      const v = this.resolve(spec.AuthorizerPayloadFormatVersion);
      if (v === undefined) return skip('a Lambda authorizer of an HttpApi needs AuthorizerPayloadFormatVersion');
      const n = Number(v);
      if (n !== 1 && n !== 2) return skip(`AuthorizerPayloadFormatVersion ${v} is not 1.0 or 2.0`);
      version = n === 1 ? '1.0' : '2.0';
    }
    const authorizer: FileAuthorizer = {
      name,
      type: 'function',
      function: fn,
      payload_format_version: version,
      kind: type,
      identity_sources: sources,
      result_ttl_seconds: ttl,
    };
    if (kind === 'HttpApi' && (spec.EnableSimpleResponses === true || this.resolve(spec.EnableSimpleResponses) === 'true')) authorizer.enable_simple_responses = true;
    register(auth, authorizer, at, this.notes);
  }

  /** An HttpApi's OAuth2Authorizer: JwtConfiguration (issuer, audience; SAM takes the keys in either case), IdentitySource, AuthorizationScopes. */
  private jwt(auth: ApiAuth, name: string, spec: Obj, at: string, skip: (why: string) => void): void {
    const other = Object.keys(spec).filter((k) => !['JwtConfiguration', 'IdentitySource', 'AuthorizationScopes'].includes(k));
    if (other.length > 0) this.notes.push(`${at}: ${other.join(', ')} not carried`);
    const config: Obj = isObj(spec.JwtConfiguration) ? Object.fromEntries(Object.entries(spec.JwtConfiguration).map(([k, v]) => [k.toLowerCase(), v])) : {};
    const issuer = this.resolve(config.issuer);
    if (issuer === undefined) return skip(`JwtConfiguration.issuer ${JSON.stringify(config.issuer)} cannot be resolved here`);
    const audience: string[] = [];
    for (const a of listOf(config.audience)) {
      const v = this.resolve(a);
      if (v === undefined || v === '') this.notes.push(`${at}.JwtConfiguration.audience: ${JSON.stringify(a)} cannot be resolved here; not carried`);
      else audience.push(v);
    }
    if (audience.length === 0) return skip('no audience');
    const jwks = jwksOf(issuer, `${at}.JwtConfiguration.issuer`, this.notes);
    if (jwks === null) {
      auth.uncarried.add(name);
      return;
    }
    const source = spec.IdentitySource === undefined ? HTTP_TOKEN_SOURCE : this.resolve(spec.IdentitySource);
    const sources = readableSources([source ?? JSON.stringify(spec.IdentitySource)], `${at}.IdentitySource`, this.notes);
    if (sources.length === 0) return skip('no identity source the gateway reads');
    const authorizer: FileAuthorizer = { name, type: 'jwt', issuer, audience, jwks_url: jwks };
    if (sources[0] !== HTTP_TOKEN_SOURCE) authorizer.identity_source = sources[0];
    register(auth, authorizer, at, this.notes);
    if (spec.AuthorizationScopes !== undefined) {
      const scopes = strings(spec.AuthorizationScopes, `${at}.AuthorizationScopes`, this.notes, SCOPE);
      if (scopes.length > 0) auth.defaultScopes.set(name, scopes);
    }
  }

  /** An Api or HttpApi event's route fields: its `Auth.Authorizer` (NONE included) and `Auth.AuthorizationScopes` over the API's. */
  route(api: string, kind: ApiKind, eventAuth: unknown, where: string): RouteAuth {
    const auth = this.api(api, kind);
    if (eventAuth === undefined) return {};
    const at = `${where}.Auth`;
    if (!isObj(eventAuth)) {
      this.notes.push(`${at}: not a mapping; not carried`);
      return {};
    }
    const other = Object.keys(eventAuth).filter((k) => !SAM_EVENT_AUTHORIZER_KEYS.includes(k) && !AUTH_CARRIED_ELSEWHERE.includes(k));
    if (other.length > 0) this.notes.push(`${at}: ${other.join(', ')} not carried`);
    const out: RouteAuth = {};
    if (eventAuth.Authorizer !== undefined) {
      const name = this.resolve(eventAuth.Authorizer);
      if (name === 'AWS_IAM') this.notes.push(`${at}.Authorizer: AWS_IAM is not carried (requests signed with AWS credentials); ${fallback(auth)}`);
      else if (name === undefined) this.notes.push(`${at}.Authorizer: ${JSON.stringify(eventAuth.Authorizer)} cannot be resolved here; ${fallback(auth)}`);
      else if (name === NO_AUTHORIZER) out.authorizer = NO_AUTHORIZER;
      else if (!auth.carried.has(authorizerName(name)) && !auth.uncarried.has(authorizerName(name))) {
        this.notes.push(`${at}.Authorizer: '${name}' is not an authorizer of the API; ${fallback(auth)}`);
      } else out.authorizer = authorizerName(name);
    }
    if (eventAuth.AuthorizationScopes !== undefined) {
      const scopes = strings(eventAuth.AuthorizationScopes, `${at}.AuthorizationScopes`, this.notes, SCOPE);
      if (scopes.length > 0) out.authorization_scopes = scopes;
    }
    return out;
  }

  /** Writes each API's authorizers, once the routes are in. */
  finish(b: ProjectBuilder): void {
    for (const [api, auth] of this.apis) writeAuthorizers(b, api, auth);
  }
}
