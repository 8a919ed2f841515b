/**
 * How a running gateway reacts to stop signals, for the single-process server
 * (cli/serve.ts) and the cluster's primary (cluster.ts) alike. The first
 * SIGINT (Ctrl-C), SIGTERM (systemd, docker stop) or SIGHUP (terminal closed;
 * systemd's SendSIGHUP follows SIGTERM) stops taking work and finishes what is
 * in flight within the grace period, then exits 0 (1 when the stop failed or
 * overran). A SIGINT while stopping (Ctrl-C pressed again), or a second
 * SIGTERM, exits at once.
 */
import type { Logger } from 'pino';

/** A close that has not finished this long after the grace period is stuck (a database that does not answer). */
export const STOP_OVERRUN_MS = 5000;

export interface StopHandling {
  graceMs: number;
  log: Logger;
  /** Fields and words the "shutting down" line adds (how many processes drain). */
  describe?(): { fields: Record<string, unknown>; where: string };
  /** Stops everything; resolves false when something did not stop cleanly (already logged). */
  stop(): Promise<boolean>;
  /** Called just before exiting without finishing (a second signal, the overrun). */
  abandon?(): void;
}

/** Installs the handlers; the answer tells whether a stop has begun. */
export function handleStopSignals(h: StopHandling): () => boolean {
  let stopping = false;
  const received = new Set<NodeJS.Signals>();
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      // systemd sends SIGTERM and SIGHUP together (SendSIGHUP=yes) and they may arrive in
      // either order: only Ctrl-C, or the same SIGTERM twice, means "now".
      if (signal === 'SIGHUP' || (signal === 'SIGTERM' && !received.has('SIGTERM'))) {
        received.add(signal);
        return;
      }
      process.stderr.write(`switchyard: second stop signal (${signal}): exiting now without finishing in-flight requests and delivery attempts\n`);
      h.abandon?.();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    stopping = true;
    received.add(signal);
    const { fields, where } = h.describe?.() ?? { fields: {}, where: '' };
    h.log.info(
      { signal, graceMs: h.graceMs, ...fields },
      `shutting down on ${signal}: finishing in-flight requests and delivery attempts within ${h.graceMs} ms${where} ` +
        `(${signal === 'SIGINT' ? 'Ctrl-C again' : 'SIGINT or a second SIGTERM'} exits at once)`,
    );
    setTimeout(() => {
      process.stderr.write(`switchyard: could not stop within the grace period of ${h.graceMs} ms; exiting now\n`);
      h.abandon?.();
      process.exit(1);
    }, h.graceMs + STOP_OVERRUN_MS).unref();
    h.stop().then(
      (clean) => {
        if (clean) h.log.info('stopped');
        process.exit(clean ? 0 : 1);
      },
      (err: unknown) => {
        h.log.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => onSignal(signal));
  return () => stopping;
}
