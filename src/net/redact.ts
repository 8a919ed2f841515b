/**
 * Query-string redaction for what the server logs (SWITCHYARD_LOG_REDACT_QUERY):
 * the values of parameters that carry credentials (`?token=`, `?api_key=`,
 * pre-signed URLs' `X-Amz-Signature`, OAuth's `code`) become `[redacted]`, the
 * names and every other value stay as sent so a line still says what was asked.
 * Hand-written: it is one split over `&` on a logging path, and the rule (a
 * name list, or every value) is ours; no library has that shape.
 */

export interface QueryRedaction {
  /** Every value is redacted (`*`). */
  all: boolean;
  /** Lower-case parameter names whose values are redacted. */
  names: ReadonlySet<string>;
}

export const REDACTED = '[redacted]';

/**
 * The names redacted unless SWITCHYARD_LOG_REDACT_QUERY says otherwise: the
 * parameters that APIs, OAuth, pre-signed URLs and webhook senders put secrets in.
 */
export const DEFAULT_REDACTED_PARAMS: readonly string[] = [
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'auth',
  'authorization',
  'api_key',
  'apikey',
  'api-key',
  'key',
  'secret',
  'client_secret',
  'password',
  'passwd',
  'pwd',
  'signature',
  'sig',
  'code',
  'jwt',
  'session',
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
];

/**
 * `none`: no value redacted; `*`: every value; otherwise a comma-separated list
 * of names (case-insensitive), where `default` stands for DEFAULT_REDACTED_PARAMS
 * (`default,ssn` adds a name to them).
 */
export function parseQueryRedaction(text: string): QueryRedaction {
  const trimmed = text.trim();
  if (trimmed === '*') return Object.freeze({ all: true, names: new Set<string>() });
  if (trimmed.toLowerCase() === 'none') return Object.freeze({ all: false, names: new Set<string>() });
  const names = trimmed
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== '')
    .flatMap((n) => (n === 'default' ? DEFAULT_REDACTED_PARAMS : [n]));
  return Object.freeze({ all: false, names: new Set(names) });
}

export const DEFAULT_QUERY_REDACTION: QueryRedaction = parseQueryRedaction('default');

/** A parameter's name as a client may have escaped it (`api%5Fkey`), lower-cased; as sent when it does not decode. */
function nameOf(raw: string): string {
  if (raw.indexOf('%') === -1 && raw.indexOf('+') === -1) return raw.toLowerCase();
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/** The query text (without `?`) with the values the rule names replaced by `[redacted]`. */
export function redactQuery(query: string, rule: QueryRedaction): string {
  if (query === '' || (!rule.all && rule.names.size === 0)) return query;
  const parts = query.split('&');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (rule.all || rule.names.has(nameOf(part.slice(0, eq)))) parts[i] = `${part.slice(0, eq + 1)}${REDACTED}`;
  }
  return parts.join('&');
}

/** A request target (`/path?query`) or a full URL with its query redacted, and any `user:password@` replaced too. */
export function redactUrl(url: string, rule: QueryRedaction): string {
  let out = url;
  const scheme = out.indexOf('://');
  if (scheme !== -1) {
    const hostStart = scheme + 3;
    const at = out.indexOf('@', hostStart);
    const pathStart = out.slice(hostStart).search(/[/?#]/);
    if (at !== -1 && (pathStart === -1 || at < hostStart + pathStart)) out = `${out.slice(0, hostStart)}${REDACTED}@${out.slice(at + 1)}`;
  }
  const q = out.indexOf('?');
  if (q === -1) return out;
  const hash = out.indexOf('#', q);
  const query = hash === -1 ? out.slice(q + 1) : out.slice(q + 1, hash);
  return `${out.slice(0, q + 1)}${redactQuery(query, rule)}${hash === -1 ? '' : out.slice(hash)}`;
}
