/**
 * The standard OpenTelemetry variables (OTEL_*, as the SDK specification
 * names them) -> TelemetryConfig, or null when tracing is off. Called by
 * src/config.ts, the one reader of the environment: the SDK's own readers
 * are not used, so a wrong value fails the start with the variable's name.
 *
 * Tracing is off unless an OTLP endpoint is configured or
 * OTEL_TRACES_EXPORTER=otlp is said outright. The specification's default
 * exporter is OTLP to localhost:4318, but a server started without a
 * collector would then spend every request on spans it can only fail to send.
 */
import { ConfigError } from '../errors.js';
import type { MetricsExportConfig, TelemetryConfig } from './types.js';

type Env = Readonly<Record<string, string | undefined>>;

const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

const val = (env: Env, name: string): string | null => {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? null : v;
};

/** `k=v,k2=v2` with percent-encoded parts (OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_HEADERS). */
function pairs(env: Env, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  const text = val(env, name);
  if (text === null) return out;
  const parts = text.split(',');
  for (let n = 0; n < parts.length; n++) {
    const part = parts[n];
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    // Headers carry the collector's credentials: an error names where, never what (a start-up line lands in logs).
    const secret = name.endsWith('_HEADERS');
    const which = `pair ${n + 1}`;
    if (eq <= 0) {
      throw new ConfigError(`${name} must be a list of key=value pairs separated by commas` + (secret ? ` (${which} is not one)` : `, got "${text}"`));
    }
    try {
      out[decodeURIComponent(part.slice(0, eq).trim())] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      throw new ConfigError(`${name} has a badly percent-encoded pair` + (secret ? ` (${which})` : `: "${part}"`));
    }
  }
  return out;
}

function whole(env: Env, name: string, fallback: number, unit: string): number {
  const text = val(env, name);
  if (text === null) return fallback;
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || n < 1 || n > 600_000) throw new ConfigError(`${name} must be a whole number of ${unit} from 1 to 600000, got "${text}"`);
  return n;
}

function url(name: string, text: string): string {
  try {
    const u = new URL(text);
    if (u.protocol === 'http:' || u.protocol === 'https:') return text;
  } catch {
    // worded below
  }
  throw new ConfigError(`${name} must be an http:// or https:// URL, got "${text}"`);
}

export function telemetryConfig(env: Env): TelemetryConfig | null {
  const disabled = val(env, 'OTEL_SDK_DISABLED');
  if (disabled !== null && disabled.toLowerCase() === 'true') return null;
  const exporters = (val(env, 'OTEL_TRACES_EXPORTER') ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '');
  for (const e of exporters) {
    if (e !== 'otlp' && e !== 'none') throw new ConfigError(`OTEL_TRACES_EXPORTER must be otlp or none (the exporters Switchyard has), got "${e}"`);
  }
  if (exporters.includes('none')) return null;
  const tracesEndpoint = val(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const baseEndpoint = val(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (tracesEndpoint === null && baseEndpoint === null && !exporters.includes('otlp')) return null;
  // The signal's own variable is the whole URL; the base one gets the signal's path (the specification's rule).
  const endpoint =
    tracesEndpoint !== null
      ? url('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', tracesEndpoint)
      : baseEndpoint !== null
        ? url('OTEL_EXPORTER_OTLP_ENDPOINT', baseEndpoint).replace(/\/*$/, '') + '/v1/traces'
        : 'http://localhost:4318/v1/traces';
  const protocolName = val(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = val(env, protocolName) ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new ConfigError(`${protocolName} must be http/protobuf or http/json (gRPC is not built in: send to a collector over HTTP), got "${protocol}"`);
  }
  const resourceAttributes = pairs(env, 'OTEL_RESOURCE_ATTRIBUTES');
  const sampler = (val(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on') as TelemetryConfig['sampler'];
  if (!SAMPLERS.includes(sampler)) throw new ConfigError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, got "${sampler}"`);
  const argText = val(env, 'OTEL_TRACES_SAMPLER_ARG');
  const samplerRatio = argText === null ? 1 : Number(argText);
  if (!Number.isFinite(samplerRatio) || samplerRatio < 0 || samplerRatio > 1) {
    throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "${argText}"`);
  }
  const maxQueueSize = whole(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048, 'spans');
  return Object.freeze({
    endpoint,
    protocol,
    headers: Object.freeze({ ...pairs(env, 'OTEL_EXPORTER_OTLP_HEADERS'), ...pairs(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS') }),
    timeoutMs: whole(env, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', whole(env, 'OTEL_EXPORTER_OTLP_TIMEOUT', 10_000, 'milliseconds'), 'milliseconds'),
    serviceName: val(env, 'OTEL_SERVICE_NAME') ?? resourceAttributes['service.name'] ?? 'switchyard',
    resourceAttributes: Object.freeze(resourceAttributes),
    sampler,
    samplerRatio,
    batch: Object.freeze({
      scheduledDelayMillis: whole(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000, 'milliseconds'),
      maxQueueSize,
      maxExportBatchSize: Math.min(maxQueueSize, whole(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512, 'spans')),
    }),
  });
}

/**
 * OTEL_METRICS_EXPORTER and the metrics exporter's variables -> the OTLP
 * metrics push, or null when only GET /metrics serves them (`prometheus`,
 * the default, or `none`). Endpoint, protocol, headers and timeout follow
 * the same signal-over-base rule as the traces. The specification's default
 * exporter is otlp; Switchyard's is prometheus, the scrape it always had, for
 * the reason tracing is off by default: a push with no collector only fails.
 */
export function metricsExportConfig(env: Env): MetricsExportConfig | null {
  const disabled = val(env, 'OTEL_SDK_DISABLED');
  if (disabled !== null && disabled.toLowerCase() === 'true') return null;
  const exporters = (val(env, 'OTEL_METRICS_EXPORTER') ?? 'prometheus').split(',').map((e) => e.trim()).filter((e) => e !== '');
  for (const e of exporters) {
    if (e !== 'otlp' && e !== 'prometheus' && e !== 'none') {
      throw new ConfigError(`OTEL_METRICS_EXPORTER must be prometheus, otlp or none (the exporters Switchyard has), got "${e}"`);
    }
  }
  if (!exporters.includes('otlp') || exporters.includes('none')) return null;
  const metricsEndpoint = val(env, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT');
  const baseEndpoint = val(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const endpoint =
    metricsEndpoint !== null
      ? url('OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', metricsEndpoint)
      : baseEndpoint !== null
        ? url('OTEL_EXPORTER_OTLP_ENDPOINT', baseEndpoint).replace(/\/*$/, '') + '/v1/metrics'
        : 'http://localhost:4318/v1/metrics';
  const protocolName = val(env, 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = val(env, protocolName) ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new ConfigError(`${protocolName} must be http/protobuf or http/json (gRPC is not built in: send to a collector over HTTP), got "${protocol}"`);
  }
  const resourceAttributes = pairs(env, 'OTEL_RESOURCE_ATTRIBUTES');
  const intervalMs = whole(env, 'OTEL_METRIC_EXPORT_INTERVAL', 60_000, 'milliseconds');
  const exportTimeoutMs = whole(env, 'OTEL_METRIC_EXPORT_TIMEOUT', 30_000, 'milliseconds');
  const requestTimeoutMs = whole(env, 'OTEL_EXPORTER_OTLP_METRICS_TIMEOUT', whole(env, 'OTEL_EXPORTER_OTLP_TIMEOUT', 10_000, 'milliseconds'), 'milliseconds');
  return Object.freeze({
    endpoint,
    protocol,
    headers: Object.freeze({ ...pairs(env, 'OTEL_EXPORTER_OTLP_HEADERS'), ...pairs(env, 'OTEL_EXPORTER_OTLP_METRICS_HEADERS') }),
    // The SDK refuses a timeout above the interval; an export cannot outlast the next one anyway.
    exportTimeoutMs: Math.min(exportTimeoutMs, intervalMs),
    requestTimeoutMs: Math.min(requestTimeoutMs, intervalMs),
    intervalMs,
    serviceName: val(env, 'OTEL_SERVICE_NAME') ?? resourceAttributes['service.name'] ?? 'switchyard',
    resourceAttributes: Object.freeze(resourceAttributes),
  });
}
