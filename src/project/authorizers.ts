/**
 * An API's `authorizers` as the project file writes them (snake_case) and as
 * the API takes and answers them (camelCase, src/schema/apis.ts `Authorizer`).
 * The project holds the API's form with the server's defaults filled, so a
 * plan compares it with the server's answer as is; a JWT secret compares as
 * the mask the server answers (a changed secret alone is not seen by a plan).
 */
import { authorizersOf } from '../gateway/policy/authorizer-config.js';
import { InvalidRequestError } from '../errors.js';
import { SECRET_MASK, type AuthorizerInput } from '../schema/apis.js';
import type { Authorizer } from '../types.js';
import type { FileAuthorizer } from './types.js';

/** One authorizer as the file writes it (src/project/types.ts, where the document type can name it too). */
export type { FileAuthorizer };

/** File key -> API key, in the API's order. */
const KEYS: [keyof FileAuthorizer, keyof AuthorizerInput][] = [
  ['name', 'name'],
  ['type', 'type'],
  ['issuer', 'issuer'],
  ['audience', 'audience'],
  ['jwks_url', 'jwksUrl'],
  ['keys', 'keys'],
  ['secret', 'secret'],
  ['algorithms', 'algorithms'],
  ['identity_source', 'identitySource'],
  ['leeway_seconds', 'leewaySeconds'],
  ['function', 'function'],
  ['payload_format_version', 'payloadFormatVersion'],
  ['kind', 'kind'],
  ['identity_sources', 'identitySources'],
  ['result_ttl_seconds', 'resultTtlSeconds'],
  ['enable_simple_responses', 'enableSimpleResponses'],
];

/**
 * The file's authorizers in the API's form with the server's defaults filled;
 * a problem the server would refuse comes back as `problem` (`index`, file key).
 */
export function authorizersFromFile(raw: FileAuthorizer[]): { authorizers: Authorizer[]; problem: { index: number; key: string; message: string } | null } {
  const input = raw.map((a) => {
    const out: Record<string, unknown> = {};
    for (const [file, api] of KEYS) if (a[file] !== undefined) out[api] = a[file];
    return out as AuthorizerInput;
  });
  try {
    // Private targets allowed here: the server judges the JWKS URL by its own setting.
    return { authorizers: authorizersOf(input, [], { allowPrivateTargets: true }), problem: null };
  } catch (err) {
    if (!(err instanceof InvalidRequestError)) throw err;
    const field = String((err.details as { field?: string } | undefined)?.field ?? '');
    const m = /^authorizers\[(\d+)\]\.?([A-Za-z]*)/.exec(field);
    const apiKey = m?.[2] ?? '';
    const fileKey = KEYS.find(([, k]) => k === apiKey)?.[0] ?? '';
    return { authorizers: [], problem: { index: Number(m?.[1] ?? 0), key: fileKey, message: err.message.replace(/^[^:]*: /, '') } };
  }
}

/** The API's authorizers as the file writes them; a secret (masked by the server) becomes `secret(name)`, an `${env:}` placeholder. */
export function authorizersToFile(authorizers: readonly Authorizer[], secret: (name: string) => string): FileAuthorizer[] {
  return authorizers.map((a) => {
    const out: Record<string, unknown> = {};
    const given = a as unknown as Record<string, unknown>;
    for (const [file, api] of KEYS) if (given[api] !== undefined) out[file] = api === 'secret' ? secret(a.name) : given[api];
    return out as unknown as FileAuthorizer;
  });
}

/** What the server answers for these authorizers: secrets masked. */
export function maskedAuthorizers(authorizers: readonly Authorizer[]): Authorizer[] {
  return authorizers.map((a) => (a.type === 'jwt' && a.secret !== undefined ? { ...a, secret: SECRET_MASK } : a));
}
