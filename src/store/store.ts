/**
 * The one storage interface. `sqlite/` and `postgres/` implement it;
 * nothing above this file knows which database it talks to. SQL owns integrity:
 * uniqueness of names and route shapes, and references from routes to functions,
 * are constraints in the schema, surfaced as typed errors (ConflictError,
 * UnknownFunctionError) by the implementations.
 */
import type { ChangeFeed } from '../changes.js';
import type { Api, FunctionLogLine, FunctionRecord, Page, Route, RouteMethod } from '../types.js';
import type {
  AttemptOutcome,
  Delivery,
  DeliveryRequest,
  NewDelivery,
  NewWebhook,
  Webhook,
  WebhookPatch,
} from '../webhooks/types.js';

export interface NewRoute {
  method: RouteMethod;
  path: string;
  function: string;
}

export interface NewApi {
  name: string;
  basePath: string;
  routes: NewRoute[];
}

export interface ApiPatch {
  name?: string;
  basePath?: string;
  /** When present, replaces every route of the API. */
  routes?: NewRoute[];
}

export type NewFunction = Omit<FunctionRecord, 'version' | 'createdAt' | 'updatedAt'>;
export type FunctionPatch = Partial<Omit<FunctionRecord, 'name' | 'version' | 'createdAt' | 'updatedAt'>>;

export interface Store extends WebhookStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Change announcements between the processes sharing this database. */
  readonly changeFeed: ChangeFeed;
  /** Cheap round trip, for /readyz. Throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;

  // Functions, keyed by name.
  /** Throws ConflictError('function_exists') on a duplicate name. */
  createFunction(fn: NewFunction): Promise<FunctionRecord>;
  getFunction(name: string): Promise<FunctionRecord | null>;
  /** Ordered by creation, oldest first; `page.after` is a function name. */
  listFunctions(page: Page): Promise<FunctionRecord[]>;
  /** Applies the patch and bumps `version` atomically. Null when the function does not exist. */
  updateFunction(name: string, patch: FunctionPatch): Promise<FunctionRecord | null>;
  /** Throws ConflictError('function_in_use', ..., {routes}) while a route binds it. False when absent. */
  deleteFunction(name: string): Promise<boolean>;
  /** Routes (with their API id) that bind the function. */
  routesUsingFunction(name: string): Promise<Array<Route & { apiId: string }>>;
  appendFunctionLogs(name: string, lines: FunctionLogLine[]): Promise<void>;
  /** Newest last; at most `limit` lines. */
  listFunctionLogs(name: string, limit: number): Promise<FunctionLogLine[]>;
  /** Keeps only the newest `keep` lines per function. */
  pruneFunctionLogs(keep: number): Promise<void>;

  // APIs and their routes. Route order within an API is creation order.
  /**
   * Throws UnknownFunctionError when a route names a missing function and
   * ConflictError('route_conflict') when two routes share method and path shape.
   */
  createApi(api: NewApi): Promise<Api>;
  getApi(id: string): Promise<Api | null>;
  listApis(page: Page): Promise<Api[]>;
  updateApi(id: string, patch: ApiPatch): Promise<Api | null>;
  deleteApi(id: string): Promise<boolean>;
  /** Null when the API does not exist. Same errors as createApi. */
  addRoute(apiId: string, route: NewRoute): Promise<Route | null>;
  deleteRoute(apiId: string, routeId: string): Promise<boolean>;
}

/**
 * Two route paths have the same shape when they differ only in parameter names:
 * `/users/:id` and `/users/:name` -> `/users/:`.
 */
export function routeShape(path: string): string {
  return path
    .split('/')
    .map((seg) => (seg.startsWith(':') ? ':' : seg))
    .join('/');
}

/**
 * Webhooks, deliveries and schedule slots. Claims and leases are single SQL
 * statements (compare-and-set), never in-memory bookkeeping, so several
 * processes on one database never fire a slot twice or send a delivery twice
 * at once.
 */
export interface WebhookStore {
  createWebhook(webhook: NewWebhook): Promise<Webhook>;
  getWebhook(id: string): Promise<Webhook | null>;
  /** Oldest first; `page.after` is a webhook id. */
  listWebhooks(page: Page): Promise<Webhook[]>;
  /** Fields present replace. Null when the webhook does not exist. */
  updateWebhook(id: string, patch: WebhookPatch): Promise<Webhook | null>;
  /** Deletes the webhook and its deliveries (pending retries are cancelled). */
  deleteWebhook(id: string): Promise<boolean>;
  /** Webhooks whose mock endpoint points at the API (an API delete answers 409 while any exist). */
  webhooksUsingApi(apiId: string): Promise<Webhook[]>;
  /**
   * Enabled webhooks subscribed to `event`: listed by name, or by `*` unless
   * the event is an operational `switchyard.*` one.
   */
  webhooksForEvent(event: string): Promise<Webhook[]>;
  /** Enabled webhooks with a cron whose `nextFireAt` <= `now`, oldest slot first. */
  dueWebhooks(now: string, limit: number): Promise<Webhook[]>;
  /** The earliest `nextFireAt` of any enabled webhook, to know how long the scheduler may sleep. */
  nextFireAt(): Promise<string | null>;
  /**
   * Claims one slot atomically: moves `nextFireAt` from `slot` to `next` only if
   * it still equals `slot` (compare-and-set), and inserts the delivery with its
   * unique (webhook, slot). Null when another process claimed it first.
   */
  claimSlot(webhookId: string, slot: string, next: string | null, delivery: NewDelivery): Promise<Delivery | null>;

  createDelivery(delivery: NewDelivery): Promise<Delivery>;
  getDelivery(id: string): Promise<Delivery | null>;
  /** Newest first; `page.after` is a delivery id (older than it). */
  listDeliveries(webhookId: string, page: Page): Promise<Delivery[]>;
  /**
   * Leases up to `limit` pending deliveries due at `now` whose lease is free or
   * expired, to `owner` until `now + leaseMs`. Oldest due first.
   */
  claimDueDeliveries(owner: string, now: string, leaseMs: number, limit: number): Promise<Delivery[]>;
  /**
   * Leases one specific delivery (test-fire, manual retry) if its lease is free
   * or expired, whatever its due time. Null otherwise.
   */
  leaseDelivery(id: string, owner: string, now: string, leaseMs: number): Promise<Delivery | null>;
  /** Keeps the rendered request of a delivery (once, before its first attempt). */
  saveDeliveryRequest(id: string, request: DeliveryRequest): Promise<void>;
  /**
   * Appends an attempt and applies its outcome, and releases the lease, only
   * while `owner` holds it. Null when the lease was lost (or the delivery deleted).
   */
  recordAttempt(id: string, owner: string, outcome: AttemptOutcome): Promise<Delivery | null>;
  /**
   * For a manual retry: makes a finished delivery pending again, due `now`.
   * Null when it does not exist or is already pending.
   */
  reopenDelivery(id: string, now: string): Promise<Delivery | null>;
  /** Releases every lease held by `owner` (graceful shutdown). */
  releaseLeases(owner: string): Promise<void>;
  /** Number of pending deliveries (queue depth metric). */
  countPendingDeliveries(): Promise<number>;
  /** Deletes finished deliveries created before `before`; returns how many. */
  pruneDeliveries(before: string): Promise<number>;
}
