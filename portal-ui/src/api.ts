/**
 * The portal's one way to the server: openapi-fetch over the generated types
 * (src/client/schema.d.ts), against the consumer API only, with
 * `Authorization: Bearer <portal token>`. The token arrives in the URL's
 * fragment (never sent to a server, never in a Referer); it is read once,
 * kept in memory and in this tab's sessionStorage (so a reload keeps the
 * session), and the fragment is removed from the address at once.
 */
import createFetchClient from 'openapi-fetch';
import type { paths, Schemas } from '../../src/client/index.js';

export type Webhook = Schemas['PortalEndpoint'];
export type Delivery = Schemas['PortalDelivery'];
export type DeliveryDetail = Schemas['PortalDeliveryDetail'];
export type EventType = Schemas['EventType'];
export type Session = Schemas['PortalSession'];

/** The application the page is for: its path is /portal/<application id>. */
export const applicationId = decodeURIComponent(location.pathname.replace(/^\/portal\//, '').replace(/\/.*$/, ''));
const ITEM = `switchyard.portalToken.${applicationId}`;

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    // A framed page whose parent's browser blocks third-party storage: memory only.
    return null;
  }
}

/** Takes the token from the fragment (then drops the fragment) or from this tab's earlier visit. */
function takeToken(): string | null {
  const match = /(?:^|&)token=([^&]+)/.exec(location.hash.slice(1));
  if (match) {
    const token = decodeURIComponent(match[1]!);
    storage()?.setItem(ITEM, token);
    history.replaceState(null, '', location.pathname);
    return token;
  }
  return storage()?.getItem(ITEM) ?? null;
}

let token = takeToken();

export const hasToken = () => token !== null;

export function forgetToken(): void {
  token = null;
  storage()?.removeItem(ITEM);
}

/** Called once the server refuses the token (expired, revoked, or its application deleted): the page then says so instead of its view. */
let onTokenRefused: () => void = () => undefined;
export const whenTokenRefused = (fn: () => void) => {
  onTokenRefused = fn;
};

export const client = createFetchClient<paths>({ baseUrl: location.origin });
client.use({
  onRequest({ request }) {
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
});

export class PortalError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The answer's data, or a PortalError with the API's code and message. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result;
  try {
    result = await call;
  } catch {
    throw new PortalError('network_error', 'Could not reach the server.', 0);
  }
  if (result.error !== undefined || result.data === undefined) {
    const e = (result.error ?? {}) as { code?: string; message?: string };
    if (result.response.status === 401) {
      forgetToken();
      onTokenRefused();
    }
    throw new PortalError(e.code ?? 'http_error', e.message ?? `The server answered ${result.response.status}.`, result.response.status);
  }
  return result.data;
}
