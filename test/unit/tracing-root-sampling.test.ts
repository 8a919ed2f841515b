/**
 * Request spans without a caller's `traceparent` (src/telemetry/tracing.ts,
 * `Tracing.server`): the root sampler's decision is taken before the SDK is
 * asked, and a kept request starts in the SDK on the very trace id decided
 * on. Checked against the SDK's own ratio sampler and a real OTLP/HTTP
 * receiver: what is exported is exactly what was reported as recording, at
 * the configured ratio, and dropped requests still carry valid ids to pass on.
 */
import { ROOT_CONTEXT, SamplingDecision } from '@opentelemetry/api';
import { TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { Tracing } from '../../src/telemetry/tracing.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';

let otlp: OtlpReceiver | undefined;
let tracing: Tracing | undefined;
afterEach(async () => {
  await tracing?.shutdown();
  await otlp?.close();
  tracing = otlp = undefined;
});

async function tracingAt(sampler: string, ratio?: string): Promise<Tracing> {
  otlp = await startOtlpReceiver();
  const cfg = loadConfig({
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_TRACES_SAMPLER: sampler,
    ...(ratio === undefined ? {} : { OTEL_TRACES_SAMPLER_ARG: ratio }),
  }).telemetry!;
  tracing = new Tracing(cfg);
  return tracing;
}

/** Flushes and stops the tracing under test, so the receiver holds all it exported. */
async function flushed(): Promise<void> {
  await tracing!.shutdown();
  tracing = undefined;
}

const exportedTraceIds = (r: OtlpReceiver): string[] =>
  r.posts.flatMap((p) => p.json.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans.map((sp: any) => sp.traceId))));

describe('root request sampling', () => {
  it('keeps a request exactly when the SDK ratio sampler keeps its trace id, and exports what it kept', async () => {
    const t = await tracingAt('parentbased_traceidratio', '0.5');
    const reference = new TraceIdRatioBasedSampler(0.5);
    const kept: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const span = t.server('GET', undefined, undefined, { 'http.request.method': 'GET' });
      const { traceId, spanId, traceFlags } = span.spanContext();
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(spanId).toMatch(/^[0-9a-f]{16}$/);
      const sdkKeeps = reference.shouldSample(ROOT_CONTEXT, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED;
      expect(span.isRecording()).toBe(sdkKeeps);
      expect(traceFlags).toBe(sdkKeeps ? 1 : 0);
      // A dropped request still hands its trace on, marked not sampled.
      expect(t.carrierOf(span)).toBe(`00-${traceId}-${spanId}-0${traceFlags}`);
      if (span.isRecording()) kept.push(traceId);
      span.end();
    }
    // Half, give or take five standard deviations (16): a kept request re-decided on a fresh id would keep a quarter.
    expect(kept.length).toBeGreaterThan(420);
    expect(kept.length).toBeLessThan(580);
    await flushed();
    expect(exportedTraceIds(otlp!).sort()).toEqual(kept.sort());
  });

  it('lets a caller\'s sampled traceparent decide under a parent-based sampler, even at a ratio of 0', async () => {
    const t = await tracingAt('parentbased_traceidratio', '0');
    const caller = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const span = t.server('GET', caller, undefined);
    expect(span.isRecording()).toBe(true);
    expect(span.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    span.end();
    const root = t.server('GET', undefined, undefined);
    expect(root.isRecording()).toBe(false);
    root.end();
    await flushed();
    expect(exportedTraceIds(otlp!)).toEqual(['0af7651916cd43dd8448eb211c80319c']);
  });

  it('samples every root under always_on and none under always_off', async () => {
    const on = await tracingAt('always_on');
    expect(Array.from({ length: 20 }, () => on.server('GET', undefined, undefined)).every((s) => s.isRecording())).toBe(true);
    await flushed();
    await otlp!.close();
    const off = await tracingAt('always_off');
    const spans = Array.from({ length: 20 }, () => off.server('GET', undefined, undefined, {}));
    expect(spans.some((s) => s.isRecording())).toBe(false);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(20);
  });
});
