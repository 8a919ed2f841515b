/**
 * Functions, their versions, console lines and background invocations as the
 * API shows them: the domain records (camelCase) turned into the answers'
 * snake_case shapes. Each is typed by its component schema (../schemas.ts),
 * so a field the schema gains must be filled here, or this does not compile.
 */
import type { FunctionRecord, FunctionLogLine, FunctionVersion, FunctionVersionSummary, Destination, StoredLogLine } from '../../types.js';
import type { Delivery } from '../../deliveries/types.js';
import type {
  DestinationView,
  FunctionInvocationView,
  FunctionVersionView,
  FunctionView,
  InvocationView,
  LogEntryView,
} from '../../schema/functions.js';
import { unavailableModules } from '../../runtime/node-builtins.js';

const destinationView = (d: Destination | null): DestinationView | null =>
  d === null ? null : d.type === 'webhook' ? { type: 'webhook', id: d.id } : { type: 'function', name: d.name };

export function functionView(fn: FunctionRecord, withCode = false): FunctionView {
  return {
    name: fn.name,
    runtime: fn.runtime,
    env_keys: Object.keys(fn.env).sort(),
    timeout_ms: fn.timeoutMs,
    memory_mb: fn.memoryMb,
    handler: fn.handler,
    event_format: fn.eventFormat,
    schedules: fn.schedules.map((s) => ({ cron: s.cron, timezone: s.timezone, ...(s.payload ? { payload: s.payload } : {}) })),
    events: fn.events,
    async: {
      retries: fn.async.retries,
      on_success: destinationView(fn.async.onSuccess),
      on_failure: destinationView(fn.async.onFailure),
    },
    project: fn.project ?? null,
    version: fn.version,
    code_sha256: fn.codeSha256,
    unavailable_modules: unavailableModules(fn.compiled),
    created_at: fn.createdAt,
    updated_at: fn.updatedAt,
    ...(withCode ? { code: fn.code } : {}),
  };
}

/** A version of the history; its code only when asked for one version. */
export function functionVersionView(v: FunctionVersionSummary | FunctionVersion): FunctionVersionView {
  return {
    version: v.version,
    runtime: v.runtime,
    handler: v.handler,
    event_format: v.eventFormat,
    timeout_ms: v.timeoutMs,
    memory_mb: v.memoryMb,
    code_sha256: v.codeSha256,
    code_bytes: v.codeBytes,
    created_at: v.createdAt,
    ...('code' in v ? { code: v.code } : {}),
  };
}

/** A console line; stored lines add their id and the version that wrote them. */
export function logView(line: FunctionLogLine | StoredLogLine): LogEntryView {
  const view = { time: line.time, level: line.level, message: line.message, request_id: line.requestId };
  return 'id' in line ? { id: line.id, version: line.version, ...view } : view;
}

/** A manual invoke's answer (`POST /api/functions/{name}/invoke`). */
export function invocationView(run: {
  status: number;
  result: unknown;
  error: { code: string; message: string } | null;
  logs: FunctionLogLine[];
  durationMs: number;
}): InvocationView {
  return { status: run.status, result: run.result, error: run.error, logs: run.logs.map(logView), duration_ms: run.durationMs };
}

/** A background invocation: a delivery whose target is a function. */
export function functionInvocationView(d: Delivery): FunctionInvocationView {
  const detail = d.triggerDetail ?? { type: d.trigger };
  return {
    id: d.id,
    // Set on every function-target delivery, the only ones this is given.
    function: d.functionName as string,
    trigger: { ...detail, type: d.trigger as FunctionInvocationView['trigger']['type'] },
    // Only webhook deliveries are ever held or discarded.
    status: d.status as FunctionInvocationView['status'],
    attempts: d.attempts.map((a) => ({
      attempt: a.attempt,
      started_at: a.startedAt,
      duration_ms: a.durationMs,
      outcome: a.outcome ?? (a.error ? 'error' : 'ok'),
      error: a.error,
      request_id: a.requestId,
    })),
    event: d.eventData ?? null,
    result: d.status === 'succeeded' ? (d.result ?? null) : null,
    error: d.error,
    next_attempt_at: d.nextAttemptAt,
    created_at: d.createdAt,
    completed_at: d.completedAt,
  };
}
