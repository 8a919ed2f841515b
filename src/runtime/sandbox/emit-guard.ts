/**
 * Limits of the sandbox's `emit(event, data)` and the host-side check of what
 * reaches `hostEmit`. The isolate checks first and throws friendly TypeErrors
 * (js/emit.ts), but user code can patch the builtins those checks call, so the
 * host decides for real here and silently drops anything out of bounds,
 * including data nested deeper than MAX_JSON_DEPTH.
 */
import { OPERATIONAL_EVENT_PREFIX, isOperationalEvent } from '../../events/names.js';
import { jsonTextTooDeep } from '../../json-limits.js';

export const EMIT_MAX_EVENT_CHARS = 200;
export const EMIT_MAX_DATA_BYTES = 256 * 1024;
export const EMIT_RATE_PER_SECOND = 1000;
/** Operational events are published by the service only (the isolate's own check needs the text). */
export const EMIT_RESERVED_PREFIX = OPERATIONAL_EVENT_PREFIX;

const EVENT_NAME = new RegExp(`^[A-Za-z0-9_.:-]{1,${EMIT_MAX_EVENT_CHARS}}$`);
/**
 * Host-side bucket capacity: callbacks arrive here a little later than the
 * isolate made them, so a legitimate burst right after a refill can look
 * denser than it was. Twice the isolate's limit still caps a tampered isolate.
 */
const HOST_BURST = 2 * EMIT_RATE_PER_SECOND;

export type EmitGuard = (event: unknown, dataJson: unknown, application?: unknown) => boolean;

const APPLICATION = /^[A-Za-z0-9_.:-]{1,200}$/;

/** One guard per isolate context: true when `(event, dataJson)` may be published. */
export function createEmitGuard(now: () => number = Date.now): EmitGuard {
  let tokens = HOST_BURST;
  let last = now();
  return function emitAllowed(event, dataJson, application) {
    if (typeof event !== 'string' || typeof dataJson !== 'string') return false;
    if (application !== undefined && (typeof application !== 'string' || !APPLICATION.test(application))) return false;
    if (!EVENT_NAME.test(event) || isOperationalEvent(event)) return false;
    if (dataJson.length === 0 || dataJson.length > EMIT_MAX_DATA_BYTES) return false;
    if (dataJson.length * 3 > EMIT_MAX_DATA_BYTES && Buffer.byteLength(dataJson) > EMIT_MAX_DATA_BYTES) return false;
    if (jsonTextTooDeep(dataJson)) return false;
    const t = now();
    tokens = Math.min(HOST_BURST, tokens + ((t - last) * EMIT_RATE_PER_SECOND) / 1000);
    last = t;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
}
