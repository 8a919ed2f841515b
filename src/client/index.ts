/**
 * Typed client of the Switchyard management API, for applications, scripts,
 * tests, the CLI and the dashboard; published on its own as
 * `@switchyard-gateway/client` (packages/client/, openapi-fetch and
 * eventsource-parser its only dependencies) and inside the server package as
 * `switchyard-gateway/client`.
 *
 *   const client = createClient({ baseUrl: 'http://127.0.0.1:3000', adminKey });
 *   const fn = await client.functions.create({ name: 'hello', code });      // Schemas['Function']
 *   const plan = await client.functions.update.plan('hello', { code });    // what it would change
 *   for await (const f of client.functions.list()) console.log(f.name);    // every page
 *
 * Failures are thrown: SwitchyardApiError, whose `code` is the union of the
 * documented codes. The same object is also openapi-fetch's client over the
 * types openapi-typescript generates from the OpenAPI document at build time
 * (`client.GET('/api/functions/{name}', ...)` answers `{ data, error, response }`),
 * for any operation the resources do not name and for middleware (`client.use`).
 */
import createFetchClient, { type Client } from 'openapi-fetch';
import { resources, type Resources } from './resources.js';
import type { components, paths } from './schema.js';

export type { components, operations, paths } from './schema.js';
export {
  followDeliveries,
  followLogs,
  type AttemptStreamEvent,
  type FollowCommon,
  type FollowDeliveriesOptions,
  type FollowLogsOptions,
  type StreamEvent,
} from './events.js';
export { StreamRefusedError, SwitchyardApiError, UnexpectedAnswerError, type ErrorBody, type ErrorCode } from './errors.js';
export {
  nextPageAfter,
  type ApiInput,
  type ApiUpdate,
  type DryRun,
  type EventInput,
  type FilterTestInput,
  type TransformationTestInput,
  type FunctionInput,
  type FunctionUpdate,
  type CallOptions,
  type PageQuery,
  type Paged,
  type Resources,
  type RouteInput,
  type WebhookInput,
  type WebhookUpdate,
  type Write,
} from './resources.js';

/** The named shapes of the API (`Schemas['Function']`, `Schemas['Delivery']`, ...). */
export type Schemas = components['schemas'];
/** The resources (`client.functions`, ...) on top of openapi-fetch's typed client (`client.GET(...)`). */
export type SwitchyardClient = Client<paths> & Resources;

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
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  const http = createFetchClient<paths>({ baseUrl, headers: clientHeaders(opts), ...(opts.fetch ? { fetch: opts.fetch } : {}) });
  const stream = { baseUrl, adminKey: opts.adminKey, headers: opts.headers, fetch: opts.fetch };
  return Object.assign(http, resources({ http, stream }));
}
