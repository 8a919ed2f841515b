/**
 * PostgreSQL schema, as numbered migrations: the same versions, names, tables
 * and constraints as SQLITE_MIGRATIONS, in PostgreSQL's dialect. Never edit a
 * released migration: append a new one to both lists.
 *
 * Dialect choices, so both backends answer identically:
 * - Instants are `timestamptz`; the store only ever writes ISO strings with
 *   milliseconds from its clock (never SQL `now()`, which tests cannot fake) and
 *   reads them back as ISO strings.
 * - Ids and their references are `COLLATE "C"`: ids sort by creation only under
 *   byte order, whatever the database's default collation.
 * - JSON stays TEXT (`_json`), byte for byte: jsonb would reorder template keys.
 */
import type { Migration } from './plan.js';

/** The 15 latency bucket columns of the statistics tables (migration 10), b0..b14: written once, never changed. */
const LATENCY_BUCKET_COLUMNS = Array.from({ length: 15 }, (_, i) => `  b${i} BIGINT NOT NULL DEFAULT 0,`).join('\n');

export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'init',
    sql: `
CREATE TABLE functions (
  seq         BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name        TEXT    NOT NULL UNIQUE,
  runtime     TEXT    NOT NULL,
  code        TEXT    NOT NULL,
  compiled    TEXT    NOT NULL,
  env_json    TEXT    NOT NULL DEFAULT '{}',
  timeout_ms  INTEGER NOT NULL,
  memory_mb   INTEGER NOT NULL,
  version     INTEGER NOT NULL DEFAULT 1,
  code_sha256 TEXT    NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL,
  updated_at  TIMESTAMPTZ NOT NULL
);

-- No foreign key to functions: an invocation may finish (and log) after its
-- function was deleted; the store drops such lines instead of failing.
CREATE TABLE function_logs (
  id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  function_name TEXT   NOT NULL,
  time          TIMESTAMPTZ NOT NULL,
  level         TEXT   NOT NULL,
  message       TEXT   NOT NULL,
  request_id    TEXT
);
CREATE INDEX function_logs_by_function ON function_logs (function_name, id);

CREATE TABLE apis (
  id         TEXT COLLATE "C" PRIMARY KEY,
  name       TEXT NOT NULL,
  base_path  TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);

-- shape is the path with parameter names erased (routeShape): two routes of one
-- API with the same method and shape would be ambiguous, so SQL forbids them.
CREATE TABLE routes (
  id            TEXT COLLATE "C" PRIMARY KEY,
  api_id        TEXT COLLATE "C" NOT NULL REFERENCES apis (id) ON DELETE CASCADE,
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
  id            TEXT COLLATE "C" PRIMARY KEY,
  name          TEXT    NOT NULL,
  target_url    TEXT    NOT NULL,
  method        TEXT    NOT NULL,
  headers_json  TEXT    NOT NULL DEFAULT '{}',
  template_json TEXT    NOT NULL DEFAULT '{}',
  cron          TEXT,
  timezone      TEXT    NOT NULL DEFAULT 'UTC',
  mock_api_id   TEXT COLLATE "C" REFERENCES apis (id),
  mock_path     TEXT,
  events_json   TEXT    NOT NULL DEFAULT '[]',
  enabled       BOOLEAN NOT NULL DEFAULT TRUE,
  secret        TEXT,
  max_attempts  INTEGER NOT NULL,
  schedule_json TEXT,
  timeout_ms    INTEGER NOT NULL,
  next_fire_at  TIMESTAMPTZ,
  created_at    TIMESTAMPTZ NOT NULL,
  updated_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhooks_due ON webhooks (enabled, next_fire_at);
CREATE INDEX webhooks_by_mock_api ON webhooks (mock_api_id);

-- Event subscriptions as rows, so publishing an event is an index lookup; kept
-- in step with webhooks.events_json in the same transaction.
CREATE TABLE webhook_events (
  event      TEXT NOT NULL,
  webhook_id TEXT COLLATE "C" NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  PRIMARY KEY (event, webhook_id)
);
CREATE INDEX webhook_events_by_webhook ON webhook_events (webhook_id);

-- UNIQUE (webhook_id, scheduled_for) makes a cron slot fire at most once across
-- processes; only schedule deliveries carry a slot, and NULLs never collide.
-- lease_owner/lease_until: the worker sending it now; an expired lease is free.
CREATE TABLE deliveries (
  id              TEXT COLLATE "C" PRIMARY KEY,
  webhook_id      TEXT COLLATE "C" NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  trigger         TEXT    NOT NULL,
  status          TEXT    NOT NULL DEFAULT 'pending',
  error           TEXT,
  scheduled_for   TIMESTAMPTZ,
  event           TEXT,
  event_data_json TEXT,
  request_json    TEXT,
  response_json   TEXT,
  attempt_count   INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TIMESTAMPTZ,
  lease_owner     TEXT,
  lease_until     TIMESTAMPTZ,
  created_at      TIMESTAMPTZ NOT NULL,
  completed_at    TIMESTAMPTZ,
  UNIQUE (webhook_id, scheduled_for)
);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
CREATE INDEX deliveries_by_webhook ON deliveries (webhook_id, id);
CREATE INDEX deliveries_by_lease_owner ON deliveries (lease_owner) WHERE lease_owner IS NOT NULL;
CREATE INDEX deliveries_finished ON deliveries (created_at) WHERE status <> 'pending';

CREATE TABLE delivery_attempts (
  delivery_id     TEXT COLLATE "C" NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  attempt         INTEGER NOT NULL,
  started_at      TIMESTAMPTZ NOT NULL,
  duration_ms     DOUBLE PRECISION NOT NULL,
  response_status INTEGER,
  error           TEXT,
  PRIMARY KEY (delivery_id, attempt)
);
`,
  },
  {
    version: 3,
    name: 'changes',
    // On PostgreSQL changes travel by LISTEN/NOTIFY (postgres/changes.ts); the
    // table only keeps both schemas in step, version for version.
    sql: `
CREATE TABLE changes (
  id      BIGSERIAL PRIMARY KEY,
  origin  TEXT NOT NULL,
  kind    TEXT NOT NULL,
  key     TEXT NOT NULL,
  at      TIMESTAMPTZ NOT NULL
);
`,
  },
  {
    version: 4,
    name: 'pending_due_order',
    // The claim orders due deliveries by (next_attempt_at, id). With many due at the
    // same instant (an event fan-out, a cron slot) the old (status, next_attempt_at)
    // index left every claim sorting all of them; this one hands them out in order.
    // The planner walks it only once it knows many rows are due: a queue table changes
    // fast, so its statistics are refreshed after 2 % of it changed instead of 10 %.
    sql: `
CREATE INDEX deliveries_pending_due ON deliveries (next_attempt_at, id) WHERE status = 'pending';
DROP INDEX deliveries_due;
ALTER TABLE deliveries SET (autovacuum_analyze_scale_factor = 0.02, autovacuum_analyze_threshold = 500);
`,
  },
  {
    version: 5,
    name: 'fair_claim',
    // As on SQLite: the claim walks the webhooks with pending deliveries and takes
    // each one's oldest due ones in (next_attempt_at, id) order, and counts an
    // owner's unexpired leases per webhook from the lease index.
    sql: `
CREATE INDEX deliveries_pending_by_webhook ON deliveries (webhook_id, next_attempt_at, id) WHERE status = 'pending';
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
    // As on SQLite: a delivery goes to a webhook or runs a function; `target` is
    // the claim's fair-share key (the webhook id, or 'fn:' and the function name).
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
  id            TEXT COLLATE "C" PRIMARY KEY,
  function_name TEXT    NOT NULL REFERENCES functions (name) ON DELETE CASCADE,
  position      INTEGER NOT NULL,
  cron          TEXT    NOT NULL,
  timezone      TEXT    NOT NULL,
  payload_json  TEXT,
  next_fire_at  TIMESTAMPTZ,
  UNIQUE (function_name, position)
);
CREATE INDEX function_schedules_due ON function_schedules (next_fire_at);

ALTER TABLE deliveries ADD COLUMN target TEXT COLLATE "C";
UPDATE deliveries SET target = webhook_id;
ALTER TABLE deliveries ALTER COLUMN target SET NOT NULL;
ALTER TABLE deliveries ALTER COLUMN webhook_id DROP NOT NULL;
ALTER TABLE deliveries ADD COLUMN function_name TEXT REFERENCES functions (name) ON DELETE CASCADE;
ALTER TABLE deliveries ADD COLUMN schedule_id TEXT COLLATE "C";
ALTER TABLE deliveries ADD COLUMN trigger_json TEXT;
ALTER TABLE deliveries ADD COLUMN result_json TEXT;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_schedule_slot UNIQUE (schedule_id, scheduled_for);
ALTER TABLE deliveries ADD CONSTRAINT deliveries_one_target CHECK ((webhook_id IS NULL) <> (function_name IS NULL));
ALTER TABLE delivery_attempts ADD COLUMN outcome TEXT;
ALTER TABLE delivery_attempts ADD COLUMN request_id TEXT;
DROP INDEX deliveries_pending_by_webhook;
DROP INDEX deliveries_leases;
CREATE INDEX deliveries_pending_by_webhook ON deliveries (target, next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX deliveries_leases ON deliveries (lease_owner, target, lease_until) WHERE lease_owner IS NOT NULL;
CREATE INDEX deliveries_by_function ON deliveries (function_name, id);
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
  minute  BIGINT NOT NULL,
  owner   TEXT COLLATE "C" NOT NULL,
  api_id  TEXT COLLATE "C" NOT NULL,
  method  TEXT COLLATE "C" NOT NULL,
  path    TEXT COLLATE "C" NOT NULL,
  count   BIGINT NOT NULL,
  errors  BIGINT NOT NULL,
  max_ms  DOUBLE PRECISION NOT NULL,
${LATENCY_BUCKET_COLUMNS}
  PRIMARY KEY (minute, owner, api_id, method, path)
);
CREATE TABLE stats_outcomes (
  minute  BIGINT NOT NULL,
  owner   TEXT COLLATE "C" NOT NULL,
  source  TEXT COLLATE "C" NOT NULL,
  subject TEXT COLLATE "C" NOT NULL,
  outcome TEXT COLLATE "C" NOT NULL,
  count   BIGINT NOT NULL,
  PRIMARY KEY (minute, owner, source, subject, outcome)
);
CREATE TABLE stats_lateness (
  minute  BIGINT NOT NULL,
  owner   TEXT COLLATE "C" NOT NULL,
  count   BIGINT NOT NULL,
  max_ms  DOUBLE PRECISION NOT NULL,
${LATENCY_BUCKET_COLUMNS}
  PRIMARY KEY (minute, owner)
);
-- The newest failures (invocations through an API, deliveries failed for good),
-- written by the same flush; the newest 200 are kept (ids grow, so the newest are the highest).
CREATE TABLE stats_failures (
  id      BIGSERIAL PRIMARY KEY,
  at      TIMESTAMPTZ NOT NULL,
  source  TEXT NOT NULL,
  ref     TEXT NOT NULL,
  subject TEXT NOT NULL,
  code    TEXT NOT NULL,
  message TEXT NOT NULL
);
-- The deliveries stream's cursor: a number that grows with every recorded attempt.
-- Added without a default first, so existing rows stay NULL and the table is not rewritten;
-- only new attempts draw from the sequence.
CREATE SEQUENCE delivery_attempts_seq;
ALTER TABLE delivery_attempts ADD COLUMN seq BIGINT;
ALTER TABLE delivery_attempts ALTER COLUMN seq SET DEFAULT nextval('delivery_attempts_seq');
CREATE INDEX delivery_attempts_by_seq ON delivery_attempts (seq) WHERE seq IS NOT NULL;
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
  id            BIGSERIAL PRIMARY KEY,
  origin        TEXT NOT NULL,
  function_name TEXT NOT NULL,
  data          TEXT NOT NULL,
  created_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX invocation_events_created ON invocation_events (created_at);
`,
  },
  {
    version: 12,
    name: 'function_versions',
    // As on SQLite: one row per version, written with the function's own row (one
    // statement), the newest 50 kept, never the env.
    // Existing functions get their current version.
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
  created_at    TIMESTAMPTZ NOT NULL,
  code          TEXT    NOT NULL,
  PRIMARY KEY (function_name, version)
);
INSERT INTO function_versions (function_name, version, runtime, handler, event_format, timeout_ms, memory_mb, code_sha256,
    code_bytes, created_at, code)
  SELECT name, version, runtime, handler, event_format, timeout_ms, memory_mb, code_sha256, octet_length(code),
    updated_at, code
  FROM functions;
`,
  },
  {
    version: 13,
    name: 'attempt_responses',
    // As on SQLite: each attempt's own answer, from the same text as the delivery's
    // response_json. A nullable column without a default: no table rewrite.
    sql: `
ALTER TABLE delivery_attempts ADD COLUMN response_json TEXT;
`,
  },
  {
    version: 14,
    name: 'api_cors',
    // As on SQLite: the API's CORS policy as JSON text, null for none. No default: no table rewrite.
    sql: `
ALTER TABLE apis ADD COLUMN cors_json TEXT;
`,
  },
  {
    version: 15,
    name: 'api_compression_binary_types',
    // As on SQLite: nullable columns without defaults, no table rewrite.
    sql: `
ALTER TABLE apis ADD COLUMN minimum_compression_size INTEGER;
ALTER TABLE apis ADD COLUMN binary_media_types TEXT;
`,
  },
  {
    version: 16,
    name: 'api_route_policy',
    // As on SQLite: the policy documents as JSON text, null for nothing set. No default: no table rewrite.
    sql: `
ALTER TABLE apis ADD COLUMN policy_json TEXT;
ALTER TABLE routes ADD COLUMN policy_json TEXT;
`,
  },
  {
    version: 17,
    name: 'api_keys_usage_plans_throttles',
    // As on SQLite: plans, keys (hashed), usage and quota counters, token buckets.
    sql: `
CREATE TABLE usage_plans (
  id            TEXT COLLATE "C" PRIMARY KEY,
  name          TEXT NOT NULL,
  api_ids_json  TEXT NOT NULL,
  throttle_json TEXT,
  quota_json    TEXT,
  created_at    TIMESTAMPTZ NOT NULL,
  updated_at    TIMESTAMPTZ NOT NULL
);
CREATE TABLE api_keys (
  id            TEXT COLLATE "C" PRIMARY KEY,
  name          TEXT NOT NULL,
  prefix        TEXT NOT NULL,
  key_hash      TEXT COLLATE "C" NOT NULL UNIQUE,
  enabled       BOOLEAN NOT NULL,
  usage_plan_id TEXT COLLATE "C" REFERENCES usage_plans (id),
  created_at    TIMESTAMPTZ NOT NULL,
  updated_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX api_keys_plan ON api_keys (usage_plan_id);
CREATE TABLE api_key_usage (
  key_id TEXT COLLATE "C" NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  day    TEXT COLLATE "C" NOT NULL,
  used   BIGINT NOT NULL,
  PRIMARY KEY (key_id, day)
);
CREATE TABLE quota_usage (
  key_id TEXT COLLATE "C" NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  period TEXT COLLATE "C" NOT NULL,
  used   BIGINT NOT NULL,
  PRIMARY KEY (key_id, period)
);
CREATE TABLE rate_buckets (
  bucket TEXT COLLATE "C" PRIMARY KEY,
  tokens DOUBLE PRECISION NOT NULL,
  taken  BIGINT NOT NULL,
  at_ms  BIGINT NOT NULL
);
`,
  },
  {
    version: 18,
    name: 'endpoint_health',
    // As on SQLite; the backfill of target_origin with a regular expression.
    sql: `
ALTER TABLE webhooks ADD COLUMN paused_at TIMESTAMPTZ;
ALTER TABLE webhooks ADD COLUMN disabled_reason TEXT;
ALTER TABLE webhooks ADD COLUMN health_json TEXT;
ALTER TABLE webhooks ADD COLUMN target_origin TEXT COLLATE "C";
UPDATE webhooks SET target_origin = lower(regexp_replace(target_url, '^([A-Za-z][A-Za-z0-9+.-]*://)(?:[^@/?#]*@)?([^/?#]*).*$', '\\1\\2'));
UPDATE webhooks SET target_origin = regexp_replace(regexp_replace(target_origin, '^(https://.*):443$', '\\1'), '^(http://.*):80$', '\\1');
CREATE INDEX webhooks_by_origin ON webhooks (target_origin);

ALTER TABLE deliveries ADD COLUMN retry_base INTEGER NOT NULL DEFAULT 0;
CREATE INDEX deliveries_held ON deliveries (target, id) WHERE status = 'held';

CREATE TABLE target_health (
  key               TEXT COLLATE "C" PRIMARY KEY,
  webhook_id        TEXT COLLATE "C" REFERENCES webhooks (id) ON DELETE CASCADE,
  origin            TEXT COLLATE "C",
  state             TEXT    NOT NULL DEFAULT 'closed',
  since             BIGINT  NOT NULL,
  window_start      BIGINT  NOT NULL,
  attempts          BIGINT  NOT NULL DEFAULT 0,
  failures          BIGINT  NOT NULL DEFAULT 0,
  prev_attempts     BIGINT  NOT NULL DEFAULT 0,
  prev_failures     BIGINT  NOT NULL DEFAULT 0,
  consecutive_failures BIGINT NOT NULL DEFAULT 0,
  probe_at          BIGINT,
  probe_delay_ms    BIGINT  NOT NULL DEFAULT 5000,
  probe_delivery_id TEXT COLLATE "C",
  probe_until       BIGINT,
  failing_since     BIGINT,
  last_failure_at   BIGINT,
  last_success_at   BIGINT,
  not_before        BIGINT,
  held_discarded    BIGINT  NOT NULL DEFAULT 0
);
CREATE INDEX target_health_probes ON target_health (probe_at) WHERE state <> 'closed';

CREATE TABLE recoveries (
  id          TEXT COLLATE "C" PRIMARY KEY,
  webhook_id  TEXT COLLATE "C" REFERENCES webhooks (id) ON DELETE CASCADE,
  filter_json TEXT        NOT NULL,
  status      TEXT        NOT NULL,
  total       BIGINT      NOT NULL,
  resent      BIGINT      NOT NULL DEFAULT 0,
  cursor      TEXT COLLATE "C" NOT NULL DEFAULT '',
  lease_owner TEXT,
  lease_until TIMESTAMPTZ,
  error       TEXT,
  created_at  TIMESTAMPTZ NOT NULL,
  updated_at  TIMESTAMPTZ NOT NULL,
  finished_at TIMESTAMPTZ
);
CREATE INDEX recoveries_by_webhook ON recoveries (webhook_id, id);
CREATE INDEX recoveries_running ON recoveries (lease_until) WHERE status = 'running';
`,
  },
  {
    version: 19,
    name: 'project_owners',
    // As on SQLite: the project that made each function, API and webhook; null for none. No default: no table rewrite.
    sql: `
ALTER TABLE functions ADD COLUMN project TEXT;
ALTER TABLE apis ADD COLUMN project TEXT;
ALTER TABLE webhooks ADD COLUMN project TEXT;
`,
  },
  {
    version: 20,
    name: 'idempotency_keys',
    // As on SQLite: one row per (scope, key), its answer once the operation finished; ms times.
    sql: `
CREATE TABLE idempotency_keys (
  scope        TEXT COLLATE "C" NOT NULL,
  key          TEXT COLLATE "C" NOT NULL,
  request_hash TEXT    NOT NULL,
  token        TEXT    NOT NULL,
  status       INTEGER,
  response     TEXT,
  created_at   BIGINT  NOT NULL,
  expires_at   BIGINT  NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
`,
  },
  {
    version: 21,
    name: 'event_types',
    // As on SQLite: types, their numbered schema versions, and the latest violations per type.
    sql: `
CREATE TABLE event_types (
  name        TEXT COLLATE "C" PRIMARY KEY,
  description TEXT        NOT NULL DEFAULT '',
  mode        TEXT        NOT NULL DEFAULT 'off',
  deprecated  BOOLEAN     NOT NULL DEFAULT false,
  project     TEXT,
  created_at  TIMESTAMPTZ NOT NULL,
  updated_at  TIMESTAMPTZ NOT NULL
);
CREATE TABLE event_type_versions (
  name          TEXT COLLATE "C" NOT NULL REFERENCES event_types (name) ON DELETE CASCADE,
  version       INTEGER     NOT NULL,
  schema_json   TEXT        NOT NULL,
  examples_json TEXT        NOT NULL DEFAULT '[]',
  created_at    TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (name, version)
);
CREATE TABLE event_type_violations (
  id       BIGSERIAL   PRIMARY KEY,
  name     TEXT COLLATE "C" NOT NULL REFERENCES event_types (name) ON DELETE CASCADE,
  version  INTEGER     NOT NULL,
  path     TEXT        NOT NULL,
  message  TEXT        NOT NULL,
  source   TEXT        NOT NULL,
  at       TIMESTAMPTZ NOT NULL
);
CREATE INDEX event_type_violations_by_type ON event_type_violations (name, id);
`,
  },
  {
    version: 22,
    name: 'webhook_filters',
    // As on SQLite: the payload filter as JSON text (compiled by the service, never queried in SQL); null: none.
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
    // As on SQLite: a webhook's transformation source, an attempt's transformed request.
    sql: `
ALTER TABLE webhooks ADD COLUMN transformation TEXT;
ALTER TABLE delivery_attempts ADD COLUMN sent_json TEXT;
`,
  },
  {
    version: 25,
    name: 'lease_heartbeats',
    // As on SQLite: each lease owner's heartbeat, seq moved by every beat.
    sql: `
CREATE TABLE lease_heartbeats (
  owner      TEXT    PRIMARY KEY,
  host       TEXT    NOT NULL,
  pid        INTEGER NOT NULL,
  seq        INTEGER NOT NULL,
  started_at TIMESTAMPTZ NOT NULL,
  beat_at    TIMESTAMPTZ NOT NULL
);
`,
  },
  {
    version: 26,
    name: 'delivery_trace_context',
    // As on SQLite: the trace context of a delivery's cause; null when untraced.
    sql: `
ALTER TABLE deliveries ADD COLUMN trace_context TEXT;
`,
  },
  {
    version: 27,
    name: 'applications',
    // As on SQLite: applications, webhooks.application_id (cascading), the fan-out's
    // (application_id, event) index on webhook_events ('' for global webhooks), portal token hashes.
    sql: `
CREATE TABLE applications (
  id            TEXT COLLATE "C" PRIMARY KEY,
  uid           TEXT COLLATE "C" UNIQUE,
  name          TEXT NOT NULL,
  metadata_json TEXT NOT NULL DEFAULT '{}',
  limits_json   TEXT NOT NULL DEFAULT '{}',
  created_at    TIMESTAMPTZ NOT NULL,
  updated_at    TIMESTAMPTZ NOT NULL
);
ALTER TABLE webhooks ADD COLUMN application_id TEXT COLLATE "C" REFERENCES applications (id) ON DELETE CASCADE;
CREATE INDEX webhooks_by_application ON webhooks (application_id, id);
ALTER TABLE webhook_events ADD COLUMN application_id TEXT COLLATE "C" NOT NULL DEFAULT '';
CREATE INDEX webhook_events_by_scope ON webhook_events (application_id, event, webhook_id);
CREATE TABLE portal_tokens (
  hash           TEXT COLLATE "C" PRIMARY KEY,
  application_id TEXT COLLATE "C" NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
  created_at     TIMESTAMPTZ NOT NULL,
  expires_at     TIMESTAMPTZ NOT NULL,
  max_expires_at TIMESTAMPTZ NOT NULL,
  revoked_at     TIMESTAMPTZ
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
