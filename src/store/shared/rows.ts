/**
 * Rows of functions, their versions, APIs, routes and console lines, as both
 * databases return them (the schemas share their column names: see
 * migrations/), and their mapping to the domain objects of src/types.ts.
 */
import {
  API_POLICY_DEFAULTS,
  DEFAULT_ASYNC,
  routePolicyOf,
  type Api,
  type ApiPolicy,
  type CorsConfig,
  type AsyncConfig,
  type EventFormat,
  type FunctionRecord,
  type FunctionRuntimeName,
  type FunctionSchedule,
  type FunctionVersion,
  type FunctionVersionSummary,
  type LogLevel,
  type Route,
  type RouteMethod,
  type RoutePolicy,
  type StoredLogLine,
} from '../../types.js';
import type { DueFunctionSchedule, NewFunction } from '../store.js';

export { routePolicyOf };

/** JSON for a nullable column: undefined and null both become SQL NULL. */
export const jsonOrNull = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);

export const parseOrNull = <T>(json: string | null): T | null => (json === null ? null : (JSON.parse(json) as T));

export interface FunctionRow {
  seq: number;
  name: string;
  runtime: string;
  code: string;
  compiled: string;
  env_json: string;
  timeout_ms: number;
  memory_mb: number;
  handler: string;
  event_format: string;
  schedules_json: string;
  events_json: string;
  async_json: string | null;
  project: string | null;
  version: number;
  code_sha256: string;
  created_at: string;
  updated_at: string;
}

/** The columns a new function writes, in the order of newFunctionColumns' keys (version, times and seq are the statement's). */
export const NEW_FUNCTION_COLUMNS = [
  'name', 'runtime', 'code', 'compiled', 'env_json', 'timeout_ms', 'memory_mb', 'handler', 'event_format', 'schedules_json',
  'events_json', 'async_json', 'code_sha256', 'project',
] as const;

export function newFunctionColumns(fn: NewFunction): Record<(typeof NEW_FUNCTION_COLUMNS)[number], unknown> {
  return {
    name: fn.name,
    runtime: fn.runtime,
    code: fn.code,
    compiled: fn.compiled,
    env_json: JSON.stringify(fn.env),
    timeout_ms: fn.timeoutMs,
    memory_mb: fn.memoryMb,
    handler: fn.handler ?? '',
    event_format: fn.eventFormat,
    schedules_json: JSON.stringify(fn.schedules ?? []),
    events_json: JSON.stringify(fn.events ?? []),
    async_json: jsonOrNull(fn.async),
    code_sha256: fn.codeSha256,
    project: fn.project ?? null,
  };
}

export function toFunction(r: FunctionRow): FunctionRecord {
  return {
    name: r.name,
    runtime: r.runtime as FunctionRuntimeName,
    code: r.code,
    compiled: r.compiled,
    env: JSON.parse(r.env_json) as Record<string, string>,
    timeoutMs: r.timeout_ms,
    memoryMb: r.memory_mb,
    handler: r.handler === '' ? null : r.handler,
    eventFormat: r.event_format as EventFormat,
    schedules: JSON.parse(r.schedules_json) as FunctionSchedule[],
    events: JSON.parse(r.events_json) as string[],
    async: r.async_json === null ? { ...DEFAULT_ASYNC } : (JSON.parse(r.async_json) as AsyncConfig),
    project: r.project ?? null,
    version: r.version,
    codeSha256: r.code_sha256,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** A function_versions row; `code` only where a read asked for it. */
export interface FunctionVersionRow {
  version: number;
  runtime: string;
  handler: string;
  event_format: string;
  timeout_ms: number;
  memory_mb: number;
  code_sha256: string;
  code_bytes: number;
  created_at: string;
  code?: string;
}

/** The columns of a version listing: all but the code. */
export const VERSION_SUMMARY_COLUMNS =
  'version, runtime, handler, event_format, timeout_ms, memory_mb, code_sha256, code_bytes, created_at';

/**
 * Lists a function's versions, newest first, with a LEFT JOIN from `functions`:
 * one statement tells an unknown function (no row) from one with no kept version
 * (one row of NULLs). `$name` is the dialect's parameter.
 */
export const listVersionsSql = (name: string) => `SELECT ${VERSION_SUMMARY_COLUMNS.split(', ').map((c) => `v.${c}`).join(', ')}
  FROM functions f LEFT JOIN function_versions v ON v.function_name = f.name
  WHERE f.name = ${name} ORDER BY v.version DESC`;

/** The rows of listVersionsSql as the store answers them: null for an unknown function. */
export function toVersionList(rows: Array<FunctionVersionRow | Record<keyof FunctionVersionRow, null>>): FunctionVersionSummary[] | null {
  if (rows.length === 0) return null;
  return rows.filter((r): r is FunctionVersionRow => r.version !== null).map((r) => toFunctionVersion(r));
}

export function toFunctionVersion(r: FunctionVersionRow & { code: string }): FunctionVersion;
export function toFunctionVersion(r: FunctionVersionRow): FunctionVersionSummary;
export function toFunctionVersion(r: FunctionVersionRow): FunctionVersionSummary | FunctionVersion {
  const summary: FunctionVersionSummary = {
    version: r.version,
    runtime: r.runtime as FunctionRuntimeName,
    handler: r.handler === '' ? null : r.handler,
    eventFormat: r.event_format as EventFormat,
    timeoutMs: r.timeout_ms,
    memoryMb: r.memory_mb,
    codeSha256: r.code_sha256,
    codeBytes: Number(r.code_bytes),
    createdAt: r.created_at,
  };
  return r.code === undefined ? summary : { ...summary, code: r.code };
}

export interface ApiRow {
  id: string;
  name: string;
  base_path: string;
  /** CorsConfig as JSON; null: none. */
  cors_json: string | null;
  created_at: string;
  updated_at: string;
  minimum_compression_size: number | null;
  /** JSON text of the list, or null. */
  binary_media_types: string | null;
  /** The ApiPolicy fields that differ from their defaults, as JSON; null: none does. */
  policy_json: string | null;
  project: string | null;
}

export interface RouteRow {
  id: string;
  api_id: string;
  method: string;
  path: string;
  shape: string;
  function_name: string;
  position: number;
  /** The RoutePolicy fields set on the route, as JSON; null: none. */
  policy_json: string | null;
}

export function toRoute(r: RouteRow): Route {
  const policy = r.policy_json === null ? null : (JSON.parse(r.policy_json) as RoutePolicy);
  return { ...policy, id: r.id, method: r.method as RouteMethod, path: r.path, function: r.function_name };
}

/** The `policy_json` column of a route: null when no policy field is set. */
export function routePolicyJson(route: RoutePolicy): string | null {
  const policy = routePolicyOf(route);
  return Object.keys(policy).length === 0 ? null : JSON.stringify(policy);
}

/**
 * The `policy_json` column of an API: the current document with the given fields
 * replaced, keeping only fields that differ from their defaults (null when none does),
 * so a default changed in code reaches every API that never set the field.
 */
export function apiPolicyJson(given: Partial<ApiPolicy>, current: string | null = null): string | null {
  const policy: Record<string, unknown> = current === null ? {} : (JSON.parse(current) as Record<string, unknown>);
  for (const key of Object.keys(API_POLICY_DEFAULTS) as (keyof ApiPolicy)[]) {
    const value = given[key];
    if (value !== undefined) policy[key] = value;
    if (JSON.stringify(policy[key]) === JSON.stringify(API_POLICY_DEFAULTS[key])) delete policy[key];
  }
  return Object.keys(policy).length === 0 ? null : JSON.stringify(policy);
}

/** A route with the API it belongs to (routesUsingFunction). */
export function toBoundRoute(r: RouteRow): Route & { apiId: string } {
  return { ...toRoute(r), apiId: r.api_id };
}

/** The `cors_json` column of a policy; null for none. */
export function corsJson(cors: CorsConfig | null | undefined): string | null {
  return cors ? JSON.stringify(cors) : null;
}

export function toApi(r: ApiRow, routes: RouteRow[]): Api {
  return {
    id: r.id,
    name: r.name,
    basePath: r.base_path,
    routes: routes.map(toRoute),
    cors: r.cors_json === null ? null : (JSON.parse(r.cors_json) as CorsConfig),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    minimumCompressionSize: r.minimum_compression_size === null ? null : Number(r.minimum_compression_size),
    binaryMediaTypes: r.binary_media_types === null ? null : (JSON.parse(r.binary_media_types) as string[]),
    project: r.project ?? null,
    ...API_POLICY_DEFAULTS,
    ...(r.policy_json === null ? null : (JSON.parse(r.policy_json) as Partial<ApiPolicy>)),
  };
}

/** The API's setting and policy columns as written: the list and the policy as JSON text; absent fields as they were. */
export function apiPolicyColumns(
  given: { minimumCompressionSize?: number | null; binaryMediaTypes?: string[] | null; project?: string | null } & Partial<ApiPolicy>,
  cur?: ApiRow,
): { minimum_compression_size: number | null; binary_media_types: string | null; policy_json: string | null; project: string | null } {
  return {
    project: given.project !== undefined ? given.project : (cur?.project ?? null),
    minimum_compression_size:
      given.minimumCompressionSize !== undefined ? given.minimumCompressionSize : (cur?.minimum_compression_size ?? null),
    binary_media_types:
      given.binaryMediaTypes !== undefined
        ? given.binaryMediaTypes === null
          ? null
          : JSON.stringify(given.binaryMediaTypes)
        : (cur?.binary_media_types ?? null),
    policy_json: apiPolicyJson(given, cur?.policy_json ?? null),
  };
}

/** Keeps the ids of routes whose method and path survive a replacement, so links to them stay valid. */
export class KeptRouteIds {
  private readonly ids = new Map<string, string>();

  constructor(deps: { old: readonly RouteRow[] }) {
    for (const r of deps.old) this.ids.set(`${r.method} ${r.path}`, r.id);
  }

  /** The old id of a route with this method and path (once), else null. */
  take(route: { method: string; path: string }): string | null {
    const key = `${route.method} ${route.path}`;
    const id = this.ids.get(key) ?? null;
    this.ids.delete(key);
    return id;
  }
}

export interface LogRow {
  id: number | string;
  function_name: string;
  function_version: number | null;
  time: string;
  level: string;
  message: string;
  request_id: string | null;
}

export function toLogLine(r: LogRow): StoredLogLine {
  return {
    // PostgreSQL's BIGINT arrives as text; ids stay far below 2^53.
    id: Number(r.id),
    function: r.function_name,
    version: r.function_version,
    time: r.time,
    level: r.level as LogLevel,
    message: r.message,
    requestId: r.request_id,
  };
}

/** A due function_schedules row, with its function's event format. */
export interface FunctionScheduleRow {
  id: string;
  function_name: string;
  position: number;
  cron: string;
  timezone: string;
  payload_json: string | null;
  next_fire_at: string;
  event_format: string;
}

export function toDueFunctionSchedule(r: FunctionScheduleRow): DueFunctionSchedule {
  return {
    id: r.id,
    functionName: r.function_name,
    position: r.position,
    cron: r.cron,
    timezone: r.timezone,
    payload: parseOrNull<Record<string, unknown>>(r.payload_json),
    nextFireAt: r.next_fire_at,
    eventFormat: r.event_format as EventFormat,
  };
}
