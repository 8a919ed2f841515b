// @ts-check
/**
 * Isolate-side source: shared helpers, DOMException, TextEncoder/TextDecoder,
 * atob/btoa. Runs inside the bootstrap closure (see ../../sandbox/bootstrap.ts), where
 * `g` is the isolate's global and `def` installs a global.
 */
// isolate source begins
const DOMEX_CODES = { IndexSizeError: 1, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11,
  SyntaxError: 12, InvalidAccessError: 15, TypeMismatchError: 17, QuotaExceededError: 22, DataCloneError: 25 };
class DOMException extends Error {
  constructor(message, name) {
    super(message === undefined ? '' : String(message));
    Object.defineProperty(this, 'name', { value: name === undefined ? 'Error' : String(name), writable: true, configurable: true });
  }
  get code() { return DOMEX_CODES[this.name] || 0; }
}
def('DOMException', DOMException);

function isBufferSource(x) { return x instanceof ArrayBuffer || ArrayBuffer.isView(x); }
// A view over the caller's bytes (no copy).
function viewBytes(x, what) {
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  throw new TypeError((what || 'value') + ' must be an ArrayBuffer or ArrayBufferView');
}
// A compact copy, safe to hand to the host or keep.
function copyBytes(x, what) { return viewBytes(x, what).slice(); }

function utf8Encode(str) {
  const s = String(str);
  const out = new Uint8Array(s.length * 3);
  let p = 0;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) { out[p++] = c; continue; }
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; } else c = 0xfffd;
    } else if (c >= 0xdc00 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x800) { out[p++] = 0xc0 | (c >> 6); out[p++] = 0x80 | (c & 63); }
    else if (c < 0x10000) { out[p++] = 0xe0 | (c >> 12); out[p++] = 0x80 | ((c >> 6) & 63); out[p++] = 0x80 | (c & 63); }
    else { out[p++] = 0xf0 | (c >> 18); out[p++] = 0x80 | ((c >> 12) & 63); out[p++] = 0x80 | ((c >> 6) & 63); out[p++] = 0x80 | (c & 63); }
  }
  return out.slice(0, p);
}

// WHATWG UTF-8 decoder; 'st' carries a partial sequence between streamed chunks.
function newUtf8State() { return { cp: 0, needed: 0, seen: 0, lower: 0x80, upper: 0xbf }; }
function utf8Decode(bytes, st, fatal, flush) {
  const parts = [];
  let codes = [];
  const push = (cp) => {
    if (cp > 0xffff) { cp -= 0x10000; codes.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff)); } else codes.push(cp);
    if (codes.length > 8190) { parts.push(String.fromCharCode.apply(null, codes)); codes = []; }
  };
  const bad = () => {
    if (fatal) throw new TypeError('The encoded data was not valid for encoding utf-8');
    push(0xfffd);
  };
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (st.needed === 0) {
      if (b <= 0x7f) push(b);
      else if (b >= 0xc2 && b <= 0xdf) { st.needed = 1; st.cp = b & 0x1f; }
      else if (b >= 0xe0 && b <= 0xef) { if (b === 0xe0) st.lower = 0xa0; if (b === 0xed) st.upper = 0x9f; st.needed = 2; st.cp = b & 0xf; }
      else if (b >= 0xf0 && b <= 0xf4) { if (b === 0xf0) st.lower = 0x90; if (b === 0xf4) st.upper = 0x8f; st.needed = 3; st.cp = b & 7; }
      else bad();
      continue;
    }
    if (b < st.lower || b > st.upper) {
      st.cp = 0; st.needed = 0; st.seen = 0; st.lower = 0x80; st.upper = 0xbf;
      bad();
      i--; // the offending byte starts over
      continue;
    }
    st.lower = 0x80; st.upper = 0xbf;
    st.cp = (st.cp << 6) | (b & 0x3f);
    if (++st.seen === st.needed) { const cp = st.cp; st.cp = 0; st.needed = 0; st.seen = 0; push(cp); }
  }
  if (flush && st.needed !== 0) { st.cp = 0; st.needed = 0; st.seen = 0; st.lower = 0x80; st.upper = 0xbf; bad(); }
  parts.push(String.fromCharCode.apply(null, codes));
  return parts.join('');
}
function utf8DecodeAll(bytes) { return utf8Decode(bytes, newUtf8State(), false, true); }

class TextEncoder {
  get encoding() { return 'utf-8'; }
  encode(input) { return utf8Encode(input === undefined ? '' : input); }
  encodeInto(source, destination) {
    if (!(destination instanceof Uint8Array)) throw new TypeError('destination must be a Uint8Array');
    const s = String(source);
    let read = 0, written = 0;
    for (const ch of s) {
      const enc = utf8Encode(ch);
      if (written + enc.length > destination.length) break;
      destination.set(enc, written);
      written += enc.length;
      read += ch.length;
    }
    return { read, written };
  }
}
const UTF8_LABELS = ['utf-8', 'utf8', 'unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'x-unicode20utf8'];
class TextDecoder {
  #fatal; #ignoreBOM; #state = newUtf8State(); #bomDone = false;
  constructor(label, options) {
    const l = label === undefined ? 'utf-8' : String(label).trim().toLowerCase();
    if (UTF8_LABELS.indexOf(l) < 0) throw new RangeError('The "' + label + '" encoding is not supported (only utf-8)');
    this.#fatal = Boolean(options && options.fatal);
    this.#ignoreBOM = Boolean(options && options.ignoreBOM);
  }
  get encoding() { return 'utf-8'; }
  get fatal() { return this.#fatal; }
  get ignoreBOM() { return this.#ignoreBOM; }
  decode(input, options) {
    const stream = Boolean(options && options.stream);
    const bytes = input === undefined || input === null ? new Uint8Array(0) : viewBytes(input, 'input');
    let text;
    try {
      text = utf8Decode(bytes, this.#state, this.#fatal, !stream);
    } catch (e) {
      this.#state = newUtf8State(); this.#bomDone = false;
      throw e;
    }
    if (!this.#bomDone && text.length > 0) {
      if (!this.#ignoreBOM && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      this.#bomDone = true;
    }
    if (!stream) { this.#state = newUtf8State(); this.#bomDone = false; }
    return text;
  }
}
def('TextEncoder', TextEncoder);
def('TextDecoder', TextDecoder);

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = {};
for (let i = 0; i < 64; i++) B64_INDEX[B64[i]] = i;
function b64EncodeBytes(bytes) {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += B64[n >> 18] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + B64[n & 63];
  }
  if (i + 1 === bytes.length) { const n = bytes[i] << 16; out += B64[n >> 18] + B64[(n >> 12) & 63] + '=='; }
  else if (i + 2 === bytes.length) { const n = (bytes[i] << 16) | (bytes[i + 1] << 8); out += B64[n >> 18] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + '='; }
  return out;
}
// Forgiving-base64 decode; returns null when the input is not valid base64.
function b64DecodeBytes(input) {
  let s = String(input).replace(/[\t\n\f\r ]/g, '');
  if (s.length % 4 === 0) s = s.replace(/==?$/, '');
  if (s.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(s)) return null;
  const out = new Uint8Array(Math.floor(s.length * 3 / 4));
  let buf = 0, bits = 0, p = 0;
  for (let i = 0; i < s.length; i++) {
    buf = (buf << 6) | B64_INDEX[s[i]];
    bits += 6;
    if (bits >= 8) { bits -= 8; out[p++] = (buf >> bits) & 255; }
  }
  return out;
}
function btoa(data) {
  if (arguments.length === 0) throw new TypeError('btoa requires 1 argument');
  const s = String(data);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 255) throw new DOMException('Invalid character', 'InvalidCharacterError');
    bytes[i] = c;
  }
  return b64EncodeBytes(bytes);
}
function atob(data) {
  if (arguments.length === 0) throw new TypeError('atob requires 1 argument');
  const bytes = b64DecodeBytes(data);
  if (bytes === null) throw new DOMException('The string to be decoded is not correctly encoded.', 'InvalidCharacterError');
  let out = '';
  // @ts-expect-error apply takes any array-like: a typed array saves a copy
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
  return out;
}
def('btoa', btoa);
def('atob', atob);

// Errors thrown by callbacks that nobody awaits (timers, microtasks) go to the console.
function reportError(e) {
  try {
    const c = g.console;
    if (c && typeof c.error === 'function') c.error('Uncaught', e);
  } catch (_) { /* a broken console must not break the sandbox */ }
}
def('queueMicrotask', function queueMicrotask(fn) {
  if (typeof fn !== 'function') throw new TypeError('queueMicrotask: callback must be a function');
  Promise.resolve().then(() => { try { fn(); } catch (e) { reportError(e); } });
});
// isolate source ends
