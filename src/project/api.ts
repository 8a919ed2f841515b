/**
 * `ProjectApi`: the management calls that plan, apply and export need, as
 * the server answers them (field names of docs/api.md). The HTTP
 * implementation is http-api.ts; tests and the CLI may pass their own.
 */
import type { EventFormat, FunctionRuntimeName, RouteMethod } from '../types.js';
import type { WebhookMethod } from '../webhooks/types.js';

export interface RemoteFunction {
  name: string;
  runtime: FunctionRuntimeName;
  env_keys: string[];
  timeout_ms: number;
  memory_mb: number;
  handler: string | null;
  event_format: EventFormat;
  version: number;
  code_sha256: string;
  code?: string;
  /** Absent on servers older than function schedules, events and async invocation: read as the defaults. */
  schedules?: RemoteSchedule[];
  events?: string[];
  async?: RemoteAsync;
}

export interface RemoteSchedule {
  cron: string;
  timezone?: string;
  payload?: Record<string, unknown> | null;
}

/** A destination as the API takes it: webhooks by id, functions by name. */
export type RemoteDestination = { type: 'webhook'; id: string } | { type: 'function'; name: string };

export interface RemoteAsync {
  retries: number;
  on_success: RemoteDestination | null;
  on_failure: RemoteDestination | null;
}

export interface RemoteRoute {
  id: string;
  method: RouteMethod;
  path: string;
  function: string;
}

export interface RemoteApi {
  id: string;
  name: string;
  basePath: string;
  routes: RemoteRoute[];
  invokeUrl: string;
}

export interface RemoteWebhook {
  id: string;
  name: string;
  target_url: string;
  method: WebhookMethod;
  /** Sensitive values come back masked. */
  headers: Record<string, string>;
  payload_template: Record<string, unknown>;
  cron: string | null;
  timezone: string;
  mock_endpoint: { api_id: string; path: string } | null;
  events: string[];
  enabled: boolean;
  has_secret: boolean;
  retry: { max_attempts: number; schedule_s?: number[] };
  timeout_ms: number;
}

/** The body of POST /api/functions (PUT takes the same fields but `name`, each optional, null resets). */
export interface FunctionBody {
  name: string;
  code: string;
  runtime: FunctionRuntimeName;
  env: Record<string, string>;
  timeout_ms: number;
  memory_mb: number;
  handler?: string;
  event_format: EventFormat;
  /** Sent only when not the default, so a server without them takes a project that does not use them. */
  schedules?: RemoteSchedule[];
  events?: string[];
  async?: RemoteAsync;
}
/** `code` cannot be reset, only replaced; the other fields reset to their default with null. */
export type FunctionPatchBody = { code?: string } & { [K in Exclude<keyof FunctionBody, 'name' | 'code'>]?: FunctionBody[K] | null };

export interface ApiBody {
  name: string;
  basePath: string;
  routes: Array<{ method: RouteMethod; path: string; function: string }>;
}

export interface WebhookBody {
  name: string;
  target_url: string;
  method: WebhookMethod;
  headers: Record<string, string>;
  payload_template: Record<string, unknown>;
  cron: string | null;
  timezone: string;
  mock_endpoint: { api_id: string; path: string } | null;
  events: string[];
  enabled: boolean;
  secret?: string | null;
  retry: { max_attempts: number; schedule_s?: number[] };
  timeout_ms: number;
}

/** What `?dry_run=true` answers: the action the server would take and the fields it would change. */
export interface DryRunResult {
  dry_run: true;
  action: 'create' | 'update' | 'delete' | 'none';
  changes: string[];
}

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
  updateWebhook(id: string, body: Partial<WebhookBody>): Promise<RemoteWebhook>;
  deleteWebhook(id: string): Promise<void>;
  /** Dry run of a webhook create (no `id`) or update. */
  checkWebhook(body: Partial<WebhookBody>, id?: string): Promise<DryRunResult>;
}
