// @ts-check
/**
 * Isolate-side source: `emit(event, data)`, the function's way to publish an
 * event (like POST /api/events). Synchronous: it checks and serialises here,
 * so only JSON text crosses to the host (`hostEmit`, a synchronous Callback
 * that answers undefined, or a refusal when the catalogue rejects the data:
 * thrown as an Error whose code is `event_invalid`, as a publish of it would
 * answer 400). The checks throw TypeErrors the handler can catch; the
 * host repeats the name, size and rate checks (emit-guard.ts) because user
 * code can patch the builtins these use (RegExp.prototype.exec, ...).
 * `hostEmit` is undefined in deploy-time validation isolates: emits are
 * checked there but dropped. Data nested deeper than MAX_JSON_DEPTH is
 * refused like every JSON that enters Switchyard (json-limits.ts; the scan
 * below mirrors jsonTextTooDeep).
 */
// isolate source begins
{
  // Captured now, before user code runs and can replace globals.
  const TypeErr = TypeError;
  const Err = Error;
  const stringify = JSON.stringify;
  const clock = Date.now;
  const min = Math.min;
  const NAME = /^[A-Za-z0-9_.:-]{1,__EMIT_MAX_EVENT_CHARS__}$/;
  const RESERVED = __EMIT_RESERVED_PREFIX_JSON__;
  const MAX_BYTES = __EMIT_MAX_DATA_BYTES__;
  const RATE = __EMIT_RATE_PER_SECOND__;
  const MAX_DEPTH = __MAX_JSON_DEPTH__;
  // Token bucket: bursts up to RATE, refilled at RATE per second.
  let tokens = RATE;
  let last = clock();

  function utf8Length(s) {
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 4; i++; }
      else n += 3;
    }
    return n;
  }

  function tooDeep(json) {
    let depth = 0;
    for (let i = 0; i < json.length; i++) {
      const c = json.charCodeAt(i);
      if (c === 0x22) {
        for (i++; i < json.length; i++) {
          const s = json.charCodeAt(i);
          if (s === 0x5c) i++;
          else if (s === 0x22) break;
        }
      } else if (c === 0x5b || c === 0x7b) {
        if (++depth > MAX_DEPTH) return true;
      } else if (c === 0x5d || c === 0x7d) {
        depth--;
      }
    }
    return false;
  }

  // An application id (app_...) or uid, as POST /api/events takes it.
  const APPLICATION = /^[A-Za-z0-9_.:-]{1,200}$/;

  function emit(event, data, options) {
    if (typeof event !== 'string' || !NAME.test(event)) {
      throw new TypeErr('emit: event must be a string of 1 to __EMIT_MAX_EVENT_CHARS__ characters of letters, digits and _ . : -');
    }
    if (event.slice(0, RESERVED.length) === RESERVED) {
      throw new TypeErr("emit: event names starting with '" + RESERVED + "' are reserved for the service's own events");
    }
    let json;
    try {
      json = data === undefined ? 'null' : stringify(data);
    } catch (e) {
      // @ts-expect-error e is whatever was thrown: its message is read only when it is a string
      throw new TypeErr('emit: data is not JSON-serialisable: ' + (e && typeof e.message === 'string' ? e.message : String(e)));
    }
    if (typeof json !== 'string') throw new TypeErr('emit: data is not JSON-serialisable: ' + typeof data);
    let application;
    if (options !== undefined && options !== null) {
      if (typeof options !== 'object') throw new TypeErr('emit: options must be an object such as {application}');
      application = options.application;
      if (application !== undefined && (typeof application !== 'string' || !APPLICATION.test(application))) {
        throw new TypeErr('emit: options.application must be an application id or uid (1 to 200 letters, digits and _ . : -)');
      }
    }
    if (json.length > MAX_BYTES || (json.length * 3 > MAX_BYTES && utf8Length(json) > MAX_BYTES)) {
      throw new TypeErr('emit: data is larger than __EMIT_MAX_DATA_KIB__ KiB as JSON');
    }
    if (json.length > MAX_DEPTH && tooDeep(json)) {
      throw new TypeErr('emit: data is nested deeper than ' + MAX_DEPTH + ' levels of arrays and objects');
    }
    const now = clock();
    tokens = min(RATE, tokens + ((now - last) * RATE) / 1000);
    last = now;
    if (tokens < 1) throw new TypeErr('emit rate limit: at most ' + RATE + ' events per second per function');
    tokens -= 1;
    if (hostEmit === undefined) return;
    const refusal = application === undefined ? hostEmit(event, json) : hostEmit(event, json, application);
    if (typeof refusal === 'string') {
      const e = new Err(refusal);
      e.name = 'EventInvalidError';
      // @ts-expect-error the code is Node's habit for typed errors, which Error's type does not declare
      e.code = 'event_invalid';
      throw e;
    }
  }
  def('emit', emit);
}
// isolate source ends
