/**
 * Runs recovery jobs (`POST /api/webhooks/{id}/recover`, `POST /api/recoveries`)
 * in the background, in every server process: a process leases a running job
 * (so a job runs on one node at a time, and resumes on any node once a dead
 * one's lease runs out), then reopens its deliveries a chunk at a time, each
 * chunk and the job's cursor in one transaction (the store's advanceRecovery),
 * so a job never resends one delivery twice. The engine is woken after each
 * chunk; a held or rate-limited webhook's gate paces what was reopened.
 */
import type { Clock } from '../clock.js';
import type { DueSignal } from '../deliveries/due-signal.js';
import type { RecoveriesPart } from '../store/store.js';
import type { Logger } from '../types.js';

const TICK_MS = 1000;
const LEASE_MS = 30_000;
/** Deliveries reopened per transaction. */
export const RECOVERY_CHUNK = 500;

export interface RecoveryRunnerDeps {
  store: RecoveriesPart;
  clock: Clock;
  /** This process's lease owner name (src/deliveries/lease-owner.ts). */
  owner: string;
  /** Owners certainly gone (a predecessor of this host killed with -9): their jobs are taken over at once, not when the lease ends. */
  isDeadOwner?(owner: string): boolean;
  due: DueSignal;
  log: Logger;
}

export class RecoveryRunner {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly deps: RecoveryRunnerDeps) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), TICK_MS);
    this.timer.unref();
    void this.releaseDeadOwners().then(() => this.wake());
  }

  private async releaseDeadOwners(): Promise<void> {
    const isDead = this.deps.isDeadOwner;
    if (!isDead) return;
    try {
      for (const owner of await this.deps.store.recoveryLeaseOwners()) {
        if (isDead(owner) && (await this.deps.store.releaseRecoveryLeases(owner)) > 0) {
          this.deps.log.warn({ owner }, 'took over the recovery jobs of a gone process of this host');
        }
      }
    } catch (err) {
      this.deps.log.warn({ err }, "could not take over a gone process's recovery jobs; they resume when their leases run out");
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Look for jobs to run now (one was just created); a run under way finds it itself. */
  wake(): void {
    if (this.running || this.stopped) return;
    this.running = this.run()
      .catch((err: unknown) => this.deps.log.warn({ err }, 'a recovery job failed to run; it resumes when its lease runs out'))
      .finally(() => {
        this.running = null;
      });
  }

  private iso(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }

  private async run(): Promise<void> {
    const { store, owner, log } = this.deps;
    while (!this.stopped) {
      let job = await store.claimRecovery(owner, this.iso(), LEASE_MS);
      if (job === null) return;
      log.info({ recovery: job.id, webhook: job.webhookId, total: job.total, resent: job.resent }, 'running a recovery job');
      while (job !== null && job.status === 'running' && !this.stopped) {
        const before = job.resent;
        job = await store.advanceRecovery(job.id, owner, this.iso(), RECOVERY_CHUNK, LEASE_MS);
        if (job !== null && job.resent > before) this.deps.due.wake();
        // The engine and the API get their turn between chunks.
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (job?.status === 'done') log.info({ recovery: job.id, resent: job.resent, total: job.total }, 'recovery job done');
    }
  }
}
