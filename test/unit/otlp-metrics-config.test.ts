/**
 * OTEL_METRICS_EXPORTER and the metrics exporter's variables -> the OTLP
 * metrics push (src/telemetry/config.ts), read through loadConfig: off unless
 * otlp is named, the signal-over-base endpoint rule, and a wrong value
 * refused with the variable's name.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const m = (env: Record<string, string>) => loadConfig(env).metricsExport;

describe('OTLP metrics configuration', () => {
  it('is off by default, with prometheus or none, and with the SDK disabled', () => {
    expect(m({})).toBeNull();
    expect(m({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBeNull();
    expect(m({ OTEL_METRICS_EXPORTER: 'prometheus' })).toBeNull();
    expect(m({ OTEL_METRICS_EXPORTER: 'none' })).toBeNull();
    expect(m({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' })).toBeNull();
  });

  it('takes the endpoint, protocol, headers, interval and timeouts by the specification', () => {
    expect(m({ OTEL_METRICS_EXPORTER: 'otlp' })).toMatchObject({
      endpoint: 'http://localhost:4318/v1/metrics',
      protocol: 'http/protobuf',
      intervalMs: 60_000,
      exportTimeoutMs: 30_000,
      requestTimeoutMs: 10_000,
      serviceName: 'switchyard',
    });
    expect(m({ OTEL_METRICS_EXPORTER: 'prometheus,otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })!.endpoint).toBe('http://c:4318/v1/metrics');
    expect(m({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://m.example/x' })!.endpoint).toBe('https://m.example/x');
    expect(
      m({
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: 'api-key=a%20b,x=1',
        OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'x=2',
        OTEL_SERVICE_NAME: 'yard',
        OTEL_METRIC_EXPORT_INTERVAL: '5000',
        OTEL_METRIC_EXPORT_TIMEOUT: '9000',
        OTEL_EXPORTER_OTLP_METRICS_TIMEOUT: '2000',
      }),
    ).toMatchObject({ protocol: 'http/json', headers: { 'api-key': 'a b', x: '2' }, serviceName: 'yard', intervalMs: 5000, exportTimeoutMs: 5000, requestTimeoutMs: 2000 });
  });

  it('refuses what it cannot do, naming the variable', () => {
    expect(() => m({ OTEL_METRICS_EXPORTER: 'console' })).toThrow(/OTEL_METRICS_EXPORTER/);
    expect(() => m({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_METRICS_PROTOCOL/);
    expect(() => m({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'c:4318' })).toThrow(/OTEL_EXPORTER_OTLP_METRICS_ENDPOINT/);
    expect(() => m({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_METRIC_EXPORT_INTERVAL: '1s' })).toThrow(/OTEL_METRIC_EXPORT_INTERVAL/);
    expect(() => m({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_METRIC_EXPORT_TIMEOUT: '0' })).toThrow(/OTEL_METRIC_EXPORT_TIMEOUT/);
  });
});
