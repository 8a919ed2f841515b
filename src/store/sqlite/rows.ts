/**
 * Row shapes as SQLite returns them, and their mapping to domain objects.
 * Column names are snake_case; domain objects follow src/types.ts.
 */
import {
  DEFAULT_ASYNC,
  type AsyncConfig,
  type FunctionSchedule,
  type FunctionVersion,
  type FunctionVersionSummary,
} from '../../types.js';
import type {
  Api,
  FunctionRecord,
  EventFormat, FunctionRuntimeName,
  LogLevel,
  Route,
  RouteMethod,
  StoredLogLine,
} from '../../types.js';

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
  version: number;
  code_sha256: string;
  created_at: string;
  updated_at: string;
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
  created_at: string;
  updated_at: string;
}

export interface RouteRow {
  id: string;
  api_id: string;
  method: string;
  path: string;
  shape: string;
  function_name: string;
  position: number;
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
    version: r.version,
    codeSha256: r.code_sha256,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function toRoute(r: RouteRow): Route {
  return { id: r.id, method: r.method as RouteMethod, path: r.path, function: r.function_name };
}

export function toApi(r: ApiRow, routes: RouteRow[]): Api {
  return {
    id: r.id,
    name: r.name,
    basePath: r.base_path,
    routes: routes.map(toRoute),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
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
