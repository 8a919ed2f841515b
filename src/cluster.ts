/**
 * `switchyard serve --processes <n>` with n > 1: this process becomes a small
 * supervisor (the primary) of n server processes, each a full node (HTTP,
 * store, change feed, scheduler, delivery engine, its isolates: in the process
 * itself by default, see src/runtime/in-process.ts, or in worker processes) on
 * the same database, which already makes n nodes safe (each slot fired once,
 * each delivery leased once; the change feed carries cache invalidations).
 *
 * Why node:cluster: it is the one way in Node for several processes to accept
 * on one port without a load balancer in front or SO_REUSEPORT (which Node
 * does not expose for TCP on every platform). The primary owns the listening
 * socket and hands connections round-robin to the server processes, so a crash
 * of one loses only its own connections while the others keep serving. Threads
 * were not an option: isolated-vm, pino and the store's drivers hold
 * process-wide state, and the contract wants a catastrophic failure to take
 * down at most one process.
 *
 * The primary serves nothing itself. It starts one server process first (so
 * that only one runs the store's migrations), then the others; restarts a
 * process that dies, with backoff; and on SIGINT, SIGTERM or SIGHUP tells every
 * server process to stop (an IPC message, not a signal: a signal that also
 * reaches them through the process group or the cgroup would otherwise count
 * twice). The server processes ignore the stop signals themselves and follow
 * the primary; a second Ctrl-C or SIGTERM kills them at once. It also relays
 * each cache change a process makes to the others and tells the writer once
 * all have applied it (src/sibling-changes.ts says why).
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { Change } from './changes.js';
import type { Config } from './config.js';
import { METRICS_MIN_INTERVAL_MS } from './telemetry/metrics.js';
import { aggregateParts, type MetricsPart } from './telemetry/metrics-aggregate.js';
import { SharedCollection } from './shared-collection.js';
import { handleStopSignals } from './stop-signals.js';

const RESTART_FIRST_MS = 100;
const RESTART_MAX_MS = 10_000;
/** A process that served this long before dying starts the backoff afresh. */
const RESTART_RESET_AFTER_MS = 30_000;

/**
 * How long the primary waits for every process's metrics, and a process for
 * the primary's answer (which may first wait for the node's next collection,
 * METRICS_MIN_INTERVAL_MS, then collect).
 */
const METRICS_COLLECT_MS = 1000;
const METRICS_ANSWER_MS = METRICS_MIN_INTERVAL_MS + METRICS_COLLECT_MS + 1000;
/** How long the primary waits for the other processes to confirm a change (below SIBLING_WAIT_MS). */
const CHANGE_CONFIRM_MS = 1000;

/**
 * Messages between the primary and its server processes. Metrics: the process
 * that took a scrape asks (`metrics-request`), the primary asks every process
 * (`metrics-collect`), each answers its own series as prom-client's JSON
 * (`metrics-part`), the primary hands them all to the asker (`metrics-parts`,
 * with how many collections the node has made), which aggregates them
 * (telemetry/metrics-aggregate.ts). Requests that arrive while a collection
 * runs share it, and one starts at most once a second (shared-collection.ts):
 * one collection at a time per node, however many scrapes.
 * Changes: a process that wrote says so (`change`), the primary hands it to
 * every other process (`change-apply`), each confirms once applied
 * (`change-applied`), and the primary tells the writer how many did not in
 * time (`change-done`, 0 when all did).
 */
export type ClusterMessage =
  | { type: 'switchyard:ready'; url: string; adminUrl: string; metricsUrl: string | null }
  | { type: 'switchyard:stop' }
  | { type: 'switchyard:metrics-request'; id: number }
  | { type: 'switchyard:metrics-collect'; id: number }
  | { type: 'switchyard:metrics-part'; id: number; part: MetricsPart }
  | { type: 'switchyard:metrics-parts'; id: number; parts: MetricsPart[]; collections: number }
  | { type: 'switchyard:change'; id: number; change: Change; seq: number }
  | { type: 'switchyard:change-apply'; id: number; change: Change; seq: number }
  | { type: 'switchyard:change-applied'; id: number }
  | { type: 'switchyard:change-done'; id: number; missing: number };

/** What a server process of the cluster can do beyond serving. */
export interface ClusterMember {
  /** Every live server process's metrics aggregated into one exposition (this process's alone if the primary does not answer). */
  metrics(): Promise<string>;
}

export interface ClusterHandle {
  url: string;
  /** The dashboard and management API (`url` unless SWITCHYARD_ADMIN_ADDRESS gives them their own listener). */
  adminUrl: string;
  /** GET /metrics on its own listener (SWITCHYARD_METRICS_ADDRESS); null: on `url` or `adminUrl`. */
  metricsUrl: string | null;
  /** Whether a stop signal has arrived. */
  stopping(): boolean;
  /** Stops every server process (within the grace period) and resolves when all are gone. */
  close(): Promise<void>;
}

/** True in a server process forked by the primary. */
export function isClusterWorker(): boolean {
  return cluster.isWorker;
}

/**
 * In a server process: answers to the primary. `ready` once listening (with
 * the URLs); `onStop` when the primary says stop; `localMetrics` when the
 * primary collects metrics. The stop signals themselves are ignored: the
 * primary decides.
 */
export function joinCluster(
  at: { url: string; adminUrl: string; metricsUrl: string | null },
  onStop: () => void,
  localMetrics: () => Promise<MetricsPart>,
): ClusterMember {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined);
  const asked = new Map<number, (answer: { parts: MetricsPart[]; collections: number } | null) => void>();
  let nextId = 0;
  process.on('message', (message: ClusterMessage) => {
    switch (message?.type) {
      case 'switchyard:stop':
        onStop();
        break;
      case 'switchyard:metrics-collect': {
        const id = message.id;
        void localMetrics().then((part) => process.send!({ type: 'switchyard:metrics-part', id, part } satisfies ClusterMessage));
        break;
      }
      case 'switchyard:metrics-parts':
        asked.get(message.id)?.({ parts: message.parts, collections: message.collections });
        break;
    }
  });
  process.send!({ type: 'switchyard:ready', url: at.url, adminUrl: at.adminUrl, metricsUrl: at.metricsUrl } satisfies ClusterMessage);
  return {
    async metrics() {
      const id = nextId++;
      const answer = await new Promise<{ parts: MetricsPart[]; collections: number } | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), METRICS_ANSWER_MS);
        asked.set(id, (t) => {
          clearTimeout(timer);
          resolve(t);
        });
        process.send!({ type: 'switchyard:metrics-request', id } satisfies ClusterMessage);
      });
      asked.delete(id);
      return aggregateParts(answer?.parts ?? [await localMetrics()], answer?.collections ?? null);
    },
  };
}

/**
 * In the primary: forks `config.processes` server processes running this same
 * command line and resolves once all listen. Rejects (after stopping what
 * started) when the first one cannot start: its own stderr line says why, and
 * `exitCode` carries its code.
 */
export async function startCluster(config: Config, log: Logger): Promise<ClusterHandle> {
  const n = config.processes;
  let stopping = false;
  let everReady = false;
  let stopFailed = false;
  let allGone: (() => void) | null = null;
  const started = new Map<Worker, number>();
  let backoffMs = RESTART_FIRST_MS;

  const live = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());

  if (config.isolates === 'in-process') {
    // The server processes host isolates themselves (src/runtime/in-process.ts): isolated-vm
    // needs V8 without Node's startup snapshot, and isolates take their time zone from
    // the process, which must be UTC as Lambda's is (as pool.ts gives its workers).
    const execArgv = process.execArgv.includes('--no-node-snapshot') ? process.execArgv : [...process.execArgv, '--no-node-snapshot'];
    cluster.setupPrimary({ execArgv });
  }
  const forkEnv = config.isolates === 'in-process' ? { TZ: 'UTC' } : undefined;

  const fork = (): Promise<{ worker: Worker; url: string; adminUrl: string; metricsUrl: string | null }> => {
    const worker = cluster.fork(forkEnv);
    started.set(worker, Date.now());
    return new Promise((resolve, reject) => {
      const onMessage = (message: ClusterMessage) => {
        if (message?.type !== 'switchyard:ready') return;
        worker.off('exit', onEarlyExit);
        resolve({ worker, url: message.url, adminUrl: message.adminUrl, metricsUrl: message.metricsUrl });
      };
      const onEarlyExit = (code: number | null, signal: string | null) => {
        worker.off('message', onMessage);
        reject(Object.assign(new Error(`server process exited with ${signal ?? code} before listening`), { exitCode: code ?? 1 }));
      };
      worker.on('message', onMessage);
      worker.once('exit', onEarlyExit);
    });
  };

  // Changes: relay to every other process, answer the writer once all confirmed (or the bound passed).
  const ready = new Set<Worker>();
  const confirming = new Map<number, { waiting: Set<Worker>; done: () => void }>();
  let nextChange = 0;
  const relayChange = (writer: Worker, message: Extract<ClusterMessage, { type: 'switchyard:change' }>) => {
    const id = nextChange++;
    // Only processes that said they are ready are waited for; one still starting has no cache
    // to drop yet, but gets the message too in case it has begun serving.
    const others = live().filter((w) => w !== writer && w.isConnected());
    const waiting = new Set(others.filter((w) => ready.has(w)));
    const timer = setTimeout(() => done(), CHANGE_CONFIRM_MS);
    const done = () => {
      clearTimeout(timer);
      confirming.delete(id);
      if (writer.isConnected()) writer.send({ type: 'switchyard:change-done', id: message.id, missing: waiting.size } satisfies ClusterMessage);
    };
    confirming.set(id, { waiting, done });
    for (const w of others) w.send({ type: 'switchyard:change-apply', id, change: message.change, seq: message.seq } satisfies ClusterMessage);
    if (waiting.size === 0) done();
  };

  // Metrics: every live process's series, gathered once for all the processes that ask meanwhile.
  const collecting = new Map<number, { parts: MetricsPart[]; waiting: Set<Worker>; done: () => void }>();
  let nextCollect = 0;
  const gatherParts = () =>
    new Promise<MetricsPart[]>((resolve) => {
      const id = nextCollect++;
      const waiting = new Set(live());
      const parts: MetricsPart[] = [];
      const timer = setTimeout(() => done(), METRICS_COLLECT_MS);
      const done = () => {
        clearTimeout(timer);
        collecting.delete(id);
        resolve(parts);
      };
      collecting.set(id, { parts, waiting, done });
      for (const w of waiting) {
        // A process on its way out cannot answer: count it as silent rather than throw.
        if (w.isConnected()) w.send({ type: 'switchyard:metrics-collect', id } satisfies ClusterMessage);
        else waiting.delete(w);
      }
      if (waiting.size === 0) done();
    });
  const gathering = new SharedCollection({
    collect: gatherParts,
    minIntervalMs: METRICS_MIN_INTERVAL_MS,
    // Each process asks at most once at a time (its own scrapes share its request).
    maxWaiting: Infinity,
    refuse: () => new Error('unreachable: no bound'),
  });
  cluster.on('message', (worker: Worker, message: ClusterMessage) => {
    if (message?.type === 'switchyard:ready') ready.add(worker);
    if (message?.type === 'switchyard:change') return relayChange(worker, message);
    if (message?.type === 'switchyard:change-applied') {
      const c = confirming.get(message.id);
      if (c?.waiting.delete(worker) && c.waiting.size === 0) c.done();
      return;
    }
    if (message?.type === 'switchyard:metrics-part') {
      const c = collecting.get(message.id);
      if (c?.waiting.delete(worker)) {
        c.parts.push(message.part);
        if (c.waiting.size === 0) c.done();
      }
      return;
    }
    if (message?.type !== 'switchyard:metrics-request') return;
    void gathering.get().then((parts) => {
      if (worker.isConnected()) {
        worker.send({
          type: 'switchyard:metrics-parts',
          id: message.id,
          parts,
          collections: gathering.collections,
        } satisfies ClusterMessage);
      }
    });
  });

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (started.get(worker) ?? Date.now());
    started.delete(worker);
    ready.delete(worker);
    // A dead process cannot confirm: stop waiting for it.
    for (const c of confirming.values()) if (c.waiting.delete(worker) && c.waiting.size === 0) c.done();
    if (stopping) {
      if (code !== 0) stopFailed = true;
      if (live().length === 0) allGone?.();
      return;
    }
    if (!everReady) return; // start-up failures are startCluster's to report
    if (lived > RESTART_RESET_AFTER_MS) backoffMs = RESTART_FIRST_MS;
    const delay = backoffMs;
    backoffMs = Math.min(RESTART_MAX_MS, backoffMs * 2);
    log.warn(
      { pid: worker.process.pid, code, signal, restartInMs: delay },
      `server process ${worker.process.pid} exited (${signal ?? `code ${code}`}); the others keep serving; starting another in ${delay} ms`,
    );
    setTimeout(() => {
      if (stopping) return;
      fork().then(
        ({ worker: next }) => log.info({ pid: next.process.pid }, `server process ${next.process.pid} serving again`),
        (err) => log.error({ err }, 'a restarted server process could not start; trying again'),
      );
    }, delay).unref();
  });

  // Forward the processes' own exit code when the first cannot start (bad config, database down).
  let url: string;
  let adminUrl: string;
  let metricsUrl: string | null;
  try {
    ({ url, adminUrl, metricsUrl } = await fork()); // alone: only one runs the store's migrations
    await Promise.all(Array.from({ length: n - 1 }, () => fork()));
  } catch (err) {
    stopping = true;
    for (const w of live()) w.process.kill('SIGKILL');
    throw err;
  }
  everReady = true;

  const close = () =>
    new Promise<void>((resolve) => {
      stopping = true;
      const rest = live();
      if (rest.length === 0) return resolve();
      allGone = resolve;
      for (const w of rest) w.send({ type: 'switchyard:stop' } satisfies ClusterMessage);
    });

  handleStopSignals({
    graceMs: config.drainDelayMs + config.shutdownGraceMs,
    log,
    describe: () => ({ fields: { processes: live().length }, where: ` in ${live().length} processes` }),
    stop: async () => {
      await close();
      if (stopFailed) log.error('a server process did not stop cleanly');
      return !stopFailed;
    },
    abandon: () => {
      for (const w of live()) w.process.kill('SIGKILL');
    },
  });

  return { url, adminUrl, metricsUrl, stopping: () => stopping, close };
}
