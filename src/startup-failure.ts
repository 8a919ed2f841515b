/**
 * Why Switchyard could not start, as one line for a person: the cause and the
 * fix (a port in use, a database it cannot reach or open, a file it may not
 * write). The CLI prints it on stderr and exits; the stack is for LOG_LEVEL=debug.
 * Database URLs are shown without their password.
 */
import { statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Config } from './config.js';
import { ConfigError } from './errors.js';

export interface StartupFailure {
  line: string;
  /** A known cause with its fix; false: an unexpected error, whose stack may help. */
  known: boolean;
}

type ErrnoLike = Error & { code?: unknown; syscall?: unknown; hostname?: unknown; path?: unknown; listener?: unknown };

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);
const PERMISSION = new Set(['EACCES', 'EPERM', 'EROFS']);

export function describeStartupFailure(
  err: unknown,
  config: Pick<Config, 'port' | 'host' | 'databaseUrl'> & Partial<Pick<Config, 'adminAddress' | 'metricsAddress'>>,
): StartupFailure {
  const e: ErrnoLike = err instanceof Error ? err : new Error(String(err));
  const code = typeof e.code === 'string' ? e.code : '';
  const secret = passwordOf(config.databaseUrl);
  const known = (line: string): StartupFailure => ({ line: oneLine(line, secret), known: true });

  // The user must fix something and the message already says what (configuration, a newer database, a demo file).
  if (e instanceof ConfigError || code === 'demo_load_failed') return known(e.message);

  if (e.syscall === 'listen') {
    // server.ts marks a failure of the admin listener (SWITCHYARD_ADMIN_ADDRESS) or the metrics one (SWITCHYARD_METRICS_ADDRESS).
    const own =
      e.listener === 'admin' && config.adminAddress
        ? { at: config.adminAddress, env: 'SWITCHYARD_ADMIN_ADDRESS', flag: '--admin-address' }
        : e.listener === 'metrics' && config.metricsAddress
          ? { at: config.metricsAddress, env: 'SWITCHYARD_METRICS_ADDRESS', flag: '--metrics-address' }
          : null;
    const admin = own?.at ?? null;
    const port = admin ? admin.port : config.port;
    const host = admin ? admin.host : config.host;
    const pick = own
      ? `pick another with ${own.env}=<host>:<port> or ${own.flag} <host>:<port> (port 0 picks a free one)`
      : `pick another with PORT=<port> or --port <port> (0 picks a free one)`;
    if (code === 'EADDRINUSE') return known(`port ${port} is already in use on ${host}: stop the other process or ${pick}`);
    if (code === 'EACCES') return known(`port ${port} needs privileges this process does not have: ${pick} from 1024 up, or put a proxy in front`);
    if (code === 'EADDRNOTAVAIL') {
      return known(
        admin
          ? `${own!.env} names ${host}, which is not an address of this machine: use one it has (127.0.0.1, or 0.0.0.0 for all)`
          : `HOST=${config.host} is not an address of this machine: use one it has (127.0.0.1, or 0.0.0.0 for all) with HOST=... or --host ...`,
      );
    }
  }

  const isPostgres = /^postgres(ql)?:\/\//i.test(config.databaseUrl);
  if (e.syscall === 'getaddrinfo' && e.hostname === config.host && !(isPostgres && e.hostname === hostOf(config.databaseUrl))) {
    return known(`HOST=${config.host} does not resolve to an address of this machine: set HOST=... or --host ... to an address or a name it has`);
  }

  if (isPostgres) {
    const failure = postgresFailure(e, code, config.databaseUrl);
    if (failure) return known(failure);
  } else {
    const failure = sqliteFailure(e, code, config.databaseUrl);
    if (failure) return known(failure);
  }

  return { line: oneLine(`could not start: ${e.message || e.name}`, secret), known: false };
}

function postgresFailure(e: ErrnoLike, code: string, url: string): string | null {
  const shown = withoutPassword(url);
  const host = hostOf(url);
  const at = `${host}:${portOf(url)}`;
  if (UNREACHABLE.has(code) || /timeout exceeded when trying to connect|Connection terminated/i.test(e.message)) {
    return (
      `cannot reach the database at ${shown} (${e.message}): check that PostgreSQL is running and accepts connections on ${at}, ` +
      `and the host, port, user, password and database name in DATABASE_URL`
    );
  }
  switch (code) {
    case '28P01': // invalid_password
    case '28000': // invalid_authorization_specification (no pg_hba.conf entry)
      return `the database at ${shown} refused the login (${e.message}): check the user and password in DATABASE_URL, and that pg_hba.conf lets this host connect`;
    case '3D000': // invalid_catalog_name
      return `the database at ${shown} does not exist (${e.message}): create it (createdb) or fix the database name in DATABASE_URL`;
    case '42501': // insufficient_privilege
      return `the database user in ${shown} may not create Switchyard's tables (${e.message}): grant it CREATE on the database, or add ?schema=<name> for a schema it may create`;
    case '57P03': // cannot_connect_now
    case '53300': // too_many_connections
      return `the database at ${shown} does not accept connections now (${e.message}): wait until it is up, or check max_connections`;
  }
  return null;
}

function sqliteFailure(e: ErrnoLike, code: string, url: string): string | null {
  const file = sqliteFile(url);
  if (!file) return null;
  const check =
    `check that user ${currentUser()} may read and write it and create files in ${dirname(file)} ` +
    `(SQLite keeps -wal and -shm files beside it), or point DATABASE_URL at another file`;
  if (PERMISSION.has(code) && e.syscall === 'mkdir' && typeof e.path === 'string') {
    return (
      `cannot create the folder ${e.path} for the SQLite database ${file} (${e.message}): ` +
      `check that user ${currentUser()} may create it there, create it yourself, or point DATABASE_URL at another file`
    );
  }
  if (PERMISSION.has(code)) return `cannot create or open the SQLite database ${file} (${e.message}): ${check}`;
  if (code === 'SQLITE_CANTOPEN' && isFolder(file)) {
    return `cannot open the SQLite database ${file}: it is a folder; point DATABASE_URL at a file (e.g. sqlite:${file}/switchyard.db)`;
  }
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    return `cannot create the folder of the SQLite database ${file}: part of that path is a file, not a folder (${e.message}); point DATABASE_URL at another path`;
  }
  if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_PERM' || code.startsWith('SQLITE_READONLY')) {
    return `cannot open the SQLite database ${file} (${e.message}): ${check}`;
  }
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return `${file} is not a readable SQLite database (${e.message}): point DATABASE_URL at Switchyard's database file, or at a new path to start empty`;
  }
  if (code.startsWith('SQLITE_BUSY')) {
    return `the SQLite database ${file} is locked by another program (${e.message}): stop it, or point DATABASE_URL at another file`;
  }
  return null;
}

/** The absolute file a `sqlite:` URL names (as the store resolves it), or null for `:memory:`. */
function sqliteFile(url: string): string | null {
  const rest = url.slice(url.indexOf(':') + 1);
  const location = rest.startsWith('//') ? rest.slice(2) : rest;
  return !location || location === ':memory:' ? null : resolve(location);
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

function hostOf(url: string): string {
  return parse(url)?.hostname || 'localhost';
}

function portOf(url: string): string {
  return parse(url)?.port || '5432';
}

function passwordOf(url: string): string | null {
  const parsed = parse(url);
  if (!parsed) return null;
  const password = parsed.password ? decodeURIComponent(parsed.password) : parsed.searchParams.get('password');
  return password || null;
}

/** The URL as it can be shown: a password (in the authority or as a parameter) becomes `***`. */
export function withoutPassword(url: string): string {
  const parsed = parse(url);
  if (!parsed) return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  if (parsed.password) parsed.password = '***';
  for (const name of ['password', 'sslpassword']) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, '***');
  return parsed.toString().replaceAll('%2A%2A%2A', '***');
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}

/** One line, and never the database password, whatever a driver put in its message. */
function oneLine(text: string, secret: string | null): string {
  let line = text.replace(/\s*\n\s*/g, ' ').trim();
  if (secret && secret.length >= 3) line = line.split(secret).join('***');
  return line;
}
