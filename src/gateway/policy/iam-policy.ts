/**
 * The IAM policy a function authorizer answers with, judged as API Gateway
 * judges it for `execute-api:Invoke`: statements whose Action and Resource
 * match the request's method ARN (IAM's wildcards: `*` any run of characters,
 * `?` one), an explicit Deny over any Allow, and no matching Allow a deny.
 * The ARN is made up the way AWS makes it, from the placeholders the events
 * use: `arn:aws:execute-api:us-east-1:123456789012:<apiId>/$default/<METHOD>/<path>`.
 * By hand: no library judges IAM policies offline, and this is the small part of it API Gateway uses.
 */
import { AWS_ACCOUNT_ID, AWS_REGION } from '../../aws-placeholders.js';
import { AWS_STAGE } from '../aws-event-common.js';

/** `methodArn` (1.0) / `routeArn` (2.0) of a request: the path as sent, without its leading slash. */
export function methodArn(apiId: string, method: string, path: string): string {
  return `arn:aws:execute-api:${AWS_REGION}:${AWS_ACCOUNT_ID}:${apiId}/${AWS_STAGE}/${method}/${path.startsWith('/') ? path.slice(1) : path}`;
}

const patterns = new Map<string, RegExp>();

/** IAM's wildcard match: `*` any run of characters (none included), `?` exactly one; case-sensitive unless `ignoreCase`. */
export function wildcardMatch(pattern: string, value: string, ignoreCase = false): boolean {
  if (pattern === '*') return true;
  const key = (ignoreCase ? 'i' : 's') + pattern;
  let re = patterns.get(key);
  if (re === undefined) {
    const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
    re = new RegExp(`^${source}$`, ignoreCase ? 'si' : 's');
    // Policies come from functions: keep the compiled patterns bounded.
    if (patterns.size > 1000) patterns.clear();
    patterns.set(key, re);
  }
  return re.test(value);
}

export interface PolicyStatement {
  Effect: string;
  Action?: string | string[];
  Resource?: string | string[];
}

export type PolicyVerdict = 'allow' | 'deny';

const listOf = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Whether the statements let `arn` be invoked. */
export function judgePolicy(statements: readonly PolicyStatement[], arn: string): PolicyVerdict {
  let allowed = false;
  for (const statement of statements) {
    const acts = listOf(statement.Action).some((a) => wildcardMatch(a, 'execute-api:Invoke', true));
    if (!acts || !listOf(statement.Resource).some((r) => wildcardMatch(r, arn))) continue;
    if (statement.Effect === 'Deny') return 'deny';
    if (statement.Effect === 'Allow') allowed = true;
  }
  return allowed ? 'allow' : 'deny';
}

/** The statements of a policy document as functions write them (one statement or a list); null when it is not one. */
export function statementsOf(document: unknown): PolicyStatement[] | null {
  if (document === null || typeof document !== 'object') return null;
  const raw = (document as { Statement?: unknown }).Statement;
  const list = Array.isArray(raw) ? raw : raw !== undefined ? [raw] : null;
  if (list === null) return null;
  const out: PolicyStatement[] = [];
  for (const s of list) {
    if (s === null || typeof s !== 'object') return null;
    const { Effect, Action, Resource } = s as Record<string, unknown>;
    if (Effect !== 'Allow' && Effect !== 'Deny') return null;
    if (!isStrings(Action) || !isStrings(Resource)) return null;
    out.push({ Effect, Action, Resource });
  }
  return out;
}

function isStrings(v: unknown): v is string | string[] | undefined {
  return v === undefined || typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string'));
}
