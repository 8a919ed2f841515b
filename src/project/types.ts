/**
 * The project model: what a `switchyard.yaml` describes once loaded (defaults
 * filled, `${env:}` resolved, function files read), and what the plan
 * compares with the server. Field names are the management API's, except
 * `base_path` (the API's `basePath`, snake_case like every other key of the
 * file), `mock_endpoint.api` and `target.api` (an API's name: ids and invoke
 * URLs are not portable), and a function's `async` destinations, which name
 * a webhook or a function of the file (`{webhook: name}`, `{function: name}`)
 * where the API takes `{type, id|name}`.
 */
import type { Authorizer, CorsConfig, ErrorFormat, QuotaConfig, RequestModel, RouteMethod, ThrottleConfig } from '../types.js';
import type { FunctionInput } from '../schema/functions.js';
import type { AuthorizerInput } from '../schema/apis.js';
import type { WebhookView } from '../schema/webhooks.js';
import type { ValidationMode } from '../events/types.js';
import type { ApplicationView } from '../schema/applications.js';

/** A function's triggers (schedules, events, async): by name in the file, sent only when not the default. */
export type TriggerKey = 'schedules' | 'events' | 'async';

/** A function's settings as the API takes them (src/schema/functions.ts), each given. */
export type ApiFunctionSettings = Required<Omit<FunctionInput, 'handler' | 'project' | TriggerKey>> & Pick<FunctionInput, 'project'>;

/** A webhook's answer fields that only people read (times, health, whether it is paused now, its secrets' metadata): never planned or exported. */
type WebhookAnswerOnly =
  | 'public_key'
  | 'secrets'
  | 'next_fire_at'
  | 'created_at'
  | 'updated_at'
  | 'secret'
  | 'next_fires'
  | 'health'
  | 'paused'
  | 'paused_at'
  | 'disabled_reason';
/** A webhook's endpoint-health settings: absent on servers older than them, read as the defaults. */
export type WebhookHealthKey = 'breaker' | 'rate_limit' | 'auto_disable';

/**
 * A webhook as the API answers it (src/schema/webhooks.ts), less what only
 * people read. `timezone` and `events` are never null in an answer (the
 * document allows it for older clients' sake).
 */
export type ApiWebhook = Omit<WebhookView, WebhookAnswerOnly | WebhookHealthKey | 'timezone' | 'events' | 'project'> &
  Partial<Pick<WebhookView, WebhookHealthKey | 'project'>> & {
    timezone: string;
    events: string[];
  };

/** A function of the file: the API's settings (defaults filled), its file, its triggers by name. */
export type ProjectFunction = ApiFunctionSettings & {
  /** The source file as written in the project file (relative to it). */
  file: string;
  handler: string | null;
  /** Cron schedules that invoke the function; `timezone` filled (UTC), `payload` absent when empty. */
  schedules: ProjectSchedule[];
  /** Event-name patterns (`*` allowed) the function subscribes to. */
  events: string[];
  /** Asynchronous invocation: retries and where the outcome goes. */
  async: ProjectAsync;
};

export interface ProjectSchedule {
  cron: string;
  timezone: string;
  payload?: Record<string, unknown>;
}

/** Where an asynchronous invocation's outcome goes, by name in the file. */
export type ProjectDestination = { webhook: string } | { function: string };

export interface ProjectAsync {
  retries: number;
  on_success: ProjectDestination | null;
  on_failure: ProjectDestination | null;
}

export interface ProjectRoute {
  method: RouteMethod;
  path: string;
  function: string;
  /** The route's request model as the API takes it (schema/switchyard.schema.json `$defs/request`); absent: none. */
  request?: RequestModel;
  /** One of the API's authorizers, or NONE; absent: the API's default. */
  authorizer?: string;
  /** A JWT authorizer's scopes for the route. */
  authorization_scopes?: string[];
  /** The route's own token bucket, as the file writes it (throttle.ts maps it to the API's `throttle`). */
  throttle?: FileThrottle;
  /** The route's `apiKeyRequired`: callers send an API key (`x-api-key`) of a usage plan covering the API. */
  api_key_required?: boolean;
}

/** `throttle:` of an API, a route or a usage plan as the file writes it (schema/switchyard.schema.json `$defs/throttle`). */
export interface FileThrottle {
  rate_limit: number;
  burst_limit: number;
}

/** A usage plan of the file: its APIs by name (ids are not portable), the throttle and quota each of its keys gets. */
export interface ProjectUsagePlan {
  name: string;
  apis: string[];
  /** In the API's form; null: none. */
  throttle: ThrottleConfig | null;
  quota: QuotaConfig | null;
}

/** An event type of the file: its schema read (from its file, or as written), to become the type's latest version. */
export interface ProjectEventType {
  name: string;
  description: string;
  mode: ValidationMode;
  deprecated: boolean;
  /** Null: a type without a schema. */
  schema: Record<string, unknown> | null;
  examples: unknown[];
}

/** `event_types.<name>` as written: `schema` a path (JSON or YAML, inside the project folder) or the schema itself. */
export interface FileEventType {
  description?: string;
  mode?: ValidationMode;
  deprecated?: boolean;
  schema?: string | Record<string, unknown>;
  examples?: unknown[];
}

/** `usage_plans.<name>` as written. API keys are never in the file: they are secrets, made at runtime. */
export interface FileUsagePlan {
  apis: string[];
  throttle?: FileThrottle | null;
  quota?: QuotaConfig | null;
}

/** One authorizer of an API as the file writes it (authorizers.ts maps it to the API's form). */
export interface FileAuthorizer {
  name: string;
  type: 'jwt' | 'function';
  issuer?: string;
  audience?: string[];
  jwks_url?: string;
  keys?: { keys: Record<string, unknown>[] };
  secret?: string;
  algorithms?: AuthorizerInput['algorithms'];
  identity_source?: string;
  leeway_seconds?: number;
  function?: string;
  payload_format_version?: '1.0' | '2.0';
  kind?: 'TOKEN' | 'REQUEST';
  identity_sources?: string[];
  result_ttl_seconds?: number;
  enable_simple_responses?: boolean;
}

/** `cors:` of an API as the file writes it (snake_case; the API's own form is camelCase, cors.ts maps them) (schema/switchyard.schema.json `$defs/cors`). */
export interface FileCors {
  allow_origins: string[];
  allow_methods?: string[];
  allow_headers?: string[];
  expose_headers?: string[];
  max_age?: number | null;
  allow_credentials?: boolean;
}

export interface ProjectApiDef {
  name: string;
  base_path: string;
  routes: ProjectRoute[];
  /** In the API's form, every field filled (cors.ts); null: none. */
  cors: CorsConfig | null;
  /** The API's `minimumCompressionSize`; null (or left out): off. */
  minimum_compression_size: number | null;
  /** The API's `binaryMediaTypes`; null (or left out): unset. */
  binary_media_types: string[] | null;
  /** In the API's form, the server's defaults filled (authorizers.ts); [] (or left out): none. */
  authorizers: Authorizer[];
  /** The API's `defaultAuthorizer`; null (or left out): none. */
  default_authorizer: string | null;
  /** The API's `errorFormat`; null: left out (the server's default, `switchyard`). */
  error_format: ErrorFormat | null;
  /** The API's `exposeErrors`; null: left out (false, but `switchyard dev` makes it true). */
  expose_errors: boolean | null;
  /** The API's `throttle` (one bucket for all its routes), in the API's form; null (or left out): none. */
  throttle: ThrottleConfig | null;
  /** The file's `project`, recorded on the API; null: none. */
  project: string | null;
}

/** An API's optional settings as the file writes them (snake_case, like base_path). */
export interface ProjectApiSettings {
  minimum_compression_size?: number | null;
  binary_media_types?: string[] | null;
  error_format?: ErrorFormat | null;
  expose_errors?: boolean | null;
  throttle?: FileThrottle | null;
}

/** A path of an API of the file: resolved against the server at apply time. */
export interface ApiPathRef {
  /** The API's name. */
  api: string;
  /** Starts with `/`; may carry a query (`/users?limit=1`). */
  path: string;
}

/** A webhook of the file: the API's fields (defaults filled), but where it goes and its secret. */
export type ProjectWebhook = Omit<ApiWebhook, 'id' | 'has_secret' | 'target_url' | 'mock_endpoint' | WebhookHealthKey> & Pick<WebhookView, WebhookHealthKey> & {
  /** Exactly one of `target_url` and `target` is set. */
  target_url: string | null;
  /** Sent to the API's invoke URL (the server's `invokeUrl`) + `path`. */
  target: ApiPathRef | null;
  mock_endpoint: ApiPathRef | null;
  /** `generate` (or `generate_ed25519`) makes a key once (kept on later applies); a `whsec_` or `whsk_` key is compared by the server. */
  secret: string | null;
  /**
   * The application that owns it, by uid or name (an application of the file, or one on the server);
   * null: global; absent: whatever the server has (a file older than applications changes no owner).
   */
  application?: string | null;
};

/**
 * A function as the file writes it, every field but `file` optional: the
 * API's settings as they are, `env` values, schedules and destinations the
 * file's way (`runtime` comes from the file's extension).
 */
export type FunctionEntry = Partial<Omit<ProjectFunction, 'name' | 'file' | 'code' | 'runtime' | 'handler' | 'schedules' | 'async'>> & {
  file: string;
  handler?: string;
  schedules?: Array<{ cron: string; timezone?: string; payload?: Record<string, unknown> }>;
  async?: { retries?: number; on_success?: ProjectDestination | null; on_failure?: ProjectDestination | null };
};

/** An application as the plan reads it from the server (applications.ts); `project` absent: a server older than owners of applications. */
export type RemoteApplication = Omit<ApplicationView, 'created_at' | 'updated_at' | 'project'> & { project?: string | null };

/** An application of the file, every field filled: what the file leaves out is the API's default (no limit, no metadata, the default portal). */
export type ProjectApplication = Pick<RemoteApplication, 'name' | 'uid' | 'metadata' | 'limits' | 'portal'>;

/** `applications.<name>` as written: every field optional. */
export interface FileApplication {
  uid?: string | null;
  metadata?: Record<string, unknown>;
  limits?: Partial<ProjectApplication['limits']>;
  portal?: { allowed_parents?: string[]; theme?: Partial<ProjectApplication['portal']['theme']> };
}

/** A project file as written (YAML mapping), before loading: what importers produce and export writes. */
export interface ProjectDocument {
  version?: 1;
  /** The project's name: apply records it on what it makes, and changes nothing another project made. */
  project?: string;
  /** The environment variables `${env:}` may read. */
  env_from?: string[];
  functions?: Record<string, FunctionEntry>;
  apis?: Record<
    string,
    { base_path: string; routes?: ProjectRoute[]; cors?: FileCors | null; authorizers?: FileAuthorizer[]; default_authorizer?: string | null } & ProjectApiSettings
  >;
  webhooks?: Record<string, Record<string, unknown>>;
  usage_plans?: Record<string, FileUsagePlan>;
  event_types?: Record<string, FileEventType>;
  applications?: Record<string, FileApplication>;
}

export interface Project {
  /** The file's `project`; null or absent: none (it may change only what no project owns). */
  project?: string | null;
  functions: ProjectFunction[];
  apis: ProjectApiDef[];
  webhooks: ProjectWebhook[];
  /** Absent in projects built before usage plans: read as none. */
  usage_plans?: ProjectUsagePlan[];
  /** Absent in projects built before the catalogue: read as none. */
  event_types?: ProjectEventType[];
  /** Absent in projects built before applications: read as none. */
  applications?: ProjectApplication[];
}

/** One problem of a project file: where, and why. */
export interface ProjectProblem {
  file: string;
  /** Key path such as `functions.hello.timeout_ms` or `apis.users.routes[0].path`; empty for the whole file. */
  path: string;
  message: string;
  line?: number;
  column?: number;
  /** Where in a function's own file the server found the problem (code that does not compile). */
  code_position?: { line: number; column: number | null };
}

export function formatProblem(p: ProjectProblem): string {
  const where = p.line !== undefined ? `${p.file}:${p.line}:${p.column ?? 1}` : p.file;
  return p.path ? `${where}: ${p.path}: ${p.message}` : `${where}: ${p.message}`;
}

/** What a problem of one function's file says of the other functions that share the file (said once for them all). */
export function sharedFileNote(others: string[], file: string): string {
  return `(the same for ${others.map((n) => `functions.${n}`).join(', ')}: ${others.length === 1 ? 'it shares' : 'they share'} ${file})`;
}

/** A project that cannot be loaded or applied; `problems` lists every finding. */
export class ProjectError extends Error {
  readonly code = 'invalid_project';
  constructor(readonly problems: ProjectProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ProjectError';
  }
}

/** Files an import would name from outside the folder of the imported file; `problems` lists each. */
export class OutsideProjectError extends Error {
  readonly code = 'outside_project';
  constructor(readonly problems: ProjectProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'OutsideProjectError';
  }
}

/** A server answer the project code did not expect (HTTP status and error code kept). */
export class ProjectApiError extends Error {
  readonly code: string;
  constructor(
    readonly status: number,
    code: string | undefined,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ProjectApiError';
    this.code = code ?? 'server_error';
  }
}
