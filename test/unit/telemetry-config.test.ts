/**
 * The OTEL_* variables -> TelemetryConfig (src/telemetry/config.ts), read
 * through loadConfig as the server reads them: off unless an endpoint or the
 * otlp exporter is named, the specification's endpoint and protocol rules,
 * and a wrong value refused with the variable's name.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const t = (env: Record<string, string>) => loadConfig(env).telemetry;

describe('telemetry configuration', () => {
  it('is off by default, and with an exporter of none or the SDK disabled', () => {
    expect(t({})).toBeNull();
    expect(t({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).toBeNull();
    expect(t({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
    expect(t({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
  });

  it('takes the endpoint, protocol, headers, resource and sampler by the specification', () => {
    expect(t({ OTEL_TRACES_EXPORTER: 'otlp' })).toMatchObject({ endpoint: 'http://localhost:4318/v1/traces', protocol: 'http/protobuf', serviceName: 'switchyard' });
    expect(t({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })!.endpoint).toBe('http://c:4318/v1/traces');
    expect(t({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://t.example/x' })!.endpoint).toBe('https://t.example/x');
    const c = t({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=a%20b,x=1',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x=2',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-resource,deployment.environment.name=prod',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    })!;
    expect(c).toMatchObject({
      protocol: 'http/json',
      headers: { 'api-key': 'a b', x: '2' },
      serviceName: 'from-resource',
      resourceAttributes: { 'deployment.environment.name': 'prod' },
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.1,
    });
    expect(t({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SERVICE_NAME: 'gw', OTEL_RESOURCE_ATTRIBUTES: 'service.name=r' })!.serviceName).toBe('gw');
  });

  it('refuses what it cannot do, naming the variable', () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(() => t({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() => t({ ...on, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL.*gRPC/);
    expect(() => t({ OTEL_EXPORTER_OTLP_ENDPOINT: 'c:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(() => t({ ...on, OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(() => t({ ...on, OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
    expect(() => t({ ...on, OTEL_RESOURCE_ATTRIBUTES: 'novalue' })).toThrow(/OTEL_RESOURCE_ATTRIBUTES/);
    expect(() => t({ ...on, OTEL_BSP_SCHEDULE_DELAY: 'soon' })).toThrow(/OTEL_BSP_SCHEDULE_DELAY/);
  });

  it('never repeats a header value in its error: headers carry the collector\'s credentials', () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    for (const headers of ['api-key=s3cret,oops', 'api-key=s3cret%zz']) {
      let message = '';
      try {
        t({ ...on, OTEL_EXPORTER_OTLP_HEADERS: headers });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/OTEL_EXPORTER_OTLP_HEADERS.*pair [12]/);
      expect(message).not.toContain('s3cret');
    }
  });
});
