/**
 * A webhook's fields as the server keeps them, for load, plan and export.
 * Most are kept as given, their defaults filled (fields.ts); two of the
 * endpoint-health settings have defaults that depend on the value itself: a
 * rate limit's `burst` is a tenth of a second of its rate (at least 1), and
 * auto-disable's `min_span_s` is 12 h but never longer than its `after_s`;
 * and an auto-disable that is off keeps nothing else (its answer shows the
 * default spans). Reading the file the way the server will keep it means a
 * plan compares like with like, apply never sends a span the server refuses
 * (`after_s: 3600` alone must not go out beside the 43200 default), and an
 * export writes only the keys loading would not fill back the same.
 */
import { canonicalJson } from '../canonical-json.js';
import { WEBHOOK_INPUT_DEFAULTS } from '../schema/webhooks.js';
import { defaultBurst } from '../webhooks/types.js';
import { isDefault, WEBHOOK_FIELD_DEFAULTS, withDefault } from './fields.js';

const AUTO_DISABLE = WEBHOOK_INPUT_DEFAULTS.auto_disable;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A setting as the server answers it once written; absent and null values, and the other fields, as given. */
export function keptSetting(key: string, value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  if (key === 'rate_limit' && typeof value.per_second === 'number') {
    return { per_second: value.per_second, burst: value.burst ?? defaultBurst(value.per_second) };
  }
  if (key === 'auto_disable') {
    if (value.enabled === false) return { ...AUTO_DISABLE, enabled: false };
    const afterS = typeof value.after_s === 'number' ? value.after_s : AUTO_DISABLE.after_s;
    return { enabled: true, after_s: afterS, min_span_s: value.min_span_s ?? Math.min(AUTO_DISABLE.min_span_s, afterS) };
  }
  return value;
}

/** A webhook field as a file gives it (undefined when left out), read as the server will keep it. */
export function webhookField(key: string, given: unknown): unknown {
  return withDefault(keptSetting(key, given), WEBHOOK_FIELD_DEFAULTS[key]);
}

/**
 * What an export writes of a field the server answered: nothing for the
 * default (or a field an older server does not answer), and of an object
 * only the keys loading would not fill back the same (`breaker: {enabled:
 * false}` rather than all four, a rate limit without its default burst).
 */
export function writtenField(key: string, value: unknown): unknown {
  const fallback = WEBHOOK_FIELD_DEFAULTS[key];
  if (value === undefined || isDefault(value, fallback)) return undefined;
  // Only an object whose keys loading fills in can lose some (a payload template keeps all of its own).
  if (!isPlainObject(value) || !(isPlainObject(fallback) || key === 'rate_limit')) return value;
  const loaded = canonicalJson(webhookField(key, value));
  const out = { ...value };
  for (const k of Object.keys(value)) {
    const rest = { ...out };
    delete rest[k];
    if (canonicalJson(webhookField(key, rest)) === loaded) delete out[k];
  }
  return out;
}
