/**
 * Sensitive header values, and credentials written into a target URL, never
 * leave through the API: webhook answers and delivery records show them masked. The store keeps them as given and the
 * target receives them (retries resend the stored bytes); like `secret`, they
 * are write-only.
 *
 * Which headers: by name, `authorization`, `proxy-authorization`, `cookie`,
 * `set-cookie`, and any name containing auth, key, token, secret, pass,
 * signature, session, credential or cookie (x-api-key, x-auth-token,
 * x-webhook-secret, x-hub-signature...): credentials travel under home-made
 * names more often than under standard ones, and masking a harmless header by
 * mistake costs a reader a value, while missing a credential leaks it. By
 * value, whatever the name: one that starts with an HTTP credential scheme
 * (`Bearer x`, `Basic x`, ...).
 */
import { InvalidRequestError } from '../errors.js';

const SENSITIVE_NAMES = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
const SENSITIVE_PARTS = ['auth', 'key', 'token', 'secret', 'pass', 'signature', 'session', 'credential', 'cookie'];
const CREDENTIAL_VALUE = /^\s*(bearer|basic|digest|token|apikey|negotiate)\s+\S/i;

/** What every masked value starts with. */
export const MASK = '***';
/** Values at least this long keep their last 4 characters as a hint of which key is set. */
const HINT_FROM = 24;

export function isSensitiveHeader(name: string, value = ''): boolean {
  const lower = name.toLowerCase();
  return SENSITIVE_NAMES.has(lower) || SENSITIVE_PARTS.some((part) => lower.includes(part)) || CREDENTIAL_VALUE.test(value);
}

/** `***`, or `***` and the last 4 characters of a long value (a quarter or less of a 16+ character secret stays hidden). */
export function maskValue(value: string): string {
  return value.length >= HINT_FROM ? MASK + value.slice(-4) : MASK;
}

/** The headers as the API shows them. */
export function maskHeaders(headers: Record<string, string>): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) shown[name] = isSensitiveHeader(name, value) ? maskValue(value) : value;
  return shown;
}

/**
 * Headers from a create or update body, with every masked value the API
 * showed for a stored header (same name, any case) put back to the stored
 * value, so a webhook read, edited and sent back keeps its credentials. A
 * sensitive header whose value looks masked but matches nothing stored is
 * refused: storing `***` as a credential would only fail at the target.
 */
export function unmaskHeaders(given: Record<string, string>, stored: Record<string, string> = {}): Record<string, string> {
  const storedByName = new Map(Object.entries(stored).map(([name, value]) => [name.toLowerCase(), value]));
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (!value.startsWith(MASK)) {
      result[name] = value;
      continue;
    }
    const kept = storedByName.get(name.toLowerCase());
    if (kept !== undefined && isSensitiveHeader(name, kept) && maskValue(kept) === value) {
      result[name] = kept;
    } else if (isSensitiveHeader(name, value)) {
      throw new InvalidRequestError(
        `headers: the value of '${name}' is masked (${MASK}...) and matches no stored value; send the real value, ` +
          'or the masked value as shown to keep the stored one',
        { field: 'headers' },
      );
    } else {
      result[name] = value;
    }
  }
  return result;
}

/**
 * Credentials in a target URL are masked like header values: the user name
 * and password of its userinfo (`https://sk_live_x:@api.example` puts the key
 * in the user name), and the values of query parameters named like a
 * credential (the header names' rule, plus `sig` and `code`, which SAS URLs
 * and Azure Functions use for their keys). Everything else of the URL is kept
 * byte for byte, so a URL without credentials is shown exactly as stored.
 * Keys written into the path (some chat webhooks do) cannot be told from a
 * path and stay visible.
 */
const SENSITIVE_PARAMS = new Set(['sig', 'code']);
const URL_AUTHORITY = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i;

function isSensitiveParam(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    /* a malformed escape: judge the name as written */
  }
  const lower = decoded.toLowerCase();
  return SENSITIVE_PARAMS.has(lower) || SENSITIVE_PARTS.some((part) => lower.includes(part));
}

/** The URL with `map` applied to each credential in it (userinfo parts, sensitive query values); the rest untouched. */
function mapUrlCredentials(url: string, map: (value: string) => string): string {
  const m = URL_AUTHORITY.exec(url);
  if (!m) return url;
  let out = m[1];
  const authority = m[2];
  const at = authority.lastIndexOf('@');
  if (at === -1) out += authority;
  else {
    const userinfo = authority.slice(0, at);
    const colon = userinfo.indexOf(':');
    const part = (value: string) => (value === '' ? '' : map(value));
    out += (colon === -1 ? part(userinfo) : `${part(userinfo.slice(0, colon))}:${part(userinfo.slice(colon + 1))}`) + authority.slice(at);
  }
  const rest = url.slice(m[0].length);
  const q = rest.indexOf('?');
  if (q === -1) return out + rest;
  const hash = rest.indexOf('#', q);
  const query = hash === -1 ? rest.slice(q + 1) : rest.slice(q + 1, hash);
  const pairs = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq === -1 || eq === pair.length - 1 || !isSensitiveParam(pair.slice(0, eq))) return pair;
    return pair.slice(0, eq + 1) + map(pair.slice(eq + 1));
  });
  return out + rest.slice(0, q + 1) + pairs.join('&') + (hash === -1 ? '' : rest.slice(hash));
}

/** The URL as the API shows it: credentials masked (`https://***:***@host/?token=***`). */
export function maskUrl(url: string): string {
  return mapUrlCredentials(url, maskValue);
}

/**
 * A target URL from a create or update body: the masked URL the API showed
 * for the stored one stands for the stored one (a webhook read, edited and
 * sent back keeps its credentials). Any other URL with a masked credential is
 * refused, as a masked header value is.
 */
export function unmaskUrl(given: string, stored?: string): string {
  if (stored !== undefined && given !== stored && given === maskUrl(stored)) return stored;
  if (hasMaskedCredential(given)) {
    throw new InvalidRequestError(
      `target_url: a credential in it is masked (${MASK}) and matches no stored value; send the real URL, ` +
        'or the URL exactly as shown to keep the stored one',
      { field: 'target_url' },
    );
  }
  return given;
}

/** Whether a credential of the URL reads as masked (`***`): a URL as the API shows it, not a real one. */
export function hasMaskedCredential(url: string): boolean {
  let masked = false;
  mapUrlCredentials(url, (value) => {
    if (value.startsWith(MASK) || value.startsWith(encodeURIComponent(MASK))) masked = true;
    return value;
  });
  return masked;
}
