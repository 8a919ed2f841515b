/**
 * One HTTP attempt of a delivery. Every attempt has an overall deadline, no
 * redirect is followed (undici's `request` only follows with the redirect
 * interceptor, which we never compose), and at most 16 KiB of the answer is
 * kept: the rest is read and dropped so the keep-alive connection stays
 * reusable, or the socket is cut when the answer is very large.
 */
import { request, type Dispatcher } from 'undici';
import { findPrivateTargetRefusal } from '../net/ssrf.js';
import type { DeliveryRequest } from '../deliveries/types.js';

export const RESPONSE_BODY_LIMIT = 16 * 1024;
/** Past this much discarded answer, closing the socket is cheaper than reading on. */
const DRAIN_LIMIT = 1024 * 1024;

export interface SendResponse {
  status: number;
  headers: Record<string, string>;
  /** First 16 KiB. */
  body: string;
  durationMs: number;
}

export interface SendFailure {
  error: string;
  code?: string;
  durationMs: number;
}

export type SendResult = SendResponse | SendFailure;

class DeadlineError extends Error {
  readonly code = 'ETIMEDOUT';
}

const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const DESCRIBED: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed while sending',
  UND_ERR_SOCKET: 'connection closed by the target',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_DESTROYED: 'sending cancelled',
  UND_ERR_ABORTED: 'sending cancelled',
};

/** The first errno-style code in the error, its causes, or an AggregateError's members. */
function errorCode(err: unknown): string | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0) {
    const e = queue.shift();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR' && code !== 'ERR_INVALID_ARG_TYPE') return code;
    queue.push((e as { cause?: unknown }).cause);
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors)) queue.push(...errors);
  }
  return undefined;
}

export function describeError(err: unknown, timeoutMs: number, timedOut: boolean): { error: string; code?: string } {
  const refusal = findPrivateTargetRefusal(err);
  if (refusal) return { error: refusal.message, code: refusal.code };
  const code = errorCode(err);
  if (timedOut || err instanceof DeadlineError || (code && TIMEOUT_CODES.has(code))) {
    return { error: `timeout after ${timeoutMs} ms`, code: 'ETIMEDOUT' };
  }
  if (code && DESCRIBED[code]) return { error: `${DESCRIBED[code]} (${code})`, code };
  const message = err instanceof Error ? err.message : String(err);
  return code ? { error: `${message || 'request failed'} (${code})`, code } : { error: message || 'request failed' };
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Reads the first `RESPONSE_BODY_LIMIT` bytes; drops the rest as it streams by. */
async function readCapped(body: Dispatcher.ResponseData['body']): Promise<string> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let dropped = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (keptBytes < RESPONSE_BODY_LIMIT) {
      const take = Math.min(chunk.length, RESPONSE_BODY_LIMIT - keptBytes);
      kept.push(take === chunk.length ? chunk : chunk.subarray(0, take));
      keptBytes += take;
      dropped += chunk.length - take;
    } else {
      dropped += chunk.length;
    }
    // Leaving the loop destroys the stream (and its socket): only worth it for huge answers.
    if (dropped > DRAIN_LIMIT) break;
  }
  return Buffer.concat(kept, keptBytes).toString('utf8');
}

/** One attempt; never throws. */
export async function send(
  req: DeliveryRequest,
  opts: { timeoutMs: number; agent: Dispatcher },
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // A controller and a timer we clear, rather than AbortSignal.timeout, so no timer outlives a fast attempt.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DeadlineError(`timeout after ${opts.timeoutMs} ms`));
  }, opts.timeoutMs);
  try {
    const res = await request(req.url, {
      dispatcher: opts.agent,
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      body: req.body ?? undefined,
      signal: controller.signal,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
    // The status is the target's verdict; an answer body that stalls or breaks off does not change it.
    const body = await readCapped(res.body).catch(() => '');
    return { status: res.statusCode, headers: flatHeaders(res.headers), body, durationMs: elapsed() };
  } catch (err) {
    return { ...describeError(err, opts.timeoutMs, timedOut), durationMs: elapsed() };
  } finally {
    clearTimeout(timer);
  }
}
