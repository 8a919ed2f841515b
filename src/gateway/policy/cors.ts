/**
 * CORS per API, as an HTTP API's CorsConfiguration: the gateway answers a
 * preflight (OPTIONS with Origin and Access-Control-Request-Method) itself,
 * before any route is matched, and adds Access-Control-Allow-Origin,
 * -Allow-Credentials, -Expose-Headers and `Vary: Origin` to every other
 * answer of the API to an allowed origin, errors included. The policy is
 * compiled once per route table (`compileCors`); an API without one has none,
 * so its requests do no CORS work at all.
 *
 * Like an HTTP API, a configured API ignores the Access-Control-* headers its
 * functions return: the policy alone decides them. An `aws-v1` function is
 * written for a REST API, whose proxy integration passes the function's own
 * Access-Control-* headers on (a REST API's CORS is the preflight alone, so
 * such functions set them: "Required for CORS support to work" in
 * Serverless's samples): its headers stand, and the policy adds only those it
 * left out.
 */
import { InvalidRequestError } from '../../errors.js';
import { CORS_INPUT_DEFAULTS, type CorsInput } from '../../schema/apis.js';
import type { CorsConfig } from '../../types.js';

/** The policy as given, each optional field filled with its default; null for none. Refuses what browsers refuse. */
export function corsConfigOf(input: CorsInput | null | undefined): CorsConfig | null {
  if (input === null || input === undefined) return null;
  const config: CorsConfig = {
    allowOrigins: unique(input.allowOrigins),
    allowMethods: unique(input.allowMethods ?? CORS_INPUT_DEFAULTS.allowMethods),
    allowHeaders: unique(input.allowHeaders ?? CORS_INPUT_DEFAULTS.allowHeaders),
    exposeHeaders: unique(input.exposeHeaders ?? CORS_INPUT_DEFAULTS.exposeHeaders),
    maxAge: input.maxAge ?? CORS_INPUT_DEFAULTS.maxAge,
    allowCredentials: input.allowCredentials ?? CORS_INPUT_DEFAULTS.allowCredentials,
  };
  checkCors(config);
  return config;
}

/** What the schema cannot say: credentials with any origin, which every browser refuses to use. */
export function checkCors(config: CorsConfig, prefix = 'cors'): void {
  if (config.allowCredentials && config.allowOrigins.includes('*')) {
    throw new InvalidRequestError(
      `${prefix}.allowCredentials: true cannot go with the origin '*' (browsers refuse credentials from a wildcard answer); list the origins`,
      { field: `${prefix}.allowCredentials` },
    );
  }
}

function unique<T extends string>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

/** The request headers CORS reads, found in one pass over `rawHeaders`. */
interface CorsRequest {
  origin: string | undefined;
  requestMethod: string | undefined;
  requestHeaders: string | undefined;
}

function readCorsRequest(raw: string[]): CorsRequest {
  let origin: string | undefined;
  let requestMethod: string | undefined;
  let requestHeaders: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i];
    if (name.length === 6) {
      if (origin === undefined && name.toLowerCase() === 'origin') origin = raw[i + 1];
    } else if (name.length === 29) {
      if (name.toLowerCase() === 'access-control-request-method') requestMethod = raw[i + 1];
    } else if (name.length === 30) {
      if (name.toLowerCase() === 'access-control-request-headers') {
        requestHeaders = requestHeaders === undefined ? raw[i + 1] : `${requestHeaders}, ${raw[i + 1]}`;
      }
    }
  }
  return { origin, requestMethod, requestHeaders };
}

const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_LIST = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*,[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;

/** The answer to a preflight: no body, no function run. */
export interface PreflightAnswer {
  status: 204;
  headers: Record<string, string>;
}

/** What one request of a CORS API gets: a preflight answer, or headers for the actual answer. */
export type CorsDecision =
  | { kind: 'preflight'; answer: PreflightAnswer }
  /** Headers to set on the answer (always `vary`; the Access-Control-* ones only for an allowed origin). */
  | { kind: 'actual'; headers: Record<string, string>; exposeAll: boolean };

export class CorsPolicy {
  private readonly anyOrigin: boolean;
  /** Lower-cased, as origins compare (scheme and host are case-insensitive). */
  private readonly origins: Set<string>;
  private readonly credentials: boolean;
  private readonly methods: string | null;
  private readonly anyMethod: boolean;
  private readonly headers: string | null;
  private readonly anyHeader: boolean;
  private readonly expose: string | null;
  /** `*` in exposeHeaders with credentials: a browser reads `*` literally then, so the answer's own names are listed. */
  private readonly exposeAll: boolean;
  private readonly maxAge: string | null;

  constructor(config: CorsConfig) {
    this.anyOrigin = config.allowOrigins.includes('*');
    this.origins = new Set(config.allowOrigins.map((o) => o.toLowerCase()));
    this.credentials = config.allowCredentials;
    this.anyMethod = config.allowMethods.includes('*');
    this.methods = config.allowMethods.length === 0 ? null : config.allowMethods.join(', ');
    this.anyHeader = config.allowHeaders.includes('*');
    this.headers = config.allowHeaders.length === 0 ? null : config.allowHeaders.join(', ');
    this.exposeAll = config.exposeHeaders.includes('*') && config.allowCredentials;
    this.expose = config.exposeHeaders.length === 0 || this.exposeAll ? null : config.exposeHeaders.join(', ');
    this.maxAge = config.maxAge === null ? null : String(config.maxAge);
  }

  private allowed(origin: string): boolean {
    return this.anyOrigin || this.origins.has(origin.toLowerCase());
  }

  /** `*` when any origin is allowed without credentials, else the origin itself (hence `Vary: Origin`). */
  private allowOrigin(origin: string): string {
    return this.anyOrigin && !this.credentials ? '*' : origin;
  }

  /**
   * Decides from the request's headers alone, before any route is matched.
   * An OPTIONS without Access-Control-Request-Method is an ordinary request
   * (a route may bind OPTIONS); so is every request without an Origin.
   */
  decide(method: string, rawHeaders: string[]): CorsDecision {
    const seen = readCorsRequest(rawHeaders);
    const headers: Record<string, string> = { vary: 'Origin' };
    const origin = seen.origin;
    if (method === 'OPTIONS' && origin !== undefined && seen.requestMethod !== undefined) {
      if (this.allowed(origin)) this.preflightHeaders(origin, seen, headers);
      return { kind: 'preflight', answer: { status: 204, headers } };
    }
    if (origin !== undefined && this.allowed(origin)) {
      headers['access-control-allow-origin'] = this.allowOrigin(origin);
      if (this.credentials) headers['access-control-allow-credentials'] = 'true';
      if (this.expose !== null) headers['access-control-expose-headers'] = this.expose;
      return { kind: 'actual', headers, exposeAll: this.exposeAll };
    }
    return { kind: 'actual', headers, exposeAll: false };
  }

  private preflightHeaders(origin: string, seen: CorsRequest, out: Record<string, string>): void {
    out['access-control-allow-origin'] = this.allowOrigin(origin);
    if (this.credentials) out['access-control-allow-credentials'] = 'true';
    // A wildcard answers with what was asked, which works with and without credentials.
    const asked = seen.requestMethod!;
    const methods = this.anyMethod ? (METHOD.test(asked) ? asked : null) : this.methods;
    if (methods !== null) out['access-control-allow-methods'] = methods;
    const headers = this.anyHeader
      ? seen.requestHeaders !== undefined && HEADER_LIST.test(seen.requestHeaders.trim())
        ? seen.requestHeaders.trim()
        : null
      : this.headers;
    if (headers !== null) out['access-control-allow-headers'] = headers;
    if (this.maxAge !== null) out['access-control-max-age'] = this.maxAge;
  }
}

/** Null for an API without CORS: the gateway then does no CORS work for it. */
export function compileCors(config: CorsConfig | null): CorsPolicy | null {
  return config === null ? null : new CorsPolicy(config);
}

/**
 * Puts the policy's headers on an answer: replaces any Access-Control-*
 * header the function set (the policy decides them, as in an HTTP API), or
 * with `keepOwn` (a REST API's function) only adds those it did not set; and
 * adds Origin to its `Vary`.
 */
export function applyCors(
  answer: Record<string, string | string[]>,
  decision: { headers: Record<string, string>; exposeAll: boolean },
  keepOwn = false,
): void {
  if (!keepOwn) {
    for (const name of Object.keys(answer)) {
      if (name.startsWith('access-control-')) delete answer[name];
    }
  }
  for (const [name, value] of Object.entries(decision.headers)) {
    if (name === 'vary' || (keepOwn && answer[name] !== undefined)) continue;
    answer[name] = value;
  }
  if (decision.exposeAll) {
    const names = Object.keys(answer).filter((n) => !n.startsWith('access-control-') && n !== 'set-cookie');
    if (names.length > 0) answer['access-control-expose-headers'] = names.join(', ');
  }
  const vary = answer.vary;
  if (vary === undefined) answer.vary = 'Origin';
  else if (typeof vary === 'string' && !/(^|,)\s*(origin|\*)\s*(,|$)/i.test(vary)) answer.vary = `${vary}, Origin`;
}
