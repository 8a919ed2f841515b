/**
 * OpenTelemetry traces over real HTTP: the tests' own OTLP/HTTP receiver gets
 * one trace for a request whose function fetches a local server and emits an
 * event delivered to a webhook (the request, the invocation, the fetch, the
 * emit and the webhook attempt, each the child of the one before it), and the
 * local server and the webhook receiver see that trace in `traceparent`.
 * With both isolate placements (worker processes and in-process), JSON and
 * protobuf, a publish through the management API, and off: nothing
 * exported, no `traceparent` added by Switchyard.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number };
}

/** Every span of the receiver's JSON traces posts, in the order they came. */
function spansOf(otlp: OtlpReceiver): OtlpSpan[] {
  return otlp.posts
    .filter((p) => p.path === '/v1/traces' && p.json !== null)
    .flatMap((p) => (p.json as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }).resourceSpans)
    .flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
}

const attr = (span: OtlpSpan, key: string): unknown => {
  const v = span.attributes.find((a) => a.key === key)?.value;
  if (v === undefined) return undefined;
  return v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.boolValue));
};

const CALLER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER_PARENT = `00-${CALLER_TRACE}-b7ad6b7169203331-01`;
/** A caller's trace per test, so spans the receiver got for another test are not counted. */
const callerParent = (n: number) => `00-${CALLER_TRACE.slice(0, -1)}${n}-b7ad6b7169203331-01`;

function handlerFor(downstream: string): string {
  return `export const handler = async (event, context) => {
    const r = await fetch(${JSON.stringify(downstream + '/down?token=s3cret&page=2')});
    emit('otel.checked', { status: r.status });
    return { statusCode: 200, body: JSON.stringify({ traceparent: context.traceparent ?? null, header: event.headers.traceparent ?? null }) };
  };`;
}

interface Scene {
  svc: RunningService;
  downstream: Receiver;
  hooks: Receiver;
  hookId: string;
  invokePath: string;
  lockedPath: string;
}

async function scene(env: Record<string, string>): Promise<Scene> {
  const downstream = await startReceiver();
  const hooks = await startReceiver();
  const svc = await startService({ env: { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1', ...env }, startTimeoutMs: 60_000 });
  const fn = await svc.request('POST', '/api/functions', { name: 'traced', code: handlerFor(downstream.url) });
  expect(fn.status, fn.text).toBe(201);
  // A function subscribed to the emitted event: its background run joins the trace too.
  const sub = await svc.request('POST', '/api/functions', { name: 'on-checked', code: 'export const handler = async (event) => event.detail;', events: ['otel.checked'] });
  expect(sub.status, sub.text).toBe(201);
  const hook = await svc.request('POST', '/api/webhooks', {
    name: 'checked',
    target_url: hooks.url + '/hook?sig=hook-s3cret',
    method: 'POST',
    payload_template: { data: {} },
    events: ['otel.checked'],
  });
  expect(hook.status, hook.text).toBe(201);
  const api = await svc.request('POST', '/api/apis', {
    name: 'traced',
    basePath: '/',
    routes: [
      { method: 'GET', path: '/items/{id}', function: 'traced' },
      { method: 'GET', path: '/locked', function: 'traced', apiKeyRequired: true },
    ],
  });
  expect(api.status, api.text).toBe(201);
  return { svc, downstream, hooks, hookId: hook.json.id, invokePath: `/api/invoke/fn/${api.json.id}/items/7`, lockedPath: `/api/invoke/fn/${api.json.id}/locked` };
}

async function closeScene(s: Scene | undefined): Promise<void> {
  if (!s) return;
  await s.svc.stop();
  await s.downstream.close();
  await s.hooks.close();
}

const traceIdOf = (traceparent: unknown) => String(traceparent).split('-')[1];
const spanIdOf = (traceparent: unknown) => String(traceparent).split('-')[2];

/** One request through the scene; checks the trace the receiver got and the headers downstream saw. */
async function checkOneTrace(s: Scene, otlp: OtlpReceiver, n: number): Promise<void> {
  const parent = callerParent(n);
  const callerTrace = traceIdOf(parent);
  const res = await s.svc.request('GET', s.invokePath, undefined, { traceparent: parent, tracestate: 'vendor=abc' });
  expect(res.status, res.text).toBe(200);
  const ctxParent = res.json.traceparent as string;
  // The caller's header is in the event as sent; the context names the invocation's span in the caller's trace.
  expect(res.json.header).toBe(parent);
  expect(traceIdOf(ctxParent)).toBe(callerTrace);

  const down = await until(() => s.downstream.requests.find((r) => r.url.startsWith('/down')), 'the function fetch');
  const hook = await until(() => s.hooks.requests.find((r) => r.url.startsWith('/hook')), 'the webhook delivery');
  expect(traceIdOf(down.headers.traceparent)).toBe(callerTrace);
  expect(down.headers.tracestate).toBe('vendor=abc');
  expect(traceIdOf(hook.headers.traceparent)).toBe(callerTrace);

  const all = await until(() => {
    const mine = spansOf(otlp).filter((sp) => sp.traceId === callerTrace);
    return mine.some((sp) => sp.name === 'webhook POST') && mine.some((sp) => sp.name === 'run on-checked') && mine.length >= 6 ? mine : null;
  }, 'six spans of the trace at the OTLP receiver', 30_000);
  const byName = (name: string) => {
    const found = all.filter((sp) => sp.name === name);
    expect(found, `one span named ${name}: ${all.map((sp) => sp.name).join(', ')}`).toHaveLength(1);
    return found[0];
  };
  const request = byName('GET /items/{id}');
  const invoke = byName('invoke traced');
  const fetchSpan = byName('GET');
  const emit = byName('emit otel.checked');
  const attempt = byName('webhook POST');

  // SERVER 2, INTERNAL 1, CLIENT 3, PRODUCER 4 (OTLP's numbering: the API's plus one).
  expect(request).toMatchObject({ kind: 2, parentSpanId: 'b7ad6b7169203331' });
  expect(attr(request, 'http.route')).toBe('/items/{id}');
  expect(attr(request, 'http.request.method')).toBe('GET');
  expect(attr(request, 'http.response.status_code')).toBe(200);
  expect(attr(request, 'switchyard.api_id')).toEqual(expect.stringMatching(/^api_/));
  expect(invoke).toMatchObject({ kind: 1, parentSpanId: request.spanId });
  expect(invoke.spanId).toBe(spanIdOf(ctxParent));
  expect(attr(invoke, 'faas.invoked_name')).toBe('traced');
  expect(typeof attr(invoke, 'switchyard.isolate_ms')).toBe('number');
  // The scene's first request: its isolate was started for it.
  expect(attr(invoke, 'faas.coldstart')).toBe(true);
  expect(fetchSpan).toMatchObject({ kind: 3, parentSpanId: invoke.spanId });
  expect(attr(fetchSpan, 'http.response.status_code')).toBe(200);
  // URLs in spans are redacted as log lines are: a token in a query never reaches the collector.
  expect(attr(fetchSpan, 'url.full')).toBe(`${s.downstream.url}/down?token=[redacted]&page=2`);
  expect(attr(attempt, 'url.full')).toBe(`${s.hooks.url}/hook?sig=[redacted]`);
  // The downstream server's parent is the fetch span itself.
  expect(spanIdOf(down.headers.traceparent)).toBe(fetchSpan.spanId);
  expect(emit).toMatchObject({ kind: 4, parentSpanId: invoke.spanId });
  expect(attempt).toMatchObject({ kind: 3, parentSpanId: emit.spanId });
  expect(attr(attempt, 'switchyard.delivery.attempt')).toBe(1);
  expect(attr(attempt, 'http.response.status_code')).toBe(200);
  expect(attr(attempt, 'switchyard.webhook_id_header')).toBe(hook.headers['webhook-id']);
  expect(spanIdOf(hook.headers.traceparent)).toBe(attempt.spanId);
  // CONSUMER 5: the subscribed function's run, under the emit.
  const run = byName('run on-checked');
  expect(run).toMatchObject({ kind: 5, parentSpanId: emit.spanId });
  expect(attr(run, 'faas.trigger')).toBe('pubsub');
  expect(attr(run, 'faas.coldstart')).toBe(true);
}

describe('OpenTelemetry traces', () => {
  let otlp: OtlpReceiver;
  beforeAll(async () => {
    otlp = await startOtlpReceiver();
  });
  afterAll(async () => {
    await otlp?.close();
  });

  const json = (extra: Record<string, string> = {}) => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_SERVICE_NAME: 'switchyard-test',
    ...extra,
  });

  it('exports one trace per request, worker processes: request, invocation, fetch, emit and webhook attempt', async () => {
    let s: Scene | undefined;
    try {
      s = await scene(json());
      await checkOneTrace(s, otlp, 1);
      // A publish through the management API joins its request's trace, and so does its delivery.
      const parent = callerParent(3);
      const published = await s.svc.request('POST', '/api/events', { event: 'otel.checked', data: { by: 'api' } }, { traceparent: parent });
      expect(published.status, published.text).toBe(202);
      await until(() => s!.hooks.requests.find((r) => traceIdOf(r.headers.traceparent) === traceIdOf(parent)), 'the published delivery, in its trace');
      const [request, attempt, subscriberRun] = await until(() => {
        const mine = spansOf(otlp).filter((sp) => sp.traceId === traceIdOf(parent));
        const req = mine.find((sp) => sp.name === 'POST /api/events');
        const att = mine.find((sp) => sp.name === 'webhook POST');
        const ran = mine.find((sp) => sp.name === 'run on-checked');
        return req && att && ran ? [req, att, ran] : null;
      }, 'the publish, its attempt and its subscriber\'s run at the OTLP receiver');
      // The subscriber's second run: its isolate was warm.
      expect(attr(subscriberRun, 'faas.coldstart')).toBe(false);
      expect(request).toMatchObject({ kind: 2, parentSpanId: spanIdOf(parent) });
      expect(attr(request, 'http.response.status_code')).toBe(202);
      expect(attempt.parentSpanId).toBe(request.spanId);
      // A route with a policy: its checks are a span of their own, failed with the refusal's reason.
      const locked = callerParent(7);
      const refused = await s.svc.request('GET', s.lockedPath, undefined, { traceparent: locked });
      expect(refused.status).toBe(403);
      const [lockedRequest, authorize] = await until(() => {
        const mine = spansOf(otlp).filter((sp) => sp.traceId === traceIdOf(locked));
        const req = mine.find((sp) => sp.name === 'GET /locked');
        const auth = mine.find((sp) => sp.name === 'authorize');
        return req && auth ? [req, auth] : null;
      }, 'the refused request and its authorisation span');
      expect(attr(lockedRequest, 'http.response.status_code')).toBe(403);
      expect(authorize).toMatchObject({ kind: 1, parentSpanId: lockedRequest.spanId, status: { code: 2 } });
      expect(spansOf(otlp).some((sp) => sp.traceId === traceIdOf(locked) && sp.name.startsWith('invoke'))).toBe(false);
      // A manual invoke, and a background one, run in their request's trace: the function's fetch says so.
      const manual = callerParent(5);
      expect((await s.svc.request('POST', '/api/functions/traced/invoke', {}, { traceparent: manual })).status).toBe(200);
      await until(() => s!.downstream.requests.find((r) => traceIdOf(r.headers.traceparent) === traceIdOf(manual)), 'the manual invoke\'s fetch, in its trace');
      const queued = callerParent(6);
      expect((await s.svc.request('POST', '/api/functions/traced/invoke', {}, { traceparent: queued, 'x-invocation-type': 'Event' })).status).toBe(202);
      await until(() => s!.downstream.requests.find((r) => traceIdOf(r.headers.traceparent) === traceIdOf(queued)), 'the background invoke\'s fetch, in its trace');
      await until(() => spansOf(otlp).find((sp) => sp.traceId === traceIdOf(queued) && sp.name === 'run traced' && sp.kind === 5), 'the background run\'s span');
      // A test-fire's attempt is in its request's trace too.
      const fired = callerParent(4);
      const test = await s.svc.request('POST', `/api/webhooks/${s.hookId}/test`, undefined, { traceparent: fired });
      expect(test.status, test.text).toBe(200);
      await until(() => s!.hooks.requests.find((r) => traceIdOf(r.headers.traceparent) === traceIdOf(fired)), 'the test-fire, in its trace');
    } finally {
      await closeScene(s);
    }
  });

  it('exports the same trace with isolates in the server processes', async () => {
    let s: Scene | undefined;
    try {
      s = await scene(json({ SWITCHYARD_PROCESSES: '2', SWITCHYARD_ISOLATES: 'in-process' }));
      await checkOneTrace(s, otlp, 2);
    } finally {
      await closeScene(s);
    }
  });

  it('sends protobuf by default, and log lines inside a span carry its ids', async () => {
    let s: Scene | undefined;
    try {
      const before = otlp.posts.length;
      s = await scene({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.url}/v1/traces`, OTEL_BSP_SCHEDULE_DELAY: '100', LOG_LEVEL: 'debug' });
      const res = await s.svc.request('GET', s.invokePath);
      expect(res.status, res.text).toBe(200);
      // No caller trace: the invocation starts one of its own.
      expect(res.json.header).toBeNull();
      expect(res.json.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      const post = await until(() => otlp.posts.slice(before).find((p) => p.contentType === 'application/x-protobuf' && p.bytes > 0), 'a protobuf post');
      expect(post.bytes).toBeGreaterThan(50);
      const traceId = traceIdOf(res.json.traceparent);
      const line = await until(
        () => s!.svc.output.join('').split('\n').find((l) => l.includes('"type":"access"') && l.includes(`"trace_id":"${traceId}"`)),
        'the access line with the trace id',
      );
      expect(JSON.parse(line).span_id).toMatch(/^[0-9a-f]{16}$/);
    } finally {
      await closeScene(s);
    }
  });

  it('samples by the standard variables: always_off exports nothing but still passes the context on', async () => {
    let s: Scene | undefined;
    try {
      s = await scene(json({ OTEL_TRACES_SAMPLER: 'always_off' }));
      const before = spansOf(otlp).length;
      const res = await s.svc.request('GET', s.invokePath);
      expect(res.status).toBe(200);
      expect(res.json.traceparent).toMatch(/-00$/);
      const down = await until(() => s!.downstream.requests.find((r) => r.url.startsWith('/down')), 'the function fetch');
      expect(String(down.headers.traceparent)).toMatch(/-00$/);
      // The unsampled request's own trace id, the one its function passed on, is in its access line.
      expect(traceIdOf(down.headers.traceparent)).toBe(traceIdOf(res.json.traceparent));
      await until(
        () => s!.svc.output.join('').split('\n').find((l) => l.includes('"type":"access"') && l.includes(`"trace_id":"${traceIdOf(res.json.traceparent)}"`)),
        'the access line with the unsampled trace id',
      );
      await until(() => s!.hooks.requests.find((r) => r.url.startsWith('/hook')), 'the webhook delivery');
      await s.svc.stop();
      expect(spansOf(otlp).length).toBe(before);
    } finally {
      await closeScene(s);
    }
  });

  it('calls a sampled run warm when an unsampled one started its isolate', async () => {
    let s: Scene | undefined;
    try {
      // One worker, one process: both requests reach the same isolate.
      s = await scene(json({ OTEL_TRACES_SAMPLER: 'parentbased_always_off', SWITCHYARD_PROCESSES: '1', SWITCHYARD_WORKERS: '1' }));
      const cold = await s.svc.request('GET', s.invokePath);
      expect(cold.status, cold.text).toBe(200);
      expect(cold.json.traceparent).toMatch(/-00$/);
      const parent = callerParent(8);
      const warm = await s.svc.request('GET', s.invokePath, undefined, { traceparent: parent });
      expect(warm.status, warm.text).toBe(200);
      const invoke = await until(() => spansOf(otlp).find((sp) => sp.traceId === traceIdOf(parent) && sp.name === 'invoke traced'), 'the sampled invocation span');
      expect(attr(invoke, 'faas.coldstart')).toBe(false);
      await s.svc.stop();
      expect(spansOf(otlp).some((sp) => sp.traceId === traceIdOf(cold.json.traceparent))).toBe(false);
    } finally {
      await closeScene(s);
    }
  });

  it('off: nothing exported, and Switchyard adds no traceparent of its own', async () => {
    let s: Scene | undefined;
    try {
      const before = otlp.posts.length;
      // OTEL_SERVICE_NAME alone does not turn tracing on: no endpoint, no exporter named.
      s = await scene({ OTEL_SERVICE_NAME: 'switchyard-test' });
      const res = await s.svc.request('GET', s.invokePath, undefined, { traceparent: CALLER_PARENT });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ traceparent: null, header: CALLER_PARENT });
      const down = await until(() => s!.downstream.requests.find((r) => r.url.startsWith('/down')), 'the function fetch');
      const hook = await until(() => s!.hooks.requests.find((r) => r.url.startsWith('/hook')), 'the webhook delivery');
      expect(down.headers.traceparent).toBeUndefined();
      expect(hook.headers.traceparent).toBeUndefined();
      await s.svc.stop();
      expect(otlp.posts.length).toBe(before);
    } finally {
      await closeScene(s);
    }
  });

  it('the documented collector configuration receives OTLP over HTTP on the port Switchyard sends to', () => {
    const doc = parseYaml(readFileSync(new URL('../../docs/otel-collector.yaml', import.meta.url), 'utf8')) as any;
    expect(doc.receivers.otlp.protocols.http.endpoint).toMatch(/:4318$/);
    expect(doc.service.pipelines.traces.receivers).toContain('otlp');
    const page = readFileSync(new URL('../../docs/observability.md', import.meta.url), 'utf8');
    // The page shows the same file.
    expect(page).toContain(readFileSync(new URL('../../docs/otel-collector.yaml', import.meta.url), 'utf8').trim());
  });
});
