/**
 * SQLite schema, as numbered migrations. TypeScript rather than .sql files so
 * `tsc` ships them in dist/. Never edit a released migration: append a new one.
 * Keep in step with the PostgreSQL list (same tables, same constraints).
 */
import type { Migration } from './plan.js';

/** The 15 latency bucket columns of the statistics tables (migration 10), b0..b14: written once, never changed. */
const LATENCY_BUCKET_COLUMNS = Array.from({ length: 15 }, (_, i) => `  b${i} INTEGER NOT NULL DEFAULT 0,`).join('\n');

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
  {
    version: 2,
    name: 'webhooks',
    sql: `
-- mock_api_id has no ON DELETE action: deleting an API that a webhook renders
-- from fails here, and the store reports which webhooks hold it.
-- next_fire_at is NULL without cron or while disabled.
CREATE TABLE webhooks (
  id            TEXT    PRIMARY KEY,
  name          TEXT    NOT NULL,
  target_url    TEXT    NOT NULL,
  method        TEXT    NOT NULL,
  headers_json  TEXT    NOT NULL DEFAULT '{}',
  template_json TEXT    NOT NULL DEFAULT '{}',
  cron          TEXT,
  timezone      TEXT    NOT NULL DEFAULT 'UTC',
  mock_api_id   TEXT    REFERENCES apis (id),
  mock_path     TEXT,
  events_json   TEXT    NOT NULL DEFAULT '[]',
  enabled       INTEGER NOT NULL DEFAULT 1,
  secret        TEXT,
  max_attempts  INTEGER NOT NULL,
  schedule_json TEXT,
  timeout_ms    INTEGER NOT NULL,
  next_fire_at  TEXT,
  created_at    TEXT    NOT NULL,
  updated_at    TEXT    NOT NULL
);
CREATE INDEX webhooks_due ON webhooks (enabled, next_fire_at);
CREATE INDEX webhooks_by_mock_api ON webhooks (mock_api_id);

-- Event subscriptions as rows, so publishing an event is an index lookup; kept
-- in step with webhooks.events_json in the same transaction.
CREATE TABLE webhook_events (
  event      TEXT NOT NULL,
  webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  PRIMARY KEY (event, webhook_id)
);
CREATE INDEX webhook_events_by_webhook ON webhook_events (webhook_id);

-- UNIQUE (webhook_id, scheduled_for) makes a cron slot fire at most once across
-- processes; only schedule deliveries carry a slot, and NULLs never collide.
-- lease_owner/lease_until: the worker sending it now; an expired lease is free.
CREATE TABLE deliveries (
  id              TEXT    PRIMARY KEY,
  webhook_id      TEXT    NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  trigger         TEXT    NOT NULL,
  status          TEXT    NOT NULL DEFAULT 'pending',
  error           TEXT,
  scheduled_for   TEXT,
  event           TEXT,
  event_data_json TEXT,
  request_json    TEXT,
  response_json   TEXT,
  attempt_count   INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  lease_owner     TEXT,
  lease_until     TEXT,
  created_at      TEXT    NOT NULL,
  completed_at    TEXT,
  UNIQUE (webhook_id, scheduled_for)
);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
CREATE INDEX deliveries_by_webhook ON deliveries (webhook_id, id);
CREATE INDEX deliveries_by_lease_owner ON deliveries (lease_owner) WHERE lease_owner IS NOT NULL;
CREATE INDEX deliveries_finished ON deliveries (created_at) WHERE status <> 'pending';

CREATE TABLE delivery_attempts (
  delivery_id     TEXT    NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  attempt         INTEGER NOT NULL,
  started_at      TEXT    NOT NULL,
  duration_ms     REAL    NOT NULL,
  response_status INTEGER,
  error           TEXT,
  PRIMARY KEY (delivery_id, attempt)
);
`,
  },
  {
    version: 3,
    name: 'changes',
    sql: `
-- Change announcements between processes sharing this file (see sqlite/changes.ts).
-- Rows are short-lived: pruned a minute after they are written.
CREATE TABLE changes (
  id      INTEGER PRIMARY KEY AUTOINCREMENT,
  origin  TEXT NOT NULL,
  kind    TEXT NOT NULL,
  key     TEXT NOT NULL,
  at      TEXT NOT NULL
);
`,
  },
  {
    version: 4,
    name: 'pending_due_order',
    // PostgreSQL's claim needed an index in (next_attempt_at, id) order; SQLite's claim
    // orders by (next_attempt_at, rowid), which deliveries_due already holds. The
    // version is kept so both schemas stay in step.
    sql: `SELECT 1;`,
  },
  {
    version: 5,
    name: 'fair_claim',
    // The claim gives each webhook a bounded share of a node's attempts (see
    // claimDueDeliveries): it walks the webhooks that have pending deliveries and
    // takes each one's oldest due ones, and counts what an owner already holds per
    // webhook. The lease index gains webhook_id and lease_until so that count reads
    // the index alone; its lease_owner prefix still serves releaseLeases.
    sql: `
CREATE INDEX deliveries_pending_by_webhook ON deliveries (webhook_id, next_attempt_at) WHERE status = 'pending';
DROP INDEX deliveries_by_lease_owner;
CREATE INDEX deliveries_leases ON deliveries (lease_owner, webhook_id, lease_until) WHERE lease_owner IS NOT NULL;
`,
  },
  {
    version: 6,
    name: 'function_handler_and_event_format',
    // '' is "no handler named": the runtime looks for `handler`, the default export,
    // or the only exported function (a NOT NULL column keeps updates one COALESCE).
    sql: `
ALTER TABLE functions ADD COLUMN handler TEXT NOT NULL DEFAULT '';
ALTER TABLE functions ADD COLUMN event_format TEXT NOT NULL DEFAULT 'switchyard';
`,
  },
  {
    version: 7,
    name: 'function_log_version',
    // Streams of console lines name the function version that wrote each line;
    // NULL for lines stored before this version.
    sql: `ALTER TABLE function_logs ADD COLUMN function_version INTEGER;`,
  },
  {
    version: 8,
    name: 'function_targets',
    // One delivery pipeline, two kinds of target: a delivery goes to a webhook or
    // runs a function (an asynchronous, scheduled or event-triggered invocation).
    // SQLite cannot drop NOT NULL from webhook_id, so deliveries and their attempts
    // are rebuilt (renamed away first, so the attempts' foreign key follows, then
    // copied and dropped, children before parents). `target` is the claim's
    // fair-share key: the webhook id, or 'fn:' and the function name.
    // UNIQUE (schedule_id, scheduled_for) is a function schedule's slot key, as
    // (webhook_id, scheduled_for) is a webhook's.
    sql: `
ALTER TABLE functions ADD COLUMN schedules_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE functions ADD COLUMN events_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE functions ADD COLUMN async_json TEXT;

CREATE TABLE function_events (
  event         TEXT NOT NULL,
  function_name TEXT NOT NULL REFERENCES functions (name) ON DELETE CASCADE,
  PRIMARY KEY (event, function_name)
);
CREATE INDEX function_events_by_function ON function_events (function_name);

CREATE TABLE function_schedules (
  id            TEXT    PRIMARY KEY,
  function_name TEXT    NOT NULL REFERENCES functions (name) ON DELETE CASCADE,
  position      INTEGER NOT NULL,
  cron          TEXT    NOT NULL,
  timezone      TEXT    NOT NULL,
  payload_json  TEXT,
  next_fire_at  TEXT,
  UNIQUE (function_name, position)
);
CREATE INDEX function_schedules_due ON function_schedules (next_fire_at);

ALTER TABLE delivery_attempts RENAME TO delivery_attempts_old;
ALTER TABLE deliveries RENAME TO deliveries_old;
DROP INDEX deliveries_due;
DROP INDEX deliveries_by_webhook;
DROP INDEX deliveries_finished;
DROP INDEX deliveries_pending_by_webhook;
DROP INDEX deliveries_leases;

CREATE TABLE deliveries (
  id              TEXT    PRIMARY KEY,
  target          TEXT    NOT NULL,
  webhook_id      TEXT    REFERENCES webhooks (id) ON DELETE CASCADE,
  function_name   TEXT    REFERENCES functions (name) ON DELETE CASCADE,
  schedule_id     TEXT,
  trigger         TEXT    NOT NULL,
  trigger_json    TEXT,
  status          TEXT    NOT NULL DEFAULT 'pending',
  error           TEXT,
  scheduled_for   TEXT,
  event           TEXT,
  event_data_json TEXT,
  request_json    TEXT,
  response_json   TEXT,
  result_json     TEXT,
  attempt_count   INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  lease_owner     TEXT,
  lease_until     TEXT,
  created_at      TEXT    NOT NULL,
  completed_at    TEXT,
  UNIQUE (webhook_id, scheduled_for),
  UNIQUE (schedule_id, scheduled_for),
  CHECK ((webhook_id IS NULL) <> (function_name IS NULL))
);
CREATE TABLE delivery_attempts (
  delivery_id     TEXT    NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  attempt         INTEGER NOT NULL,
  started_at      TEXT    NOT NULL,
  duration_ms     REAL    NOT NULL,
  response_status INTEGER,
  error           TEXT,
  outcome         TEXT,
  request_id      TEXT,
  PRIMARY KEY (delivery_id, attempt)
);
INSERT INTO deliveries (id, target, webhook_id, trigger, status, error, scheduled_for, event, event_data_json,
    request_json, response_json, attempt_count, next_attempt_at, lease_owner, lease_until, created_at, completed_at)
  SELECT id, webhook_id, webhook_id, trigger, status, error, scheduled_for, event, event_data_json,
    request_json, response_json, attempt_count, next_attempt_at, lease_owner, lease_until, created_at, completed_at
  FROM deliveries_old ORDER BY rowid;
INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, response_status, error)
  SELECT delivery_id, attempt, started_at, duration_ms, response_status, error FROM delivery_attempts_old;
DROP TABLE delivery_attempts_old;
DROP TABLE deliveries_old;

CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
CREATE INDEX deliveries_by_webhook ON deliveries (webhook_id, id);
CREATE INDEX deliveries_by_function ON deliveries (function_name, id);
CREATE INDEX deliveries_finished ON deliveries (created_at) WHERE status <> 'pending';
CREATE INDEX deliveries_pending_by_webhook ON deliveries (target, next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_leases ON deliveries (lease_owner, target, lease_until) WHERE lease_owner IS NOT NULL;
`,
  },
  {
    version: 9,
    name: 'slot_claim_order',
    // A slot claim takes the due rows in (next_fire_at, id) order, a batch at a
    // time. With only next_fire_at indexed, rows sharing one slot (a burst: every
    // webhook due at the same minute) were sorted by id in full on every batch:
    // 45 ms a batch of 500 with 100,000 due on SQLite. With id in the index the
    // claim reads its batch off the index and stops.
    sql: `
DROP INDEX webhooks_due;
CREATE INDEX webhooks_due ON webhooks (enabled, next_fire_at, id);
DROP INDEX function_schedules_due;
CREATE INDEX function_schedules_due ON function_schedules (next_fire_at, id);
`,
  },
  {
    version: 10,
    name: 'stats',
    // Per-minute statistics of the dashboard's overview (src/stats/): each process
    // adds its increments to its own rows (owner) every few seconds, so processes and
    // nodes add up without contending; a read sums over owners. b0..b14 are the
    // latency buckets (src/stats/types.ts). Rows live 24 hours.
    sql: `
CREATE TABLE stats_requests (
  minute  INTEGER NOT NULL,
  owner   TEXT NOT NULL,
  api_id  TEXT NOT NULL,
  method  TEXT NOT NULL,
  path    TEXT NOT NULL,
  count   INTEGER NOT NULL,
  errors  INTEGER NOT NULL,
  max_ms  REAL NOT NULL,
${LATENCY_BUCKET_COLUMNS}
  PRIMARY KEY (minute, owner, api_id, method, path)
);
CREATE TABLE stats_outcomes (
  minute  INTEGER NOT NULL,
  owner   TEXT NOT NULL,
  source  TEXT NOT NULL,
  subject TEXT NOT NULL,
  outcome TEXT NOT NULL,
  count   INTEGER NOT NULL,
  PRIMARY KEY (minute, owner, source, subject, outcome)
);
CREATE TABLE stats_lateness (
  minute  INTEGER NOT NULL,
  owner   TEXT NOT NULL,
  count   INTEGER NOT NULL,
  max_ms  REAL NOT NULL,
${LATENCY_BUCKET_COLUMNS}
  PRIMARY KEY (minute, owner)
);
-- The newest failures (invocations through an API, deliveries failed for good),
-- written by the same flush; the newest 200 are kept (ids grow, so the newest are the highest).
CREATE TABLE stats_failures (
  id      INTEGER PRIMARY KEY AUTOINCREMENT,
  at      TEXT NOT NULL,
  source  TEXT NOT NULL,
  ref     TEXT NOT NULL,
  subject TEXT NOT NULL,
  code    TEXT NOT NULL,
  message TEXT NOT NULL
);
-- The deliveries stream's cursor is delivery_attempts' rowid: it grows with every
-- insert and is read off the table's own b-tree, so SQLite needs nothing here.
`,
  },
  {
    version: 11,
    name: 'invocation_events',
    // Finished invocations of every process, written only while a log stream
    // somewhere watches (src/streams/invocations.ts) and kept two minutes: each
    // process follows the table by id to show the others' invocations live.
    sql: `
CREATE TABLE invocation_events (
  -- AUTOINCREMENT: ids are never reused after a prune, so a follower's cursor stays valid.
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  origin        TEXT NOT NULL,
  function_name TEXT NOT NULL,
  data          TEXT NOT NULL,
  created_at    TEXT NOT NULL
);
CREATE INDEX invocation_events_created ON invocation_events (created_at);
`,
  },
  {
    version: 12,
    name: 'function_versions',
    // The history of a function's versions (GET /api/functions/{name}/versions): each
    // deploy and each update writes its version's row in the same statement or
    // transaction as the function's own row, and drops all but the newest 50
    // (FUNCTION_VERSIONS_KEPT). Never the env: its values are write-only. code is
    // last so a listing, which reads every column but it, stops before its overflow
    // pages. Existing functions get their current version.
    sql: `
CREATE TABLE function_versions (
  function_name TEXT    NOT NULL REFERENCES functions (name) ON DELETE CASCADE,
  version       INTEGER NOT NULL,
  runtime       TEXT    NOT NULL,
  handler       TEXT    NOT NULL,
  event_format  TEXT    NOT NULL,
  timeout_ms    INTEGER NOT NULL,
  memory_mb     INTEGER NOT NULL,
  code_sha256   TEXT    NOT NULL,
  code_bytes    INTEGER NOT NULL,
  created_at    TEXT    NOT NULL,
  code          TEXT    NOT NULL,
  PRIMARY KEY (function_name, version)
);
INSERT INTO function_versions (function_name, version, runtime, handler, event_format, timeout_ms, memory_mb, code_sha256,
    code_bytes, created_at, code)
  SELECT name, version, runtime, handler, event_format, timeout_ms, memory_mb, code_sha256, length(CAST(code AS BLOB)),
    updated_at, code
  FROM functions;
`,
  },
  {
    version: 13,
    name: 'attempt_responses',
    // Each attempt's own answer from the target (GET /api/deliveries/{id}), not only the
    // delivery's latest. Written with the attempt from the same JSON text as the delivery's
    // response_json (body capped at 16 KiB by the sender); read only by the single-delivery
    // read, never by lists. Attempts recorded before this migration answer null.
    sql: `
ALTER TABLE delivery_attempts ADD COLUMN response_json TEXT;
`,
  },
  {
    version: 14,
    name: 'api_cors',
    // An API's CORS policy (src/types.ts CorsConfig) as JSON; null: none. Read with the API,
    // compiled once per route table (src/gateway/policy/cors.ts).
    sql: `
ALTER TABLE apis ADD COLUMN cors_json TEXT;
`,
  },
  {
    version: 15,
    name: 'api_compression_binary_types',
    // An API's minimumCompressionSize (bytes; null: off) and binaryMediaTypes (a JSON
    // list; null: unset, the aws-v1 behaviour before the field). Both null for existing APIs.
    // Version 15: written on the branch as 14, renumbered after main's 14 (api_cors) was released.
    sql: `
ALTER TABLE apis ADD COLUMN minimum_compression_size INTEGER;
ALTER TABLE apis ADD COLUMN binary_media_types TEXT;
`,
  },
  {
    version: 16,
    name: 'api_route_policy',
    // An API's and a route's access policy (src/types.ts ApiPolicy, RoutePolicy) as one JSON
    // document each; null: nothing set (every field at its default). A new policy field adds
    // a key to the document, not a column: the gateway compiles it once per route table.
    sql: `
ALTER TABLE apis ADD COLUMN policy_json TEXT;
ALTER TABLE routes ADD COLUMN policy_json TEXT;
`,
  },
  {
    version: 17,
    name: 'api_keys_usage_plans_throttles',
    // Usage plans, API keys (only the SHA-256 of a secret is kept), the usage counters per key
    // and UTC day and per key and quota period (one atomic upsert per admitted request), and
    // the shared token buckets of throttles (src/gateway/policy/throttle.ts). A plan in use by
    // a key cannot be deleted (the reference); a key's counters go with it.
    sql: `
CREATE TABLE usage_plans (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  api_ids_json  TEXT NOT NULL,
  throttle_json TEXT,
  quota_json    TEXT,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);
CREATE TABLE api_keys (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  prefix        TEXT NOT NULL,
  key_hash      TEXT NOT NULL UNIQUE,
  enabled       INTEGER NOT NULL,
  usage_plan_id TEXT REFERENCES usage_plans (id),
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);
CREATE INDEX api_keys_plan ON api_keys (usage_plan_id);
CREATE TABLE api_key_usage (
  key_id TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  day    TEXT NOT NULL,
  used   INTEGER NOT NULL,
  PRIMARY KEY (key_id, day)
);
CREATE TABLE quota_usage (
  key_id TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  period TEXT NOT NULL,
  used   INTEGER NOT NULL,
  PRIMARY KEY (key_id, period)
);
CREATE TABLE rate_buckets (
  bucket TEXT PRIMARY KEY,
  tokens REAL NOT NULL,
  taken  INTEGER NOT NULL,
  at_ms  INTEGER NOT NULL
);
`,
  },
  {
    version: 18,
    name: 'endpoint_health',
    // Endpoint health (src/webhooks/health-gate.ts). Webhooks: paused_at (an operator's
    // pause), disabled_reason (set when Switchyard disabled it), health_json (breaker,
    // rate limit and auto-disable settings; null: the defaults) and target_origin (the
    // origin whose breaker it shares; new writes take URL.origin, existing rows get the
    // same by text: scheme and host lower-cased, user info, path and a default port cut off).
    // Deliveries: status 'held' and 'discarded' (no CHECK to change), retry_base (the
    // attempts before a recovery reopened it), and an index of the held ones per target
    // in insertion order, so release, trim and count never read another status.
    // target_health: one row per webhook and per origin (times in epoch ms).
    // recoveries: resend jobs, leased like deliveries so any node runs and resumes them.
    sql: `
ALTER TABLE webhooks ADD COLUMN paused_at TEXT;
ALTER TABLE webhooks ADD COLUMN disabled_reason TEXT;
ALTER TABLE webhooks ADD COLUMN health_json TEXT;
ALTER TABLE webhooks ADD COLUMN target_origin TEXT;
UPDATE webhooks SET target_origin = substr(target_url, instr(target_url, '://') + 3);
UPDATE webhooks SET target_origin = substr(target_origin, 1, instr(target_origin, '/') - 1) WHERE instr(target_origin, '/') > 0;
UPDATE webhooks SET target_origin = substr(target_origin, 1, instr(target_origin, '?') - 1) WHERE instr(target_origin, '?') > 0;
UPDATE webhooks SET target_origin = substr(target_origin, 1, instr(target_origin, '#') - 1) WHERE instr(target_origin, '#') > 0;
UPDATE webhooks SET target_origin = substr(target_origin, instr(target_origin, '@') + 1) WHERE instr(target_origin, '@') > 0;
UPDATE webhooks SET target_origin = lower(substr(target_url, 1, instr(target_url, '://') + 2) || target_origin);
UPDATE webhooks SET target_origin = substr(target_origin, 1, length(target_origin) - 4) WHERE target_origin LIKE 'https://%:443';
UPDATE webhooks SET target_origin = substr(target_origin, 1, length(target_origin) - 3) WHERE target_origin LIKE 'http://%:80';
CREATE INDEX webhooks_by_origin ON webhooks (target_origin);

ALTER TABLE deliveries ADD COLUMN retry_base INTEGER NOT NULL DEFAULT 0;
CREATE INDEX deliveries_held ON deliveries (target) WHERE status = 'held';

CREATE TABLE target_health (
  key               TEXT    PRIMARY KEY,
  webhook_id        TEXT    REFERENCES webhooks (id) ON DELETE CASCADE,
  origin            TEXT,
  state             TEXT    NOT NULL DEFAULT 'closed',
  since             INTEGER NOT NULL,
  window_start      INTEGER NOT NULL,
  attempts          INTEGER NOT NULL DEFAULT 0,
  failures          INTEGER NOT NULL DEFAULT 0,
  prev_attempts     INTEGER NOT NULL DEFAULT 0,
  prev_failures     INTEGER NOT NULL DEFAULT 0,
  consecutive_failures INTEGER NOT NULL DEFAULT 0,
  probe_at          INTEGER,
  probe_delay_ms    INTEGER NOT NULL DEFAULT 5000,
  probe_delivery_id TEXT,
  probe_until       INTEGER,
  failing_since     INTEGER,
  last_failure_at   INTEGER,
  last_success_at   INTEGER,
  not_before        INTEGER,
  held_discarded    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX target_health_probes ON target_health (probe_at) WHERE state <> 'closed';

CREATE TABLE recoveries (
  id          TEXT    PRIMARY KEY,
  webhook_id  TEXT    REFERENCES webhooks (id) ON DELETE CASCADE,
  filter_json TEXT    NOT NULL,
  status      TEXT    NOT NULL,
  total       INTEGER NOT NULL,
  resent      INTEGER NOT NULL DEFAULT 0,
  cursor      TEXT    NOT NULL DEFAULT '',
  lease_owner TEXT,
  lease_until TEXT,
  error       TEXT,
  created_at  TEXT    NOT NULL,
  updated_at  TEXT    NOT NULL,
  finished_at TEXT
);
CREATE INDEX recoveries_by_webhook ON recoveries (webhook_id, id);
CREATE INDEX recoveries_running ON recoveries (lease_until) WHERE status = 'running';
`,
  },
  {
    version: 19,
    name: 'project_owners',
    // Which project made a function, an API or a webhook (\`switchyard apply\` of a file with a
    // \`project\`); null: made by hand, or before projects were recorded. apply refuses to change
    // what another project owns unless told to take it over.
    sql: `
ALTER TABLE functions ADD COLUMN project TEXT;
ALTER TABLE apis ADD COLUMN project TEXT;
ALTER TABLE webhooks ADD COLUMN project TEXT;
`,
  },
  {
    version: 20,
    name: 'idempotency_keys',
    // Idempotency keys and event ids of publishes, test-fires and async invokes (src/events/idempotency.ts):
    // the primary key decides who runs the operation; times are ms of the service's clock, so tests can move past the window.
    sql: `
CREATE TABLE idempotency_keys (
  scope        TEXT NOT NULL,
  key          TEXT NOT NULL,
  request_hash TEXT    NOT NULL,
  token        TEXT    NOT NULL,
  status       INTEGER,
  response     TEXT,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
`,
  },
  {
    version: 21,
    name: 'event_types',
    // The event-type catalogue (src/events/catalogue.ts): a type, its schema versions (numbered from 1 per
    // type; the primary key makes two writers adding one at once fail, never share a number), and the latest
    // violations of warn-mode publishes, pruned per type by the write that adds one.
    sql: `
CREATE TABLE event_types (
  name        TEXT    PRIMARY KEY,
  description TEXT    NOT NULL DEFAULT '',
  mode        TEXT    NOT NULL DEFAULT 'off',
  deprecated  INTEGER NOT NULL DEFAULT 0,
  project     TEXT,
  created_at  TEXT    NOT NULL,
  updated_at  TEXT    NOT NULL
);
CREATE TABLE event_type_versions (
  name          TEXT    NOT NULL REFERENCES event_types (name) ON DELETE CASCADE,
  version       INTEGER NOT NULL,
  schema_json   TEXT    NOT NULL,
  examples_json TEXT    NOT NULL DEFAULT '[]',
  created_at    TEXT    NOT NULL,
  PRIMARY KEY (name, version)
);
CREATE TABLE event_type_violations (
  id       INTEGER PRIMARY KEY AUTOINCREMENT,
  name     TEXT    NOT NULL REFERENCES event_types (name) ON DELETE CASCADE,
  version  INTEGER NOT NULL,
  path     TEXT    NOT NULL,
  message  TEXT    NOT NULL,
  source   TEXT    NOT NULL,
  at       TEXT    NOT NULL
);
CREATE INDEX event_type_violations_by_type ON event_type_violations (name, id);
`,
  },
  {
    version: 22,
    name: 'webhook_filters',
    // A webhook's payload filter (src/events/filters.ts) as JSON, checked when written and
    // evaluated at fan-out; null: no filter (every event it subscribes to).
    sql: `
ALTER TABLE webhooks ADD COLUMN filter_json TEXT;
`,
  },
  {
    version: 23,
    name: 'webhook_secret_rotation',
    // Secret rotation with overlap (src/webhooks/types.ts rotatedSecrets): when the current secret
    // was set, and the replaced secrets that still sign until their expiry (JSON, newest first);
    // both write-only like \`secret\`. An expired entry stops signing at send time; the next rotation drops it.
    sql: `
ALTER TABLE webhooks ADD COLUMN secret_created_at TEXT;
ALTER TABLE webhooks ADD COLUMN previous_secrets_json TEXT;
`,
  },
  {
    version: 24,
    name: 'webhook_transformations',
    // A webhook's transformation (its JavaScript source; null: none), and the request a
    // transformation made of an attempt's rendered one (null when none changed it).
    sql: `
ALTER TABLE webhooks ADD COLUMN transformation TEXT;
ALTER TABLE delivery_attempts ADD COLUMN sent_json TEXT;
`,
  },
  {
    version: 25,
    name: 'lease_heartbeats',
    // Each lease owner's heartbeat (src/deliveries/heartbeat.ts): a process with a delivery engine
    // beats every few seconds, adding one to seq; an owner whose seq stopped moving loses its leases
    // to the others at once instead of after the 90 s lease. Each watcher times that silence on its
    // own monotonic clock, so no two clocks are compared; beat_at is for people.
    sql: `
CREATE TABLE lease_heartbeats (
  owner      TEXT    PRIMARY KEY,
  host       TEXT    NOT NULL,
  pid        INTEGER NOT NULL,
  seq        INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  beat_at    TEXT NOT NULL
);
`,
  },
  {
    version: 26,
    name: 'delivery_trace_context',
    // The W3C trace context of what caused a delivery (the emit or publish that made it, while
    // tracing was on; src/telemetry/types.ts TraceCarrier), so each attempt's span joins that trace
    // and its request sends a child of it in traceparent. Null: untraced.
    sql: `
ALTER TABLE deliveries ADD COLUMN trace_context TEXT;
`,
  },
  {
    version: 27,
    name: 'applications',
    // Applications (one per customer of the operator, src/applications/): a webhook may belong to one
    // (application_id; deleting the application deletes its webhooks, so their subscriptions,
    // deliveries and attempts go too). webhook_events carries its webhook's application ('' for a
    // global webhook) so a publish reads only its scope's subscriptions: (application_id, event) is
    // the index the fan-out seeks, whatever the number of applications. Portal tokens are kept as
    // their SHA-256 only; a token's expiry moves with each refresh, never past max_expires_at.
    sql: `
CREATE TABLE applications (
  id            TEXT PRIMARY KEY,
  uid           TEXT UNIQUE,
  name          TEXT NOT NULL,
  metadata_json TEXT NOT NULL DEFAULT '{}',
  limits_json   TEXT NOT NULL DEFAULT '{}',
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);
ALTER TABLE webhooks ADD COLUMN application_id TEXT REFERENCES applications (id) ON DELETE CASCADE;
CREATE INDEX webhooks_by_application ON webhooks (application_id, id);
ALTER TABLE webhook_events ADD COLUMN application_id TEXT NOT NULL DEFAULT '';
CREATE INDEX webhook_events_by_scope ON webhook_events (application_id, event, webhook_id);
CREATE TABLE portal_tokens (
  hash           TEXT PRIMARY KEY,
  application_id TEXT NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
  created_at     TEXT NOT NULL,
  expires_at     TEXT NOT NULL,
  max_expires_at TEXT NOT NULL,
  revoked_at     TEXT
);
CREATE INDEX portal_tokens_by_application ON portal_tokens (application_id);
`,
  },
  {
    version: 28,
    name: 'application_portal_settings',
    // The consumer portal's per-application settings (allowed parent origins for frame-ancestors,
    // theme) as one JSON document: read whole by the portal page and the consumer API, never queried by field.
    sql: `
ALTER TABLE applications ADD COLUMN portal_json TEXT NOT NULL DEFAULT '{}';
`,
  },
  {
    version: 29,
    name: 'application_owners',
    // Which project's \`switchyard apply\` made (or last took over) an application, as project_owners
    // for functions, APIs and webhooks: apply refuses to change another project's, and --prune deletes
    // only its own project's (so its webhooks and deliveries). Null: made by hand, or before this.
    sql: `
ALTER TABLE applications ADD COLUMN project TEXT;
`,
  },
];
