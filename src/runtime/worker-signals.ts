/**
 * Imported first by worker.ts, so it runs before the heavy imports: from the
 * moment a worker process can run JavaScript, terminal and service-manager
 * signals leave it alone. Ctrl-C reaches every process of the terminal's
 * foreground group and systemd's stop every process of the unit's cgroup;
 * neither may cut a worker's calls short. Its parent stops it by closing the
 * channel once the calls are done (and kills it if it does not go).
 */
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const) process.on(signal, () => undefined);
