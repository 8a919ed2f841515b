/**
 * Environment and CLI flags -> one frozen, typed Config. This is the only module
 * that reads process.env; everything else receives the resolved object.
 */
import { ConfigError } from './errors.js';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  adminKey: string | null;
  allowPrivateTargets: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Largest accepted request body on invocation and management routes, in bytes. */
  bodyLimit: number;
  /** Number of supervised worker processes hosting isolates. */
  workers: number;
  /** Load examples/demo.json at start (created when missing). */
  demo: boolean;
  /** Seconds to finish in-flight requests after SIGTERM. */
  shutdownGraceMs: number;
  /** Function console lines kept per function. */
  logRetention: number;
  /** Finished webhook deliveries older than this are pruned. */
  deliveryRetentionDays: number;
  /**
   * `SWITCHYARD_TEST_HOOKS=1`: a hand-moved clock (`PUT /api/_test/clock`) for
   * schedule tests. Never for production.
   */
  testHooks: boolean;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const FLAGS: Record<string, string> = {
  '--port': 'PORT',
  '--host': 'HOST',
  '--database-url': 'DATABASE_URL',
  '--admin-key': 'SWITCHYARD_ADMIN_KEY',
  '--allow-private-targets': 'SWITCHYARD_ALLOW_PRIVATE_TARGETS',
  '--log-level': 'LOG_LEVEL',
  '--body-limit': 'SWITCHYARD_BODY_LIMIT',
  '--workers': 'SWITCHYARD_WORKERS',
  '--demo': 'SWITCHYARD_DEMO',
  '--shutdown-grace-ms': 'SWITCHYARD_SHUTDOWN_GRACE_MS',
};
const BOOLEAN_FLAGS = new Set(['--demo', '--allow-private-targets']);

/** Turns `--port 8080 --demo` into `{PORT: '8080', SWITCHYARD_DEMO: '1'}`. Flags win over env. */
export function flagsToEnv(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.split(/=(.*)/s, 2);
    const name = FLAGS[flag];
    if (!name) throw new ConfigError(`Unknown option ${flag}. Options: ${Object.keys(FLAGS).join(' ')}`);
    if (inline !== undefined) out[name] = inline;
    else if (BOOLEAN_FLAGS.has(flag)) out[name] = '1';
    else {
      const value = argv[++i];
      if (value === undefined) throw new ConfigError(`Option ${flag} needs a value`);
      out[name] = value;
    }
  }
  return out;
}

function int(env: Record<string, string | undefined>, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

function bool(env: Record<string, string | undefined>, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ConfigError(`${name} must be 1 or 0, got "${raw}"`);
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function loadConfig(env: Record<string, string | undefined> = process.env, argv: string[] = []): Config {
  const merged = { ...env, ...flagsToEnv(argv) };
  const host = merged.HOST || '127.0.0.1';
  const adminKey = merged.SWITCHYARD_ADMIN_KEY || null;
  if (!isLoopbackHost(host) && !adminKey) {
    throw new ConfigError(
      `HOST=${host} is reachable from other machines: set SWITCHYARD_ADMIN_KEY so the management API is not open to them`,
    );
  }
  const databaseUrl = merged.DATABASE_URL || 'sqlite:./data/switchyard.db';
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(databaseUrl)) {
    throw new ConfigError(
      `DATABASE_URL must start with sqlite: or postgres://, got "${databaseUrl}" (examples: sqlite:./data/switchyard.db, sqlite::memory:)`,
    );
  }
  const demo = bool(merged, 'SWITCHYARD_DEMO');
  const logLevel = (merged.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  return Object.freeze({
    port: int(merged, 'PORT', 3000, 0, 65535),
    host,
    databaseUrl,
    adminKey,
    // The demo's webhook calls the gateway itself on loopback (the CLI says so at start).
    allowPrivateTargets: bool(merged, 'SWITCHYARD_ALLOW_PRIVATE_TARGETS') || demo,
    logLevel,
    bodyLimit: int(merged, 'SWITCHYARD_BODY_LIMIT', 1024 * 1024, 1024, 64 * 1024 * 1024),
    workers: int(merged, 'SWITCHYARD_WORKERS', 2, 1, 64),
    demo,
    shutdownGraceMs: int(merged, 'SWITCHYARD_SHUTDOWN_GRACE_MS', 10000, 0, 600000),
    logRetention: int(merged, 'SWITCHYARD_LOG_RETENTION', 1000, 10, 100000),
    deliveryRetentionDays: int(merged, 'SWITCHYARD_DELIVERY_RETENTION_DAYS', 30, 1, 3650),
    testHooks: bool(merged, 'SWITCHYARD_TEST_HOOKS'),
  });
}
