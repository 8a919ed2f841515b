/**
 * The one storage interface. `sqlite/` and `postgres/` implement it;
 * nothing above this file knows which database it talks to. SQL owns integrity:
 * uniqueness of names and route shapes, and references from routes to functions,
 * are constraints in the schema, surfaced as typed errors (ConflictError,
 * UnknownFunctionError) by the implementations.
 */
import type { Application, ApplicationPatch, NewApplication, PortalSession } from '../applications/types.js';
import type { ChangeFeed } from '../changes.js';
import type { EventType, EventViolation, ValidationMode, ViolationSource } from '../events/types.js';
import type { AttemptEvent, StatsBatch, StatsRows } from '../stats/types.js';
import type {
  ApiKey,
  ThrottleConfig,
  UsagePlan,
  Api,
  ApiPolicy,
  CorsConfig,
  EventFormat,
  FunctionLogLine,
  FunctionRecord,
  FunctionVersion,
  FunctionVersionSummary,
  Page,
  Route,
  RouteMethod,
  RoutePolicy,
  StoredLogLine,
} from '../types.js';
import type { NewRecovery, NewWebhook, Recovery, RecoveryFilter, SecretRotation, TargetHealth, Webhook, WebhookHealth, WebhookPatch } from '../webhooks/types.js';
import type { HealthSample, HealthTransition } from './shared/target-health.js';
import type { AttemptOutcome, AttemptRecord, Delivery, DeliveryRequest, DeliveryStatus, NewDelivery } from '../deliveries/types.js';

/** A route to write; its policy fields (RoutePolicy) as given, absent ones at their defaults. */
export interface NewRoute extends RoutePolicy {
  method: RouteMethod;
  path: string;
  function: string;
}

/** Policy fields (ApiPolicy) left out take their defaults. */
export interface NewApi extends Partial<ApiPolicy> {
  name: string;
  basePath: string;
  routes: NewRoute[];
  /** Absent: none. */
  cors?: CorsConfig | null;
  minimumCompressionSize?: number | null;
  binaryMediaTypes?: string[] | null;
  /** Absent: none. */
  project?: string | null;
}

/** Policy fields (ApiPolicy) left out stay as they are. */
export interface ApiPatch extends Partial<ApiPolicy> {
  name?: string;
  basePath?: string;
  /** Absent: unchanged; null: off. */
  minimumCompressionSize?: number | null;
  binaryMediaTypes?: string[] | null;
  /** Absent: unchanged; null: owned by no project. */
  project?: string | null;
  /** When present, replaces every route of the API. */
  routes?: NewRoute[];
  /** Null removes it; absent keeps it. */
  cors?: CorsConfig | null;
}

/** Versions kept per function in its history; older ones are dropped by the write that adds a new one. */
export const FUNCTION_VERSIONS_KEPT = 50;

type TriggerFields = 'schedules' | 'events' | 'async';
/** Triggers default to none, and async to 2 retries without destinations. */
export type NewFunction = Omit<FunctionRecord, 'version' | 'createdAt' | 'updatedAt' | TriggerFields> &
  Partial<Pick<FunctionRecord, TriggerFields>> & ScheduleFires;
export type FunctionPatch = Partial<Omit<FunctionRecord, 'name' | 'version' | 'createdAt' | 'updatedAt'>> & ScheduleFires;

interface ScheduleFires {
  /**
   * With `schedules`: each schedule's first fire time (ISO; null: never), as the
   * scheduler computed it. The schedules' slot rows are replaced with these.
   */
  scheduleFires?: Array<string | null>;
}

/**
 * The whole store: each dialect assembles it from one object per part below
 * (sqlite/store.ts, postgres/store.ts), with the same parts and file names.
 */
export interface Store
  extends FunctionsPart, LogsPart, ApisPart, WebhookStore, StatsPart, InvocationEventsPart, LimitsPart, ApiKeysPart, RecoveriesPart, IdempotencyPart, EventTypesPart, ApplicationsPart {
  readonly kind: 'sqlite' | 'postgres';
  /**
   * The database's own clock in ms since the epoch (one round trip on
   * PostgreSQL), so nodes can agree on time (src/clock.ts, DatabaseClock).
   */
  databaseTime(): Promise<number>;
  /** Change announcements between the processes sharing this database. */
  readonly changeFeed: ChangeFeed;
  /** Cheap round trip, for /readyz. Throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Functions, keyed by name, with their version history and triggers. */
export interface FunctionsPart {
  /** Throws ConflictError('function_exists') on a duplicate name. */
  createFunction(fn: NewFunction): Promise<FunctionRecord>;
  getFunction(name: string): Promise<FunctionRecord | null>;
  /** Ordered by creation, oldest first; `page.after` is a function name. */
  listFunctions(page: Page): Promise<FunctionRecord[]>;
  /**
   * Applies the patch and bumps `version` atomically. Null when the function does not exist.
   * createFunction and updateFunction also add the version written to the function's
   * history in the same transaction, and keep only the newest FUNCTION_VERSIONS_KEPT.
   */
  updateFunction(name: string, patch: FunctionPatch): Promise<FunctionRecord | null>;
  /** Throws ConflictError('function_in_use', ..., {routes}) while a route binds it. False when absent. Its history goes with it. */
  deleteFunction(name: string): Promise<boolean>;
  /** The function's kept versions, newest first, without code; null when the function does not exist. */
  listFunctionVersions(name: string): Promise<FunctionVersionSummary[] | null>;
  /** One kept version with its code; null when the function or that version is not there. */
  getFunctionVersion(name: string, version: number): Promise<FunctionVersion | null>;
  /**
   * Functions subscribed to `event` (their `events`): listed by name, or by `*`
   * unless the event is an operational `switchyard.*` one (as webhooksForEvent).
   */
  functionsForEvent(event: string): Promise<FunctionRecord[]>;
  /** Routes (with their API id) that bind the function. */
  routesUsingFunction(name: string): Promise<Array<Route & { apiId: string }>>;
}

/** Console lines of functions. */
export interface LogsPart {
  appendFunctionLogs(name: string, lines: FunctionLogLine[]): Promise<void>;
  /** Newest last; at most `limit` lines. */
  listFunctionLogs(name: string, limit: number): Promise<StoredLogLine[]>;
  /**
   * Lines with an id above `afterId`, oldest first, at most `limit`; of the named
   * functions only when `names` is given. Streams poll this with an id cursor.
   */
  listFunctionLogsAfter(afterId: number, names: readonly string[] | null, limit: number): Promise<StoredLogLine[]>;
  /** The id of the newest stored line (0 when there is none): where a live stream starts. */
  lastFunctionLogId(): Promise<number>;
  /** Keeps only the newest `keep` lines per function. */
  pruneFunctionLogs(keep: number): Promise<void>;
}

/** APIs and their routes. Route order within an API is creation order. */
export interface ApisPart {
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

/** Per-minute statistics (src/stats/), each process adding to its own rows, and the attempt feed of the deliveries stream. */
export type NewUsagePlan = Omit<UsagePlan, 'id' | 'createdAt' | 'updatedAt'>;
export type UsagePlanPatch = Partial<NewUsagePlan>;
/** A key as created: the secret's SHA-256 (hex), never the secret. */
export type NewApiKey = Omit<ApiKey, 'id' | 'createdAt' | 'updatedAt'> & { hash: string };
export type ApiKeyPatch = Partial<Pick<ApiKey, 'name' | 'enabled' | 'usagePlanId'>>;

/**
 * Usage plans and API keys (api-keys.ts of each dialect). A key's plan must
 * exist (InvalidRequestError naming `usagePlanId`), and a plan that keys use
 * cannot be deleted (ConflictError usage_plan_in_use).
 */
export interface ApiKeysPart {
  createUsagePlan(plan: NewUsagePlan): Promise<UsagePlan>;
  getUsagePlan(id: string): Promise<UsagePlan | null>;
  listUsagePlans(page: Page): Promise<UsagePlan[]>;
  updateUsagePlan(id: string, patch: UsagePlanPatch): Promise<UsagePlan | null>;
  deleteUsagePlan(id: string): Promise<boolean>;
  createApiKey(key: NewApiKey): Promise<ApiKey>;
  getApiKey(id: string): Promise<ApiKey | null>;
  listApiKeys(page: Page): Promise<ApiKey[]>;
  updateApiKey(id: string, patch: ApiKeyPatch): Promise<ApiKey | null>;
  deleteApiKey(id: string): Promise<boolean>;
  /** The key whose secret hashes to `hash`, with its plan (null: none); null when no key has it. */
  apiKeyByHash(hash: string): Promise<{ key: ApiKey; plan: UsagePlan | null } | null>;
}

/** What one take from a shared token bucket got. */
export interface TokenTake {
  /** Tokens taken, from 0 to the number asked for. */
  taken: number;
  /** With none taken: milliseconds until one token is back; else 0. */
  retryAfterMs: number;
}

/** Requests of one key on one UTC day (YYYY-MM-DD), counted by one process. */
export interface KeyUse {
  keyId: string;
  day: string;
  count: number;
}

/** A usage plan's quota as counted: the period's key (`DAY:2026-11-27`, ...) and its limit. */
export interface QuotaWindow {
  period: string;
  limit: number;
}

/**
 * Limits shared by every process and node on the database (limits.ts of each
 * dialect): token buckets of throttles, and the counters of API keys' use.
 * Each is one atomic statement, so concurrent takers never admit past the limit.
 */
export interface LimitsPart {
  /**
   * Refills `bucket` (created full) by `rateLimit` per second since it was last
   * taken from, at `nowMs`, up to `burstLimit`, then takes up to `want` whole tokens.
   */
  takeTokens(bucket: string, throttle: ThrottleConfig, want: number, nowMs: number): Promise<TokenTake>;
  /**
   * Counts one request of the key on `day` (UTC, YYYY-MM-DD) and, with a quota,
   * in its period: false (and nothing counted) when the period's limit is reached.
   */
  countKeyUse(keyId: string, day: string, quota: QuotaWindow | null): Promise<boolean>;
  /**
   * Adds counted uses of keys whose plan has no quota (a process's batch,
   * src/gateway/policy/key-usage.ts), in one transaction; a deleted key's are dropped.
   */
  addKeyUses(uses: readonly KeyUse[]): Promise<void>;
  /** The key's requests per day from `from` to `to` (inclusive, YYYY-MM-DD), days without any left out, oldest first. */
  keyUsage(keyId: string, from: string, to: string): Promise<Array<{ day: string; used: number }>>;
}

export interface StatsPart {
  /** Adds one process's increments (additive upserts keyed by minute and owner) and its new failures, in one transaction. */
  addStats(batch: StatsBatch): Promise<void>;
  /** Minutes `from` to `to` (inclusive, epoch minutes) summed over owners, and the `failures` newest failures. */
  readStats(from: number, to: number, failures: number): Promise<StatsRows>;
  /** Deletes the rows of minutes before `beforeMinute`, and all but the newest `keepFailures` failures. */
  pruneStats(beforeMinute: number, keepFailures: number): Promise<void>;
  /**
   * Recorded delivery attempts after the cursor `afterSeq`, oldest first, at most
   * `limit`; of one webhook or function when given. The deliveries stream polls this.
   */
  listAttemptsAfter(afterSeq: number, filter: AttemptFilter, limit: number): Promise<AttemptEvent[]>;
  /** The cursor of the newest recorded attempt (0 when none): where a live stream starts. */
  lastAttemptSeq(): Promise<number>;
}

/** Which attempts the feed lists: of one webhook or function when given. */
export interface AttemptFilter {
  webhookId?: string;
  functionName?: string;
}

/** Finished invocations shared between processes while someone watches (src/streams/invocations.ts). */
export interface InvocationEventsPart {
  /** Appends one process's events (`origin` marks the process), oldest first. */
  appendInvocationEvents(origin: string, events: readonly InvocationEventRow[]): Promise<void>;
  /** Events with an id above `afterId` written by other processes than `origin`, oldest first, at most `limit`. */
  listInvocationEventsAfter(afterId: number, origin: string, limit: number): Promise<StoredInvocationEvent[]>;
  /** The id of the newest event (0 when none): where a follower starts. */
  lastInvocationEventId(): Promise<number>;
  /** Deletes the events stored more than `keepMs` ago (by the database's clock on PostgreSQL). */
  pruneInvocationEvents(keepMs: number): Promise<void>;
}

/** One finished invocation as the streams send it: `data` is the event's JSON, ready for the wire. */
export interface InvocationEventRow {
  function: string;
  data: string;
}

export interface StoredInvocationEvent extends InvocationEventRow {
  id: number;
}

/**
 * Two route paths have the same shape when they differ only in parameter names
 * or in spelling (API Gateway's `{id}` and `{proxy+}` are `:id` and `*`):
 * `/users/:id`, `/users/:name` and `/users/{id}` -> `/users/:`;
 * `/files/*` and `/files/{proxy+}` -> `/files/*`. Paths stored before the
 * brace spelling existed held no `{`, so their stored shapes are unchanged.
 */
export function routeShape(path: string): string {
  return path
    .split('/')
    .map((seg) => (seg.startsWith(':') ? ':' : seg.startsWith('{') ? (seg.endsWith('+}') ? '*' : ':') : seg))
    .join('/');
}

/** What the scheduler decides for one due webhook (see claimDueSlots). */
export interface SlotPlan {
  /** The slot to fire (ISO), or null to fire nothing (a schedule that cannot be evaluated). */
  slot: string | null;
  /** The webhook's `nextFireAt` after this claim (ISO); null when it never fires again. */
  next: string | null;
}

/** A function schedule whose slot is due (claimDueFunctionSlots), with what its event needs. */
export interface DueFunctionSchedule {
  id: string;
  functionName: string;
  /** 0-based position in the function's `schedules`. */
  position: number;
  cron: string;
  timezone: string;
  payload: Record<string, unknown> | null;
  nextFireAt: string;
  eventFormat: EventFormat;
}

/** A function slot to fire: the slot plan, plus the event and trigger details of its invocation. */
export interface FunctionSlotPlan extends SlotPlan {
  event: unknown;
  detail: Record<string, unknown>;
}

export interface ClaimedSlots {
  /** Due webhooks this call took and moved on; fewer than `limit` means none are left for this node now. */
  claimed: number;
  /** The deliveries created, one per slot not fired before. */
  deliveries: Delivery[];
  /** Webhooks whose planned slot had already been fired: moved on without a delivery. */
  alreadyFired: string[];
}

/**
 * How one claim spreads a node's attempts over targets (claimDueDeliveries),
 * so that a target that hangs, with any backlog, holds only its own share and
 * never hides the others' due deliveries.
 *
 * 1. Free due deliveries, oldest due first, each taken while its target has
 *    room in its share, until the claim is full or CLAIM_WINDOW of them were
 *    passed over. Without a backlog at its share (the usual case) this is the
 *    whole claim, and it keeps due order across targets.
 * 2. Only when CLAIM_WINDOW were passed over and the claim is not full, the
 *    claim walks the targets with due deliveries, round-robin from where this
 *    owner's previous walk stopped, skips those at their share and takes the
 *    oldest due deliveries of the others, up to CLAIM_VISITS targets.
 *
 * So a claim reads a bounded number of index entries, never a hung target's
 * backlog (costs: bench/README.md, "Claims behind a hung target").
 */
export const CLAIM_WINDOW = 128;
export const CLAIM_VISITS = 1000;

/**
 * Each target's share in one claim: `byTarget` where it lists the target,
 * else `default` (the engine lists only the targets whose adaptive limit
 * moved away from the default: src/deliveries/concurrency-limit.ts).
 */
export interface ClaimShares {
  default: number;
  byTarget: ReadonlyMap<string, number>;
}

/**
 * What the scheduler and the delivery engine need: webhooks, schedule slots
 * and deliveries. Claims and leases are row locks and compare-and-set
 * statements in the database, never in-memory bookkeeping, so several
 * processes on one database never fire a slot twice or send a delivery twice
 * at once.
 */
export interface WebhookStore extends WebhooksPart, SchedulesPart, DeliveriesPart, HeldPart, TargetHealthPart, HeartbeatsPart {}

/** One lease owner's heartbeat (src/deliveries/heartbeat.ts), as `beat` writes it. */
export interface OwnerBeat {
  owner: string;
  host: string;
  pid: number;
  /** The store's clock now, ISO: for people reading the table; nobody compares it. */
  now: string;
}

/** A heartbeat row: `seq` moves with every beat. */
export interface HeartbeatRow {
  owner: string;
  host: string;
  pid: number;
  seq: number;
  beatAt: string;
}

/**
 * Lease owners' heartbeats: each process with a delivery engine beats every
 * few seconds, so another one tells a dead owner (kill -9, a lost node) from
 * a slow attempt by whether its beats go on, instead of waiting for its
 * leases to run out. Whoever watches times an owner's silence on its own
 * monotonic clock (a `seq` that stops moving), so no two clocks are compared.
 */
export interface HeartbeatsPart {
  /**
   * Writes `owner`'s beat (seq + 1). True when its row was there (the owner
   * kept beating); false when it was written anew: the first beat, or its
   * row was removed because it looked dead (its leases were given back).
   */
  beat(beat: OwnerBeat): Promise<boolean>;
  /** Every owner's row (one per process with an engine: a few). */
  heartbeats(): Promise<HeartbeatRow[]>;
  /**
   * In one transaction, only while `owner`'s row still has `seq` (it did not
   * beat since it was seen silent): removes the row and gives back its
   * delivery leases, free to claim at once. The number given back; null when
   * the owner beat meanwhile, or another watcher took it over first. A paused
   * owner finds its row gone at its next beat, and its outcomes no longer
   * recordable (they need the lease). Owners without a row (an older
   * Switchyard) are left to their leases' expiry.
   */
  takeOverOwner(owner: string, seq: number): Promise<number | null>;
  /** Removes `owner`'s row (a clean stop, after its leases were given back). */
  endHeartbeat(owner: string): Promise<void>;
}

/** Webhooks and their event subscriptions. */
export interface WebhooksPart {
  createWebhook(webhook: NewWebhook): Promise<Webhook>;
  getWebhook(id: string): Promise<Webhook | null>;
  /** Oldest first; `page.after` is a webhook id; of one application only when `applicationId` is given. */
  listWebhooks(page: Page, applicationId?: string): Promise<Webhook[]>;
  /**
   * The health of each webhook named, over its `window` newest deliveries, in
   * one query that reads at most `window` index entries per webhook. Webhooks
   * with no delivery are absent from the map.
   */
  webhookHealth(ids: string[], window: number): Promise<Map<string, WebhookHealth>>;
  /** Fields present replace. Null when the webhook does not exist. */
  updateWebhook(id: string, patch: WebhookPatch): Promise<Webhook | null>;
  /**
   * Rotates its secret under the row's lock (webhooks/types.ts `rotatedSecrets`), so two
   * rotations at once each keep what the other did. Null when the webhook does not exist.
   */
  rotateWebhookSecret(id: string, rotation: SecretRotation): Promise<Webhook | null>;
  /** Deletes the webhook and its deliveries (pending retries are cancelled). */
  deleteWebhook(id: string): Promise<boolean>;
  /** Webhooks whose mock endpoint points at the API (an API delete answers 409 while any exist). */
  webhooksUsingApi(apiId: string): Promise<Webhook[]>;
  /**
   * Webhooks subscribed to `event` (listed by name, or by `*` unless the event
   * is an operational `switchyard.*` one), each with whether its deliveries are
   * held now: disabled, paused, or its breaker not closed. Of the application
   * given, else only global webhooks (none): one seek of the (application, event)
   * index either way, never a scan of other applications' subscriptions.
   */
  subscribersOf(event: string, applicationId?: string | null): Promise<Array<{ webhook: Webhook; hold: boolean }>>;
}

/** Due schedule slots of webhooks and functions, claimed once across nodes. */
export interface SchedulesPart {
  /** The earliest `nextFireAt` of any enabled webhook, to know how long the scheduler may sleep. */
  nextFireAt(): Promise<string | null>;
  /**
   * Claims due schedule slots in one transaction. Takes up to `limit` enabled
   * cron webhooks whose `nextFireAt` <= `now` (oldest first), skipping rows
   * another node is claiming right now (`FOR UPDATE SKIP LOCKED`), asks `plan`
   * which slot each fires and when it fires next, moves `nextFireAt`, and
   * inserts one pending `schedule` delivery per slot, due at `now`. The
   * unique (webhook, slot) key refuses a slot fired before (a clock set back,
   * `nextFireAt` moved back by hand): that webhook is moved on without a delivery.
   */
  claimDueSlots(now: string, limit: number, plan: (webhook: Webhook) => SlotPlan): Promise<ClaimedSlots>;
  /** The earliest `nextFireAt` of any function schedule. */
  nextFunctionFireAt(): Promise<string | null>;
  /**
   * Names of the functions with a schedule whose `nextFireAt` is in (`after`,
   * `until`] (ISO), earliest first, at most `limit`: the scheduler prewarms
   * their isolates before the slot.
   */
  functionsDueBetween(after: string, until: string, limit: number): Promise<string[]>;
  /**
   * claimDueSlots for function schedules: takes up to `limit` due schedules
   * (skipping rows another node is claiming), moves each to `plan`'s next fire
   * time and inserts one pending `schedule` invocation per slot, due at `now`,
   * under the unique (schedule, slot) key; `alreadyFired` lists schedule ids.
   */
  claimDueFunctionSlots(now: string, limit: number, plan: (schedule: DueFunctionSchedule) => FunctionSlotPlan): Promise<ClaimedSlots>;
}

/** Deliveries, their leases and attempts. */
export interface DeliveriesPart {
  createDelivery(delivery: NewDelivery): Promise<Delivery>;
  /**
   * Several deliveries in one transaction (an event's fan-out): all or none, in order. One
   * commit instead of one per delivery; throws as createDelivery, for the first that fails.
   */
  createDeliveries(deliveries: readonly NewDelivery[]): Promise<Delivery[]>;
  getDelivery(id: string): Promise<Delivery | null>;
  /**
   * getDelivery with each attempt's `response` (`GET /api/deliveries/{id}`). The
   * only read of the attempts' response_json: lists, claims and the engine leave
   * it out, as each one holds up to 16 KiB of body.
   */
  getDeliveryDetail(id: string): Promise<Delivery | null>;
  /** Newest first; `page.after` is a delivery id (older than it); of one status when given. */
  listDeliveries(webhookId: string, page: Page, status?: DeliveryStatus | null): Promise<Delivery[]>;
  /** A function's invocations (function-target deliveries), newest first, of one status when given. */
  listFunctionDeliveries(functionName: string, status: DeliveryStatus | null, page: Page): Promise<Delivery[]>;
  /**
   * Leases up to `limit` pending deliveries due at `now` whose lease is free or
   * expired, to `owner` until `now + leaseMs`, so that no webhook ends up with
   * more than `perWebhook` unexpired leases of `owner` (those held before the
   * call count; default: no share). A webhook at its share is passed over, its
   * deliveries left unleased for other owners and later claims. Each webhook's
   * oldest due first; across webhooks see CLAIM_WINDOW. Sorted by due time.
   */
  claimDueDeliveries(owner: string, now: string, leaseMs: number, limit: number, perWebhook?: number | ClaimShares): Promise<Delivery[]>;
  /**
   * Leases one specific delivery (test-fire, manual retry) if its lease is free
   * or expired, whatever its due time. Null otherwise.
   */
  leaseDelivery(id: string, owner: string, now: string, leaseMs: number): Promise<Delivery | null>;
  /** Moves `owner`'s unexpired-or-not lease on one delivery to `until` (a function run longer than a lease). False when not held. */
  extendLease(id: string, owner: string, until: string): Promise<boolean>;
  /** Keeps the rendered request of a delivery (once, before its first attempt). */
  saveDeliveryRequest(id: string, request: DeliveryRequest): Promise<void>;
  /**
   * Appends an attempt and applies its outcome, and releases the lease, only
   * while `owner` holds it. Null when the lease was lost (or the delivery deleted).
   */
  recordAttempt(id: string, owner: string, outcome: AttemptOutcome): Promise<Delivery | null>;
  /**
   * `recordAttempt` for many deliveries in one transaction (one commit instead
   * of one per attempt), each item under its own lease check, in order (the
   * same delivery twice: the second finds the lease released). Each result is
   * the delivery after the outcome, `true` for a `lean` item (nothing read
   * back), or null when the lease was lost. A failing item fails the batch.
   */
  recordAttempts(owner: string, items: AttemptRecord[]): Promise<Array<Delivery | true | null>>;
  /**
   * For a manual retry: makes a finished delivery pending again, due `now`.
   * Null when it does not exist or is already pending.
   */
  reopenDelivery(id: string, now: string): Promise<Delivery | null>;
  /** Releases every lease held by `owner` (graceful shutdown, or a dead process's on restart); returns how many. */
  releaseLeases(owner: string): Promise<number>;
  /**
   * Releases `owner`'s lease on one delivery (an attempt that failed before it
   * could be recorded), so it is retried now rather than after the lease expires.
   */
  releaseLease(id: string, owner: string): Promise<boolean>;
  /** The distinct owners of deliveries leased now, expired leases included (restart takeover). */
  leaseOwners(): Promise<string[]>;
  /** Number of pending deliveries (queue depth metric). */
  countPendingDeliveries(): Promise<number>;
  /** Pending deliveries per webhook id, the `limit` deepest queues, deepest first (per-webhook metric). */
  pendingByWebhook(limit: number): Promise<Array<[string, number]>>;
  /** Deletes finished and held deliveries created before `before` (retention applies to held ones too); returns how many. */
  pruneDeliveries(before: string): Promise<number>;
}

/** Which held deliveries a discard takes: of these events (null: any), created before `before` (null: any). */
export interface HeldFilter {
  events?: readonly string[] | null;
  before?: string | null;
}

/**
 * Held deliveries (status `held`): kept without attempts while their webhook
 * may not be sent to, released in publish order (insertion order) when it may.
 */
export interface HeldPart {
  /** Up to `limit` of the target's pending deliveries that no one leases now become held; returns how many. */
  holdDeliveries(target: string, now: string, limit: number): Promise<number>;
  /** One delivery `owner` leases becomes held (the gate found its webhook closed); false when not leased by it. */
  holdDelivery(id: string, owner: string): Promise<boolean>;
  /** Gives back `owner`'s lease and moves the delivery's due time to at least `until` (a rate limit, a Retry-After). */
  deferDelivery(id: string, owner: string, until: string): Promise<boolean>;
  /** Up to `limit` of the target's held deliveries, oldest first, become pending and due `now`; returns how many. */
  releaseHeld(target: string, now: string, limit: number): Promise<number>;
  /** Webhooks with held deliveries that may be sent to now (enabled, not paused, breaker closed), at most `limit`. */
  releasableWebhooks(limit: number): Promise<string[]>;
  /**
   * Held deliveries of the webhook matching the filter (events named, created
   * before `before`) become `discarded` with `reason` as their error; returns how many.
   */
  discardHeld(webhookId: string, filter: HeldFilter, now: string, reason: string): Promise<number>;
  /** How many held deliveries of the webhook discardHeld would discard with this filter (a dry run). */
  countHeldMatching(webhookId: string, filter: HeldFilter): Promise<number>;
  /**
   * Every webhook holding more than `max`: its oldest held beyond the bound
   * become `discarded`, counted in its health row (`heldDiscarded`). Returns them.
   */
  trimHeld(max: number, now: string): Promise<Array<{ webhookId: string; discarded: number }>>;
  /** Held deliveries per webhook named (absent: none). */
  countHeld(webhookIds: readonly string[]): Promise<Map<string, number>>;
  /** Held deliveries of every webhook (a gauge). */
  countHeldDeliveries(): Promise<number>;
  /** Held deliveries per webhook id, the `limit` largest counts first (a gauge per webhook). */
  heldByWebhook(limit: number): Promise<Array<[string, number]>>;
}

/**
 * Endpoint health rows (src/store/shared/target-health.ts): the breaker of each
 * webhook, the counts of each target origin, failure streaks, probes, and a
 * target's Retry-After. Each transition is taken under the row's lock, so one
 * process of the cluster takes it and reports it.
 */
export interface TargetHealthPart {
  /**
   * Adds the samples (one process's counts since its last report) to the
   * webhooks' and their origins' rows and takes what they call for: breakers
   * opening, webhooks disabled for failing (enabled = false, disabled_reason
   * 'failing'). Returns those transitions (each once in the cluster).
   */
  recordTargetHealth(samples: readonly HealthSample[], now: number): Promise<HealthTransition[]>;
  /** The rows of these keys (`webhook:<id>`, `origin:<origin>`); absent: none yet. */
  targetHealth(keys: readonly string[]): Promise<Map<string, TargetHealth>>;
  /** The webhooks' breakers that are not closed, at most `limit` (a gauge, the dashboard's overview). */
  breakersNotClosed(limit: number): Promise<TargetHealth[]>;
  /** Keys of breakers whose probe is due at `now` (open, or half open past its probe's time), at most `limit`. */
  dueProbes(now: number, limit: number): Promise<string[]>;
  /**
   * Starts the probe of a breaker whose probe is due: its webhook's oldest held
   * delivery becomes pending and due now, and is the breaker's probe until
   * `until`. The delivery's id; null when the probe is not due (another process
   * started it) or nothing is held to probe with.
   */
  startProbe(key: string, now: number, until: number): Promise<string | null>;
  /** The probe's outcome (./shared/target-health.ts probeEnded); null when `deliveryId` is not the breaker's probe now. */
  finishProbe(key: string, deliveryId: string, succeeded: boolean, now: number): Promise<HealthTransition | null>;
  /**
   * Closes the webhook's breaker by hand and forgets its failure streak (it was
   * enabled or resumed by a person); true when it was not closed.
   */
  resetTargetHealth(webhookId: string, now: number): Promise<boolean>;
  /** Moves the webhook's not-before time to `until` when that is later (a target's Retry-After). */
  setNotBefore(webhookId: string, until: number, now: number): Promise<void>;
}

/** Recovery jobs: resends of a webhook's (or every webhook's) finished deliveries by filter, run in chunks by any node. */
export interface RecoveriesPart {
  /** How many deliveries the filter selects now (a dry run; createRecovery counts the same). */
  countRecoverable(filter: RecoveryFilter): Promise<number>;
  /** Creates a running job with its total counted in the same transaction. */
  createRecovery(recovery: NewRecovery): Promise<Recovery>;
  getRecovery(id: string): Promise<Recovery | null>;
  /**
   * Newest first; of one webhook when given (null: every job), and of the webhooks of one
   * application when `applicationId` is given; `page.after` is a job id.
   */
  listRecoveries(webhookId: string | null, page: Page, applicationId?: string): Promise<Recovery[]>;
  /** Leases one running job whose lease is free or expired to `owner` until `now + leaseMs`. */
  claimRecovery(owner: string, now: string, leaseMs: number): Promise<Recovery | null>;
  /**
   * One chunk of a job `owner` leases: up to `chunk` selected deliveries past
   * its cursor are reopened (pending, due `now`, their retry schedule started
   * again), and the cursor and count move in the same transaction, so a job
   * never reopens a delivery twice, whatever restarts. Done when none is left.
   * Null when the lease was lost.
   */
  advanceRecovery(id: string, owner: string, now: string, chunk: number, leaseMs: number): Promise<Recovery | null>;
  /** Stops a running job (its resends so far stay); null when it does not exist, or is no longer running. */
  cancelRecovery(id: string, now: string): Promise<Recovery | null>;
  /** The owners of running jobs' leases, expired ones included (restart takeover, as leaseOwners). */
  recoveryLeaseOwners(): Promise<string[]>;
  /** Gives back every job lease of `owner` (a dead process of this host); returns how many. */
  releaseRecoveryLeases(owner: string): Promise<number>;
}

/** One claimed (scope, key): who holds it, and its answer once the operation finished. */
export interface IdempotencyRecord {
  /** SHA-256 of the canonical JSON of the request that claimed it. */
  requestHash: string;
  /** Null while the operation runs. */
  status: number | null;
  /** The answer's body as JSON text; null while the operation runs. */
  response: string | null;
  /** ms since the epoch, of the service's clock. */
  expiresAt: number;
}

export interface IdempotencyClaim {
  scope: string;
  key: string;
  requestHash: string;
  /** Names this claim, so only its holder completes or releases it. */
  token: string;
  /** ms since the epoch: the claim's time, and the instant a row there before counts as expired. */
  now: number;
  expiresAt: number;
  /** A claim still without an answer that was made before this (ms) is abandoned (its process died): it may be taken over. */
  staleBefore: number;
}

/**
 * Idempotency keys (src/events/idempotency.ts): the primary key (scope, key)
 * decides which request runs the operation, across processes and nodes.
 */
export interface IdempotencyPart {
  /**
   * Inserts the claim, or takes over a row whose window ended (one statement: an
   * upsert whose update applies only to an expired row). `claimed`: the caller
   * runs the operation; otherwise the row there, unchanged.
   */
  claimIdempotencyKey(claim: IdempotencyClaim): Promise<{ claimed: true } | { claimed: false; record: IdempotencyRecord }>;
  /** Stores the answer of the claim `token` holds. */
  completeIdempotencyKey(scope: string, key: string, token: string, status: number, response: string): Promise<void>;
  /** Deletes the claim `token` holds (its operation failed with a 5xx: a retry may run it). */
  releaseIdempotencyKey(scope: string, key: string, token: string): Promise<void>;
  /** Deletes up to `limit` rows expired at `now`; returns how many. */
  sweepIdempotencyKeys(now: number, limit: number): Promise<number>;
}

export interface NewEventType {
  name: string;
  description: string;
  mode: ValidationMode;
  deprecated: boolean;
  project: string | null;
  /** Null: a type without a schema yet (no version). */
  schema: Record<string, unknown> | null;
  examples: unknown[];
}

/** Absent fields stay as they are. */
export interface EventTypePatch {
  description?: string;
  mode?: ValidationMode;
  deprecated?: boolean;
  project?: string | null;
  /** Adds a version (numbered one past the latest) with `examples` (default none). */
  schema?: Record<string, unknown>;
  /** Without `schema`: replaces the latest version's examples. */
  examples?: unknown[];
}

export interface NewEventViolation {
  name: string;
  version: number;
  path: string;
  message: string;
  source: ViolationSource;
}

/** The event-type catalogue (src/events/catalogue.ts); versions are numbered by the write that adds one, under the (name, version) key. */
export interface EventTypesPart {
  /** Throws ConflictError event_type_exists when the name is taken. */
  createEventType(input: NewEventType): Promise<EventType>;
  getEventType(name: string): Promise<EventType | null>;
  /** By name; `page.after` is a name. */
  listEventTypes(page: Page): Promise<EventType[]>;
  updateEventType(name: string, patch: EventTypePatch): Promise<EventType | null>;
  deleteEventType(name: string): Promise<boolean>;
  /** Records one, then keeps only the newest `keep` of its type. */
  recordEventViolation(v: NewEventViolation, keep: number): Promise<void>;
  /** Newest first. */
  listEventViolations(name: string, limit: number): Promise<EventViolation[]>;
}

/**
 * Applications and their portal tokens (applications.ts of each dialect).
 * Deleting an application deletes its webhooks (ON DELETE CASCADE), and with
 * them their subscriptions, deliveries and attempts, and its portal tokens.
 */
export interface ApplicationsPart {
  /** Throws ConflictError application_exists when the uid is taken. */
  createApplication(app: NewApplication): Promise<Application>;
  getApplication(id: string): Promise<Application | null>;
  getApplicationByUid(uid: string): Promise<Application | null>;
  /** Oldest first; `page.after` is an application id. */
  listApplications(page: Page): Promise<Application[]>;
  /**
   * Fields present replace; null when it does not exist. Throws as createApplication.
   * A function makes the patch from the row as locked: a merge read before the write would lose a concurrent one.
   */
  updateApplication(id: string, patch: ApplicationPatch | ((current: Application) => ApplicationPatch)): Promise<Application | null>;
  deleteApplication(id: string): Promise<boolean>;
  /** How many webhooks the application owns. */
  countApplicationWebhooks(id: string): Promise<number>;
  /** Stores a portal token by its SHA-256 (hex). */
  createPortalToken(hash: string, session: Omit<PortalSession, 'revokedAt'>): Promise<void>;
  /** The token's session, whatever its state (the caller checks expiry against its clock); null: unknown. */
  portalSession(hash: string): Promise<PortalSession | null>;
  /**
   * Moves a live token's expiry to `expiresAt`, capped at its maximum; null when
   * it is unknown, revoked or expired at `now` (ISO).
   */
  refreshPortalToken(hash: string, expiresAt: string, now: string): Promise<PortalSession | null>;
  /** Revokes the application's live tokens (only `hash` when given); returns how many. */
  revokePortalTokens(applicationId: string, now: string, hash?: string): Promise<number>;
  /**
   * The retention of applications with a `retentionDays`: their webhooks' finished and held
   * deliveries created more than that many days before `nowMs` are deleted; returns how many.
   * Reads only the applications that have the limit (the server-wide sweep covers the rest).
   */
  pruneApplicationDeliveries(nowMs: number): Promise<number>;
}
