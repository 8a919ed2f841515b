/**
 * The public invocation endpoint `ANY /api/invoke/fn/:apiId/*`, served on the
 * raw node:http request ahead of Fastify (see server.ts `serverFactory`).
 * This is the hot path: Fastify's per-request machinery (routing, hooks,
 * content-type parsing, reply serialisation) cost about a third of the
 * gateway's throughput in `npm run bench`, and none of it is needed here: the
 * body is always read raw and the gateway decides between JSON, text and base64.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { MethodNotAllowedError, PayloadTooLargeError, SwitchyardError, asStoreUnavailable } from '../errors.js';
import type { Gateway } from '../gateway/gateway.js';
import { nextRequestId } from '../ids.js';

export const INVOKE_PREFIX = '/api/invoke/fn/';
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const JSON_CT = 'application/json; charset=utf-8';

/** Splits the raw URL into API id, path after it (still encoded) and query text. */
export function splitInvokeUrl(url: string): { apiId: string; path: string; rawQuery: string } {
  const q = url.indexOf('?');
  const pathPart = q === -1 ? url : url.slice(0, q);
  const rawQuery = q === -1 ? '' : url.slice(q + 1);
  const rest = pathPart.slice(INVOKE_PREFIX.length);
  const slash = rest.indexOf('/');
  return slash === -1
    ? { apiId: rest, path: '', rawQuery }
    : { apiId: rest.slice(0, slash), path: rest.slice(slash), rawQuery };
}

export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : nextRequestId();
}

/** Reads the whole body, refusing more than `limit` bytes. Null when there is none. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const declared = req.headers['content-length'];
  if (declared === undefined && req.headers['transfer-encoding'] === undefined) return Promise.resolve(null);
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
  /** True once shutdown began: new requests get 503 and the connection closes. */
  isClosing(): boolean;
}

export function createInvokeHandler(gateway: Gateway, opts: InvokeHandlerOptions) {
  const { bodyLimit, log } = opts;

  function sendError(res: ServerResponse, requestId: string, caught: unknown, closeConnection = false): void {
    const err = asStoreUnavailable(caught) ?? caught;
    let status = 500;
    let body: Record<string, unknown>;
    const headers: Record<string, string> = { 'content-type': JSON_CT, 'x-request-id': requestId };
    if (err instanceof SwitchyardError) {
      status = err.status;
      body = { error: err.message, code: err.code };
      if (err.details !== undefined) body.details = err.details;
      if (err instanceof MethodNotAllowedError) headers.allow = err.allow.join(', ');
    } else {
      log.error({ err, requestId }, 'unexpected error while invoking');
      body = { error: `Internal error; see the server log for request ${requestId}`, code: 'internal_error', requestId };
    }
    if (closeConnection) headers.connection = 'close';
    res.writeHead(status, headers);
    res.end(JSON.stringify(body));
  }

  return async function handleInvoke(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = requestIdOf(req);
    const started = performance.now();
    if (opts.isClosing()) {
      res.writeHead(503, { 'content-type': JSON_CT, 'x-request-id': requestId, connection: 'close' });
      res.end(JSON.stringify({ error: 'Switchyard is shutting down', code: 'shutting_down' }));
      return;
    }
    try {
      const body = await readBody(req, bodyLimit);
      const { apiId, path, rawQuery } = splitInvokeUrl(req.url!);
      const response = await gateway.handle({
        method: req.method!,
        path,
        rawQuery,
        rawHeaders: req.rawHeaders,
        body,
        sourceIp: req.socket.remoteAddress ?? '',
        requestId,
        apiId,
        requestTimeEpoch: Date.now(),
        httpVersion: req.httpVersion,
        localPort: req.socket.localPort,
      });
      response.headers['x-request-id'] = requestId;
      const out = response.body;
      // A length instead of chunked framing: smaller on the wire and what clients handle best.
      if (out !== null) {
        response.headers['content-length'] = String(typeof out === 'string' ? Buffer.byteLength(out) : out.length);
      }
      res.writeHead(response.status, response.headers);
      res.end(req.method === 'HEAD' ? undefined : (out ?? undefined));
    } catch (err) {
      // After a 413 the rest of the body is unread: close rather than parse it as the next request.
      sendError(res, requestId, err, err instanceof PayloadTooLargeError);
    }
    if (log.isLevelEnabled('debug') || res.statusCode >= 500) {
      log[res.statusCode >= 500 ? 'warn' : 'debug'](
        { requestId, method: req.method, url: req.url, status: res.statusCode, ms: performance.now() - started },
        'invoke',
      );
    }
  };
}
