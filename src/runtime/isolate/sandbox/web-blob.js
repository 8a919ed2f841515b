// @ts-check
/**
 * Isolate-side source: Blob, File and FormData, with what fetch.js needs to
 * send them as bodies (multipart/form-data) and to read `formData()`.
 * Hand-written: the npm ports (fetch-blob, formdata-polyfill) are ESM built on
 * Node's streams, and in memory these are a few dozen lines. Built on the
 * first read of one of their globals (`defLazy`, web-events.js); until then no
 * Blob can exist, which is how `blobBytes` answers without building them.
 */
// isolate source begins
/** @type {(() => Record<string, any>)} */
let webBlob;
/** The bytes and type of a Blob (null for anything else). @type {(x: unknown) => { bytes: Uint8Array, type: string } | null} */
let blobBytes = () => null;
/** @type {(x: unknown) => boolean} */
let isFormData = () => false;
{
  /** @type {Record<string, any> | null} */
  let built = null;
  webBlob = () => (built ??= buildWebBlob());
}
function buildWebBlob() {
  function partBytes(part) {
    if (typeof part === 'string') return utf8Encode(part);
    if (isBufferSource(part)) return copyBytes(part);
    const b = blobBytes(part);
    if (b) return b.bytes;
    return utf8Encode(String(part));
  }
  class Blob {
    #bytes; #type;
    static { blobBytes = (x) => (x !== null && typeof x === 'object' && #bytes in x ? { bytes: x.#bytes, type: x.#type } : null); }
    constructor(parts, options) {
      const list = parts === undefined ? [] : parts;
      if (list === null || typeof list !== 'object' || typeof list[Symbol.iterator] !== 'function') {
        throw new TypeError('The "blobParts" argument must be a sequence');
      }
      const chunks = [];
      let total = 0;
      for (const p of list) { const b = partBytes(p); chunks.push(b); total += b.length; }
      const bytes = new Uint8Array(total);
      let at = 0;
      for (const c of chunks) { bytes.set(c, at); at += c.length; }
      this.#bytes = bytes;
      const type = options && options.type !== undefined ? String(options.type) : '';
      this.#type = /^[\x20-\x7e]*$/.test(type) ? type.toLowerCase() : '';
    }
    get size() { return this.#bytes.length; }
    get type() { return this.#type; }
    slice(start, end, contentType) {
      const n = this.#bytes.length;
      const rel = (v, d) => { const x = v === undefined ? d : Math.trunc(Number(v)) || 0; return x < 0 ? Math.max(n + x, 0) : Math.min(x, n); };
      const from = rel(start, 0), to = rel(end, n);
      return new Blob([this.#bytes.subarray(from, Math.max(from, to))], { type: contentType === undefined ? '' : contentType });
    }
    async arrayBuffer() { return this.#bytes.slice().buffer; }
    async bytes() { return this.#bytes.slice(); }
    async text() { return utf8DecodeAll(this.#bytes); }
    stream() { return bytesStream(this.#bytes); }
    get [Symbol.toStringTag]() { return 'Blob'; }
  }
  class File extends Blob {
    #name; #lastModified;
    constructor(parts, name, options) {
      if (arguments.length < 2) throw new TypeError('File needs its parts and a name');
      super(parts, options);
      this.#name = String(name);
      this.#lastModified = options && options.lastModified !== undefined ? Number(options.lastModified) : Date.now();
    }
    get name() { return this.#name; }
    get lastModified() { return this.#lastModified; }
    get [Symbol.toStringTag]() { return 'File'; }
  }

  function entryValue(value, filename) {
    if (blobBytes(value)) {
      if (value instanceof File && filename === undefined) return value;
      return new File([value], filename === undefined ? (value instanceof File ? value.name : 'blob') : String(filename), { type: value.type });
    }
    return String(value);
  }
  class FormData {
    /** @type {Array<[string, string | File]>} */
    #entries = [];
    static { isFormData = (x) => x !== null && typeof x === 'object' && #entries in x; }
    constructor(form) { if (form !== undefined) throw new TypeError('FormData of a form element is not supported'); }
    append(name, value, filename) { this.#entries.push([String(name), entryValue(value, filename)]); }
    set(name, value, filename) {
      const n = String(name), v = entryValue(value, filename);
      const i = this.#entries.findIndex((e) => e[0] === n);
      if (i < 0) { this.#entries.push([n, v]); return; }
      this.#entries[i] = [n, v];
      this.#entries = this.#entries.filter((e, j) => j <= i || e[0] !== n);
    }
    get(name) { const e = this.#entries.find((x) => x[0] === String(name)); return e ? e[1] : null; }
    getAll(name) { return this.#entries.filter((x) => x[0] === String(name)).map((x) => x[1]); }
    has(name) { return this.#entries.some((x) => x[0] === String(name)); }
    delete(name) { this.#entries = this.#entries.filter((x) => x[0] !== String(name)); }
    *entries() { for (const e of this.#entries.slice()) yield [e[0], e[1]]; }
    *keys() { for (const e of this.entries()) yield e[0]; }
    *values() { for (const e of this.entries()) yield e[1]; }
    [Symbol.iterator]() { return this.entries(); }
    forEach(cb, thisArg) { for (const [k, v] of this.entries()) cb.call(thisArg, v, k, this); }
    get [Symbol.toStringTag]() { return 'FormData'; }
  }
  return { Blob, File, FormData };
}
defLazy(['Blob', 'File', 'FormData'], webBlob);

/** FormData as a multipart/form-data body (RFC 7578), or null for anything else. */
function formDataBody(fd) {
  if (!isFormData(fd)) return null;
  const boundary = '----SwitchyardFormBoundary' + g.crypto.randomUUID().replace(/-/g, '');
  const esc = (s) => s.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
  const parts = [];
  let total = 0;
  const push = (b) => { parts.push(b); total += b.length; };
  for (const [name, value] of fd) {
    const file = blobBytes(value);
    let head = '--' + boundary + '\r\nContent-Disposition: form-data; name="' + esc(name) + '"';
    if (file) head += '; filename="' + esc(value.name) + '"\r\nContent-Type: ' + (file.type || 'application/octet-stream');
    push(utf8Encode(head + '\r\n\r\n'));
    push(file ? file.bytes : utf8Encode(String(value).replace(/\r?\n|\r/g, '\r\n')));
    push(utf8Encode('\r\n'));
  }
  push(utf8Encode('--' + boundary + '--\r\n'));
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const p of parts) { bytes.set(p, at); at += p.length; }
  return { bytes, type: 'multipart/form-data; boundary=' + boundary };
}

/** Reads a body as FormData: multipart/form-data or application/x-www-form-urlencoded. */
function parseFormData(bytes, contentType) {
  const { FormData, File } = webBlob();
  const fd = new FormData();
  const type = String(contentType || '').toLowerCase();
  if (type.startsWith('application/x-www-form-urlencoded')) {
    for (const [k, v] of new URLSearchParams(utf8DecodeAll(bytes))) fd.append(k, v);
    return fd;
  }
  const m = /^multipart\/form-data\s*;.*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(String(contentType || ''));
  if (!m) throw new TypeError('Could not parse content as FormData (content-type ' + (contentType || 'missing') + ')');
  const delim = utf8Encode('--' + (m[1] || m[2]));
  const indexOf = (from, needle) => {
    outer: for (let i = from; i <= bytes.length - needle.length; i++) {
      for (let j = 0; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer;
      return i;
    }
    return -1;
  };
  const CRLF2 = utf8Encode('\r\n\r\n');
  let at = indexOf(0, delim);
  while (at >= 0) {
    const start = at + delim.length;
    if (bytes[start] === 45 && bytes[start + 1] === 45) return fd; // the closing "--"
    const headEnd = indexOf(start, CRLF2);
    const next = indexOf(start, delim);
    if (headEnd < 0 || next < 0 || headEnd > next) break;
    const head = utf8DecodeAll(bytes.subarray(start, headEnd));
    const body = bytes.subarray(headEnd + 4, next - 2); // without the CRLF before the delimiter
    const name = /name="([^"]*)"/i.exec(head);
    const filename = /filename="([^"]*)"/i.exec(head);
    const ctype = /content-type:\s*([^\r\n]+)/i.exec(head);
    if (!name) throw new TypeError('Could not parse content as FormData (a part has no name)');
    if (filename) fd.append(name[1], new File([body], filename[1], { type: ctype ? ctype[1].trim() : '' }));
    else fd.append(name[1], utf8DecodeAll(body));
    at = next;
  }
  throw new TypeError('Could not parse content as FormData (no closing boundary)');
}
// isolate source ends
