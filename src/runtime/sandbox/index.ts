/**
 * Installs the documented sandbox globals (docs/functions.md) into one isolate context (worker
 * process only). Pure-JS polyfills run inside the isolate (./js/*); what needs
 * the host (randomness, digests, WHATWG URL parsing, timers, fetch, crypto.subtle: host-subtle.ts) goes
 * through ivm.Callbacks created once per context and captured by the bootstrap
 * closure; so does `emit`, whose events leave through `opts.onEmit`. Bridges
 * exchange only primitives, strings and fresh ArrayBuffers; no host object or
 * Reference ever reaches the isolate's global.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import ivm from 'isolated-vm';
import { BRIDGE_NAMES, bootstrapSource } from './bootstrap.js';
import { createEmitGuard } from './emit-guard.js';
import { performFetch, type FetchEnvelope } from './host-fetch.js';
import type { FetchSpanRecord, TraceCarrier } from '../../telemetry/types.js';
import { createSubtleBridge } from './host-subtle.js';
import { hostNode } from './host-node.js';

export { bootstrapSource } from './bootstrap.js';
export { FETCH_MAX_BODY_BYTES, FETCH_TIMEOUT_MS, closeFetchAgents } from './host-fetch.js';

export interface SandboxOptions {
  /** This function's own env only; frozen inside the isolate as `process.env`. */
  env: Record<string, string>;
  /** Mirrors SWITCHYARD_ALLOW_PRIVATE_TARGETS for the sandbox's fetch. */
  allowPrivateTargets: boolean;
  /**
   * Receives each `emit(event, data)` of this context (data as JSON text), after
   * the host-side guard; a string it returns is a refusal the isolate throws
   * (the catalogue's reject mode, emit-rules.ts). Absent: emits are still
   * checked in the isolate, then dropped (deploy-time validation).
   */
  onEmit?: (event: string, dataJson: string, application?: string) => string | undefined;
  /**
   * The user's script as the isolate will compile it (prepare.ts), for stack traces in
   * the user's positions: its file name, its source map's `mappings` (null: positions
   * are the script's own), and the length of the wrapper on its first line.
   */
  source?: { file: string; mappings: string | null; firstLineOffset: number };
  /** Tracing of this context's fetches; absent (validation isolates): none. */
  trace?: SandboxTrace;
  /**
   * Whether calls into the isolate are counted for `entering()`, which only the
   * synchronous fast path reads (isolate-host.ts). Counting makes each timer
   * fire and fetch or crypto.subtle answer wait for its result; off
   * (SWITCHYARD_SYNC_CALLS=0) they are sent and forgotten and `entering()`
   * stays 0. Default: on.
   */
  countEntries?: boolean;
}

/**
 * How a fetch finds its invocation's trace context: `current()` is that of
 * the one invocation in flight in the isolate (undefined when it is not
 * traced, or when several are in flight and the host cannot tell whose
 * fetch it is); `fetched` receives the finished fetch to be recorded as a span.
 */
export interface SandboxTrace {
  current(): TraceCarrier | undefined;
  fetched(record: FetchSpanRecord): void;
}

export interface SandboxHandle {
  /**
   * The isolate-side `activity` hook (the bootstrap's dispatcher): hand it to the
   * invocation dispatcher with `derefInto()`, which calls it as invocations start and end.
   */
  readonly hook: ivm.Reference<(kind: string, id: number, payload?: unknown) => void>;
  /** The isolate's `require` of Node built-ins, for the user's module wrapper (`derefInto()`). */
  readonly require: ivm.Reference<(id: string) => unknown>;
  /**
   * The host's side of the same rule, told by the worker: while inactive (no invocation
   * in flight) pending timers are cleared, in-flight fetches aborted, and nothing is
   * delivered into the isolate. Active until told otherwise.
   */
  setActive(active: boolean): void;
  /**
   * Calls into the isolate this sandbox made (a timer fired, a fetch or crypto.subtle
   * answered) that have not finished running there. While any has not, the isolate may be
   * running on isolated-vm's threads, and a synchronous call into it would wait for it
   * with the host's event loop (and so its deadline timers) stopped (isolate-host.ts).
   */
  entering(): number;
  /** Clears pending timers and aborts in-flight fetches of this context. Idempotent. */
  dispose(): void;
}

// WebCrypto's digests, plus MD5 and SHA-224 for Node's createHash (crypto.subtle checks its own list first).
const NODE_HASH: Record<string, string> = {
  MD5: 'md5',
  'SHA-1': 'sha1',
  'SHA-224': 'sha224',
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
};
const URL_SETTERS = new Set(['href', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash']);
const MAX_HOST_FETCHES = 64;

/** Exact-size copy, so the isolate never sees the rest of a pooled host buffer. */
function exactBuffer(buf: Uint8Array): ArrayBuffer {
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
}

function asBytes(x: unknown): Uint8Array | null {
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  return null;
}

function urlComponents(u: URL): string[] {
  return [u.href, u.origin, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash];
}

function hostRandom(n: unknown): ArrayBuffer | null {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 65536) return null;
  return exactBuffer(randomBytes(n));
}

function hostCrypto(op: unknown, hash: unknown, key: unknown, data: unknown): ArrayBuffer | null {
  const algo = typeof hash === 'string' ? NODE_HASH[hash] : undefined;
  const bytes = asBytes(data);
  if (!algo || !bytes) return null;
  if (op === 'digest') return exactBuffer(createHash(algo).update(bytes).digest());
  const keyBytes = asBytes(key);
  if (op === 'hmac' && keyBytes) return exactBuffer(createHmac(algo, keyBytes).update(bytes).digest());
  return null;
}

function hostUrl(href: unknown, base: unknown, prop: unknown, value: unknown): string[] | null {
  if (typeof href !== 'string' || (base !== undefined && typeof base !== 'string')) return null;
  try {
    const u = base === undefined ? new URL(href) : new URL(href, base);
    if (typeof prop === 'string' && prop !== '') {
      if (!URL_SETTERS.has(prop) || typeof value !== 'string') return null;
      (u as unknown as Record<string, string>)[prop] = value;
    }
    return urlComponents(u);
  } catch {
    return null;
  }
}

// V8 code cache of the bootstrap, produced by the first isolate of this process:
// later isolates skip most of the parse/compile work on every cold start.
let bootstrapCache: ivm.ExternalCopy<ArrayBuffer> | undefined;
async function compileBootstrap(isolate: ivm.Isolate): Promise<ivm.Script> {
  const filename = 'switchyard:sandbox-bootstrap';
  const BOOTSTRAP_SOURCE = bootstrapSource();
  type Compiled = ivm.Script & { cachedData?: ivm.ExternalCopy<ArrayBuffer>; cachedDataRejected?: boolean };
  if (bootstrapCache) {
    const script = (await isolate.compileScript(BOOTSTRAP_SOURCE, { filename, cachedData: bootstrapCache })) as Compiled;
    if (!script.cachedDataRejected) return script;
  }
  const script = (await isolate.compileScript(BOOTSTRAP_SOURCE, { filename, produceCachedData: true })) as Compiled;
  if (script.cachedData) bootstrapCache = script.cachedData;
  return script;
}

export async function installSandbox(
  isolate: ivm.Isolate,
  context: ivm.Context,
  opts: SandboxOptions,
): Promise<SandboxHandle> {
  let disposed = false;
  let active = true;
  const timers = new Map<number, NodeJS.Timeout>();
  const newFetchScope = () => {
    const c = new AbortController();
    // Each in-flight fetch listens on this signal; the default of 10 listeners would warn.
    setMaxListeners(MAX_HOST_FETCHES + 8, c.signal);
    return c;
  };
  let fetches = newFetchScope();
  let inFlight = 0;
  // Each fetch's own controller, for the isolate's AbortSignal (hostFetchCancel).
  const fetchCancels = new Map<number, AbortController>();
  let dispatch: ivm.Reference<(kind: string, id: number, payload?: unknown) => void> | null = null;

  const live = () => !disposed && !isolate.isDisposed;

  function clearTimers(): void {
    for (const t of timers.values()) clearTimeout(t);
    timers.clear();
  }

  // Calls into the isolate, counted until they finished there (entering()); a disposed
  // isolate is not an error for the worker.
  let entering = 0;
  const entered = () => void entering--;
  const counting = opts.countEntries !== false;
  function send(kind: string, id: number, payload?: unknown): void {
    if (!active || !live() || !dispatch) return;
    try {
      if (!counting) {
        dispatch.applyIgnored(undefined, [kind, id, payload], { arguments: { copy: true } });
        return;
      }
      entering++;
      dispatch.apply(undefined, [kind, id, payload], { arguments: { copy: true } }).then(entered, entered);
    } catch {
      // The isolate went away between the check and the call.
      if (counting) entering--;
    }
  }

  const onTimerSet = (id: unknown, ms: unknown) => {
    if (!active || !live() || typeof id !== 'number' || typeof ms !== 'number') return;
    clearTimeout(timers.get(id));
    const t = setTimeout(
      () => {
        timers.delete(id);
        send('timer', id);
      },
      Math.min(Math.max(0, ms), 2_147_483_647),
    );
    timers.set(id, t);
  };
  const onTimerClear = (id: unknown) => {
    if (typeof id !== 'number') return;
    clearTimeout(timers.get(id));
    timers.delete(id);
  };
  const onFetch = (id: unknown, meta: unknown, body: unknown) => {
    if (!active || !live() || typeof id !== 'number') return;
    if (inFlight >= MAX_HOST_FETCHES) {
      send('fetch', id, { error: { message: 'fetch failed: too many requests in flight' } } satisfies FetchEnvelope);
      return;
    }
    inFlight++;
    const own = new AbortController();
    fetchCancels.set(id, own);
    const parent = opts.trace?.current();
    const trace = parent === undefined ? undefined : { parent, report: opts.trace!.fetched };
    performFetch(meta, body, { allowPrivate: opts.allowPrivateTargets, signal: AbortSignal.any([fetches.signal, own.signal]), trace })
      .then((env) => send('fetch', id, env))
      .catch(() => send('fetch', id, { error: { message: 'fetch failed' } }))
      .finally(() => {
        inFlight--;
        fetchCancels.delete(id);
      });
  };
  const onFetchCancel = (id: unknown) => {
    if (typeof id !== 'number') return;
    fetchCancels.get(id)?.abort(new DOMException('This operation was aborted', 'AbortError'));
  };
  const subtle = createSubtleBridge((id, env) => send('subtle', id, env));

  const onEmit = opts.onEmit;
  const emitAllowed = createEmitGuard();
  const onHostEmit = (event: unknown, dataJson: unknown, application?: unknown): string | undefined => {
    // No live() check: an emit made just before a deadline killed the isolate still happened.
    if (!onEmit || !emitAllowed(event, dataJson, application)) return undefined;
    try {
      return onEmit(event as string, dataJson as string, application as string | undefined);
    } catch {
      // The receiver's failure is its own: the function is told only of a refusal.
      return undefined;
    }
  };

  const bridges: Record<(typeof BRIDGE_NAMES)[number], unknown> = {
    hostRandom: new ivm.Callback(hostRandom),
    hostCrypto: new ivm.Callback(hostCrypto),
    hostUrl: new ivm.Callback(hostUrl),
    hostNode: new ivm.Callback(hostNode),
    hostTimerSet: new ivm.Callback(onTimerSet, { ignored: true }),
    hostTimerClear: new ivm.Callback(onTimerClear, { ignored: true }),
    hostFetch: new ivm.Callback(onFetch, { ignored: true }),
    // Synchronous, so a refusal reaches the emit that caused it (an empty map lookup when none can come).
    hostEmit: onEmit ? new ivm.Callback(onHostEmit) : undefined,
    // Lambda's value, which a function's own env cannot change (its worker runs in UTC: pool.ts).
    envJson: JSON.stringify({ ...opts.env, TZ: ':UTC' }),
    userFile: opts.source?.file ?? 'function.js',
    userMappings: opts.source?.mappings ?? null,
    firstLineOffset: opts.source?.firstLineOffset ?? 0,
    hostFetchCancel: new ivm.Callback(onFetchCancel, { ignored: true }),
    hostSubtle: new ivm.Callback(subtle.call, { ignored: true }),
  };
  const args = BRIDGE_NAMES.map((name) => bridges[name]) as ivm.Transferable[];
  const script = await compileBootstrap(isolate);
  const bootstrap = (await script.run(context, { reference: true, release: true })) as ivm.Reference;
  let requireRef: ivm.Reference<(id: string) => unknown>;
  try {
    const pair = (await bootstrap.apply(undefined, args, { result: { reference: true } })) as ivm.Reference<unknown[]>;
    // Reading two array entries runs no code: sync, to save two trips through the thread pool.
    dispatch = pair.getSync(0, { reference: true }) as ivm.Reference<(kind: string, id: number, payload?: unknown) => void>;
    requireRef = pair.getSync(1, { reference: true }) as ivm.Reference<(id: string) => unknown>;
    pair.release();
  } finally {
    bootstrap.release();
  }

  const hook = dispatch as ivm.Reference<(kind: string, id: number, payload?: unknown) => void>;
  return {
    hook,
    require: requireRef,
    setActive(next: boolean) {
      if (next === active) return;
      active = next;
      if (active || disposed) return;
      clearTimers();
      if (inFlight > 0) {
        fetches.abort();
        fetches = newFetchScope();
      }
    },
    entering: () => entering,
    dispose() {
      if (disposed) return;
      disposed = true;
      clearTimers();
      fetches.abort();
      subtle.dispose();
      try {
        dispatch?.release();
      } catch {
        // Already released with its isolate.
      }
      dispatch = null;
      try {
        requireRef.release();
      } catch {
        // Already released with its isolate.
      }
    },
  };
}
