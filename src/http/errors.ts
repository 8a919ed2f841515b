/**
 * One place that turns errors into the documented `{error, code, details?}`:
 * typed SwitchyardErrors keep their status and code, Fastify's own client
 * errors (bad JSON, body too large, schema failures) become 4xx with a message
 * naming the field, and anything else is a logged 500 without internals.
 * Errors raised before a route runs (a malformed URL, an over-long path
 * parameter, a request the HTTP parser refuses) get the same shape and an
 * `x-request-id` through `answerFrameworkError` and `answerClientError`.
 */
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MethodNotAllowedError, SwitchyardError, asStoreUnavailable, type ErrorCode } from '../errors.js';
import { nextRequestId } from '../ids.js';
import { noteErrorCode } from './access-log.js';
import { allowedMethods } from './allowed-methods.js';

/** Longest path parameter the router accepts (Fastify's `maxParamLength`); longer is a 414. */
export const MAX_PARAM_LENGTH = 100;

interface SchemaIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** `/routes/0/method` -> `routes[0].method` */
function fieldName(instancePath: string): string {
  return instancePath
    .split('/')
    .filter(Boolean)
    .map((seg, i) => (/^\d+$/.test(seg) ? `[${seg}]` : i === 0 ? seg : `.${seg}`))
    .join('');
}

/** Ajv errors -> one message naming the field, e.g. "timeout_ms must be <= 900000". */
export function formatSchemaError(errors: SchemaIssue[], dataVar: string): { message: string; field: string } {
  const issue = errors[0];
  const base = fieldName(issue.instancePath);
  const join = (child: string) => (base ? `${base}.${child}` : child);
  switch (issue.keyword) {
    case 'required': {
      const field = join(String(issue.params.missingProperty));
      return { field, message: `${field} is required` };
    }
    case 'additionalProperties': {
      const field = join(String(issue.params.additionalProperty));
      return { field, message: `${field} is not a known field` };
    }
    case 'enum': {
      const allowed = (issue.params.allowedValues as unknown[]).join(', ');
      return { field: base || dataVar, message: `${base || dataVar} must be one of: ${allowed}` };
    }
    case 'type':
      return { field: base || dataVar, message: `${base || dataVar} must be ${articled(String(issue.params.type))}` };
    default:
      return { field: base || dataVar, message: `${base || dataVar} ${issue.message ?? 'is invalid'}` };
  }
}

function articled(type: string): string {
  const name = type === 'object' ? 'a JSON object' : type === 'array' ? 'an array' : type === 'integer' ? 'an integer' : `a ${type}`;
  return name.replace(',', ' or ');
}

export function sendError(reply: FastifyReply, status: number, code: ErrorCode, message: string, details?: unknown) {
  const body: Record<string, unknown> = { error: message, code };
  if (details !== undefined) body.details = details;
  noteErrorCode(reply, code);
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/**
 * Fastify's `frameworkErrors`: errors its router raises before any route or
 * hook runs, so the `x-request-id` header is set here.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', request.id);
  switch (error.code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return sendError(reply, 414, 'uri_too_long', `A path segment is longer than ${MAX_PARAM_LENGTH} characters`);
    case 'FST_ERR_BAD_URL':
      return sendError(reply, 400, 'invalid_request', 'The URL path contains a malformed percent-escape');
  }
  request.log.error({ err: error }, 'unexpected routing error');
  return sendError(reply, 500, 'internal_error', 'Internal error; see the server log for request ' + request.id);
}

const CLIENT_ERRORS: Record<string, [status: number, code: ErrorCode, message: string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'The request was not received in time'],
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', 'The request headers are larger than the limit'],
};

/**
 * The HTTP server's `clientError`: the request could not even be parsed (bad
 * framing, a forbidden character in a header, headers too large), so there is
 * no request object; answer in the usual shape with a fresh request id and
 * close the connection, as Node does.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'invalid_request', 'Malformed HTTP request'];
  // As Node itself does: never write into the middle of a response already under way on this socket.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify({ error: message, code });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `content-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${nextRequestId()}\r\n` +
        `connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** Names the type that was sent (cut short: it is the client's text) and the one to send. */
function unsupportedMediaType(sent: string | undefined): string {
  const type = sent?.split(';', 1)[0].trim().slice(0, 100);
  const what = type ? `A body of type ${JSON.stringify(type)} is not accepted` : 'A body without a Content-Type is not accepted';
  return `${what}: send JSON with Content-Type: application/json`;
}

/** Appended to every 404 of an unknown endpoint, so a mistyped path tells a newcomer where to go (the dashboard is at `/`). */
const WHERE_THINGS_ARE =
  'The management API is at /api/functions, /api/apis and /api/webhooks (OpenAPI document: /api/openapi.json), ' +
  'functions are called at /api/invoke/fn/<api_id>/..., metrics are at /metrics, the dashboard is at /';

export function registerErrorHandling(app: FastifyInstance): void {
  app.setSchemaErrorFormatter((errors, dataVar) => {
    const { message, field } = formatSchemaError(errors as SchemaIssue[], dataVar);
    return Object.assign(new Error(message), { statusCode: 400, field });
  });

  app.setErrorHandler(function handleError(error: FastifyError & { field?: string }, request: FastifyRequest, reply) {
    if (error instanceof SwitchyardError) {
      if (error instanceof MethodNotAllowedError) reply.header('allow', error.allow.join(', '));
      if ('retryAfterS' in error && typeof error.retryAfterS === 'number') reply.header('retry-after', String(error.retryAfterS));
      if (error.status >= 500) request.log.error({ err: error }, error.message);
      return sendError(reply, error.status, error.code, error.message, error.details);
    }
    if (error.validation) {
      return sendError(reply, 400, 'invalid_request', error.message, { field: error.field });
    }
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendError(reply, 413, 'payload_too_large', `Request body is larger than the limit`);
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendError(reply, 415, 'unsupported_media_type', unsupportedMediaType(request.headers['content-type']));
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendError(reply, 400, 'invalid_request', 'Body is empty: send a JSON object');
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendError(reply, 400, 'invalid_request', `Body is not valid JSON: ${error.message}`);
    }
    const unavailable = asStoreUnavailable(error);
    if (unavailable) {
      request.log.warn({ err: error }, 'store unavailable');
      return sendError(reply, 503, unavailable.code, unavailable.message);
    }
    if (error instanceof SyntaxError || (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)) {
      return sendError(reply, error.statusCode ?? 400, 'invalid_request', error.message);
    }
    request.log.error({ err: error }, 'unexpected error');
    return sendError(reply, 500, 'internal_error', 'Internal error; see the server log for request ' + request.id);
  });

  app.setNotFoundHandler(function handleNotFound(request, reply) {
    // A path some route serves, asked with another method, is a 405 naming the methods it takes.
    const allow = allowedMethods(app, request.url);
    if (allow.length > 0) throw new MethodNotAllowedError(request.method, request.url.split('?')[0], allow);
    return sendError(reply, 404, 'not_found', `No such endpoint: ${request.method} ${request.url.split('?')[0]}. ${WHERE_THINGS_ARE}`);
  });
}
