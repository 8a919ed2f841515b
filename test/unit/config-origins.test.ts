/**
 * The settings that separate the dashboard's origin from the functions'
 * (src/config.ts): the admin listener's address, the public URL, where
 * /metrics is served, which listener's host decides whether a key is
 * required, and the start-up warning when functions share a reachable origin
 * with the dashboard.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const base = { SWITCHYARD_PROCESSES: '1' };

describe('SWITCHYARD_ADMIN_ADDRESS', () => {
  it('is off by default: one listener serves everything', () => {
    expect(loadConfig(base)).toMatchObject({ adminAddress: null, publicUrl: null, metricsListener: 'public' });
  });

  it('takes a port (on HOST), a host and port, or a bracketed IPv6 address and port, as variable or flag', () => {
    expect(loadConfig({ ...base, SWITCHYARD_ADMIN_ADDRESS: '3001' }).adminAddress).toEqual({ host: '127.0.0.1', port: 3001 });
    expect(loadConfig({ ...base, HOST: 'localhost' }, ['--admin-address', '3001']).adminAddress).toEqual({ host: 'localhost', port: 3001 });
    expect(loadConfig(base, ['--admin-address=127.0.0.2:0']).adminAddress).toEqual({ host: '127.0.0.2', port: 0 });
    expect(loadConfig(base, ['--admin-address', '[::1]:3001']).adminAddress).toEqual({ host: '::1', port: 3001 });
  });

  it('refuses anything else, naming the variable and the forms it takes', () => {
    for (const bad of ['abc', '3001x', ':3001', 'host:', '70000', 'a:b:3001', '::1:3001', 'http://127.0.0.1:3001']) {
      expect(() => loadConfig({ ...base, SWITCHYARD_ADMIN_ADDRESS: bad }), bad).toThrow(
        /SWITCHYARD_ADMIN_ADDRESS must be <port> or <host>:<port>/,
      );
    }
  });

  it('must differ from the public listener', () => {
    expect(() => loadConfig({ ...base, PORT: '3000', SWITCHYARD_ADMIN_ADDRESS: '3000' })).toThrow(/must differ from HOST and PORT/);
    // Port 0 picks a free port for each.
    expect(loadConfig({ ...base, PORT: '0', SWITCHYARD_ADMIN_ADDRESS: '0' }).adminAddress).toEqual({ host: '127.0.0.1', port: 0 });
  });

  it("asks for the key by the management API's listener, not by HOST", () => {
    // Functions public, management on loopback: no key needed.
    expect(loadConfig({ ...base, HOST: '0.0.0.0', SWITCHYARD_ADMIN_ADDRESS: '127.0.0.1:3001' }).adminKey).toBeNull();
    // Management reachable from other machines: refused without a key, naming the setting.
    expect(() => loadConfig({ ...base, SWITCHYARD_ADMIN_ADDRESS: '0.0.0.0:3001' })).toThrow(
      /SWITCHYARD_ADMIN_ADDRESS=0.0.0.0:3001 is reachable from other machines: set SWITCHYARD_ADMIN_KEY/,
    );
    expect(() => loadConfig({ ...base, HOST: '0.0.0.0', SWITCHYARD_ADMIN_ADDRESS: '3001' })).toThrow(/SWITCHYARD_ADMIN_KEY/);
    expect(() => loadConfig({ ...base, HOST: '0.0.0.0' })).toThrow(/HOST=0.0.0.0 is reachable/);
  });
});

describe('the shared origin warning', () => {
  it('is given when functions and the dashboard share an origin other machines reach', () => {
    const shared = loadConfig({ ...base, HOST: '0.0.0.0', SWITCHYARD_ADMIN_KEY: 'k'.repeat(32) });
    expect(shared.originNote).toMatch(/HOST=0.0.0.0 serves functions on the dashboard's origin: set SWITCHYARD_ADMIN_ADDRESS/);
    expect(loadConfig({ ...base, HOST: '0.0.0.0', SWITCHYARD_ADMIN_KEY: 'k'.repeat(32), SWITCHYARD_ADMIN_ADDRESS: '3001' }).originNote).toBeNull();
    expect(loadConfig(base).originNote).toBeNull();
  });
});

describe('SWITCHYARD_PUBLIC_URL', () => {
  it('keeps the origin of an http(s) URL without a path', () => {
    expect(loadConfig({ ...base, SWITCHYARD_PUBLIC_URL: 'https://api.example.com' }).publicUrl).toBe('https://api.example.com');
    expect(loadConfig(base, ['--public-url', 'http://API.example.com:8080/']).publicUrl).toBe('http://api.example.com:8080');
  });

  it('refuses a path, a query, credentials or another scheme', () => {
    for (const bad of ['api.example.com', 'ftp://x.test', 'https://x.test/gw', 'https://x.test/?a=1', 'https://u:p@x.test', 'https://x.test/#a']) {
      expect(() => loadConfig({ ...base, SWITCHYARD_PUBLIC_URL: bad }), bad).toThrow(/SWITCHYARD_PUBLIC_URL must be an http\(s\) origin/);
    }
  });
});

describe('SWITCHYARD_METRICS_LISTENER', () => {
  it('keeps /metrics on the admin listener only when there is one', () => {
    expect(loadConfig({ ...base, SWITCHYARD_ADMIN_ADDRESS: '3001', SWITCHYARD_METRICS_LISTENER: 'admin' }).metricsListener).toBe('admin');
    expect(() => loadConfig({ ...base, SWITCHYARD_METRICS_LISTENER: 'admin' })).toThrow(/needs SWITCHYARD_ADMIN_ADDRESS/);
    expect(() => loadConfig({ ...base, SWITCHYARD_METRICS_LISTENER: 'both' })).toThrow(/must be one of public, admin/);
  });
});
