/**
 * Lease owner names, `host:pid:random`: one per process start, so a lease
 * names the process that took it. A node restarted after kill -9 (crash, OOM
 * kill, container restart) tells from these names which leases its dead
 * predecessor held on this host and gives them back at once, instead of
 * leaving those deliveries unsent until their leases expire (90 s).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

export function newLeaseOwner(host = hostname(), pid = process.pid): string {
  return `${host}:${pid}:${randomBytes(3).toString('hex')}`;
}

function parse(owner: string): { host: string; pid: number } | null {
  const m = /^(.+):([1-9]\d{0,9}):[0-9a-f]+$/.exec(owner);
  return m ? { host: m[1], pid: Number(m[2]) } : null;
}

/** Whether a process with this pid exists here (EPERM: it does, and belongs to someone else). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * True only for an owner that is certainly gone: on this host (same hostname)
 * and either its pid runs nothing here, or it is our own pid under another
 * random part (a container restarted as pid 1: our predecessor had our pid).
 * Another host's owner, a live pid, and a name in another format are never
 * dead here: those leases expire as before. A dead owner's pid taken by an
 * unrelated process since looks alive, which only means waiting for expiry.
 */
export function isDeadOwnerOnThisHost(owner: string, self: string, exists: (pid: number) => boolean = pidExists): boolean {
  if (owner === self) return false;
  const them = parse(owner);
  const us = parse(self);
  if (!them || !us || them.host !== us.host) return false;
  if (them.pid === us.pid) return true;
  return !exists(them.pid);
}
