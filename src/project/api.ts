/**
 * `ProjectApi`: the management calls that plan, apply and export need, as
 * the server answers them. The types are the API's own, taken from its
 * schema (src/schema/), so a field the API gains reaches the project without
 * an edit here. The HTTP implementation is http-api.ts; tests and the CLI may
 * pass their own.
 */
import type { ApiView, CorsInput, RouteView } from '../schema/apis.js';
import type { DestinationInput, FunctionInput, FunctionView, ScheduleInput } from '../schema/functions.js';
import type { UsagePlanView } from '../schema/api-keys.js';
import type { CreateEventTypeInput, EventTypeView, UpdateEventTypeInput } from '../schema/event-types.js';
import type { ApiFunctionSettings, ApiWebhook, TriggerKey } from './types.js';
import type { DryRunResult } from '../dry-run.js';
import type { ApplicationBody, RemoteApplication } from './applications.js';

export type { DryRunResult };

/** Fields of a function's answer the project never reads. */
type FunctionAnswerOnly = 'created_at' | 'updated_at';

/** A function as the API answers it (src/schema/functions.ts). */
export type RemoteFunction = Omit<FunctionView, FunctionAnswerOnly | TriggerKey | 'project'> & {
  /** Absent on servers older than owners: none. */
  project?: string | null;
  /** Absent on servers older than function schedules, events and async invocation: read as the defaults. */
  schedules?: RemoteSchedule[];
  events?: string[];
  async?: RemoteAsync;
};

export type RemoteSchedule = ScheduleInput;

/** A destination as the API takes it: webhooks by id, functions by name. */
export type RemoteDestination = DestinationInput;

export interface RemoteAsync {
  retries: number;
  on_success: RemoteDestination | null;
  on_failure: RemoteDestination | null;
}

export type RemoteRoute = RouteView;

/** The API's optional settings: absent on servers older than them, read as unset (`cors`: none). */
type ApiSettingKey = 'minimumCompressionSize' | 'binaryMediaTypes' | 'errorFormat' | 'exposeErrors' | 'throttle' | 'authorizers' | 'defaultAuthorizer' | 'project';
export type RemoteApi = Omit<ApiView, 'createdAt' | 'updatedAt' | 'cors' | ApiSettingKey> & Partial<Pick<ApiView, 'cors' | ApiSettingKey>>;

/** A webhook as the API answers it; sensitive values come back masked. */
export type RemoteWebhook = ApiWebhook;

/**
 * The body of POST /api/functions as the project sends it: every setting
 * given, but `handler` and the triggers, sent only when not the default so
 * that a server without them takes a project that does not use them.
 * (PUT takes the same fields but `name`, each optional, null resets.)
 */
export type FunctionBody = ApiFunctionSettings &
  Pick<FunctionInput, 'handler'> & { schedules?: RemoteSchedule[]; events?: string[]; async?: RemoteAsync };
/** `code` cannot be reset, only replaced; the other fields reset to their default with null. */
export type FunctionPatchBody = { code?: string } & { [K in Exclude<keyof FunctionBody, 'name' | 'code'>]?: FunctionBody[K] | null };

export interface ApiBody extends Partial<Pick<ApiView, ApiSettingKey>> {
  name: string;
  basePath: string;
  routes: Array<Omit<RouteView, 'id'>>;
  /** Sent only when the API has one or had one, so a server older than CORS takes a project without it. */
  cors?: CorsInput | null;
}

/** A usage plan as the API answers it (src/schema/api-keys.ts). */
export type RemoteUsagePlan = Omit<UsagePlanView, 'createdAt' | 'updatedAt'>;

/** The body of POST /api/usage-plans (PUT takes the same fields, each optional). */
export type UsagePlanBody = Pick<UsagePlanView, 'name' | 'apiIds' | 'throttle' | 'quota'>;

/** An event type of the catalogue as the server answers it. */
export type RemoteEventType = Omit<EventTypeView, 'createdAt' | 'updatedAt'>;
export type EventTypeBody = CreateEventTypeInput;
export type EventTypePatchBody = UpdateEventTypeInput;

/**
 * The body of POST /api/webhooks as the project sends it: every field given, as the answer holds it; `secret` write-only.
 * `application_id` only when the file names the webhook's `application` (fields.ts), so a file that does not keeps a webhook's owner.
 */
export type WebhookBody = Omit<RemoteWebhook, 'id' | 'has_secret' | 'filter' | 'application_id'> & {
  secret?: string | null;
  filter?: RemoteWebhook['filter'];
  application_id?: string | null;
};

export interface ProjectApi {
  listFunctions(): Promise<RemoteFunction[]>;
  /** With `code`. */
  getFunction(name: string): Promise<RemoteFunction>;
  createFunction(body: FunctionBody): Promise<RemoteFunction>;
  updateFunction(name: string, body: FunctionPatchBody): Promise<RemoteFunction>;
  deleteFunction(name: string): Promise<void>;
  /** Dry run of a create (`name` absent on the server) or an update: full validation, compiled in a worker, nothing written. */
  checkFunction(body: FunctionBody | (FunctionPatchBody & { name: string }), exists: boolean): Promise<DryRunResult>;

  listApis(): Promise<RemoteApi[]>;
  createApi(body: ApiBody): Promise<RemoteApi>;
  updateApi(id: string, body: Partial<ApiBody>): Promise<RemoteApi>;
  deleteApi(id: string): Promise<void>;

  listWebhooks(): Promise<RemoteWebhook[]>;
  createWebhook(body: WebhookBody): Promise<RemoteWebhook>;
  /** `secret_overlap_s`: with a changed secret, how long the replaced one keeps signing (apply rotates, docs/projects.md). */
  updateWebhook(id: string, body: Partial<WebhookBody> & { secret_overlap_s?: number }): Promise<RemoteWebhook>;
  deleteWebhook(id: string): Promise<void>;
  /** Dry run of a webhook create (no `id`) or update. */
  checkWebhook(body: Partial<WebhookBody>, id?: string): Promise<DryRunResult>;

  /**
   * Usage plans (`usage_plans:` of the file). Optional: a caller without
   * them takes every project that does not use them; `listUsagePlans` of a
   * server older than usage plans answers none.
   */
  listUsagePlans?(): Promise<RemoteUsagePlan[]>;
  createUsagePlan?(body: UsagePlanBody): Promise<RemoteUsagePlan>;
  updateUsagePlan?(id: string, body: Partial<UsagePlanBody>): Promise<RemoteUsagePlan>;
  deleteUsagePlan?(id: string): Promise<void>;

  /** The event-type catalogue (`event_types:` of the file). Optional as usage plans are; a server without one answers none. */
  listEventTypes?(): Promise<RemoteEventType[]>;
  createEventType?(body: EventTypeBody): Promise<RemoteEventType>;
  updateEventType?(name: string, body: EventTypePatchBody): Promise<RemoteEventType>;
  deleteEventType?(name: string): Promise<void>;

  /** Applications (`applications:` of the file). Optional as usage plans are; a server without them answers none. */
  listApplications?(): Promise<RemoteApplication[]>;
  createApplication?(body: ApplicationBody): Promise<RemoteApplication>;
  updateApplication?(id: string, body: Partial<ApplicationBody>): Promise<RemoteApplication>;
  /** Deletes its webhooks, their deliveries and its portal tokens too. */
  deleteApplication?(id: string): Promise<void>;
}
