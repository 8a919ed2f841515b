/**
 * Entry point of a runtime worker process (spawned by pool.ts with
 * `node --no-node-snapshot worker.js [--allow-private-targets]`). Isolates live
 * only here, so a V8 abort or host OOM takes down this process, which the
 * main process restarts, never the service. Talks to the main process over
 * fd 3 in length-prefixed frames (framing.ts) and coalesces outgoing results
 * into one frame per event-loop turn; functions' `emit` events go out as
 * `emit` frames. An RSS watchdog (rss-watchdog.ts) restarts the process
 * when it holds more memory than its isolates' limits account for. It
 * ignores terminal and service-manager signals (worker-signals.ts): only its
 * parent stops it, and it exits as soon as the channel closes, so it never
 * outlives the parent.
 */
import './worker-signals.js'; // first: before anything slow to load
import { writeSync } from 'node:fs';
import net from 'node:net';
import { FrameDecoder, encodeFrame, splitFrame } from './framing.js';
import { EmitRules, type EmitRule } from './emit-rules.js';
import { DEFAULT_WARM_ISOLATES, IsolateHost } from './isolate-host.js';
import { startRssWatchdog } from './rss-watchdog.js';
import { TransformationHost, checkTransformation } from './transformations.js';
import type { FromWorker, ToWorker } from './protocol.js';
import type { FetchSpanRecord, TraceCarrier } from '../telemetry/types.js';
import type { RunReports } from './types.js';
import { validateFunction } from './validate.js';

const allowPrivateTargets = process.argv.includes('--allow-private-targets');
const warmArg = process.argv.find((a) => a.startsWith('--warm-isolates='));
const warmIsolates = warmArg ? Number(warmArg.slice('--warm-isolates='.length)) : DEFAULT_WARM_ISOLATES;
const syncCalls = !process.argv.includes('--no-sync-calls');
const testHooks = process.env.SWITCHYARD_TEST_HOOKS === '1';
const reportsArg = process.argv.find((a) => a.startsWith('--run-reports='))?.slice('--run-reports='.length);
const runReports: RunReports = reportsArg === 'all' || reportsArg === 'sampled' ? reportsArg : 'none';

const channel = new net.Socket({ fd: 3, readable: true, writable: true });

let pending: string[] = [];
let flushScheduled = false;

function flushResults(): void {
  flushScheduled = false;
  if (pending.length === 0) return;
  const items = pending;
  pending = [];
  channel.write(encodeFrame('{"t":"res","r":[' + items.join(',') + ']}'));
}

function out(items: string): void {
  if (items === '') return;
  pending.push(items);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushResults);
  }
}

function send(msg: FromWorker): void {
  channel.write(encodeFrame(JSON.stringify(msg)));
}

const log = (level: 'info' | 'warn' | 'error', msg: string) => send({ t: 'log', level, msg });

function fatal(items: string): never {
  // Synchronous: the process aborts right after. Skipped if a frame is half-written,
  // since interleaving would corrupt the stream; those calls then get function_crashed.
  if (channel.writableLength === 0) {
    try {
      writeSync(3, Buffer.concat([encodeFrame('{"t":"dying"}'), encodeFrame('{"t":"res","r":[' + items + ']}')]));
    } catch {
      // the main process will report the exit instead
    }
  }
  process.abort();
}

/**
 * Written at once, not held for the end-of-turn result frame, so an emit made
 * before a handler returned normally reaches the main process before that
 * handler's result. The data is spliced raw as the frame body (already JSON).
 */
function publish(fn: string, event: string, dataJson: string, application?: string, trace?: TraceCarrier): void {
  const head: Extract<FromWorker, { t: 'emit' }> = { t: 'emit', fn, event };
  if (application !== undefined) head.app = application;
  if (trace !== undefined) head.tp = trace;
  channel.write(encodeFrame(JSON.stringify(head) + '\n' + dataJson));
}

const emitRules = new EmitRules();
const refuseEmit = (event: string, dataJson: string) => emitRules.refusal(event, dataJson);
// Counts for the main process's metrics: one small frame per isolate created or disposed (never per call).
const counted = () => send({ t: 'iso', n: host.isolateCount(), c: host.created });
/** Recorded as a span by the main process, which holds the exporter (src/telemetry/tracing.ts). */
const fetched = (s: FetchSpanRecord) => send({ t: 'span', s });
const host: IsolateHost = new IsolateHost({ allowPrivateTargets, out, log, fatal, publish, refuseEmit, fetched, warmIsolates, runReports, syncCalls, counted });
const transformations = new TransformationHost();

let rssBoundForTest: number | null = null;
startRssWatchdog({
  rss: () => process.memoryUsage.rss(),
  limits: () => [...host.memoryLimitsMb(), ...transformations.memoryLimitsMb()],
  boundOverrideMb: () => rssBoundForTest,
  onBreach(rssMb, boundMb) {
    const why = `the runtime worker process used ${rssMb} MB, over its bound of ${boundMb} MB, and is restarting`;
    log('error', `${why}; failing its in-flight calls`);
    // New work waits for the successor; what is in flight fails now, before the exit.
    send({ t: 'dying' });
    host.failAll('function_crashed', why);
    flushResults();
    host.close();
    channel.end(() => process.exit(1));
    setTimeout(() => process.exit(1), 2000).unref();
  },
});

async function validate(msg: Extract<ToWorker, { t: 'val' }>): Promise<FromWorker> {
  return { t: 'val', id: msg.id, ...(await validateFunction(msg, allowPrivateTargets)) };
}

/**
 * Frames that arrived while ajv loads for the first emit rules: held, then
 * taken in order, so no call runs against rules older than the ones sent before it.
 */
let held: string[] | null = null;

function setEmitRules(rules: EmitRule[]): void {
  const skip = (name: string, why: string) => log('warn', `emit rule for event type '${name}' not taken: ${why}`);
  if (emitRules.ready(rules)) {
    emitRules.set(rules, skip);
    return;
  }
  held = [];
  emitRules.load().then(
    () => emitRules.set(rules, skip),
    (err: unknown) => log('error', `could not load the JSON Schema compiler for emit rules: ${String(err)}`),
  ).finally(() => {
    const waiting = held ?? [];
    held = null;
    for (const text of waiting) onFrame(text);
  });
}

function onFrame(text: string): void {
  if (held !== null) {
    held.push(text);
    return;
  }
  const [headText, body] = splitFrame(text);
  const msg = JSON.parse(headText) as ToWorker;
  switch (msg.t) {
    case 'inv': {
      host.invoke(msg.k, msg.ids, msg.rids, headText, body, msg.tps);
      return;
    }
    case 'load':
      host.load(msg);
      return;
    case 'val':
      validate(msg).then(send, (err: unknown) =>
        send({ t: 'val', id: msg.id, ok: false, message: `validation failed: ${String(err)}` }),
      );
      return;
    case 'xrun': {
      if (msg.code !== undefined) transformations.remember(msg.h, msg.code);
      if (!transformations.has(msg.h)) {
        send({ t: 'xres', id: msg.id, miss: true });
        return;
      }
      transformations.run(msg.h, msg.input).then(
        (r) => send(r.ok ? { t: 'xres', id: msg.id, ok: true, out: r.out } : { t: 'xres', id: msg.id, ok: false, c: r.code, m: r.message }),
        (err: unknown) => send({ t: 'xres', id: msg.id, ok: false, c: 'transformation_error', m: String(err) }),
      );
      return;
    }
    case 'xval':
      checkTransformation(msg.code).then(
        (r) => send({ t: 'xval', id: msg.id, ...r }),
        (err: unknown) => send({ t: 'xval', id: msg.id, ok: false, message: String(err) }),
      );
      return;
    case 'emit-rules':
      setEmitRules(msg.rules);
      return;
    case 'warm':
      host.prewarm(msg.k);
      return;
    case 'ret':
      host.retire(msg.name, msg.keep);
      return;
    case 'crash':
      if (testHooks) process.abort();
      return;
    case 'rss':
      if (testHooks) rssBoundForTest = msg.mb;
      return;
  }
}

const decoder = new FrameDecoder(onFrame);
channel.on('data', (chunk: Buffer) => decoder.push(chunk));
// The main process is gone (or closed us): nothing left to serve.
channel.on('close', () => {
  host.close();
  transformations.close();
  process.exit(0);
});
channel.on('error', () => undefined);
