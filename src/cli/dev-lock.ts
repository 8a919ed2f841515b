/**
 * One dev server per project folder: `.switchyard/dev.lock` holds the pid and
 * URL of the `switchyard dev` that serves the folder's database. A second one
 * would share that database unnoticed (and apply the project again from its
 * own address, re-pointing webhooks that call the project's routes to
 * itself), so it is refused with one line naming the first one's URL. A lock
 * whose pid is gone (a dev killed with SIGKILL, a crash) is taken over.
 *
 * Written whole to a file of its own, then hard-linked into place (fails if
 * the lock exists) or renamed over it: of two dev servers started at the same
 * moment one gets the lock, and no reader ever sees half a lock.
 */
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CommandFailedError } from './errors.js';

interface LockBody {
  pid: number;
  /** Null while the server is starting. */
  url: string | null;
}

export interface DevLock {
  /** Records the URL once the server listens, for the line a second dev prints. */
  setUrl(url: string): void;
  /** Removes the lock if it is still this process's. Safe to call more than once. */
  release(): void;
}

export interface DevLockDeps {
  /** The project's `.switchyard` folder (it exists). */
  folder: string;
  pid: number;
  /** The project folder as the person typed it, for the line. */
  shownRoot: string;
}

/** Whether a process with this pid runs (EPERM: it does, as another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function read(file: string): LockBody | null {
  try {
    const body = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockBody>;
    return typeof body.pid === 'number' ? { pid: body.pid, url: typeof body.url === 'string' ? body.url : null } : null;
  } catch {
    return null;
  }
}

/** Takes the folder's lock, or throws `dev_already_running` naming the dev server that holds it. */
export function acquireDevLock(deps: DevLockDeps): DevLock {
  const file = join(deps.folder, 'dev.lock');
  const own = `${file}.${deps.pid}`;
  const prepare = (url: string | null) => writeFileSync(own, `${JSON.stringify({ pid: deps.pid, url } satisfies LockBody)}\n`);
  prepare(null);
  try {
    // Twice at most: a lock left by a dev server that is gone is removed and taken once.
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(own, file);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = read(file);
      if (attempt > 0 || (holder && holder.pid !== deps.pid && alive(holder.pid))) {
        const where = holder?.url ? `at ${holder.url}` : 'and still starting';
        throw new CommandFailedError(
          'dev_already_running',
          `a dev server for ${deps.shownRoot} is already running ${where}${holder ? ` (pid ${holder.pid})` : ''}; use that one, stop it first, or give this one its own database with --database-url sqlite:<file>`,
        );
      }
      try {
        unlinkSync(file);
      } catch {
        // another dev removed it first
      }
    }
  } finally {
    unlinkSync(own);
  }
  let released = false;
  return {
    setUrl(url) {
      if (released) return;
      prepare(url);
      renameSync(own, file);
    },
    release() {
      if (released) return;
      released = true;
      if (read(file)?.pid !== deps.pid) return;
      try {
        unlinkSync(file);
      } catch {
        // already removed
      }
    },
  };
}
