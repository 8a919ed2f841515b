/**
 * Environment and CLI flags -> one frozen, typed Config. This is the only module
 * that reads process.env; everything else receives the resolved object.
 */
import { availableParallelism, totalmem } from 'node:os';
import { closest } from './did-you-mean.js';
import { ConfigError, type ResourceLimits } from './errors.js';
import { parseQueryRedaction, type QueryRedaction } from './net/redact.js';
import { trustFunction, type TrustedProxies } from './net/trusted-proxies.js';
import { metricsExportConfig, telemetryConfig } from './telemetry/config.js';
import type { MetricsExportConfig, TelemetryConfig } from './telemetry/types.js';

/** Where a listener binds: a host name or address (IPv6 without brackets) and a port. */
export interface ListenAddress {
  host: string;
  port: number;
}

export interface Config {
  port: number;
  host: string;
  /**
   * The dashboard and management API's own listener (`SWITCHYARD_ADMIN_ADDRESS`);
   * null: PORT serves everything. docs/security.md says why they are kept apart.
   */
  adminAddress: ListenAddress | null;
  /** The origin clients reach invocations at (`SWITCHYARD_PUBLIC_URL`), for `invokeUrl`; null: derived per request. */
  publicUrl: string | null;
  /**
   * Proxies whose X-Forwarded-For/-Proto/-Host are believed (`SWITCHYARD_TRUSTED_PROXIES`):
   * a hop count or a list of addresses and CIDRs; null: none (src/net/trusted-proxies.ts).
   */
  trustedProxies: TrustedProxies | null;
  /** GET /metrics on a listener of its own, and on no other (SWITCHYARD_METRICS_ADDRESS); null: see metricsListener. */
  metricsAddress: ListenAddress | null;
  /** With an admin listener: whether PORT serves /metrics too (`public`) or only the admin listener does (`admin`). */
  metricsListener: 'public' | 'admin';
  /** Why functions and the dashboard share an origin reachable from other machines (a start-up warning); null otherwise. */
  originNote: string | null;
  databaseUrl: string;
  adminKey: string | null;
  /** When set, GET /metrics needs `Authorization: Bearer <metricsToken>`. */
  metricsToken: string | null;
  /** How many functions, APIs and webhooks the server holds at most, and routes per API. */
  limits: ResourceLimits;
  allowPrivateTargets: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** JSON lines (fast, for machines) or pino-pretty's lines (for people at a terminal). */
  logFormat: 'json' | 'pretty';
  /** Largest accepted request body on invocation and management routes, in bytes. */
  bodyLimit: number;
  /**
   * Where each server process runs its isolates (`SWITCHYARD_ISOLATES`): `in-process`
   * (in the server process itself, src/runtime/in-process.ts) or `workers` (in
   * supervised worker processes, src/runtime/pool.ts). `auto` resolves to
   * in-process with more than one server process, where an isolate's fatal error
   * costs one process of several, and to workers with one.
   */
  isolates: 'in-process' | 'workers';
  /** Number of supervised worker processes hosting isolates (per server process; with `isolates: 'workers'`). */
  workers: number;
  /** Idle isolates each worker process keeps warm; past it the least recently used are disposed. */
  warmIsolates: number;
  /** The synchronous fast path into isolates (isolate-host.ts); off only to measure against it. */
  syncCalls: boolean;
  /** How long before a function schedule's slot its isolate is built (ms); 0: not ahead, on the slot's first run. */
  prewarmAheadMs: number;
  /** Webhook attempts and function runs in flight per server process, at most. */
  deliveryConcurrency: number;
  /**
   * Server processes sharing the port (src/cluster.ts); 1 is a single process.
   * Already reduced to 1 where the database cannot be shared (see processesNote).
   */
  processes: number;
  /** Why `processes` is 1 although more were asked for (sqlite::memory:); null otherwise. */
  processesNote: string | null;
  /** Load the example project examples/switchyard.yaml at start (what is missing is created). */
  demo: boolean;
  /** Milliseconds to finish in-flight requests and delivery attempts after SIGTERM or SIGINT. */
  shutdownGraceMs: number;
  /**
   * Milliseconds after SIGTERM or SIGINT during which the listener keeps serving while
   * /readyz answers 503, before the grace period starts (a load balancer's time to notice).
   */
  drainDelayMs: number;
  /** Function console lines kept per function. */
  logRetention: number;
  /** Function console lines also written to the server's log (stdout) as structured lines. */
  functionLogsToStdout: boolean;
  /** A start, end and report line per run among the functions' lines on stdout (`SWITCHYARD_FUNCTION_REPORT_LINES`). */
  functionReportLines: boolean;
  /** How functions' lines on stdout are written: pino JSON, or Lambda's plain text (`SWITCHYARD_FUNCTION_LOGS_FORMAT`). */
  functionLogsFormat: 'json' | 'lambda';
  /** One `info` line per invocation and management request (`SWITCHYARD_ACCESS_LOG`); off: only 5xx answers are logged (warn). */
  accessLog: boolean;
  /** Which query parameters' values logged URLs show as `[redacted]` (`SWITCHYARD_LOG_REDACT_QUERY`, src/net/redact.ts). */
  logRedactQuery: QueryRedaction;
  /** Finished webhook deliveries older than this are pruned. */
  deliveryRetentionDays: number;
  /**
   * A process whose lease heartbeat is older than this (ms) is taken for dead:
   * its delivery leases are given to the others (`SWITCHYARD_HEARTBEAT_TIMEOUT`, seconds).
   */
  heartbeatTimeoutMs: number;
  /** How long an Idempotency-Key or event id answers its first answer again, in ms (`SWITCHYARD_IDEMPOTENCY_WINDOW`, seconds). */
  idempotencyWindowMs: number;
  /** Held deliveries a webhook keeps at most; past it the oldest are discarded (counted). */
  maxHeld: number;
  /** How long a portal token lives unless refreshed, in ms (`SWITCHYARD_PORTAL_TOKEN_TTL`, seconds). */
  portalTokenTtlMs: number;
  /** The longest refreshes keep a portal token alive, from when it was made, in ms (`SWITCHYARD_PORTAL_TOKEN_MAX_TTL`, seconds). */
  portalTokenMaxTtlMs: number;
  /**
   * `SWITCHYARD_TEST_HOOKS=1`: a hand-moved clock (`PUT /api/_test/clock`) for
   * schedule tests. Never for production.
   */
  testHooks: boolean;
  /** OpenTelemetry tracing from the standard OTEL_* variables (src/telemetry/config.ts); null: off. */
  telemetry: TelemetryConfig | null;
  /** OTLP metrics push (OTEL_METRICS_EXPORTER=otlp, src/telemetry/config.ts); null: GET /metrics only. */
  metricsExport: MetricsExportConfig | null;
}

/** `--processes auto` stops here: past it, one database and one machine's memory pay more than they gain. */
export const MAX_AUTO_PROCESSES = 8;
/**
 * What `--warm-isolates auto` counts an idle isolate as: a small function's
 * isolate measured about 1.9 MB of RSS (bench/function-schedules.js).
 */
export const WARM_ISOLATE_BYTES = 2 * 1024 * 1024;

/** Half the memory, shared by every worker process of this node, at WARM_ISOLATE_BYTES each; at least 100. */
export function autoWarmIsolates(workerProcesses: number, memoryBytes = availableMemory()): number {
  return Math.max(100, Math.floor(memoryBytes / 2 / WARM_ISOLATE_BYTES / Math.max(1, workerProcesses)));
}

/**
 * What `--delivery-concurrency auto` counts an attempt in flight as: its
 * socket's buffers, the rendered request and up to 16 KiB of answer kept.
 */
export const ATTEMPT_BYTES = 256 * 1024;
export const MAX_AUTO_DELIVERY_CONCURRENCY = 1000;

/** An eighth of the memory, shared by the node's server processes, at ATTEMPT_BYTES each; 50 to 1000. */
export function autoDeliveryConcurrency(serverProcesses: number, memoryBytes = availableMemory()): number {
  const fit = Math.floor(memoryBytes / 8 / Math.max(1, serverProcesses) / ATTEMPT_BYTES);
  return Math.max(50, Math.min(MAX_AUTO_DELIVERY_CONCURRENCY, fit));
}

/** The machine's memory, or the container's limit (cgroups) when that is lower. */
export function availableMemory(): number {
  const limit = process.constrainedMemory?.() ?? 0;
  const total = totalmem();
  return limit > 0 ? Math.min(limit, total) : total;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const LOG_FORMATS = ['json', 'pretty'] as const;

/** One setting: its environment variable, its flag, its default and what it does. */
export interface ConfigOption {
  env: string;
  /** null: environment only. */
  flag: `--${string}` | null;
  /** Takes no value on the command line (`--demo` sets it to 1). */
  boolean?: true;
  /** The value used when the variable is unset or empty; null when there is none. */
  default: string | null;
  /** Shown instead of the default where it is not a plain value. */
  defaultText?: string;
  help: string;
}

/**
 * Every setting, in the order `--help` lists them. loadConfig takes its
 * defaults from here and `--help` prints this table, so the two cannot drift.
 */
export const OPTIONS: readonly ConfigOption[] = [
  { env: 'PORT', flag: '--port', default: '3000', help: 'Listen port (0 picks a free one).' },
  {
    env: 'HOST',
    flag: '--host',
    default: '127.0.0.1',
    help: 'Listen address. A non-loopback address requires SWITCHYARD_ADMIN_KEY, unless the management API has its own loopback listener.',
  },
  {
    env: 'SWITCHYARD_ADMIN_ADDRESS',
    flag: '--admin-address',
    default: null,
    defaultText: 'none (PORT serves everything)',
    help:
      'Serve the dashboard and management API on their own listener, <port> (on HOST) or <host>:<port>; PORT then serves only ' +
      'invocations and health checks. A non-loopback address requires SWITCHYARD_ADMIN_KEY.',
  },
  {
    env: 'SWITCHYARD_PUBLIC_URL',
    flag: '--public-url',
    default: null,
    defaultText: "each request's host (with PORT when SWITCHYARD_ADMIN_ADDRESS is set)",
    help: "Where clients reach invocations (https://api.example.com), for APIs' invokeUrl: set it behind a proxy.",
  },
  {
    env: 'SWITCHYARD_TRUSTED_PROXIES',
    flag: '--trusted-proxies',
    default: null,
    defaultText: 'none (X-Forwarded-* headers are ignored)',
    help:
      'Proxies in front whose X-Forwarded-For, -Proto and -Host are believed, for sourceIp, invokeUrl and the wrong-key slowing: ' +
      'addresses and CIDRs (10.0.0.0/8,127.0.0.1,::1), or a hop count (1) when nothing but the proxies reaches the port.',
  },
  {
    env: 'SWITCHYARD_METRICS_LISTENER',
    flag: '--metrics-listener',
    default: 'public',
    help: 'With SWITCHYARD_ADMIN_ADDRESS: public serves /metrics on both listeners, admin only on the admin listener.',
  },
  {
    env: 'SWITCHYARD_METRICS_ADDRESS',
    flag: '--metrics-address',
    default: null,
    defaultText: 'none (/metrics on PORT, see SWITCHYARD_METRICS_LISTENER)',
    help:
      'Serve GET /metrics on its own listener, <port> (on HOST) or <host>:<port>, and on no other listener ' +
      '(SWITCHYARD_METRICS_LISTENER then does not apply). SWITCHYARD_METRICS_TOKEN still applies there.',
  },
  {
    env: 'DATABASE_URL',
    flag: '--database-url',
    default: 'sqlite:./data/switchyard.db',
    help: 'sqlite:<file>, sqlite::memory:, or postgres://user:pw@host:5432/db (several nodes on one database).',
  },
  {
    env: 'SWITCHYARD_ADMIN_KEY',
    flag: '--admin-key',
    default: null,
    defaultText: 'none',
    help: 'When set, every management call needs Authorization: Bearer <key>. With a non-loopback HOST: at least 16 characters, and wrong keys are slowed per client address.',
  },
  {
    env: 'SWITCHYARD_METRICS_TOKEN',
    flag: '--metrics-token',
    default: null,
    defaultText: 'none (GET /metrics is public)',
    help: 'When set, GET /metrics needs Authorization: Bearer <token>. With a non-loopback HOST: at least 16 characters.',
  },
  {
    env: 'SWITCHYARD_ALLOW_PRIVATE_TARGETS',
    flag: '--allow-private-targets',
    boolean: true,
    default: '0',
    help: "1 lets webhooks and functions' fetch reach loopback and private addresses.",
  },
  { env: 'LOG_LEVEL', flag: '--log-level', default: 'info', help: `${LOG_LEVELS.join(', ')}. Access logs are at debug.` },
  {
    env: 'LOG_FORMAT',
    flag: '--log-format',
    default: null,
    defaultText: 'pretty on a terminal, json otherwise',
    help: 'json (one JSON object per line) or pretty (for people).',
  },
  {
    env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    flag: null,
    default: null,
    defaultText: 'none (tracing off)',
    help:
      'OpenTelemetry collector base URL (OTLP over HTTP; traces go to <url>/v1/traces). Setting it turns tracing on; ' +
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT gives the whole URL instead. The other standard OTEL_* variables apply (docs/observability.md).',
  },
  {
    env: 'OTEL_TRACES_EXPORTER',
    flag: null,
    default: null,
    defaultText: 'otlp when an endpoint is set, else none',
    help: 'otlp or none. otlp without an endpoint sends to http://localhost:4318/v1/traces.',
  },
  {
    env: 'OTEL_EXPORTER_OTLP_PROTOCOL',
    flag: null,
    default: 'http/protobuf',
    help: 'http/protobuf or http/json (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL for traces alone).',
  },
  {
    env: 'OTEL_METRICS_EXPORTER',
    flag: null,
    default: 'prometheus',
    help:
      'prometheus (GET /metrics only), otlp (also pushed over OTLP/HTTP to <OTEL_EXPORTER_OTLP_ENDPOINT>/v1/metrics, or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) or none (no push).',
  },
  {
    env: 'OTEL_METRIC_EXPORT_INTERVAL',
    flag: null,
    default: '60000',
    help: 'Milliseconds between OTLP metrics pushes (OTEL_METRIC_EXPORT_TIMEOUT bounds one, default 30000).',
  },
  {
    env: 'OTEL_TRACES_SAMPLER',
    flag: null,
    default: 'parentbased_always_on',
    help: 'always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio; the ratio in OTEL_TRACES_SAMPLER_ARG (0 to 1).',
  },
  {
    env: 'OTEL_SERVICE_NAME',
    flag: null,
    default: 'switchyard',
    help: 'The service.name of the spans; more resource attributes in OTEL_RESOURCE_ATTRIBUTES (k=v,k2=v2).',
  },
  {
    env: 'SWITCHYARD_BODY_LIMIT',
    flag: '--body-limit',
    default: String(1024 * 1024),
    help: 'Largest request body in bytes; larger is a 413.',
  },
  {
    env: 'SWITCHYARD_PROCESSES',
    flag: '--processes',
    default: 'auto',
    defaultText: `auto (the number of cores, at most ${MAX_AUTO_PROCESSES})`,
    help: 'Server processes sharing the port, each a full node on the same database; 1 is a single process.',
  },
  {
    env: 'SWITCHYARD_ISOLATES',
    flag: '--isolates',
    default: 'auto',
    defaultText: 'auto (in-process with more than one server process, else workers)',
    help:
      'Where isolates run: in-process (in each server process: fastest; a fatal isolate error aborts that process, which the others outlive) ' +
      'or workers (in worker processes beside each server process). in-process needs --processes 2 or more.',
  },
  {
    env: 'SWITCHYARD_WORKERS',
    flag: '--workers',
    default: '2',
    defaultText: '2 with one server process, else 1',
    help: 'Worker processes hosting the isolates, per server process (with --isolates workers).',
  },
  {
    env: 'SWITCHYARD_WARM_ISOLATES',
    flag: '--warm-isolates',
    default: 'auto',
    defaultText: 'auto (half the memory, at 2 MB an isolate, shared by all worker processes)',
    help: 'Idle isolates each worker process keeps warm; past it the least recently used are disposed.',
  },
  {
    env: 'SWITCHYARD_SYNC_CALLS',
    flag: '--sync-calls',
    default: '1',
    help: 'Call a function synchronously when its handler finishes without waiting on I/O or timers (the fast path); 0 sends every call through the asynchronous path, for comparison.',
  },
  {
    env: 'SWITCHYARD_PREWARM_SECONDS',
    flag: '--prewarm-seconds',
    default: '15',
    help: "Seconds before a function schedule's slot its isolate is built, so the slot's run starts warm; 0 turns it off.",
  },
  {
    env: 'SWITCHYARD_DELIVERY_CONCURRENCY',
    flag: '--delivery-concurrency',
    default: 'auto',
    defaultText: `auto (an eighth of the memory at 256 KB an attempt, shared by the server processes; 50 to ${MAX_AUTO_DELIVERY_CONCURRENCY})`,
    help: 'Webhook attempts and function runs in flight per server process, at most; each webhook has a share of them.',
  },
  {
    env: 'SWITCHYARD_SHUTDOWN_GRACE_MS',
    flag: '--shutdown-grace-ms',
    default: '10000',
    help: 'Time to finish in-flight requests and delivery attempts after SIGTERM or Ctrl-C.',
  },
  {
    env: 'SWITCHYARD_DRAIN_DELAY_MS',
    flag: '--drain-delay-ms',
    default: '0',
    help: 'After SIGTERM or Ctrl-C, keep serving this long while /readyz answers 503 (a load balancer takes the node out), then stop.',
  },
  { env: 'SWITCHYARD_LOG_RETENTION', flag: '--log-retention', default: '1000', help: 'Console lines kept per function.' },
  {
    env: 'SWITCHYARD_FUNCTION_LOGS_STDOUT',
    flag: '--function-logs-stdout',
    default: '1',
    help: "1 writes functions' console lines to the server's log too (stdout, at their level, with function and requestId), for journald, Loki or any log shipper; 0 keeps them only in the store.",
  },
  {
    env: 'SWITCHYARD_FUNCTION_REPORT_LINES',
    flag: '--function-report-lines',
    default: '0',
    help: "1 adds a start, end and report line per run (duration, billed duration, memory size, memory used, init duration on a cold start) to the functions' lines on stdout, as Lambda writes them.",
  },
  {
    env: 'SWITCHYARD_FUNCTION_LOGS_FORMAT',
    flag: '--function-logs-format',
    default: 'json',
    help: "How functions' lines on stdout are written: json (one JSON object a line, as the server's own) or lambda (Lambda's CloudWatch text: START/END/REPORT and tab-separated console lines).",
  },
  {
    env: 'SWITCHYARD_ACCESS_LOG',
    flag: '--access-log',
    default: '1',
    help: '1 logs one info line per request (invocations and the management API: method, route, status, ms, errorCode, requestId, traceId); 0 logs only answers of 500 and above (warn).',
  },
  {
    env: 'SWITCHYARD_LOG_REDACT_QUERY',
    flag: '--log-redact-query',
    default: 'default',
    help: 'Query parameters whose values logged URLs show as [redacted]: a comma-separated list of names (case-insensitive; default stands for token, access_token, api_key, key, secret, password, signature, sig, code, auth and the like, docs/observability.md), * for every value, none for no value.',
  },
  {
    env: 'SWITCHYARD_DELIVERY_RETENTION_DAYS',
    flag: '--delivery-retention-days',
    default: '30',
    help: 'Finished and held webhook deliveries older than this are pruned.',
  },
  {
    env: 'SWITCHYARD_HEARTBEAT_TIMEOUT',
    flag: '--heartbeat-timeout',
    default: '10',
    help: 'Seconds after which a process whose heartbeat stopped (killed, lost, paused) is taken for dead and its in-flight deliveries are sent by the others (3 to 600; it beats every tenth of it).',
  },
  {
    env: 'SWITCHYARD_PORTAL_TOKEN_TTL',
    flag: '--portal-token-ttl',
    default: '900',
    help: "Seconds a portal token (POST /api/applications/{id}/portal-access) lives unless refreshed (60 to 86400).",
  },
  {
    env: 'SWITCHYARD_PORTAL_TOKEN_MAX_TTL',
    flag: '--portal-token-max-ttl',
    default: '28800',
    help: 'Seconds from its making past which refreshes never keep a portal token alive (60 to 2592000; at least the TTL).',
  },
  {
    env: 'SWITCHYARD_IDEMPOTENCY_WINDOW',
    flag: '--idempotency-window',
    default: '86400',
    help: 'Seconds an Idempotency-Key or event id answers its first answer again (1 to 2592000, 30 days).',
  },
  {
    env: 'SWITCHYARD_MAX_HELD',
    flag: '--max-held',
    default: '1000000',
    help: 'Held deliveries one webhook keeps at most (while disabled, paused or its breaker is open); past it the oldest are discarded.',
  },
  {
    env: 'SWITCHYARD_MAX_FUNCTIONS',
    flag: '--max-functions',
    default: '10000',
    help: 'Functions the server holds at most; creating one more answers 409 limit_reached.',
  },
  { env: 'SWITCHYARD_MAX_APIS', flag: '--max-apis', default: '10000', help: 'APIs the server holds at most.' },
  { env: 'SWITCHYARD_MAX_WEBHOOKS', flag: '--max-webhooks', default: '10000', help: 'Webhooks the server holds at most.' },
  {
    env: 'SWITCHYARD_MAX_ROUTES_PER_API',
    flag: '--max-routes-per-api',
    default: '1000',
    help: 'Routes one API has at most.',
  },
  {
    env: 'SWITCHYARD_DEMO',
    flag: '--demo',
    boolean: true,
    default: '0',
    help: 'Load the example project examples/switchyard.yaml at start.',
  },
  {
    env: 'SWITCHYARD_TEST_HOOKS',
    flag: null,
    boolean: true,
    default: '0',
    help: 'Tests only: a hand-moved clock at PUT /api/_test/clock. Never in production.',
  },
];

const BY_FLAG = new Map(OPTIONS.filter((o) => o.flag).map((o) => [o.flag as string, o]));
const BY_ENV = new Map(OPTIONS.map((o) => [o.env, o]));
const HELP_FLAGS = new Set(['--help', '-h']);
const VERSION_FLAGS = new Set(['--version', '-v', '-V']);

/** What the command line asks for: settings (as environment variables), or help, or the version. */
export interface CommandLine {
  env: Record<string, string>;
  help: boolean;
  version: boolean;
}

/** Turns `--port 8080 --demo` into `{PORT: '8080', SWITCHYARD_DEMO: '1'}`. Flags win over env. */
export function parseCommandLine(argv: string[]): CommandLine {
  const out: CommandLine = { env: {}, help: false, version: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (HELP_FLAGS.has(arg)) out.help = true;
    else if (VERSION_FLAGS.has(arg)) out.version = true;
    if (out.help || out.version) continue;
    const [flag, inline] = arg.split(/=(.*)/s, 2);
    const option = BY_FLAG.get(flag);
    if (!option) {
      const known = [...BY_FLAG.keys(), '--help', '--version'];
      const guess = flag.startsWith('--') ? closest(flag, known) : null;
      throw new ConfigError(
        guess
          ? `Unknown option ${flag}; did you mean ${guess}? (switchyard --help lists every option)`
          : `Unknown option ${flag}. Options: ${known.join(' ')} (switchyard --help explains each)`,
      );
    }
    if (inline !== undefined) out.env[option.env] = inline;
    else if (option.boolean) out.env[option.env] = '1';
    else {
      const value = argv[++i];
      if (value === undefined) throw new ConfigError(`Option ${flag} needs a value`);
      out.env[option.env] = value;
    }
  }
  return out;
}

/**
 * `switchyard --help`: every option of OPTIONS with its flag, variable and
 * default. `head`: the lines before the options (usage, commands), which the
 * CLI's top-level help supplies.
 */
export function helpText(head: string = 'Usage: switchyard [options]'): string {
  const lines = [
    head,
    '',
    'Runs the Switchyard gateway. Every option can also be set with the environment',
    'variable in brackets; a flag wins over its variable.',
    '',
  ];
  for (const o of OPTIONS) {
    const flag = o.flag ? (o.boolean ? o.flag : `${o.flag} <value>`) : '(environment only)';
    const def = o.defaultText ?? o.default;
    lines.push(`  ${flag}  [${o.env}, default: ${def}]`, `      ${o.help}`);
  }
  lines.push('  -h, --help', '      Print this help and exit.', '  -v, --version', '      Print the version and exit.', '');
  lines.push('Docs: README.md and docs/ (OpenAPI of a running server: /api/openapi.json).');
  return lines.join('\n') + '\n';
}

type Env = Record<string, string | undefined>;

/** The value of `name`, or its default from OPTIONS when unset or empty. */
function raw(env: Env, name: string): string | null {
  const value = env[name];
  return value === undefined || value === '' ? (BY_ENV.get(name)?.default ?? null) : value;
}

/** A token's maximum can never be shorter than the life one refresh gives it. */
function portalTokenTtls(env: Env): { portalTokenTtlMs: number; portalTokenMaxTtlMs: number } {
  const ttl = int(env, 'SWITCHYARD_PORTAL_TOKEN_TTL', 60, 86_400);
  const max = int(env, 'SWITCHYARD_PORTAL_TOKEN_MAX_TTL', 60, 30 * 86_400);
  if (max < ttl) throw new ConfigError(`SWITCHYARD_PORTAL_TOKEN_MAX_TTL must be at least SWITCHYARD_PORTAL_TOKEN_TTL (${ttl}), got "${max}"`);
  return { portalTokenTtlMs: ttl * 1000, portalTokenMaxTtlMs: max * 1000 };
}

function int(env: Env, name: string, min: number, max: number): number {
  const value = raw(env, name) ?? '';
  const n = Number(value);
  if (value === '' || !Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

function bool(env: Env, name: string): boolean {
  const value = raw(env, name);
  if (value === null || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw new ConfigError(`${name} must be 1 or 0, got "${value}"`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[]): T | null {
  const value = raw(env, name);
  if (value === null) return null;
  if (!allowed.includes(value as T)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  return value as T;
}

/** A count that may also be `auto` (handled by the caller): the error says both. */
function count(env: Env, name: string, min: number, max: number): number {
  try {
    return int(env, name, min, max);
  } catch (err) {
    throw new ConfigError(`${(err as Error).message.replace(/, got/, ' or auto, got')}`);
  }
}

/** Shortest admin key or metrics token accepted when HOST is reachable from other machines. */
export const MIN_REMOTE_KEY_LENGTH = 16;

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** `3001`, `127.0.0.1:3001` or `[::1]:3001`; a lone port binds on `host`. */
function listenAddress(env: Env, name: string, host: string): ListenAddress | null {
  const value = raw(env, name);
  if (value === null) return null;
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]:|([^:[\]\s]+):)?(\d{1,5})$/.exec(value);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) {
    throw new ConfigError(`${name} must be <port> or <host>:<port> (e.g. 3001, 127.0.0.1:3001, [::1]:3001), got "${value}"`);
  }
  return { host: m[1] ?? m[2] ?? host, port };
}

/** An origin (scheme, host, optional port) without path, query or credentials. */
function origin(env: Env, name: string): string | null {
  const value = raw(env, name);
  if (value === null) return null;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    /* reported below */
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`${name} must be an http(s) origin without a path (e.g. https://api.example.com:8443), got "${value}"`);
  }
  return url.origin;
}

/** Largest hop count accepted: more proxies than this in a row is a mistake, not a deployment. */
const MAX_TRUSTED_HOPS = 32;

/** `2` (hops) or `10.0.0.0/8, 127.0.0.1, ::1` (addresses and CIDRs, IPv4 and IPv6). */
function trustedProxies(env: Env, name: string): TrustedProxies | null {
  const value = raw(env, name);
  if (value === null) return null;
  const text = value.trim();
  if (/^[0-9]+$/.test(text)) {
    const hops = Number(text);
    if (hops < 1 || hops > MAX_TRUSTED_HOPS) {
      throw new ConfigError(`${name} as a hop count must be from 1 to ${MAX_TRUSTED_HOPS}, got "${value}" (unset it to trust no proxy)`);
    }
    return Object.freeze({ hops });
  }
  const addresses = text.split(',').map((entry) => entry.trim());
  for (const entry of addresses) {
    try {
      if (entry === '') throw new Error('empty');
      trustFunction({ addresses: [entry] });
    } catch {
      throw new ConfigError(
        `${name} must be a hop count (1) or a comma-separated list of IP addresses and CIDRs (10.0.0.0/8,127.0.0.1,::1), got "${value}": "${entry}" is neither`,
      );
    }
  }
  return Object.freeze({ addresses: Object.freeze(addresses) });
}

/**
 * `terminal`: whether standard output is a terminal (the CLI passes
 * `process.stdout.isTTY`); it picks the log format when LOG_FORMAT is unset.
 */
export function loadConfig(env: Env = process.env, argv: string[] = [], terminal = false): Config {
  const merged = { ...env, ...parseCommandLine(argv).env };
  const host = raw(merged, 'HOST')!;
  const port = int(merged, 'PORT', 0, 65535);
  const adminKey = raw(merged, 'SWITCHYARD_ADMIN_KEY');
  const metricsToken = raw(merged, 'SWITCHYARD_METRICS_TOKEN');
  const adminAddress = listenAddress(merged, 'SWITCHYARD_ADMIN_ADDRESS', host);
  if (adminAddress && adminAddress.port !== 0 && adminAddress.port === port && adminAddress.host === host) {
    throw new ConfigError(`SWITCHYARD_ADMIN_ADDRESS must differ from HOST and PORT (${host}:${port}), got "${merged.SWITCHYARD_ADMIN_ADDRESS}"`);
  }
  const metricsAddress = listenAddress(merged, 'SWITCHYARD_METRICS_ADDRESS', host);
  if (metricsAddress && metricsAddress.port !== 0) {
    for (const [name, at] of [['HOST and PORT', { host, port }], ['SWITCHYARD_ADMIN_ADDRESS', adminAddress]] as const) {
      if (at && at.port === metricsAddress.port && at.host === metricsAddress.host) {
        throw new ConfigError(`SWITCHYARD_METRICS_ADDRESS must differ from ${name} (${at.host}:${at.port}), got "${merged.SWITCHYARD_METRICS_ADDRESS}"`);
      }
    }
  }
  // The key guards the management API: what matters is the listener that serves it.
  const managementHost = adminAddress?.host ?? host;
  if (!isLoopbackHost(managementHost) && !adminKey) {
    const setting = adminAddress ? `SWITCHYARD_ADMIN_ADDRESS=${merged.SWITCHYARD_ADMIN_ADDRESS}` : `HOST=${host}`;
    throw new ConfigError(
      `${setting} is reachable from other machines: set SWITCHYARD_ADMIN_KEY so the management API is not open to them`,
    );
  }
  // Where other machines can send keys (either listener), a short key falls to a patient guesser even at
  // the slowed rate (src/http/failed-attempts.ts): the admin key and the metrics token must be long.
  const exposedBy = !isLoopbackHost(host)
    ? `HOST=${host}`
    : adminAddress && !isLoopbackHost(adminAddress.host)
      ? `SWITCHYARD_ADMIN_ADDRESS=${merged.SWITCHYARD_ADMIN_ADDRESS}`
      : metricsAddress && !isLoopbackHost(metricsAddress.host)
        ? `SWITCHYARD_METRICS_ADDRESS=${merged.SWITCHYARD_METRICS_ADDRESS}`
        : null;
  if (exposedBy) {
    for (const [name, value] of [['SWITCHYARD_ADMIN_KEY', adminKey], ['SWITCHYARD_METRICS_TOKEN', metricsToken]] as const) {
      if (value !== null && value.length < MIN_REMOTE_KEY_LENGTH) {
        throw new ConfigError(
          `${name} must be at least ${MIN_REMOTE_KEY_LENGTH} characters when ${exposedBy} is reachable from other machines, got ${value.length} (one way: openssl rand -hex 24)`,
        );
      }
    }
  }
  const metricsListener = oneOf(merged, 'SWITCHYARD_METRICS_LISTENER', ['public', 'admin'] as const)!;
  if (metricsListener === 'admin' && !adminAddress) {
    throw new ConfigError('SWITCHYARD_METRICS_LISTENER=admin needs SWITCHYARD_ADMIN_ADDRESS (the listener to serve /metrics on)');
  }
  const databaseUrl = raw(merged, 'DATABASE_URL')!;
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(databaseUrl)) {
    throw new ConfigError(
      `DATABASE_URL must start with sqlite: or postgres://, got "${databaseUrl}" (examples: sqlite:./data/switchyard.db, sqlite::memory:)`,
    );
  }
  const demo = bool(merged, 'SWITCHYARD_DEMO');
  const processesWanted =
    raw(merged, 'SWITCHYARD_PROCESSES') === 'auto'
      ? Math.max(1, Math.min(MAX_AUTO_PROCESSES, availableParallelism()))
      : count(merged, 'SWITCHYARD_PROCESSES', 1, 64);
  // An in-memory database lives in one process: others would each see their own, empty one.
  const memory = databaseUrl === 'sqlite::memory:';
  const processes = memory ? 1 : processesWanted;
  const isolatesWanted = oneOf(merged, 'SWITCHYARD_ISOLATES', ['auto', 'in-process', 'workers'] as const)!;
  // One server process hosting its isolates would be the whole service lost to one isolate's V8 abort.
  if (isolatesWanted === 'in-process' && processes === 1) {
    throw new ConfigError(
      `SWITCHYARD_ISOLATES=in-process needs more than one server process (${memory && processesWanted > 1 ? 'DATABASE_URL=sqlite::memory: serves from one' : 'SWITCHYARD_PROCESSES is 1'}): ` +
        'an isolate that aborts its process would take the whole service down; use workers, or --processes 2 or more',
    );
  }
  const isolates = isolatesWanted === 'auto' ? (processes > 1 ? 'in-process' : 'workers') : isolatesWanted;
  const workersSet = (merged.SWITCHYARD_WORKERS ?? '') !== '';
  // Each server process has its own workers: one each keeps the process count near the core count.
  const workers = workersSet || processes === 1 ? int(merged, 'SWITCHYARD_WORKERS', 1, 64) : 1;
  return Object.freeze({
    port,
    host,
    adminAddress: adminAddress && Object.freeze(adminAddress),
    publicUrl: origin(merged, 'SWITCHYARD_PUBLIC_URL'),
    trustedProxies: trustedProxies(merged, 'SWITCHYARD_TRUSTED_PROXIES'),
    metricsAddress: metricsAddress && Object.freeze(metricsAddress),
    metricsListener,
    originNote:
      adminAddress || isLoopbackHost(host)
        ? null
        : `HOST=${host} serves functions on the dashboard's origin: set SWITCHYARD_ADMIN_ADDRESS to serve the dashboard ` +
          'and management API on their own listener (docs/security.md, "Origins")',
    databaseUrl,
    adminKey,
    metricsToken,
    limits: Object.freeze({
      functions: int(merged, 'SWITCHYARD_MAX_FUNCTIONS', 1, 1_000_000),
      apis: int(merged, 'SWITCHYARD_MAX_APIS', 1, 1_000_000),
      webhooks: int(merged, 'SWITCHYARD_MAX_WEBHOOKS', 1, 1_000_000),
      routes: int(merged, 'SWITCHYARD_MAX_ROUTES_PER_API', 1, 100_000),
    }),
    // The demo's webhook calls the gateway itself on loopback (the CLI says so at start).
    allowPrivateTargets: bool(merged, 'SWITCHYARD_ALLOW_PRIVATE_TARGETS') || demo,
    logLevel: oneOf(merged, 'LOG_LEVEL', LOG_LEVELS)!,
    logFormat: oneOf(merged, 'LOG_FORMAT', LOG_FORMATS) ?? (terminal ? 'pretty' : 'json'),
    bodyLimit: int(merged, 'SWITCHYARD_BODY_LIMIT', 1024, 64 * 1024 * 1024),
    isolates,
    workers,
    warmIsolates:
      raw(merged, 'SWITCHYARD_WARM_ISOLATES') === 'auto'
        ? autoWarmIsolates(isolates === 'in-process' ? processes : processes * workers)
        : count(merged, 'SWITCHYARD_WARM_ISOLATES', 1, 1_000_000),
    syncCalls: raw(merged, 'SWITCHYARD_SYNC_CALLS') === null ? true : bool(merged, 'SWITCHYARD_SYNC_CALLS'),
    prewarmAheadMs: int(merged, 'SWITCHYARD_PREWARM_SECONDS', 0, 600) * 1000,
    deliveryConcurrency:
      raw(merged, 'SWITCHYARD_DELIVERY_CONCURRENCY') === 'auto'
        ? autoDeliveryConcurrency(processes)
        : count(merged, 'SWITCHYARD_DELIVERY_CONCURRENCY', 1, 100_000),
    processes,
    processesNote:
      memory && processesWanted > 1
        ? `DATABASE_URL=sqlite::memory: lives in one process and cannot be shared: serving from 1 process instead of ${processesWanted}`
        : null,
    demo,
    shutdownGraceMs: int(merged, 'SWITCHYARD_SHUTDOWN_GRACE_MS', 0, 600000),
    drainDelayMs: int(merged, 'SWITCHYARD_DRAIN_DELAY_MS', 0, 600000),
    logRetention: int(merged, 'SWITCHYARD_LOG_RETENTION', 10, 100000),
    functionLogsToStdout: raw(merged, 'SWITCHYARD_FUNCTION_LOGS_STDOUT') === null ? true : bool(merged, 'SWITCHYARD_FUNCTION_LOGS_STDOUT'),
    functionReportLines: bool(merged, 'SWITCHYARD_FUNCTION_REPORT_LINES'),
    functionLogsFormat: oneOf(merged, 'SWITCHYARD_FUNCTION_LOGS_FORMAT', ['json', 'lambda'] as const)!,
    accessLog: bool(merged, 'SWITCHYARD_ACCESS_LOG'),
    logRedactQuery: parseQueryRedaction(raw(merged, 'SWITCHYARD_LOG_REDACT_QUERY') ?? ''),
    deliveryRetentionDays: int(merged, 'SWITCHYARD_DELIVERY_RETENTION_DAYS', 1, 3650),
    heartbeatTimeoutMs: int(merged, 'SWITCHYARD_HEARTBEAT_TIMEOUT', 3, 600) * 1000,
    idempotencyWindowMs: int(merged, 'SWITCHYARD_IDEMPOTENCY_WINDOW', 1, 30 * 86_400) * 1000,
    maxHeld: int(merged, 'SWITCHYARD_MAX_HELD', 1, 100_000_000),
    ...portalTokenTtls(merged),
    testHooks: bool(merged, 'SWITCHYARD_TEST_HOOKS'),
    telemetry: telemetryConfig(merged),
    metricsExport: metricsExportConfig(merged),
  });
}
