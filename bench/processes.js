// Stopping the processes a benchmark started. A gateway's worker processes
// share its process group (it is spawned detached, `group: true`), so the
// whole group is signalled: none may outlive a run and skew the next one.

/** Signals `entry.child`, or the process group it leads when `entry.group` is set. */
export function killGroup(entry, signal) {
  try {
    if (entry.group) process.kill(-entry.child.pid, signal);
    else entry.child.kill(signal);
  } catch {
    // already gone
  }
}

/** SIGTERM (a node then releases its leases), SIGKILL after `graceMs`; then nothing of its group is left. */
export async function stopGracefully(entry, graceMs) {
  const { child } = entry;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => killGroup(entry, 'SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
  killGroup(entry, 'SIGKILL');
}
