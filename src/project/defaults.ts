/**
 * The server's defaults as the project file fills them in: a field left out
 * of the file means the default, so the plan can compare complete values.
 * They are the API schema's (src/schema/), which load, plan and export read
 * field by field through fields.ts; this table keeps the library's published
 * shape. test/unit/project-load.test.ts checks they equal the services' own.
 */
import { FUNCTION_INPUT_DEFAULTS as fn, SCHEDULE_INPUT_DEFAULTS } from '../schema/functions.js';
import { WEBHOOK_INPUT_DEFAULTS as hook } from '../schema/webhooks.js';

export const PROJECT_DEFAULTS = {
  function: { runtime: fn.runtime, handler: fn.handler, event_format: fn.event_format, timeout_ms: fn.timeout_ms, memory_mb: fn.memory_mb },
  /** A function schedule's zone, and asynchronous invocation's retries (0 to 5). */
  schedule: { timezone: SCHEDULE_INPUT_DEFAULTS.timezone },
  async: { retries: fn.async.retries },
  webhook: { timezone: hook.timezone, max_attempts: hook.retry.max_attempts, timeout_ms: hook.timeout_ms, enabled: hook.enabled },
} as const;

/** The file extensions a function's file may have, and the runtime each means. */
export const RUNTIME_BY_EXTENSION = {
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.ts': 'typescript',
  '.mts': 'typescript',
} as const;
