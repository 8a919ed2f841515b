/**
 * A JWT authorizer as the gateway runs it, as an HTTP API's JWT authorizer
 * does: the token from its identity source (a `Bearer ` prefix taken off), its
 * signature by one of the keys (a JWKS URL, a given key set, or an HS256
 * secret), `iss`, `exp` and `nbf` (with the authorizer's leeway, against the
 * gateway's clock), and `aud` or `client_id` among the audiences; then the
 * route's scopes against `scope` / `scp`. A missing or bad token is a 401 with
 * `WWW-Authenticate: Bearer`, missing scopes a 403. jose does the JOSE work.
 *
 * A token that verified is remembered (VERIFIED_TTL_MS at most, never past its
 * `exp`): checking an RS256 signature costs more than the rest of a small
 * request, and a client sends the same token many times. Its `exp` and `nbf`
 * are still judged on every request. The price: a key taken out of the JWKS
 * stops admitting the tokens it already verified within that time.
 */
import { createLocalJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { PolicyRefusalError } from '../../errors.js';
import type { Clock } from '../../clock.js';
import type { JwtAuthorizer } from '../../types.js';
import { JWT_ALGORITHMS } from '../../types.js';
import { BoundedMap } from './bounded-map.js';
import { RemoteKeySet, type RemoteKeySetDeps } from './jwks.js';

const HMAC = JWT_ALGORITHMS.filter((a) => a.startsWith('HS'));
const ASYMMETRIC = JWT_ALGORITHMS.filter((a) => !a.startsWith('HS'));
/** The largest token looked at (API Gateway's own header limit is 10 KB). */
const MAX_TOKEN_LENGTH = 16 * 1024;
/** How long a verified token is remembered, at most. */
export const VERIFIED_TTL_MS = 5 * 60_000;
/** Tokens remembered per authorizer; the oldest is forgotten past it. */
const MAX_VERIFIED = 10_000;

interface Verified {
  claims: JWTPayload;
  /** Epoch ms after which the token is not taken from memory (its exp, or sooner). */
  until: number;
}

export interface JwtResult {
  claims: JWTPayload;
  /** The token's scopes (`scope`, space separated, or `scp`); null when it has none. */
  scopes: string[] | null;
}

export type JwtCheckDeps = RemoteKeySetDeps;

/** The error every unusable token gets: API Gateway says no more than "Unauthorized" either. */
function unauthorized(why: string): PolicyRefusalError {
  return new PolicyRefusalError('unauthorized', `Unauthorized: ${why}`, undefined, { 'www-authenticate': 'Bearer' });
}

export class JwtCheck {
  private readonly key: JWTVerifyGetKey | Uint8Array;
  private readonly algorithms: string[];
  private readonly audience: ReadonlySet<string>;
  private readonly clock: Clock;
  private readonly verified = new BoundedMap<Verified>(MAX_VERIFIED);

  constructor(
    private readonly config: JwtAuthorizer,
    deps: JwtCheckDeps,
  ) {
    this.clock = deps.clock;
    this.audience = new Set(config.audience);
    if (config.secret !== undefined) {
      this.key = new TextEncoder().encode(config.secret);
      this.algorithms = config.algorithms ?? HMAC;
    } else {
      // A key set never verifies an HMAC: that would let a public key serve as a shared secret.
      this.key = config.keys !== undefined ? createLocalJWKSet(config.keys as never) : new RemoteKeySet(config.jwksUrl!, deps).getKey;
      this.algorithms = (config.algorithms ?? ASYMMETRIC).filter((a) => !a.startsWith('HS'));
    }
  }

  /**
   * The token's claims and scopes; throws the 401 or 403. `value`: the identity
   * source's value (absent: none sent). At once (no promise) for a token
   * verified before and still within its time.
   */
  verify(value: string | undefined, routeScopes: readonly string[] | undefined): JwtResult | Promise<JwtResult> {
    if (value === undefined || value === '') throw unauthorized('no token');
    if (value.length > MAX_TOKEN_LENGTH) throw unauthorized('the token is too long');
    const token = BEARER.test(value) ? value.replace(BEARER, '') : value;
    const claims = this.remembered(token);
    if (claims !== null) return withScopes(claims, routeScopes);
    return this.verifyToken(token).then((verified) => withScopes(verified, routeScopes));
  }

  /** The claims of a token verified before, while it is still within its exp and nbf (leeway included); else null. */
  private remembered(token: string): JWTPayload | null {
    const hit = this.verified.get(token);
    if (hit === undefined) return null;
    const now = this.clock.now();
    const leeway = (this.config.leewaySeconds ?? 0) * 1000;
    if (now > hit.until || (typeof hit.claims.nbf === 'number' && now + leeway < hit.claims.nbf * 1000)) {
      // Past its time: verified afresh, which answers why it is refused.
      this.verified.delete(token);
      return null;
    }
    return hit.claims;
  }

  private async verifyToken(token: string): Promise<JWTPayload> {
    let claims: JWTPayload;
    try {
      const verified = await jwtVerify(token, this.key as JWTVerifyGetKey, {
        issuer: this.config.issuer,
        algorithms: this.algorithms,
        clockTolerance: this.config.leewaySeconds ?? 0,
        currentDate: new Date(this.clock.now()),
        requiredClaims: ['exp'],
      });
      claims = verified.payload;
    } catch (err) {
      throw unauthorized(reasonOf(err));
    }
    if (!this.audienceMatches(claims)) throw unauthorized('the token is for another audience');
    const now = this.clock.now();
    // exp is required, so a number here; a token not yet valid (nbf) is verified when it is.
    const until = Math.min((claims.exp as number) * 1000 + (this.config.leewaySeconds ?? 0) * 1000, now + VERIFIED_TTL_MS);
    this.verified.set(token, { claims, until });
    return claims;
  }

  /** As an HTTP API: `aud` (one or a list), or an access token's `client_id`, must be one of the audiences. */
  private audienceMatches(claims: JWTPayload): boolean {
    const aud = claims.aud;
    if (typeof aud === 'string' && this.audience.has(aud)) return true;
    if (Array.isArray(aud) && aud.some((a) => this.audience.has(a))) return true;
    return typeof claims.client_id === 'string' && this.audience.has(claims.client_id);
  }
}

const BEARER = /^bearer\s+/i;

/** The claims with the token's scopes; throws the 403 when the route needs a scope the token lacks. */
function withScopes(claims: JWTPayload, routeScopes: readonly string[] | undefined): JwtResult {
  const scopes = scopesOf(claims);
  if (routeScopes !== undefined && routeScopes.length > 0 && !routeScopes.some((s) => scopes?.includes(s))) {
    throw new PolicyRefusalError('forbidden', 'Forbidden: the token has none of the scopes this route needs', { scopes: routeScopes });
  }
  return { claims, scopes };
}

function scopesOf(claims: JWTPayload): string[] | null {
  const scope = claims.scope ?? claims.scp;
  if (typeof scope === 'string') return scope.split(' ').filter((s) => s !== '');
  if (Array.isArray(scope)) return scope.filter((s): s is string => typeof s === 'string');
  return null;
}

/** jose's codes, worded for the caller without echoing the token. */
function reasonOf(err: unknown): string {
  switch ((err as { code?: string }).code) {
    case 'ERR_JWT_EXPIRED':
      return 'the token has expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return `the token's ${(err as { claim?: string }).claim ?? 'claims'} claim is not accepted`;
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'the signature does not verify';
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'no key matches the token';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return "the token's algorithm is not accepted";
    default:
      return 'the token is not valid';
  }
}
