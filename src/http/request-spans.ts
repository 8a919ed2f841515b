/**
 * A SERVER span for each management API request while tracing (a Fastify
 * hook pair; registered only when tracing is on), so what a request starts,
 * an event published with `POST /api/events` say, joins its trace: the
 * caller's `traceparent` is its parent, and routes read the span's context
 * with `carrierOf` to hand on.
 */
import type { Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Tracing } from '../telemetry/tracing.js';
import type { TraceCarrier } from '../telemetry/types.js';

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(',') : v);

export class RequestSpans {
  private readonly tracing: Tracing;
  private readonly spans = new WeakMap<FastifyRequest, Span>();

  constructor(deps: { tracing: Tracing }) {
    this.tracing = deps.tracing;
  }

  register(app: FastifyInstance): void {
    const { tracing, spans } = this;
    app.addHook('onRequest', async function startSpan(request) {
      const route = request.routeOptions.url;
      const span = tracing.server(route === undefined ? request.method : `${request.method} ${route}`, one(request.headers.traceparent), one(request.headers.tracestate), {
        'http.request.method': request.method,
        'url.path': request.url.split('?', 1)[0],
        ...(route === undefined ? {} : { 'http.route': route }),
      });
      spans.set(request, span);
    });
    app.addHook('onResponse', async function endSpan(request, reply) {
      const span = spans.get(request);
      if (span === undefined) return;
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) tracing.failed(span, String(reply.statusCode));
      span.end();
    });
  }

  /** The request's span as a carrier; undefined for a request without one. */
  carrierOf(request: FastifyRequest): TraceCarrier | undefined {
    const span = this.spans.get(request);
    return span === undefined ? undefined : this.tracing.carrierOf(span);
  }
}
