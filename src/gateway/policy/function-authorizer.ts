/**
 * A function authorizer (a Lambda authorizer) as the gateway runs it: the
 * identity sources read (any missing: 401 without running anything), a cached
 * answer for the same identity if one is fresh, else the function run with
 * API Gateway's authorizer event field by field:
 *  - 1.0 TOKEN: `{type, authorizationToken, methodArn}`;
 *  - 1.0 REQUEST: the REST proxy event's request fields with `type` and `methodArn`;
 *  - 2.0 REQUEST: the 2.0 event's request fields with `version`, `type`, `routeArn`, `identitySource`.
 * Its answer: an IAM policy judged against the request's ARN (./iam-policy.ts;
 * a cached policy is judged again for each request, as AWS does), or with
 * simple responses `{isAuthorized, context}`. `Unauthorized` thrown (or passed
 * to the callback) is a 401, a denial a 403, any other failure or an answer of
 * the wrong shape a 500 (`authorizer_failed`), and the function's own logs
 * tell why.
 */
import { AuthorizerFailedError, PolicyRefusalError } from '../../errors.js';
import type { Clock } from '../../clock.js';
import type { FunctionAuthorizer } from '../../types.js';
import { buildAwsV1Event } from '../aws-event-v1.js';
import { buildAwsV2Event } from '../aws-event-v2.js';
import { parseIdentitySource, type IdentitySource } from './authorizer-config.js';
import { BoundedMap } from './bounded-map.js';
import type { AuthorizerGrant, PolicyDeps, PolicyRequest } from './guard-types.js';
import { judgePolicy, methodArn, statementsOf, type PolicyStatement } from './iam-policy.js';

/** Answers kept per authorizer: beyond this many identities the oldest go. */
const MAX_CACHED_ANSWERS = 10_000;
/** A context value API Gateway passes on: a string, number or boolean. */
type ContextValue = string | number | boolean;

/** An authorizer function's answer, as kept in the cache. */
interface Answer {
  principalId: string | null;
  /** The policy's statements; null for a simple answer. */
  statements: PolicyStatement[] | null;
  /** A simple answer's verdict. */
  isAuthorized: boolean;
  context: Record<string, ContextValue>;
}

interface Cached {
  answer: Answer;
  expires: number;
  /**
   * The policy's verdict per ARN judged so far: judging is a pure function of
   * the statements and the ARN, and the same caller mostly calls the same
   * routes, so a kept answer is judged once per ARN, not once per request.
   */
  verdicts: Map<string, boolean>;
}

/** ARNs whose verdict one kept answer remembers; past it, it starts over. */
const MAX_VERDICTS = 64;

export type FunctionAuthorizerDeps = Required<Pick<PolicyDeps, 'runtime' | 'functions' | 'logSink'>> & { clock: Clock };

function unauthorized(): PolicyRefusalError {
  return new PolicyRefusalError('unauthorized', 'Unauthorized');
}

/** `Unauthorized` thrown or given to the callback, as the samples do (the runtime may add the error's name and position). */
const UNAUTHORIZED = /^(?:Error: )?Unauthorized(?: \(.*\))?$/;

export class FunctionAuthorizerCheck {
  private readonly sources: IdentitySource[];
  private readonly cache = new BoundedMap<Cached>(MAX_CACHED_ANSWERS);
  private readonly ttlMs: number;

  constructor(
    private readonly config: FunctionAuthorizer,
    private readonly deps: FunctionAuthorizerDeps,
  ) {
    this.sources = config.identitySources.map((s) => parseIdentitySource(s)!);
    this.ttlMs = config.resultTtlSeconds * 1000;
  }

  /** The grant, or throws the refusal; at once (no promise) for an identity whose answer is kept. */
  check(request: PolicyRequest, identityValue: (source: IdentitySource) => string | undefined): AuthorizerGrant | Promise<AuthorizerGrant> {
    const values: string[] = [];
    for (const source of this.sources) {
      const value = identityValue(source);
      if (value === undefined || value === '') throw unauthorized();
      values.push(value);
    }
    const { req } = request;
    const arn = methodArn(req.apiId, req.method, req.path === '' ? '/' : req.path);
    const key = values.length === 1 ? values[0]! : values.join('\u0000');
    const now = this.deps.clock.now();
    const hit = this.ttlMs > 0 ? this.cache.get(key) : undefined;
    if (hit !== undefined && hit.expires > now) return grantOf(hit.answer, allowedBy(hit, arn), 0);
    const started = performance.now();
    return this.run(request, arn, values).then((answer) => {
      const latencyMs = Math.round(performance.now() - started);
      if (this.ttlMs === 0) return grantOf(answer, judged(answer, arn), latencyMs);
      const kept: Cached = { answer, expires: now + this.ttlMs, verdicts: new Map() };
      this.cache.set(key, kept);
      return grantOf(answer, allowedBy(kept, arn), latencyMs);
    });
  }

  private async run(request: PolicyRequest, arn: string, values: string[]): Promise<Answer> {
    const { config } = this;
    const fn = await this.deps.functions(config.function);
    if (fn === null) throw new AuthorizerFailedError(`authorizer '${config.name}': function '${config.function}' does not exist`);
    const event = this.eventOf(request, arn, values);
    const outcome = await this.deps.runtime.invoke(fn, JSON.stringify(event), request.req.requestId);
    const requestId = request.req.requestId;
    if (this.deps.logSink.runLines === true) {
      this.deps.logSink.push(fn.name, outcome.logs, fn.version, { requestId, durationMs: outcome.durationMs, memoryMb: fn.memoryMb, stats: outcome.stats });
    } else if (outcome.logs.length > 0) this.deps.logSink.push(fn.name, outcome.logs, fn.version);
    if (!outcome.ok) {
      if (UNAUTHORIZED.test(outcome.error.message)) throw unauthorized();
      throw new AuthorizerFailedError(`authorizer '${config.name}' failed (${outcome.error.code}); see the logs of '${fn.name}' under request ${request.req.requestId}`);
    }
    const answer = this.answerOf(outcome.result);
    if (answer === null) {
      throw new AuthorizerFailedError(`authorizer '${config.name}': '${fn.name}' answered something that is not an authorizer answer`);
    }
    return answer;
  }

  private eventOf(request: PolicyRequest, arn: string, values: string[]): object {
    const { config } = this;
    if (config.payloadFormatVersion === '1.0' && config.kind === 'TOKEN') {
      return { type: 'TOKEN', authorizationToken: values[0], methodArn: arn };
    }
    if (config.payloadFormatVersion === '1.0') {
      const { body: _body, isBase64Encoded: _b64, ...fields } = buildAwsV1Event(request.req, request.match);
      return { type: 'REQUEST', methodArn: arn, ...fields };
    }
    const { body: _body, isBase64Encoded: _b64, version, ...fields } = buildAwsV2Event(request.req, request.match);
    return { version, type: 'REQUEST', routeArn: arn, identitySource: values, ...fields };
  }

  /** The answer's fields as API Gateway reads them; null when the shape is not one it takes. */
  private answerOf(result: unknown): Answer | null {
    if (result === null || typeof result !== 'object' || Array.isArray(result)) return null;
    const r = result as Record<string, unknown>;
    const context = contextOf(r.context);
    if (context === null) return null;
    const principalId = typeof r.principalId === 'string' ? r.principalId : r.principalId === undefined ? null : String(r.principalId);
    if (this.config.enableSimpleResponses) {
      if (typeof r.isAuthorized !== 'boolean') return null;
      return { principalId, statements: null, isAuthorized: r.isAuthorized, context };
    }
    const statements = statementsOf(r.policyDocument);
    if (statements === null) return null;
    return { principalId, statements, isAuthorized: false, context };
  }
}

/** Whether an answer admits a request for `arn`: a simple answer's verdict, or its policy judged for the ARN. */
function judged(answer: Answer, arn: string): boolean {
  return answer.statements === null ? answer.isAuthorized : judgePolicy(answer.statements, arn) === 'allow';
}

/** judged() of a kept answer, remembered per ARN. */
function allowedBy(kept: Cached, arn: string): boolean {
  let allowed = kept.verdicts.get(arn);
  if (allowed === undefined) {
    allowed = judged(kept.answer, arn);
    if (kept.verdicts.size >= MAX_VERDICTS) kept.verdicts.clear();
    kept.verdicts.set(arn, allowed);
  }
  return allowed;
}

function grantOf(answer: Answer, allowed: boolean, latencyMs: number): AuthorizerGrant {
  if (!allowed) throw new PolicyRefusalError('forbidden', 'Forbidden');
  return { kind: 'function', principalId: answer.principalId, context: answer.context, latencyMs };
}

/** `context` may hold strings, numbers and booleans only (API Gateway refuses others). */
function contextOf(value: unknown): Record<string, ContextValue> | null {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) return null;
  const out: Record<string, ContextValue> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return null;
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
