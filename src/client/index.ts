/**
 * Typed client of the Switchyard management API, for scripts, tests and the
 * CLI: `createClient({ baseUrl, adminKey })` gives openapi-fetch's client over
 * the types openapi-typescript generates from the OpenAPI document at build
 * time (src/client/schema.d.ts), so paths, parameters, bodies and answers are
 * checked by the compiler and follow the server without hand-written code.
 *
 *   const client = createClient({ baseUrl: 'http://127.0.0.1:3000', adminKey });
 *   const { data, error } = await client.POST('/api/functions', { body: { name: 'hello', code } });
 *
 * `followLogs` and `followDeliveries` read the event streams (server-sent events), which a
 * request/response client cannot.
 */
import createFetchClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, operations, paths } from './schema.js';
export { followDeliveries, followLogs, type AttemptStreamEvent, type FollowDeliveriesOptions, type FollowLogsOptions, type StreamEvent } from './events.js';

/** The named shapes of the API (`Schemas['Function']`, `Schemas['Delivery']`, ...). */
export type Schemas = components['schemas'];
export type SwitchyardClient = Client<paths>;

export interface ClientOptions {
  /** Where the server is, e.g. `http://127.0.0.1:3000` (a trailing slash is fine). */
  baseUrl: string;
  /** SWITCHYARD_ADMIN_KEY of the server; sent as `Authorization: Bearer <key>`. */
  adminKey?: string | null;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** A fetch to use instead of the global one. */
  fetch?: (input: Request) => Promise<Response>;
}

/** Authorization and other headers every request carries. */
export function clientHeaders(opts: Pick<ClientOptions, 'adminKey' | 'headers'>): Record<string, string> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.adminKey) headers.authorization = `Bearer ${opts.adminKey}`;
  return headers;
}

export function createClient(opts: ClientOptions): SwitchyardClient {
  return createFetchClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    headers: clientHeaders(opts),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
}

/**
 * Where the next page of a list starts: the `after` of the answer's
 * `Link: <...>; rel="next"` header, or undefined on the last page.
 */
export function nextPageAfter(response: Response): string | undefined {
  const next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  return next ? (new URL(next, 'http://switchyard.invalid').searchParams.get('after') ?? undefined) : undefined;
}
