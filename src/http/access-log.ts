/**
 * The access line: one log line per answered request, invocations and the
 * management API alike, in the fields collectors group by (`method`, `route`
 * as a template, `status`, `ms`, `errorCode`, `requestId`, `trace_id` (the name OpenTelemetry's other log lines use); `api` and
 * `function` for invocations), its URL's credentials redacted (src/net/redact.ts).
 * At `info` (a 5xx at `warn`); SWITCHYARD_ACCESS_LOG=0 keeps only the 5xx lines.
 * Fastify's own "incoming request" / "request completed" lines are off: this is
 * the one line per request.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InvocationFacts } from '../gateway/gateway.js';
import type { Logger } from '../types.js';
import { redactUrl, type QueryRedaction } from '../net/redact.js';


const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}/;
const NO_TRACE = '00000000000000000000000000000000';

/**
 * The trace id of a W3C `traceparent` header (version `ff` and the all-zero id
 * are invalid by the spec); undefined without a valid one.
 */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  if (traceparent === undefined) return undefined;
  const m = TRACEPARENT.exec(traceparent.trim());
  if (m === null || m[1] === 'ff' || m[2] === NO_TRACE) return undefined;
  return m[2];
}

/**
 * The trace id an access line carries from the caller's `traceparent`, checked
 * (it is a request header). While tracing, the invoke path hands in its
 * request's own trace id instead (which continues the caller's trace, so the
 * two agree when both exist, and names the trace it began when the caller sent
 * none), already valid, so no pattern runs on it.
 */
export function accessTraceId(traceparent: string | undefined): string | undefined {
  return traceIdOf(traceparent);
}

/** The error code a management answer carried (set where errors are answered, src/http/errors.ts). */
const answeredCodes = new WeakMap<object, string>();

export function noteErrorCode(reply: FastifyReply, code: string): void {
  answeredCodes.set(reply, code);
}

export interface AccessLogDeps {
  log: Logger;
  /** False: only answers of 500 and above get a line (warn). */
  enabled: boolean;
  redaction: QueryRedaction;
}

export class AccessLog {
  readonly enabled: boolean;
  private readonly log: Logger;
  private readonly redaction: QueryRedaction;

  constructor(deps: AccessLogDeps) {
    this.log = deps.log;
    this.enabled = deps.enabled;
    this.redaction = deps.redaction;
  }

  /** Whether an answer of this status gets a line: every one when on, 5xx only when off. */
  wants(status: number): boolean {
    return this.enabled || status >= 500;
  }

  /** One invocation's line; `url` is the raw request target, redacted here. */
  invocation(
    line: {
      method: string;
      url: string;
      status: number;
      ms: number;
      requestId: string;
      /** See accessTraceId. */
      traceId: string | undefined;
      apiId: string;
      errorCode: string | undefined;
    },
    facts: InvocationFacts | undefined,
  ): void {
    const fields: Record<string, unknown> = {
      type: 'access',
      method: line.method,
      route: facts?.route,
      url: redactUrl(line.url, this.redaction),
      status: line.status,
      ms: roundMs(line.ms),
      errorCode: line.errorCode,
      requestId: line.requestId,
      trace_id: line.traceId,
      api: line.apiId,
      function: facts?.function,
    };
    this.write(line.status, fields);
  }

  /** A management request's line, from Fastify's request and reply (its `request.log` already names the requestId). */
  management(request: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode;
    const traceparent = request.headers.traceparent;
    const fields: Record<string, unknown> = {
      type: 'access',
      method: request.method,
      route: request.routeOptions.url,
      url: redactUrl(request.url, this.redaction),
      status,
      ms: roundMs(reply.elapsedTime),
      errorCode: answeredCodes.get(reply),
      trace_id: accessTraceId(typeof traceparent === 'string' ? traceparent : undefined),
    };
    (request.log as Logger)[status >= 500 ? 'warn' : 'info'](fields, 'request');
  }

  private write(status: number, fields: Record<string, unknown>): void {
    this.log[status >= 500 ? 'warn' : 'info'](fields, 'request');
  }
}

/** Durations to a tenth of a millisecond: finer is noise in a log line. */
function roundMs(ms: number): number {
  return Math.round(ms * 10) / 10;
}
