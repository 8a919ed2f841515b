/**
 * The public invocation endpoint `ANY /api/invoke/fn/:apiId/*`, served on the
 * raw node:http request ahead of Fastify (see server.ts `serverFactory`).
 * This is the hot path: Fastify's per-request machinery (routing, hooks,
 * content-type parsing, reply serialisation) cost about a third of the
 * gateway's throughput in `npm run bench`, and none of it is needed here: the
 * body is always read raw and the gateway decides between JSON, text and base64.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Span } from '@opentelemetry/api';
import type { Logger } from 'pino';
import {
  InvalidRequestError,
  MethodNotAllowedError,
  PayloadTooLargeError,
  ServiceWorkerRefusedError,
  SwitchyardError,
  asStoreUnavailable,
} from '../errors.js';
import type { Gateway, InvocationFacts } from '../gateway/gateway.js';
import { INVOKE_PREFIX } from '../gateway/paths.js';
import { compressAnswer } from '../gateway/policy/compression.js';
import { DEPTH_HEADER, parseDepth } from '../hops.js';
import { nextRequestId } from '../ids.js';
import { clientAddress, type TrustFn } from '../net/trusted-proxies.js';
import type { Tracing } from '../telemetry/tracing.js';
import { traceIdOfCarrier, type TraceCarrier } from '../telemetry/types.js';
import { accessTraceId, type AccessLog } from './access-log.js';

export { INVOKE_PREFIX };
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const JSON_CT = 'application/json; charset=utf-8';
const MIN_CHANGE_HEADER = 'switchyard-min-change';

/**
 * Splits the raw URL into API id, path after it (still encoded) and query text.
 *
 * Generated clients (openapi-fetch, @hey-api) fill the documented `{path}`
 * parameter with encodeURIComponent, so `v1/users/42` arrives as the one
 * segment `v1%2Fusers%2F42`. When everything after the API id is a single
 * segment, its `%2F` are read as `/` (and a leading one, as for `/v1/...`,
 * is not doubled): the request is then served, matched and shown to the
 * function exactly as if it had been sent with raw slashes. A path of several
 * segments is left as sent, so `%2F` inside one of them stays part of that
 * segment's value (`/files/a%2Fb`: `:name` is `a/b`). Only `%2F` itself is
 * read: `%252F` stays an escaped `%2F`. The API id is never touched: an
 * encoded slash there is part of an id no API has.
 */
export function splitInvokeUrl(url: string): { apiId: string; path: string; rawQuery: string } {
  const q = url.indexOf('?');
  const pathPart = q === -1 ? url : url.slice(0, q);
  const rawQuery = q === -1 ? '' : url.slice(q + 1);
  const rest = pathPart.slice(INVOKE_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash === -1) return { apiId: rest, path: '', rawQuery };
  let path = rest.slice(slash);
  if (path.indexOf('/', 1) === -1 && path.indexOf('%') !== -1) path = withEncodedSlashes(path);
  return { apiId: rest.slice(0, slash), path, rawQuery };
}

/** `/v1%2Fusers%2F42` (or `/%2Fv1%2Fusers`) -> `/v1/users/42`. */
function withEncodedSlashes(segment: string): string {
  const path = segment.replace(/%2f/gi, '/');
  return path.startsWith('//') ? path.slice(1) : path;
}

/**
 * The request headers the endpoint itself reads, from one pass over
 * `rawHeaders`: reading `req.headers` would make node build the whole
 * header object, which nothing else on this path uses (the event is built
 * from `rawHeaders` too). Same readings as node's object: the first
 * Content-Length counts, and an X-Request-Id sent twice (which node joins
 * with ', ') is not a usable id.
 */
export interface InvokeHeaders {
  requestId: string | undefined;
  contentLength: string | undefined;
  chunked: boolean;
  /** `Switchyard-Min-Change`: serve from a state at least as new as this change (rarely sent). */
  minChange: string | undefined;
  /** `Switchyard-Depth`: the hop count of a request made by a chain of runs (src/hops.ts). */
  depth: string | undefined;
  /**
   * A `Service-Worker` header (`script`, which browsers send when they fetch a
   * service worker's script): refused, so no function can register one
   * (docs/security.md). Its only defined value is `script`: any value counts.
   */
  serviceWorker: boolean;
  /** W3C trace context of the caller (read always: two length checks), for the access line and, while tracing, the span's parent. */
  traceparent: string | undefined;
  tracestate: string | undefined;
}

export function invokeHeaders(raw: string[]): InvokeHeaders {
  let requestId: string | undefined;
  let requestIds = 0;
  let contentLength: string | undefined;
  let chunked = false;
  let minChange: string | undefined;
  let depth: string | undefined;
  let serviceWorker = false;
  let traceparent: string | undefined;
  let tracestate: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i];
    // Lengths first: most headers are none of these, and need no lower-casing.
    if (name.length === 12) {
      if (name.toLowerCase() === 'x-request-id') {
        requestId = raw[i + 1];
        requestIds++;
      }
    } else if (name.length === 14) {
      const lower = name.toLowerCase();
      if (lower === 'content-length') {
        if (contentLength === undefined) contentLength = raw[i + 1];
      } else if (lower === 'service-worker') serviceWorker = true;
    } else if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') {
      chunked = true;
    } else if (name.length === 21 && name.toLowerCase() === MIN_CHANGE_HEADER) {
      minChange = raw[i + 1];
    } else if (name.length === 16 && name.toLowerCase() === DEPTH_HEADER) {
      depth = raw[i + 1];
    } else if (name.length === 11 && name.toLowerCase() === 'traceparent') {
      traceparent = raw[i + 1];
    } else if (name.length === 10 && name.toLowerCase() === 'tracestate') {
      tracestate = tracestate === undefined ? raw[i + 1] : `${tracestate},${raw[i + 1]}`;
    }
  }
  return { requestId: requestIds === 1 ? requestId : undefined, contentLength, chunked, minChange, depth, serviceWorker, traceparent, tracestate };
}

/** The header's value as a change number; a 400 naming it when it is not one. */
export function parseMinChange(value: string): number {
  if (!/^[0-9]{1,15}$/.test(value)) {
    throw new InvalidRequestError('Switchyard-Min-Change must be a change number (digits) from a write\'s Switchyard-Change answer header', {
      field: 'Switchyard-Min-Change',
    });
  }
  return Number(value);
}

export function requestIdOf(given: string | undefined): string {
  return given !== undefined && SAFE_REQUEST_ID.test(given) ? given : nextRequestId();
}

/** Reads the whole body, refusing more than `limit` bytes. Null when there is none. */
function readBody(req: IncomingMessage, h: InvokeHeaders, limit: number): Promise<Buffer | null> {
  const declared = h.contentLength;
  if (declared === undefined && !h.chunked) return Promise.resolve(null);
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(new PayloadTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        reject(new PayloadTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(size === 0 ? null : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

export interface InvokeHandlerOptions {
  bodyLimit: number;
  log: Logger;
  /** Each answer's line (src/http/access-log.ts); absent: only unexpected errors are logged. */
  access?: AccessLog | null;
  /** True once shutdown began: new requests get 503 and the connection closes. */
  isClosing(): boolean;
  /**
   * Which peers' X-Forwarded-For names the client (src/net/trusted-proxies.ts);
   * null: none, and the headers are not even looked for.
   */
  trust?: TrustFn | null;
  /** OpenTelemetry tracing (src/telemetry/tracing.ts); null: off, and no span is made. */
  tracing?: Tracing | null;
}

/** A request's trace while tracing: its span when sampled, else its context as a carrier; undefined while off. */
type RequestTrace = Span | TraceCarrier | undefined;

export function createInvokeHandler(gateway: Gateway, opts: InvokeHandlerOptions) {
  const { bodyLimit, log } = opts;
  const trust = opts.trust ?? null;
  const access = opts.access ?? null;
  // With the access log off only 5xx answers get a line, and those need no facts from the gateway.
  const wantsFacts = access?.enabled === true;
  const tracing = opts.tracing ?? null;

  /** Answers the error; returns its code, for the access line. */
  function sendError(res: ServerResponse, requestId: string, caught: unknown, closeConnection = false): string {
    const err = asStoreUnavailable(caught) ?? caught;
    let status = 500;
    let code = 'internal_error';
    let body: Record<string, unknown>;
    const headers: Record<string, string> = { 'content-type': JSON_CT, 'x-request-id': requestId };
    if (err instanceof SwitchyardError) {
      status = err.status;
      code = err.code;
      body = { error: err.message, code: err.code };
      if (err.details !== undefined) body.details = err.details;
      if (err instanceof MethodNotAllowedError) headers.allow = err.allow.join(', ');
      if (err.headers !== undefined) Object.assign(headers, err.headers);
    } else {
      log.error({ err, requestId }, 'unexpected error while invoking');
      body = { error: `Internal error; see the server log for request ${requestId}`, code: 'internal_error', requestId };
    }
    if (closeConnection) headers.connection = 'close';
    res.writeHead(status, headers);
    res.end(JSON.stringify(body));
    return code;
  }

  async function answer(
    req: IncomingMessage,
    res: ServerResponse,
    h: InvokeHeaders,
    requestId: string,
    body: Buffer | null,
    facts: InvocationFacts | undefined,
    trace: RequestTrace,
  ): Promise<string | undefined> {
    const { apiId, path, rawQuery } = splitInvokeUrl(req.url!);
    const peer = req.socket.remoteAddress ?? '';
    const response = await gateway.handle({
      span: typeof trace === 'object' ? trace : undefined,
      trace: typeof trace === 'string' ? trace : undefined,
      minChange: h.minChange === undefined ? undefined : parseMinChange(h.minChange),
      depth: h.depth === undefined ? undefined : parseDepth(h.depth),
      method: req.method!,
      path,
      rawQuery,
      rawHeaders: req.rawHeaders,
      body,
      sourceIp: trust === null ? peer : clientAddress(req.rawHeaders, peer, trust),
      peerIp: peer,
      requestId,
      apiId,
      requestTimeEpoch: Date.now(),
      httpVersion: req.httpVersion,
      localPort: req.socket.localPort,
      facts,
    });
    const headers = response.headers;
    headers['x-request-id'] = requestId;
    const out = response.compressAbove === undefined ? response.body : await compressAnswer(response, response.compressAbove, req.method!, req.rawHeaders);
    // A length instead of chunked framing: smaller on the wire and what clients handle best.
    if (out !== null) headers['content-length'] = String(typeof out === 'string' ? Buffer.byteLength(out) : out.length);
    res.writeHead(response.status, headers);
    res.end(req.method === 'HEAD' ? undefined : (out ?? undefined));
    return response.errorCode;
  }

  /** The CORS headers of the API a refused body was sent to; none when the URL or the API cannot be read. */
  async function corsOfTooLarge(req: IncomingMessage): Promise<Record<string, string>> {
    try {
      return await gateway.corsHeadersFor(splitInvokeUrl(req.url!).apiId, req.method!, req.rawHeaders);
    } catch {
      return {};
    }
  }

  /**
   * The access line and the request span's end, once answered; `errorCode`: the code of an
   * error answered here rather than by the gateway.
   */
  function finish(
    req: IncomingMessage,
    res: ServerResponse,
    h: InvokeHeaders,
    requestId: string,
    started: number,
    facts: InvocationFacts | undefined,
    trace: RequestTrace,
    errorCode?: string,
  ): void {
    if (typeof trace === 'object') {
      trace.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) tracing!.failed(trace, errorCode ?? String(res.statusCode));
      trace.end();
    }
    if (access === null || !access.wants(res.statusCode)) return;
    access.invocation(
      {
        method: req.method!,
        url: req.url!,
        status: res.statusCode,
        ms: performance.now() - started,
        requestId,
        // While tracing, the request's trace (the caller's, or the one it began), sampled or not.
        traceId: trace === undefined ? accessTraceId(h.traceparent) : typeof trace === 'string' ? traceIdOfCarrier(trace) : trace.spanContext().traceId,
        apiId: splitInvokeUrl(req.url!).apiId,
        errorCode,
      },
      facts,
    );
  }

  return function handleInvoke(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const h = invokeHeaders(req.rawHeaders);
    const requestId = requestIdOf(h.requestId);
    if (tracing === null) return serve(req, res, h, requestId, undefined);
    const span = tracing.server(req.method!, h.traceparent, h.tracestate);
    // An unsampled request goes on with its context as a string, as a request with tracing off
    // goes on with none: no span object to carry, ask or end on the way, nine in ten at 10 %.
    if (!span.isRecording()) return serve(req, res, h, requestId, tracing.carrierOf(span));
    span.setAttributes({ 'http.request.method': req.method!, 'url.path': req.url!.split('?', 1)[0], 'switchyard.request_id': requestId });
    // With the span active, what is logged while it is served carries its ids (src/logger.ts). Only a
    // sampled one: entering the context costs every later async step of the request, which at a 10 %
    // ratio nine requests in ten would pay for ids no collector gets (bench/README.md, "Traces").
    return tracing.within(span, () => serve(req, res, h, requestId, span));
  };

  function serve(req: IncomingMessage, res: ServerResponse, h: InvokeHeaders, requestId: string, trace: RequestTrace): Promise<void> {
    const started = performance.now();
    if (opts.isClosing()) {
      res.writeHead(503, { 'content-type': JSON_CT, 'x-request-id': requestId, connection: 'close' });
      res.end(JSON.stringify({ error: 'Switchyard is shutting down', code: 'shutting_down' }));
      finish(req, res, h, requestId, started, undefined, trace, 'shutting_down');
      return Promise.resolve();
    }
    if (h.serviceWorker) {
      // Before the body is read: close rather than parse what is left of it as the next request.
      const code = sendError(res, requestId, new ServiceWorkerRefusedError(), h.contentLength !== undefined || h.chunked);
      finish(req, res, h, requestId, started, undefined, trace, code);
      return Promise.resolve();
    }
    const facts: InvocationFacts | undefined = wantsFacts ? {} : undefined;
    // Without a body (most GETs) the gateway starts in this turn, not after a read settles.
    const answered =
      h.contentLength === undefined && !h.chunked
        ? answer(req, res, h, requestId, null, facts, trace)
        : readBody(req, h, bodyLimit).then((body) => answer(req, res, h, requestId, body, facts, trace));
    return answered.then(
      (errorCode) => finish(req, res, h, requestId, started, facts, trace, errorCode),
      async (err: unknown) => {
        if (err instanceof PayloadTooLargeError) {
          // Refused before the gateway ran: its API's CORS headers still let a browser read why.
          err.headers = { ...err.headers, ...(await corsOfTooLarge(req)) };
        }
        // After a 413 the rest of the body is unread: close rather than parse it as the next request.
        const code = sendError(res, requestId, err, err instanceof PayloadTooLargeError);
        gateway.countFailure(splitInvokeUrl(req.url!).apiId, asStoreUnavailable(err) ?? err, started);
        finish(req, res, h, requestId, started, facts, trace, code);
      },
    );
  }
}
