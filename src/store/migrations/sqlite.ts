/**
 * SQLite schema, as numbered migrations. TypeScript rather than .sql files so
 * `tsc` ships them in dist/. Never edit a released migration: append a new one.
 * Keep in step with the PostgreSQL list (same tables, same constraints).
 */
import type { Migration } from './plan.js';

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'init',
    sql: `
CREATE TABLE functions (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  name        TEXT    NOT NULL UNIQUE,
  runtime     TEXT    NOT NULL,
  code        TEXT    NOT NULL,
  compiled    TEXT    NOT NULL,
  env_json    TEXT    NOT NULL DEFAULT '{}',
  timeout_ms  INTEGER NOT NULL,
  memory_mb   INTEGER NOT NULL,
  version     INTEGER NOT NULL DEFAULT 1,
  code_sha256 TEXT    NOT NULL,
  created_at  TEXT    NOT NULL,
  updated_at  TEXT    NOT NULL
);

-- No foreign key to functions: an invocation may finish (and log) after its
-- function was deleted; the store drops such lines instead of failing.
CREATE TABLE function_logs (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  function_name TEXT NOT NULL,
  time          TEXT NOT NULL,
  level         TEXT NOT NULL,
  message       TEXT NOT NULL,
  request_id    TEXT
);
CREATE INDEX function_logs_by_function ON function_logs (function_name, id);

CREATE TABLE apis (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  base_path  TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- shape is the path with parameter names erased (routeShape): two routes of one
-- API with the same method and shape would be ambiguous, so SQL forbids them.
CREATE TABLE routes (
  id            TEXT    PRIMARY KEY,
  api_id        TEXT    NOT NULL REFERENCES apis (id) ON DELETE CASCADE,
  method        TEXT    NOT NULL,
  path          TEXT    NOT NULL,
  shape         TEXT    NOT NULL,
  function_name TEXT    NOT NULL REFERENCES functions (name),
  position      INTEGER NOT NULL,
  UNIQUE (api_id, method, shape)
);
CREATE INDEX routes_by_api ON routes (api_id, position);
CREATE INDEX routes_by_function ON routes (function_name);
`,
  },
];
