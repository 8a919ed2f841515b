/**
 * The server's defaults, as the project file fills them in: a field left out
 * of the file means the default, so the plan can compare complete values.
 * test/unit/project-load.test.ts checks they equal the services' own.
 */
export const PROJECT_DEFAULTS = {
  function: { runtime: 'javascript', handler: null, event_format: 'switchyard', timeout_ms: 10_000, memory_mb: 128 },
  /** A function schedule's zone, and asynchronous invocation's retries (0 to 5). */
  schedule: { timezone: 'UTC' },
  async: { retries: 2 },
  webhook: { timezone: 'UTC', max_attempts: 8, timeout_ms: 15_000, enabled: true },
} as const;

/** The file extensions a function's file may have, and the runtime each means. */
export const RUNTIME_BY_EXTENSION = {
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.ts': 'typescript',
  '.mts': 'typescript',
} as const;
