/**
 * The project model: what a `switchyard.yaml` describes once loaded (defaults
 * filled, `${env:}` resolved, function files read), and what the plan
 * compares with the server. Field names are the management API's, except
 * `base_path` (the API's `basePath`, snake_case like every other key of the
 * file) and `mock_endpoint.api` (an API's name: ids are not portable).
 */
import type { EventFormat, FunctionRuntimeName, RouteMethod } from '../types.js';
import type { WebhookMethod } from '../webhooks/types.js';

export interface ProjectFunction {
  name: string;
  /** The source file as written in the project file (relative to it). */
  file: string;
  code: string;
  runtime: FunctionRuntimeName;
  handler: string | null;
  event_format: EventFormat;
  env: Record<string, string>;
  timeout_ms: number;
  memory_mb: number;
}

export interface ProjectRoute {
  method: RouteMethod;
  path: string;
  function: string;
}

export interface ProjectApiDef {
  name: string;
  base_path: string;
  routes: ProjectRoute[];
}

export interface ProjectWebhook {
  name: string;
  target_url: string;
  method: WebhookMethod;
  headers: Record<string, string>;
  payload_template: Record<string, unknown>;
  cron: string | null;
  timezone: string;
  mock_endpoint: { api: string; path: string } | null;
  events: string[];
  enabled: boolean;
  /** `generate` makes a key once (kept on later applies); a `whsec_` key is compared by the server. */
  secret: string | null;
  retry: { max_attempts: number; schedule_s?: number[] };
  timeout_ms: number;
}

/** A project file as written (YAML mapping), before loading: what importers produce and export writes. */
export interface ProjectDocument {
  version?: 1;
  functions?: Record<
    string,
    { file: string; handler?: string; event_format?: EventFormat; env?: Record<string, string>; timeout_ms?: number; memory_mb?: number }
  >;
  apis?: Record<string, { base_path: string; routes?: ProjectRoute[] }>;
  webhooks?: Record<string, Record<string, unknown>>;
}

export interface Project {
  functions: ProjectFunction[];
  apis: ProjectApiDef[];
  webhooks: ProjectWebhook[];
}

/** One problem of a project file: where, and why. */
export interface ProjectProblem {
  file: string;
  /** Key path such as `functions.hello.timeout_ms` or `apis.users.routes[0].path`; empty for the whole file. */
  path: string;
  message: string;
  line?: number;
  column?: number;
}

export function formatProblem(p: ProjectProblem): string {
  const where = p.line !== undefined ? `${p.file}:${p.line}:${p.column ?? 1}` : p.file;
  return p.path ? `${where}: ${p.path}: ${p.message}` : `${where}: ${p.message}`;
}

/** A project that cannot be loaded or applied; `problems` lists every finding. */
export class ProjectError extends Error {
  readonly code = 'invalid_project';
  constructor(readonly problems: ProjectProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ProjectError';
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
