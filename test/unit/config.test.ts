/**
 * loadConfig: defaults, validation with messages naming the variable, the
 * non-loopback HOST rule, and CLI flags overriding the environment.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import {
  ATTEMPT_BYTES,
  MAX_AUTO_PROCESSES,
  OPTIONS,
  WARM_ISOLATE_BYTES,
  autoDeliveryConcurrency,
  autoWarmIsolates,
  availableMemory,
  helpText,
  loadConfig,
  parseCommandLine,
} from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

function refusal(env: Record<string, string>, argv: string[] = []): ConfigError {
  try {
    loadConfig(env, argv);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify({ env, argv })}`);
}

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({}, []);
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: 'sqlite:./data/switchyard.db',
      adminKey: null,
      allowPrivateTargets: false,
      logLevel: 'info',
      bodyLimit: 1024 * 1024,
      demo: false,
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reads the environment', () => {
    const c = loadConfig({
      PORT: '8081',
      HOST: '127.0.0.2',
      DATABASE_URL: 'sqlite::memory:',
      SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1',
      LOG_LEVEL: 'warn',
      SWITCHYARD_BODY_LIMIT: '2048',
    });
    expect(c).toMatchObject({
      port: 8081,
      host: '127.0.0.2',
      databaseUrl: 'sqlite::memory:',
      allowPrivateTargets: true,
      logLevel: 'warn',
      bodyLimit: 2048,
    });
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/sy' }).databaseUrl).toBe('postgres://u:p@db:5432/sy');
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '80.5'],
    ['SWITCHYARD_BODY_LIMIT', 'lots'],
    ['LOG_LEVEL', 'loud'],
    ['DATABASE_URL', 'mysql://x'],
    ['SWITCHYARD_ALLOW_PRIVATE_TARGETS', 'yes please'],
  ])('refuses %s=%s with a ConfigError naming it', (name, value) => {
    const err = refusal({ [name]: value });
    expect(err.message).toContain(name);
  });

  it('refuses a non-loopback HOST without an admin key, and accepts it with one', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'example.com']) {
      expect(refusal({ HOST: host }).message).toContain('SWITCHYARD_ADMIN_KEY');
    }
    const c = loadConfig({ HOST: '0.0.0.0', SWITCHYARD_ADMIN_KEY: 's3cret-of-16-chars' });
    expect(c.host).toBe('0.0.0.0');
    expect(c.adminKey).toBe('s3cret-of-16-chars');
    for (const host of ['127.0.0.1', 'localhost', '::1']) expect(loadConfig({ HOST: host }).host).toBe(host);
  });

  it('refuses an admin key or metrics token shorter than 16 characters off loopback, and takes any on loopback', () => {
    const short = refusal({ HOST: '0.0.0.0', SWITCHYARD_ADMIN_KEY: 'k' }).message;
    expect(short).toContain('SWITCHYARD_ADMIN_KEY');
    expect(short).toContain('at least 16 characters');
    expect(refusal({ HOST: '192.168.1.5', SWITCHYARD_ADMIN_KEY: '123456789012345' }).message).toContain('SWITCHYARD_ADMIN_KEY');
    expect(loadConfig({ HOST: '0.0.0.0', SWITCHYARD_ADMIN_KEY: '1234567890123456' }).adminKey).toBe('1234567890123456');
    const token = refusal({ HOST: '0.0.0.0', SWITCHYARD_ADMIN_KEY: '1234567890123456', SWITCHYARD_METRICS_TOKEN: 'short' }).message;
    expect(token).toContain('SWITCHYARD_METRICS_TOKEN');
    expect(loadConfig({ SWITCHYARD_ADMIN_KEY: 'k', SWITCHYARD_METRICS_TOKEN: 't' })).toMatchObject({ adminKey: 'k', metricsToken: 't' });
  });

  it('asks the same length where either listener is reachable from other machines', () => {
    const admin = refusal({ SWITCHYARD_ADMIN_ADDRESS: '0.0.0.0:3001', SWITCHYARD_ADMIN_KEY: 'short' }).message;
    expect(admin).toContain('SWITCHYARD_ADMIN_KEY must be at least 16 characters when SWITCHYARD_ADMIN_ADDRESS=0.0.0.0:3001');
    // Functions on the network, management on loopback: no key needed, but a key given must be long.
    expect(loadConfig({ HOST: '0.0.0.0', SWITCHYARD_ADMIN_ADDRESS: '127.0.0.1:3001' }).adminKey).toBeNull();
    expect(refusal({ HOST: '0.0.0.0', SWITCHYARD_ADMIN_ADDRESS: '127.0.0.1:3001', SWITCHYARD_METRICS_TOKEN: 't' }).message).toContain(
      'SWITCHYARD_METRICS_TOKEN',
    );
  });

  it('puts /metrics on a listener of its own with SWITCHYARD_METRICS_ADDRESS, apart from the others', () => {
    expect(loadConfig({}).metricsAddress).toBeNull();
    expect(loadConfig({ SWITCHYARD_METRICS_ADDRESS: '9464' }).metricsAddress).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(loadConfig({}, ['--metrics-address', '[::1]:9464']).metricsAddress).toEqual({ host: '::1', port: 9464 });
    expect(refusal({ PORT: '3000', SWITCHYARD_METRICS_ADDRESS: '127.0.0.1:3000' }).message).toContain('SWITCHYARD_METRICS_ADDRESS must differ from HOST and PORT');
    expect(refusal({ SWITCHYARD_ADMIN_ADDRESS: '3001', SWITCHYARD_METRICS_ADDRESS: '3001' }).message).toContain('must differ from SWITCHYARD_ADMIN_ADDRESS');
    expect(refusal({ SWITCHYARD_METRICS_ADDRESS: 'metrics' }).message).toContain('SWITCHYARD_METRICS_ADDRESS must be <port> or <host>:<port>');
    // Reachable from other machines: a token given must be long, as on the other listeners.
    expect(refusal({ SWITCHYARD_METRICS_ADDRESS: '0.0.0.0:9464', SWITCHYARD_METRICS_TOKEN: 'short' }).message).toContain(
      'SWITCHYARD_METRICS_TOKEN must be at least 16 characters when SWITCHYARD_METRICS_ADDRESS=0.0.0.0:9464',
    );
  });

  it('bounds functions, APIs, webhooks and routes per API, 10,000 (1,000 routes) unless set', () => {
    expect(loadConfig({}).limits).toEqual({ functions: 10_000, apis: 10_000, webhooks: 10_000, routes: 1000 });
    expect(loadConfig({}, ['--max-functions', '5', '--max-apis=6', '--max-webhooks', '7', '--max-routes-per-api', '8']).limits).toEqual({
      functions: 5,
      apis: 6,
      webhooks: 7,
      routes: 8,
    });
    expect(refusal({ SWITCHYARD_MAX_FUNCTIONS: '0' }).message).toContain('SWITCHYARD_MAX_FUNCTIONS');
  });

  it('lets flags override the environment', () => {
    const c = loadConfig({ PORT: '3001', LOG_LEVEL: 'info' }, ['--port', '8080', '--demo', '--log-level=debug']);
    expect(c.port).toBe(8080);
    expect(c.demo).toBe(true);
    expect(c.logLevel).toBe('debug');
    const keyed = loadConfig({}, ['--host', '0.0.0.0', '--admin-key', 'k-of-16-characters']);
    expect(keyed).toMatchObject({ host: '0.0.0.0', adminKey: 'k-of-16-characters' });
    expect(refusal({}, ['--port', 'abc']).message).toContain('PORT');
  });

  it('refuses an unknown flag and a flag without its value', () => {
    // A near miss: the option meant.
    expect(refusal({}, ['--prot', '8080']).message).toBe('Unknown option --prot; did you mean --port? (switchyard --help lists every option)');
    expect(refusal({}, ['--dmeo']).message).toContain('did you mean --demo?');
    // Nothing near: every option.
    const unknown = refusal({}, ['--frobnicate']).message;
    expect(unknown).toContain('--frobnicate');
    expect(unknown).toContain('--port');
    expect(unknown).toContain('--help');
    expect(refusal({}, ['--port']).message).toContain('--port');
  });

  it('logs JSON by default and pretty on a terminal; LOG_FORMAT and --log-format override', () => {
    expect(loadConfig({}, []).logFormat).toBe('json');
    expect(loadConfig({}, [], false).logFormat).toBe('json');
    expect(loadConfig({}, [], true).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'json' }, [], true).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }, [], false).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'json' }, ['--log-format', 'pretty'], false).logFormat).toBe('pretty');
    expect(refusal({ LOG_FORMAT: 'colour' }).message).toMatch(/LOG_FORMAT must be one of json, pretty/);
  });

  it('reads --help and --version apart from the settings', () => {
    expect(parseCommandLine(['--help'])).toMatchObject({ help: true, version: false });
    expect(parseCommandLine(['-h'])).toMatchObject({ help: true });
    expect(parseCommandLine(['--version'])).toMatchObject({ version: true, help: false });
    expect(parseCommandLine(['--port', '1', '--demo'])).toEqual({ env: { PORT: '1', SWITCHYARD_DEMO: '1' }, help: false, version: false });
  });

  it('takes its defaults from the option table that --help prints', () => {
    const c = loadConfig({}, []);
    const byEnv = Object.fromEntries(OPTIONS.map((o) => [o.env, o.default]));
    expect(String(c.port)).toBe(byEnv.PORT);
    expect(c.host).toBe(byEnv.HOST);
    expect(c.databaseUrl).toBe(byEnv.DATABASE_URL);
    expect(c.logLevel).toBe(byEnv.LOG_LEVEL);
    expect(String(c.bodyLimit)).toBe(byEnv.SWITCHYARD_BODY_LIMIT);
    expect(String(loadConfig({ SWITCHYARD_PROCESSES: '1' }).workers)).toBe(byEnv.SWITCHYARD_WORKERS);
    expect(byEnv.SWITCHYARD_PROCESSES).toBe('auto');
    expect(String(c.shutdownGraceMs)).toBe(byEnv.SWITCHYARD_SHUTDOWN_GRACE_MS);
    expect(String(c.drainDelayMs)).toBe(byEnv.SWITCHYARD_DRAIN_DELAY_MS);
    expect(c.functionLogsToStdout ? '1' : '0').toBe(byEnv.SWITCHYARD_FUNCTION_LOGS_STDOUT);
    expect(loadConfig({ SWITCHYARD_FUNCTION_LOGS_STDOUT: '0' }).functionLogsToStdout).toBe(false);
    expect(String(c.logRetention)).toBe(byEnv.SWITCHYARD_LOG_RETENTION);
    expect(String(c.deliveryRetentionDays)).toBe(byEnv.SWITCHYARD_DELIVERY_RETENTION_DAYS);
    expect(String(c.heartbeatTimeoutMs / 1000)).toBe(byEnv.SWITCHYARD_HEARTBEAT_TIMEOUT);
    const help = helpText();
    for (const o of OPTIONS) {
      expect(help).toContain(o.env);
      if (o.flag) expect(help).toContain(o.flag);
      expect(help).toContain(`default: ${o.defaultText ?? o.default}`);
      // Every flag --help lists is one the parser takes.
      if (o.flag && !o.boolean) expect(parseCommandLine([o.flag, 'x']).env[o.env]).toBe('x');
      if (o.flag && o.boolean) expect(parseCommandLine([o.flag]).env[o.env]).toBe('1');
    }
  });

  it('serves from one process per core by default (at most 8), with one isolate worker each', () => {
    const auto = Math.min(MAX_AUTO_PROCESSES, availableParallelism());
    expect(loadConfig({}).processes).toBe(auto);
    expect(loadConfig({ SWITCHYARD_PROCESSES: 'auto' }).processes).toBe(auto);
    expect(loadConfig({}, ['--processes', '3'])).toMatchObject({ processes: 3, workers: 1, processesNote: null });
    expect(loadConfig({ SWITCHYARD_PROCESSES: '3', SWITCHYARD_WORKERS: '4' }).workers).toBe(4);
    expect(loadConfig({ SWITCHYARD_PROCESSES: '1' })).toMatchObject({ processes: 1, workers: 2 });
    expect(() => loadConfig({ SWITCHYARD_PROCESSES: '0' })).toThrow(/SWITCHYARD_PROCESSES/);
    expect(() => loadConfig({ SWITCHYARD_PROCESSES: 'many' })).toThrow(/SWITCHYARD_PROCESSES/);
    // An in-memory database cannot be shared: one process, and the reason for the log.
    const memory = loadConfig({ SWITCHYARD_PROCESSES: '4', DATABASE_URL: 'sqlite::memory:' });
    expect(memory).toMatchObject({ processes: 1, workers: 2 });
    expect(memory.processesNote).toMatch(/sqlite::memory:.*1 process instead of 4/);
  });

  it('hosts isolates in the server processes when there are several, in worker processes with one, or as set', () => {
    expect(loadConfig({ SWITCHYARD_PROCESSES: '2' })).toMatchObject({ isolates: 'in-process', workers: 1 });
    expect(loadConfig({ SWITCHYARD_PROCESSES: '1' }).isolates).toBe('workers');
    expect(loadConfig({ SWITCHYARD_PROCESSES: '2' }, ['--isolates', 'workers']).isolates).toBe('workers');
    expect(loadConfig({ SWITCHYARD_PROCESSES: '3', SWITCHYARD_ISOLATES: 'in-process' }).isolates).toBe('in-process');
    // One process hosting its isolates would be the whole service lost to one isolate's abort.
    expect(() => loadConfig({ SWITCHYARD_PROCESSES: '1', SWITCHYARD_ISOLATES: 'in-process' })).toThrow(/needs more than one server process/);
    expect(() => loadConfig({ SWITCHYARD_PROCESSES: '4', DATABASE_URL: 'sqlite::memory:', SWITCHYARD_ISOLATES: 'in-process' })).toThrow(/sqlite::memory:/);
    expect(loadConfig({ SWITCHYARD_PROCESSES: '4', DATABASE_URL: 'sqlite::memory:' }).isolates).toBe('workers');
    expect(() => loadConfig({ SWITCHYARD_ISOLATES: 'threads' })).toThrow(/SWITCHYARD_ISOLATES must be one of auto, in-process, workers/);
    // In-process, every server process's isolates share the warm budget (no worker processes to divide it by).
    expect(loadConfig({ SWITCHYARD_PROCESSES: '2' }).warmIsolates).toBe(autoWarmIsolates(2));
  });

  it('keeps warm isolates within half the memory, shared by every worker process of the node', () => {
    const gib16 = 16 * 2 ** 30;
    expect(autoWarmIsolates(2, gib16)).toBe(gib16 / 2 / WARM_ISOLATE_BYTES / 2);
    expect(autoWarmIsolates(8, gib16)).toBe(autoWarmIsolates(2, gib16) / 4);
    expect(autoWarmIsolates(64, 2 ** 30)).toBe(100);
    const c = loadConfig({ SWITCHYARD_PROCESSES: '1', SWITCHYARD_WORKERS: '2' });
    expect(c.warmIsolates).toBe(autoWarmIsolates(2));
    expect(loadConfig({}, ['--warm-isolates', '7']).warmIsolates).toBe(7);
    expect(() => loadConfig({ SWITCHYARD_WARM_ISOLATES: '0' })).toThrow(/SWITCHYARD_WARM_ISOLATES must be a whole number from 1 to 1000000 or auto/);
  });

  it('takes the synchronous fast path into isolates unless told 0', () => {
    expect(loadConfig({}).syncCalls).toBe(true);
    expect(loadConfig({ SWITCHYARD_SYNC_CALLS: '0' }).syncCalls).toBe(false);
    expect(loadConfig({}, ['--sync-calls', '0']).syncCalls).toBe(false);
    expect(() => loadConfig({ SWITCHYARD_SYNC_CALLS: 'maybe' })).toThrow(/SWITCHYARD_SYNC_CALLS must be 1 or 0/);
  });

  it('builds scheduled functions\' isolates 15 s before their slot unless told (0: off)', () => {
    expect(loadConfig({}).prewarmAheadMs).toBe(15_000);
    expect(loadConfig({ SWITCHYARD_PREWARM_SECONDS: '0' }).prewarmAheadMs).toBe(0);
    expect(loadConfig({}, ['--prewarm-seconds', '30']).prewarmAheadMs).toBe(30_000);
    expect(() => loadConfig({ SWITCHYARD_PREWARM_SECONDS: '-1' })).toThrow(/SWITCHYARD_PREWARM_SECONDS/);
  });

  it('keeps delivery attempts in flight within an eighth of the memory, 50 to 1000 per server process', () => {
    expect(autoDeliveryConcurrency(1, 100 * 8 * ATTEMPT_BYTES)).toBe(100);
    expect(autoDeliveryConcurrency(2, 100 * 8 * ATTEMPT_BYTES)).toBe(50);
    expect(autoDeliveryConcurrency(1, 10 * 8 * ATTEMPT_BYTES)).toBe(50);
    expect(autoDeliveryConcurrency(1, 64 * 2 ** 30)).toBe(1000);
    expect(availableMemory()).toBeGreaterThan(0);
    expect(loadConfig({ SWITCHYARD_PROCESSES: '2' }).deliveryConcurrency).toBe(autoDeliveryConcurrency(2));
    expect(loadConfig({}, ['--delivery-concurrency', '7']).deliveryConcurrency).toBe(7);
    expect(() => loadConfig({ SWITCHYARD_DELIVERY_CONCURRENCY: 'lots' })).toThrow(/SWITCHYARD_DELIVERY_CONCURRENCY must be a whole number from 1 to 100000 or auto/);
  });

  it('reads SWITCHYARD_TRUSTED_PROXIES as a hop count or a list of addresses and CIDRs, and names a bad entry', () => {
    expect(loadConfig({}).trustedProxies).toBeNull();
    expect(loadConfig({ SWITCHYARD_TRUSTED_PROXIES: '2' }).trustedProxies).toEqual({ hops: 2 });
    expect(loadConfig({}, ['--trusted-proxies', ' 10.0.0.0/8, 127.0.0.1,::1,fd00::/8 ']).trustedProxies).toEqual({
      addresses: ['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8'],
    });
    expect(refusal({ SWITCHYARD_TRUSTED_PROXIES: '0' }).message).toMatch(/SWITCHYARD_TRUSTED_PROXIES as a hop count must be from 1 to 32, got "0"/);
    expect(refusal({ SWITCHYARD_TRUSTED_PROXIES: '10.0.0.0/33' }).message).toContain('"10.0.0.0/33" is neither');
    expect(refusal({ SWITCHYARD_TRUSTED_PROXIES: '127.0.0.1,,::1' }).message).toContain('"" is neither');
    expect(refusal({ SWITCHYARD_TRUSTED_PROXIES: 'proxy.example.com' }).message).toContain('"proxy.example.com" is neither');
  });

  it("matches the README's configuration table: every variable with its flag and default", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const o of OPTIONS) {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${o.env}\``));
      expect(row, `README row for ${o.env}`).toBeDefined();
      if (o.flag) expect(row).toContain(`(\`${o.flag}\`)`);
      if (o.default !== null) expect(row).toContain(`| \`${o.default}\` |`);
    }
  });
});
