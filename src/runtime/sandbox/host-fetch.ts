/**
 * Host side of the sandbox's fetch: validates what the isolate asked for,
 * performs it with undici through the SSRF-guarded agent, and answers with a
 * plain, structured-cloneable envelope (never a host object). Every request
 * has a deadline and a response-size cap.
 */
import { fetch as undiciFetch, type Agent } from 'undici';
import { randomBytes } from 'node:crypto';
import { createGuardedAgent, findPrivateTargetRefusal } from '../../net/ssrf.js';
import { childCarrier, traceparentOf, tracestateOf, type FetchSpanRecord, type TraceCarrier } from '../../telemetry/types.js';

/** A fetch span record's URL, at most (the span bounds it again, after redaction). */
const SPAN_URL_LIMIT = 4096;

export const FETCH_TIMEOUT_MS = 30_000;
export const FETCH_MAX_BODY_BYTES = 5 * 1024 * 1024;

export type FetchEnvelope =
  | {
      status: number;
      statusText: string;
      headers: [string, string][];
      url: string;
      redirected: boolean;
      body: ArrayBuffer | null;
    }
  | { error: { message: string; code?: string } };

// One agent per policy per worker process: connections are pooled across contexts.
const agents = new Map<boolean, Agent>();
function agentFor(allowPrivate: boolean): Agent {
  let agent = agents.get(allowPrivate);
  if (!agent) {
    agent = createGuardedAgent({ allowPrivate });
    agents.set(allowPrivate, agent);
  }
  return agent;
}

/** Closes the pooled connections (worker shutdown). */
export async function closeFetchAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.allSettled(all.map((a) => a.close()));
}

interface FetchMeta {
  url: string;
  method: string;
  headers: [string, string][];
  redirect: 'follow' | 'error' | 'manual';
}

function parseMeta(meta: unknown): FetchMeta | null {
  if (typeof meta !== 'string' || meta.length > 1_000_000) return null;
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(meta) as Record<string, unknown>;
  } catch {
    return null;
  }
  const okHeaders =
    Array.isArray(m.headers) &&
    m.headers.every((h) => Array.isArray(h) && h.length === 2 && typeof h[0] === 'string' && typeof h[1] === 'string');
  if (typeof m.url !== 'string' || typeof m.method !== 'string' || !okHeaders) return null;
  if (m.redirect !== 'follow' && m.redirect !== 'error' && m.redirect !== 'manual') return null;
  if (!/^https?:/i.test(m.url)) return null;
  return m as unknown as FetchMeta;
}

const fail = (message: string, code?: string): FetchEnvelope => ({ error: code ? { message, code } : { message } });

async function readCapped(res: Response, limit: number, abort: () => void): Promise<ArrayBuffer | 'too_large'> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    abort();
    return 'too_large';
  }
  if (!res.body) return new ArrayBuffer(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > limit) {
      abort();
      return 'too_large';
    }
    chunks.push(chunk);
  }
  // A fresh, exact-size buffer: never hand the isolate a view into a pooled host buffer.
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out.buffer;
}

/** A traced invocation's fetch: its parent's context, and where the finished fetch is reported. */
export interface FetchTrace {
  parent: TraceCarrier;
  report: (record: FetchSpanRecord) => void;
}

/**
 * Performs one sandbox fetch. Never rejects: failures become `{error}` envelopes.
 * With `trace`, it sends `traceparent` (and `tracestate`) naming a span id of
 * its own, a child of the invocation's span, unless the function set its own
 * `traceparent`, and reports the fetch under that id once it is over.
 */
export async function performFetch(
  meta: unknown,
  body: unknown,
  opts: { allowPrivate: boolean; signal: AbortSignal; timeoutMs?: number; maxBodyBytes?: number; trace?: FetchTrace },
): Promise<FetchEnvelope> {
  const req = parseMeta(meta);
  if (!req) return fail('fetch failed: invalid request');
  if (opts.trace === undefined) return send(req, body, opts);
  const { parent, report } = opts.trace;
  if (req.headers.some(([name]) => name.toLowerCase() === 'traceparent')) return send(req, body, opts);
  const spanId = randomBytes(8).toString('hex');
  const carrier = childCarrier(parent, spanId);
  req.headers.push(['traceparent', traceparentOf(carrier)]);
  const state = tracestateOf(carrier);
  if (state !== undefined && !req.headers.some(([name]) => name.toLowerCase() === 'tracestate')) req.headers.push(['tracestate', state]);
  // An unsampled parent's fetch is not recorded: its header is all it needs.
  if ((parseInt(carrier.slice(53, 55), 16) & 1) === 0) return send(req, body, opts);
  const startMs = performance.timeOrigin + performance.now();
  const env = await send(req, body, opts);
  const ok = !('error' in env);
  report({
    parent,
    spanId,
    // Bounded before it leaves: a worker sends it in a frame, and the span keeps no more (src/telemetry/tracing.ts).
    method: req.method.toUpperCase().slice(0, 16),
    url: req.url.length > SPAN_URL_LIMIT ? req.url.slice(0, SPAN_URL_LIMIT) : req.url,
    status: ok ? env.status : null,
    error: ok ? null : env.error.message.slice(0, 512),
    startMs,
    endMs: performance.timeOrigin + performance.now(),
  });
  return env;
}


async function send(
  req: FetchMeta,
  body: unknown,
  opts: { allowPrivate: boolean; signal: AbortSignal; timeoutMs?: number; maxBodyBytes?: number },
): Promise<FetchEnvelope> {
  const timeoutMs = opts.timeoutMs ?? FETCH_TIMEOUT_MS;
  const limit = opts.maxBodyBytes ?? FETCH_MAX_BODY_BYTES;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('timeout', 'TimeoutError')), timeoutMs);
  const onOuterAbort = () => controller.abort(opts.signal.reason);
  if (opts.signal.aborted) onOuterAbort();
  else opts.signal.addEventListener('abort', onOuterAbort, { once: true });
  try {
    const res = await undiciFetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: body instanceof ArrayBuffer ? new Uint8Array(body) : null,
      redirect: req.redirect,
      signal: controller.signal,
      dispatcher: agentFor(opts.allowPrivate),
    });
    const data = await readCapped(res as unknown as Response, limit, () => controller.abort());
    if (data === 'too_large') {
      return fail(`fetch failed: response body from ${req.url} is larger than ${limit} bytes`, 'ERR_RESPONSE_TOO_LARGE');
    }
    const headers: [string, string][] = [];
    for (const [k, v] of res.headers) if (k !== 'set-cookie') headers.push([k, v]);
    for (const c of res.headers.getSetCookie()) headers.push(['set-cookie', c]);
    return {
      status: res.status,
      statusText: res.statusText,
      headers,
      url: res.url,
      redirected: res.redirected,
      body: data,
    };
  } catch (err) {
    const refusal = findPrivateTargetRefusal(err);
    if (refusal) return fail(`fetch failed: ${refusal.message}`, refusal.code);
    if (controller.signal.aborted) {
      return opts.signal.aborted
        ? fail('fetch aborted: the invocation ended', 'ERR_ABORTED')
        : fail(`fetch failed: no response from ${req.url} within ${timeoutMs} ms`, 'ERR_TIMEOUT');
    }
    const cause = (err as { cause?: { message?: string; code?: string } }).cause;
    const detail = cause?.message ?? (err as Error).message ?? String(err);
    return fail(`fetch failed: ${detail}`, typeof cause?.code === 'string' ? cause.code : undefined);
  } finally {
    clearTimeout(timer);
    opts.signal.removeEventListener('abort', onOuterAbort);
  }
}
