/**
 * describeStartupFailure: each known start-up failure becomes one line with
 * the cause and the fix, never showing the database password; anything else
 * is one line marked unknown (the CLI adds the LOG_LEVEL=debug hint).
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { describeStartupFailure, withoutPassword } from '../../src/startup-failure.js';

const sqlite = { port: 3000, host: '127.0.0.1', databaseUrl: 'sqlite:./data/x.db' };
const pg = { ...sqlite, databaseUrl: 'postgres://sy:hunter22@db.internal:6543/switchyard?schema=a' };

function errno(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), fields);
}

describe('describeStartupFailure', () => {
  it('port in use: names the port and how to pick another', () => {
    const f = describeStartupFailure(errno('listen EADDRINUSE: address already in use 127.0.0.1:3000', { code: 'EADDRINUSE', syscall: 'listen' }), sqlite);
    expect(f.known).toBe(true);
    expect(f.line).toMatch(/^port 3000 is already in use/);
    expect(f.line).toContain('PORT=');
    expect(f.line).toContain('--port');
  });

  it('a privileged port and an address the machine does not have', () => {
    const low = describeStartupFailure(errno('listen EACCES', { code: 'EACCES', syscall: 'listen' }), { ...sqlite, port: 80 });
    expect(low.line).toMatch(/^port 80 needs privileges/);
    const host = describeStartupFailure(errno('listen EADDRNOTAVAIL', { code: 'EADDRNOTAVAIL', syscall: 'listen' }), { ...sqlite, host: '10.9.9.9' });
    expect(host.line).toMatch(/^HOST=10\.9\.9\.9 is not an address of this machine/);
  });

  it("the admin listener's port in use: names its port and its setting, not PORT", () => {
    const withAdmin = { ...sqlite, adminAddress: { host: '127.0.0.1', port: 3001 } };
    const f = describeStartupFailure(errno('listen EADDRINUSE', { code: 'EADDRINUSE', syscall: 'listen', listener: 'admin' }), withAdmin);
    expect(f.line).toMatch(/^port 3001 is already in use on 127\.0\.0\.1/);
    expect(f.line).toContain('--admin-address');
    expect(f.line).not.toContain('PORT=');
    // The public listener's failure still names PORT.
    expect(describeStartupFailure(errno('listen EADDRINUSE', { code: 'EADDRINUSE', syscall: 'listen' }), withAdmin).line).toMatch(/^port 3000 .*PORT=/);
  });

  it('PostgreSQL unreachable: the URL without its password and what to check', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH']) {
      const f = describeStartupFailure(errno(`connect ${code} db.internal:6543`, { code, syscall: 'connect' }), pg);
      expect(f.known).toBe(true);
      expect(f.line).toContain('cannot reach the database at postgres://sy:***@db.internal:6543/switchyard?schema=a');
      expect(f.line).toContain('PostgreSQL is running');
      expect(f.line).toContain('db.internal:6543');
      expect(f.line).not.toContain('hunter22');
    }
    const timeout = describeStartupFailure(new Error('timeout exceeded when trying to connect'), pg);
    expect(timeout.line).toMatch(/^cannot reach the database/);
  });

  it('PostgreSQL refusing the login, missing the database, or the right to create tables', () => {
    expect(describeStartupFailure(errno('password authentication failed for user "sy"', { code: '28P01' }), pg).line).toMatch(
      /refused the login .*check the user and password/,
    );
    expect(describeStartupFailure(errno('database "switchyard" does not exist', { code: '3D000' }), pg).line).toMatch(
      /does not exist .*create it/,
    );
    expect(describeStartupFailure(errno('permission denied for database switchyard', { code: '42501' }), pg).line).toMatch(
      /may not create Switchyard's tables/,
    );
  });

  it('never shows the password, even where a driver put it in its message', () => {
    const f = describeStartupFailure(new Error('something odd with hunter22\nat line 2'), pg);
    expect(f.known).toBe(false);
    expect(f.line).not.toContain('hunter22');
    expect(f.line).not.toContain('\n');
    expect(withoutPassword('postgres://u:p%40ss@h/db?password=x&sslpassword=y')).toBe('postgres://u:***@h/db?password=***&sslpassword=***');
    expect(withoutPassword('postgres://u@h/db')).toBe('postgres://u@h/db');
  });

  it('SQLite: permissions, a file in the way, not a database, locked', () => {
    const file = resolve('./data/x.db');
    const cantOpen = describeStartupFailure(errno('unable to open database file', { code: 'SQLITE_CANTOPEN' }), sqlite);
    expect(cantOpen.line).toContain(`cannot open the SQLite database ${file}`);
    expect(cantOpen.line).toMatch(/may read and write it/);
    const readonly = describeStartupFailure(errno('attempt to write a readonly database', { code: 'SQLITE_READONLY' }), sqlite);
    expect(readonly.line).toMatch(/may read and write it/);
    const mkdir = describeStartupFailure(
      errno("EACCES: permission denied, mkdir '/srv/data'", { code: 'EACCES', syscall: 'mkdir', path: '/srv/data' }),
      sqlite,
    );
    expect(mkdir.line).toMatch(/^cannot create the folder \/srv\/data for the SQLite database/);
    expect(describeStartupFailure(errno('EEXIST', { code: 'EEXIST', syscall: 'mkdir' }), sqlite).line).toMatch(/part of that path is a file/);
    expect(describeStartupFailure(errno('file is not a database', { code: 'SQLITE_NOTADB' }), sqlite).line).toMatch(/is not a readable SQLite database/);
    expect(describeStartupFailure(errno('database is locked', { code: 'SQLITE_BUSY' }), sqlite).line).toMatch(/locked by another program/);
  });

  it('passes the message of a ConfigError through as the line (a newer database, a bad demo file)', () => {
    const f = describeStartupFailure(new ConfigError('The database was written by a newer Switchyard: upgrade'), sqlite);
    expect(f).toEqual({ line: 'The database was written by a newer Switchyard: upgrade', known: true });
  });

  it('anything else: one line, marked unknown', () => {
    const f = describeStartupFailure(new TypeError('x is not a function\n    at foo (bar.js:1:1)'), sqlite);
    expect(f).toEqual({ line: 'could not start: x is not a function at foo (bar.js:1:1)', known: false });
  });
});
