/**
 * Webhook transformations, main-process side: the write-time check, and one
 * run per attempt (target.ts) on the delivery's rendered request. The code
 * runs in a worker process's isolate (runtime/transformations.ts) as
 * Svix's transformations do: `handler(webhook)` gets `{method, url, headers,
 * payload, eventType, cancel}` and returns it changed, or with `cancel` true.
 *
 * What comes back is untrusted and checked here: a method of WEBHOOK_METHODS,
 * an absolute http(s) URL (a literal private address refused as at write
 * time; the sender's guarded agent still checks the resolved one at
 * connect), headers with valid names and values that are neither hop-by-hop
 * nor Switchyard's own, and a body of at most MAX_BODY_BYTES.
 * `webhook-id` and `switchyard-depth` are never shown to the code and
 * always put back; the signature is made after, over the final body.
 */
import { createHash } from 'node:crypto';
import { InvalidCodeError, InvalidTransformationError, type ErrorCode } from '../errors.js';
import { DEPTH_HEADER } from '../hops.js';
import { jsonTextTooDeep } from '../json-limits.js';
import { checkUrlTarget } from '../net/ssrf.js';
import { compileTransformation } from '../runtime/compile.js';
import type { TransformationRuntime } from '../runtime/types.js';
import type { DeliveryRequest } from '../deliveries/types.js';
import { WEBHOOK_METHODS } from './types.js';

/** The body a transformation may hand back at most (bytes of UTF-8). */
export const MAX_BODY_BYTES = 1024 * 1024;
const MAX_HEADERS = 100;
const MAX_URL_CHARS = 2048;
/** Compiled code kept per process, by hash of the source; past it the oldest goes. */
const COMPILED_CACHE = 500;

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Hop-by-hop headers (RFC 9110 7.6.1) and those the HTTP client sets from the request itself. */
const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer',
  'transfer-encoding', 'upgrade', 'host', 'content-length', 'expect',
]);
/** Switchyard's own: set per delivery and per attempt, after the transformation. */
const OWN_HEADERS = new Set(['webhook-id', 'webhook-timestamp', 'webhook-signature', DEPTH_HEADER]);

export type TransformationCode = Extract<ErrorCode, 'transformation_error' | 'transformation_cpu_limit' | 'transformation_invalid_result'>;

export type TransformResult =
  | { kind: 'transformed'; request: DeliveryRequest }
  | { kind: 'cancelled' }
  | { kind: 'failed'; code: TransformationCode; message: string };

export interface TransformerDeps {
  runtime: TransformationRuntime;
  allowPrivateTargets: boolean;
}

const hashOf = (source: string) => createHash('sha256').update(source).digest('hex').slice(0, 32);

class InvalidResult extends Error {}

function lowerKeys(headers: Record<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(headers)) out.set(k.toLowerCase(), v);
  return out;
}

export class Transformer {
  private readonly compiled = new Map<string, Promise<string>>();

  constructor(private readonly deps: TransformerDeps) {}

  /** The code compiled once per process (esbuild), by the hash of its source. */
  private compile(hash: string, source: string): Promise<string> {
    let hit = this.compiled.get(hash);
    if (hit) return hit;
    if (this.compiled.size >= COMPILED_CACHE) this.compiled.delete(this.compiled.keys().next().value as string);
    hit = compileTransformation(source);
    hit.catch(() => this.compiled.delete(hash));
    this.compiled.set(hash, hit);
    return hit;
  }

  /** Write time: compiles, runs the top level in a throwaway isolate and finds `handler`; a 400 otherwise. */
  async check(source: string): Promise<void> {
    let compiled: string;
    try {
      compiled = await this.compile(hashOf(source), source);
    } catch (err) {
      if (err instanceof InvalidCodeError) {
        const d = err.details as { line: number | null; column: number | null };
        throw new InvalidTransformationError(err.message.replace(/^code: /, '').replace(/ \(transformation\.js, line .*\)$/, ''), d.line ?? undefined, d.column ?? undefined);
      }
      throw err;
    }
    const outcome = await this.deps.runtime.validateTransformation(compiled);
    if (!outcome.ok) throw new InvalidTransformationError(outcome.message, outcome.line, outcome.column);
  }

  /** One run on `request` (the delivery's rendered request); never rejects for the code's failures. */
  async apply(source: string, request: DeliveryRequest, eventType: string | null): Promise<TransformResult> {
    const hash = hashOf(source);
    let compiled: string;
    try {
      compiled = await this.compile(hash, source);
    } catch (err) {
      return { kind: 'failed', code: 'transformation_error', message: err instanceof Error ? err.message : String(err) };
    }
    const shown: Record<string, string> = {};
    for (const [k, v] of Object.entries(request.headers)) if (!OWN_HEADERS.has(k.toLowerCase())) shown[k] = v;
    const input = JSON.stringify({
      method: request.method,
      url: request.url,
      headers: shown,
      payload: payloadOf(request.body),
      eventType,
      cancel: false,
    });
    const outcome = await this.deps.runtime.transform(hash, compiled, input);
    if (!outcome.ok) return { kind: 'failed', code: outcome.code, message: outcome.message };
    try {
      return this.read(outcome.out, request);
    } catch (err) {
      if (err instanceof InvalidResult) return { kind: 'failed', code: 'transformation_invalid_result', message: err.message };
      throw err;
    }
  }

  /** The handler's answer, checked: the request to send, or the cancellation. */
  private read(text: string, original: DeliveryRequest): TransformResult {
    if (jsonTextTooDeep(text)) throw new InvalidResult('the returned object nests deeper than 100 levels');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new InvalidResult('the handler returned something that is not JSON');
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new InvalidResult('the handler must return the webhook object it was given (changed or not)');
    }
    const out = value as Record<string, unknown>;
    if (out.cancel === true) return { kind: 'cancelled' };

    const method = out.method === undefined ? original.method : out.method;
    if (typeof method !== 'string' || !(WEBHOOK_METHODS as readonly string[]).includes(method.toUpperCase())) {
      throw new InvalidResult(`method must be one of ${WEBHOOK_METHODS.join(', ')}`);
    }
    const url = out.url === undefined ? original.url : out.url;
    if (typeof url !== 'string' || url.length > MAX_URL_CHARS) throw new InvalidResult(`url must be a string of at most ${MAX_URL_CHARS} characters`);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new InvalidResult('url must be an absolute http(s) URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new InvalidResult('url must be an absolute http(s) URL');
    try {
      checkUrlTarget(url, this.deps.allowPrivateTargets);
    } catch (err) {
      throw new InvalidResult(`url: ${err instanceof Error ? err.message : String(err)}`);
    }

    const headers = this.headersOf(out.headers);
    const upper = method.toUpperCase();
    let body: string | null;
    if (out.payload === undefined || out.payload === null) body = null;
    else if (typeof out.payload === 'string') body = out.payload;
    else body = JSON.stringify(out.payload);
    if (body !== null && upper === 'GET') throw new InvalidResult('a GET request has no body: set payload to null');
    if (body !== null && Buffer.byteLength(body) > MAX_BODY_BYTES) throw new InvalidResult(`the body is over ${MAX_BODY_BYTES} bytes`);
    const lower = lowerKeys(headers);
    if (body !== null && !lower.has('content-type')) headers['content-type'] = 'application/json';
    // Put back what the code never saw: the delivery's id and its hop count.
    for (const [k, v] of Object.entries(original.headers)) {
      const l = k.toLowerCase();
      if (l === 'webhook-id' || l === DEPTH_HEADER) headers[k] = v;
    }
    return { kind: 'transformed', request: { method: upper, url, headers, body } };
  }

  private headersOf(value: unknown): Record<string, string> {
    if (value === undefined || value === null) return {};
    if (typeof value !== 'object' || Array.isArray(value)) throw new InvalidResult('headers must be an object of header names to strings');
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length > MAX_HEADERS) throw new InvalidResult(`at most ${MAX_HEADERS} headers`);
    const headers: Record<string, string> = {};
    for (const [name, v] of entries) {
      if (!HEADER_NAME.test(name)) throw new InvalidResult(`headers: '${name.slice(0, 100)}' is not a valid header name`);
      const l = name.toLowerCase();
      if (HOP_BY_HOP.has(l)) throw new InvalidResult(`headers: '${name}' is hop-by-hop and cannot be set`);
      if (OWN_HEADERS.has(l)) throw new InvalidResult(`headers: '${name}' is set by Switchyard and cannot be set`);
      if (typeof v !== 'string') throw new InvalidResult(`headers: the value of '${name}' must be a string`);
      if (v.length > 8192 || !HEADER_VALUE.test(v)) throw new InvalidResult(`headers: the value of '${name}' has a control character or is over 8192 characters`);
      headers[name] = v;
    }
    return headers;
  }
}

/** The rendered body as the code sees it: parsed JSON (what templates render), else the text; null for none. */
function payloadOf(body: string | null): unknown {
  if (body === null) return null;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
