/**
 * The types a route's policy checks share (./guards.ts runs them): what a
 * check sees, what it grants, and what it needs. Apart from guards.ts so that
 * each feature's compiler can import them while guards.ts imports the
 * compilers, without a cycle.
 */
import type { Clock } from '../../clock.js';
import type { FunctionRuntime } from '../../runtime/types.js';
import type { Api, ConsoleLineSink, FunctionRecord, Route } from '../../types.js';
import type { AwsEventMatch } from '../aws-event-common.js';
import type { RequestFacts } from '../event.js';
import type { ApiKeyDeps } from './api-keys.js';
import type { Throttles } from './throttle.js';

/** What an authorizer admitted the request with. */
export type AuthorizerGrant =
  | { kind: 'jwt'; claims: Record<string, unknown>; scopes: string[] | null }
  | {
      kind: 'function';
      /** The IAM policy answer's principalId (null for simple answers). */
      principalId: string | null;
      /** The answer's `context`: string, number and boolean values. */
      context: Record<string, string | number | boolean>;
      /** Milliseconds the authorizer function ran (0 for a cached answer), v1's `integrationLatency`. */
      latencyMs: number;
    };

/** What the checks admitted the request with, for the function's event. */
export interface PolicyGrant {
  /** What the route's authorizer passes on; the event builders place it as AWS does (./authorizer-event.ts). */
  authorizer?: AuthorizerGrant;
  /** The id of the API key the request was admitted with (`requestContext.identity.apiKey` / usage counting). */
  apiKeyId?: string;
  /** The key as the caller sent it (aws-v1 `requestContext.identity.apiKey`, as API Gateway passes it). */
  apiKey?: string;
  /** The JSON body as request validation parsed it (`switchyard` events reuse it instead of parsing it again). */
  parsedBody?: { value: unknown };
}

/** The matched request a check sees. */
export interface PolicyRequest {
  req: RequestFacts;
  route: Route;
  /** basePath + the route's template, as written (`/shop/items/:id`): the refusal metric's label. */
  resource: string;
  /** The match as the AWS event formats read it (function authorizers build AWS's authorizer events from it). */
  match: AwsEventMatch;
}

export interface RouteGuard {
  /** Throws PolicyRefusalError to refuse; otherwise may add to `grant`. */
  check(request: PolicyRequest, grant: PolicyGrant): void | Promise<void>;
}

/**
 * What checks need beyond the API (the store for keys and shared counters, the
 * runtime for authorizer functions, a clock), given by the gateway's owner.
 * Each policy feature adds its optional fields.
 */
export interface PolicyDeps {
  /** The time tokens' exp and nbf and cached answers are judged by; default the system clock. */
  clock?: Clock;
  /** SWITCHYARD_ALLOW_PRIVATE_TARGETS: a JWKS URL may be on a private address. */
  allowPrivateTargets?: boolean;
  /** Runs function authorizers (the Gateway fills it with its own). */
  runtime?: FunctionRuntime;
  /** A function's record by name, cached as the gateway caches it (the Gateway fills it). */
  functions?: (name: string) => Promise<FunctionRecord | null>;
  /** Where an authorizer function's console lines go (the Gateway fills it). */
  logSink?: ConsoleLineSink;
  /** The shared token buckets (./throttle.ts); absent: throttles are not enforced (tests of other features). */
  throttles?: Throttles;
  /** API keys and their usage plans (./api-keys.ts); absent: `apiKeyRequired` is not enforced (tests of other features). */
  apiKeys?: ApiKeyDeps;
}

/** Builds one feature's check for a route, or null when the API and route leave that feature off. */
export type GuardCompiler = (api: Api, route: Route, deps: PolicyDeps) => RouteGuard | null;

