/**
 * The authorizer check of a route: the route's authorizer (or the API's
 * default, unless the route says NONE) compiled into a guard. The checks
 * themselves (a JWT's keys, a function authorizer's answers) are kept per
 * gateway and per API and authorizer across recompiles, so a change to any
 * route of an API does not drop a fetched key set or cached answers; a changed
 * authorizer (another fingerprint) gets fresh ones.
 */
import type { Agent } from 'undici';
import { systemClock } from '../../clock.js';
import { PolicyRefusalError } from '../../errors.js';
import { createGuardedAgent } from '../../net/ssrf.js';
import { NO_AUTHORIZER, type Api, type Authorizer, type Route } from '../../types.js';
import { parseQuery, type RequestFacts } from '../event.js';
import { parseIdentitySource, type IdentitySource } from './authorizer-config.js';
import { BoundedMap } from './bounded-map.js';
import type { AuthorizerGrant, GuardCompiler, PolicyDeps, PolicyGrant, RouteGuard } from './guard-types.js';
import { FunctionAuthorizerCheck } from './function-authorizer.js';
import { JwtCheck, type JwtResult } from './jwt.js';

/** The value of an identity source in a request; undefined when the request has none. */
export function identityValue(source: IdentitySource, req: RequestFacts): string | undefined {
  if (source.in === 'querystring') {
    const query = req.rawQuery === '' ? null : parseQuery(req.rawQuery);
    return query === null || !Object.hasOwn(query.single, source.name) ? undefined : query.single[source.name];
  }
  const lower = source.name.toLowerCase();
  const raw = req.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i].length === lower.length && raw[i].toLowerCase() === lower) value = value === undefined ? raw[i + 1] : `${value},${raw[i + 1]}`;
  }
  return value;
}

/** A check built for one authorizer of one API, kept while the authorizer stays as it is. */
interface Kept {
  fingerprint: string;
  check: JwtCheck | FunctionAuthorizerCheck;
}

/** What one gateway keeps of its APIs' authorizers. */
class AuthorizerChecks {
  private readonly kept = new BoundedMap<Kept>(10_000);
  private agent: Agent | null = null;

  constructor(private readonly deps: PolicyDeps) {}

  /** The check of that authorizer of that API: the kept one while the authorizer is unchanged. */
  checkFor(api: Api, config: Authorizer): JwtCheck | FunctionAuthorizerCheck {
    const key = `${api.id}\u0000${config.name}`;
    const fingerprint = JSON.stringify(config);
    const hit = this.kept.get(key);
    if (hit !== undefined && hit.fingerprint === fingerprint) return hit.check;
    const clock = this.deps.clock ?? systemClock;
    let check: JwtCheck | FunctionAuthorizerCheck;
    if (config.type === 'jwt') check = new JwtCheck(config, { clock, dispatcher: this.dispatcher() });
    else {
      const { runtime, functions, logSink } = this.deps;
      if (runtime === undefined || functions === undefined || logSink === undefined) throw new Error('function authorizers need the gateway runtime');
      check = new FunctionAuthorizerCheck(config, { clock, runtime, functions, logSink });
    }
    this.kept.set(key, { fingerprint, check });
    return check;
  }

  /** One agent per gateway for every JWKS fetch, made on the first one. */
  private dispatcher(): Agent {
    return (this.agent ??= createGuardedAgent({ allowPrivate: this.deps.allowPrivateTargets ?? false }));
  }
}

const perGateway = new WeakMap<PolicyDeps, AuthorizerChecks>();

function checksFor(deps: PolicyDeps): AuthorizerChecks {
  let checks = perGateway.get(deps);
  if (checks === undefined) perGateway.set(deps, (checks = new AuthorizerChecks(deps)));
  return checks;
}

/** A route whose authorizer cannot be built (not stored as checked): refused, never let through. */
function refuseAll(why: string): RouteGuard {
  return {
    check() {
      throw new PolicyRefusalError('unauthorized', `Unauthorized: ${why}`);
    },
  };
}

export const compileAuthorizer: GuardCompiler = (api: Api, route: Route, deps: PolicyDeps) => {
  const name = route.authorizer ?? api.defaultAuthorizer;
  if (name === null || name === NO_AUTHORIZER) return null;
  const config = api.authorizers.find((a) => a.name === name);
  if (config === undefined) return refuseAll(`the API has no authorizer named '${name}'`);
  if (config.type === 'jwt') {
    const source = parseIdentitySource(config.identitySource ?? '$request.header.Authorization');
    if (source === null) return refuseAll(`authorizer '${name}' reads an identity source this gateway cannot read`);
    const check = checksFor(deps).checkFor(api, config) as JwtCheck;
    const scopes = route.authorizationScopes;
    const admit = (grant: PolicyGrant, { claims, scopes: tokenScopes }: JwtResult): void => {
      grant.authorizer = { kind: 'jwt', claims: claims as Record<string, unknown>, scopes: tokenScopes };
    };
    return {
      // Without a promise for a token this process verified before (jwt.ts).
      check(request, grant) {
        const verified = check.verify(identityValue(source, request.req), scopes);
        return verified instanceof Promise ? verified.then((result) => admit(grant, result)) : admit(grant, verified);
      },
    };
  }
  const sources = config.identitySources.map(parseIdentitySource);
  if (sources.includes(null)) return refuseAll(`authorizer '${name}' reads an identity source this gateway cannot read`);
  const check = checksFor(deps).checkFor(api, config) as FunctionAuthorizerCheck;
  const admit = (grant: PolicyGrant, authorizer: AuthorizerGrant): void => {
    grant.authorizer = authorizer;
  };
  return {
    // Without a promise for an identity whose answer is kept (function-authorizer.ts).
    check(request, grant) {
      const granted = check.check(request, (source) => identityValue(source, request.req));
      return granted instanceof Promise ? granted.then((result) => admit(grant, result)) : admit(grant, granted);
    },
  };
};
