/**
 * loadConfig: defaults, validation with messages naming the variable, the
 * non-loopback HOST rule, and CLI flags overriding the environment.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
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
    const c = loadConfig({ HOST: '0.0.0.0', SWITCHYARD_ADMIN_KEY: 's3cret' });
    expect(c.host).toBe('0.0.0.0');
    expect(c.adminKey).toBe('s3cret');
    for (const host of ['127.0.0.1', 'localhost', '::1']) expect(loadConfig({ HOST: host }).host).toBe(host);
  });

  it('lets flags override the environment', () => {
    const c = loadConfig({ PORT: '3001', LOG_LEVEL: 'info' }, ['--port', '8080', '--demo', '--log-level=debug']);
    expect(c.port).toBe(8080);
    expect(c.demo).toBe(true);
    expect(c.logLevel).toBe('debug');
    const keyed = loadConfig({}, ['--host', '0.0.0.0', '--admin-key', 'k']);
    expect(keyed).toMatchObject({ host: '0.0.0.0', adminKey: 'k' });
    expect(refusal({}, ['--port', 'abc']).message).toContain('PORT');
  });

  it('refuses an unknown flag and a flag without its value', () => {
    expect(refusal({}, ['--prot', '8080']).message).toContain('--prot');
    expect(refusal({}, ['--port']).message).toContain('--port');
  });
});
