/**
 * Checkpoints the WAL of a SQLite file from a worker thread, with its own
 * connection, so that the store's own connection never does. SQLite's
 * automatic checkpoint runs inside the commit that crosses its threshold:
 * copying the WAL into the database file and syncing it (synchronous =
 * NORMAL syncs at checkpoints), on the event loop: the largest single cost
 * in the delivery engine's profile (bench/README.md).
 * A PASSIVE checkpoint waits for no reader nor writer, so the main connection
 * keeps committing meanwhile; its own automatic checkpoint stays as a
 * fallback at a much higher threshold, should this thread fall behind. A
 * PASSIVE checkpoint never starts the WAL over while writes go on, so past
 * RESTART_FRAMES the worker asks for that (a short wait for the writer).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** How often the worker checkpoints. A busy engine writes a few MB of WAL a second. */
const EVERY_MS = 200;
/** WAL frames (pages) past which the worker also starts the WAL over (~16 MB). */
const RESTART_FRAMES = 4000;
/** The main connection's own threshold (pages of 4 KiB: ~80 MB): reached only if the worker falls behind. */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 20_000;

/** The worker: CommonJS, evaluated from text so it needs no file of its own next to this module. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const checkpoint = () => {
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    // Writes that never pause leave no moment to start the WAL over: once it is long and backfilled,
    // RESTART waits for the writer of the moment and makes the next one start it over (little is left to copy).
    if (row.log >= workerData.restartFrames && row.checkpointed >= row.log - workerData.restartFrames / 4) {
      db.pragma('wal_checkpoint(RESTART)');
    }
  } catch {
    // Busy or gone for a moment: the next tick tries again, the main connection's threshold is the fallback.
  }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/** Where the worker loads the driver from: this module's own resolution, or the working directory's once bundled to CommonJS. */
function driverPath(): string {
  const base = typeof import.meta.url === 'string' ? import.meta.url : pathToFileURL(join(process.cwd(), 'index.js')).href;
  return createRequire(base).resolve('better-sqlite3');
}

export class BackgroundCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(deps: { file: string; everyMs?: number }) {
    const { file, everyMs = EVERY_MS } = deps;
    const driver = driverPath();
    this.worker = new Worker(WORKER, { eval: true, workerData: { file, driver, everyMs, restartFrames: RESTART_FRAMES } });
    // Never what keeps a process alive.
    this.worker.unref();
    this.exited = new Promise((done) => this.worker.once('exit', () => done()));
    // A worker that fails to start leaves checkpoints to the main connection's threshold.
    this.worker.on('error', () => undefined);
  }

  /** Stops the worker and closes its connection (before the store closes its own, so the last one checkpoints). */
  async stop(): Promise<void> {
    this.worker.postMessage('stop');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((done) => (timer = setTimeout(() => done('late'), 2000)));
    if ((await Promise.race([this.exited, late])) === 'late') await this.worker.terminate();
    clearTimeout(timer);
  }
}
