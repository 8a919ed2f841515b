/**
 * Sensitive header values never leave through the API: webhook answers and
 * delivery records show them masked. The store keeps them as given and the
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
