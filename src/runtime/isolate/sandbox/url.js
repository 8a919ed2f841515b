// @ts-check
/**
 * Isolate-side source: URLSearchParams (pure JS) and URL, whose parsing and
 * setters go through the host's WHATWG parser (`hostUrl`) so that both agree
 * byte for byte with what the host's fetch will request.
 */
// isolate source begins
function formEncode(str) {
  const bytes = utf8Encode(str);
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === 0x20) out += '+';
    else if ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) ||
             b === 0x2a || b === 0x2d || b === 0x2e || b === 0x5f) out += String.fromCharCode(b);
    else out += '%' + (b < 16 ? '0' : '') + b.toString(16).toUpperCase();
  }
  return out;
}
function percentDecode(str) {
  const bytes = utf8Encode(str);
  const out = new Uint8Array(bytes.length);
  let p = 0;
  const hex = (c) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x25 && i + 2 < bytes.length && hex(bytes[i + 1]) && hex(bytes[i + 2])) {
      out[p++] = parseInt(String.fromCharCode(bytes[i + 1], bytes[i + 2]), 16);
      i += 2;
    } else out[p++] = bytes[i];
  }
  return utf8DecodeAll(out.subarray(0, p));
}
function formParse(input) {
  const list = [];
  for (const seq of String(input).split('&')) {
    if (seq === '') continue;
    const eq = seq.indexOf('=');
    const name = eq < 0 ? seq : seq.slice(0, eq);
    const value = eq < 0 ? '' : seq.slice(eq + 1);
    list.push([percentDecode(name.replace(/\+/g, ' ')), percentDecode(value.replace(/\+/g, ' '))]);
  }
  return list;
}
function toUSV(s) { return String(s).toWellFormed ? String(s).toWellFormed() : String(s); }

let paramsReplace, paramsAttach;
class URLSearchParams {
  #list = [];
  /** @type {((query: string) => void) | null} */
  #onChange = null;
  static {
    paramsReplace = (p, query) => { p.#list = formParse(query); };
    paramsAttach = (p, fn) => { p.#onChange = fn; };
  }
  constructor(init) {
    if (init === undefined || init === null) return;
    if (init instanceof URLSearchParams) { this.#list = init.#list.map((e) => [e[0], e[1]]); return; }
    if (typeof init === 'object' || typeof init === 'function') {
      if (typeof init[Symbol.iterator] === 'function') {
        for (const pair of init) {
          const arr = Array.from(pair);
          if (arr.length !== 2) throw new TypeError('Each query pair must be an iterable [name, value] tuple');
          this.#list.push([toUSV(arr[0]), toUSV(arr[1])]);
        }
      } else {
        for (const k of Object.keys(init)) this.#list.push([toUSV(k), toUSV(init[k])]);
      }
      return;
    }
    let s = toUSV(init);
    if (s[0] === '?') s = s.slice(1);
    this.#list = formParse(s);
  }
  #update() { if (this.#onChange) this.#onChange(this.toString()); }
  get size() { return this.#list.length; }
  append(name, value) { this.#list.push([toUSV(name), toUSV(value)]); this.#update(); }
  delete(name, value) {
    const n = toUSV(name);
    const v = value === undefined ? undefined : toUSV(value);
    this.#list = this.#list.filter((e) => !(e[0] === n && (v === undefined || e[1] === v)));
    this.#update();
  }
  get(name) { const n = toUSV(name); const e = this.#list.find((x) => x[0] === n); return e ? e[1] : null; }
  getAll(name) { const n = toUSV(name); return this.#list.filter((x) => x[0] === n).map((x) => x[1]); }
  has(name, value) {
    const n = toUSV(name);
    const v = value === undefined ? undefined : toUSV(value);
    return this.#list.some((e) => e[0] === n && (v === undefined || e[1] === v));
  }
  set(name, value) {
    const n = toUSV(name), v = toUSV(value);
    const i = this.#list.findIndex((e) => e[0] === n);
    if (i < 0) this.#list.push([n, v]);
    else {
      this.#list[i][1] = v;
      this.#list = this.#list.filter((e, j) => j <= i || e[0] !== n);
    }
    this.#update();
  }
  sort() {
    // Array.prototype.sort is stable and compares UTF-16 code units, as the spec asks.
    this.#list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    this.#update();
  }
  forEach(cb, thisArg) {
    if (typeof cb !== 'function') throw new TypeError('forEach: callback must be a function');
    for (let i = 0; i < this.#list.length; i++) cb.call(thisArg, this.#list[i][1], this.#list[i][0], this);
  }
  *entries() { for (let i = 0; i < this.#list.length; i++) yield [this.#list[i][0], this.#list[i][1]]; }
  *keys() { for (const e of this.entries()) yield e[0]; }
  *values() { for (const e of this.entries()) yield e[1]; }
  [Symbol.iterator]() { return this.entries(); }
  toString() { return this.#list.map((e) => formEncode(e[0]) + '=' + formEncode(e[1])).join('&'); }
  get [Symbol.toStringTag]() { return 'URLSearchParams'; }
}
def('URLSearchParams', URLSearchParams);

// Component order of hostUrl's answer.
const U_HREF = 0, U_ORIGIN = 1, U_PROTOCOL = 2, U_USERNAME = 3, U_PASSWORD = 4, U_HOST = 5, U_HOSTNAME = 6,
  U_PORT = 7, U_PATHNAME = 8, U_SEARCH = 9, U_HASH = 10;
function invalidUrl(input) {
  const e = new TypeError('Invalid URL');
  e.code = 'ERR_INVALID_URL';
  e.input = input;
  return e;
}
function parseUrl(url, base) {
  const href = toUSV(url);
  const c = hostUrl(href, base === undefined ? undefined : toUSV(base), '', '');
  return Array.isArray(c) ? c : null;
}
class URL {
  #c;
  /** @type {URLSearchParams | null} */
  #params = null;
  constructor(url, base) {
    if (arguments.length === 0) throw new TypeError('The "url" argument must be specified');
    const c = parseUrl(url, base);
    if (c === null) throw invalidUrl(String(url));
    this.#c = c;
  }
  static canParse(url, base) { return parseUrl(url, base) !== null; }
  static parse(url, base) { return parseUrl(url, base) === null ? null : new URL(url, base); }
  #set(prop, value) {
    const c = hostUrl(this.#c[U_HREF], undefined, prop, toUSV(value));
    if (!Array.isArray(c)) {
      if (prop === 'href') throw invalidUrl(String(value));
      return; // WHATWG setters ignore values they cannot apply
    }
    this.#c = c;
    if (this.#params && (prop === 'href' || prop === 'search')) paramsReplace(this.#params, c[U_SEARCH].slice(1));
  }
  get href() { return this.#c[U_HREF]; }
  set href(v) { this.#set('href', v); }
  get origin() { return this.#c[U_ORIGIN]; }
  get protocol() { return this.#c[U_PROTOCOL]; }
  set protocol(v) { this.#set('protocol', v); }
  get username() { return this.#c[U_USERNAME]; }
  set username(v) { this.#set('username', v); }
  get password() { return this.#c[U_PASSWORD]; }
  set password(v) { this.#set('password', v); }
  get host() { return this.#c[U_HOST]; }
  set host(v) { this.#set('host', v); }
  get hostname() { return this.#c[U_HOSTNAME]; }
  set hostname(v) { this.#set('hostname', v); }
  get port() { return this.#c[U_PORT]; }
  set port(v) { this.#set('port', v); }
  get pathname() { return this.#c[U_PATHNAME]; }
  set pathname(v) { this.#set('pathname', v); }
  get search() { return this.#c[U_SEARCH]; }
  set search(v) { this.#set('search', v); }
  get hash() { return this.#c[U_HASH]; }
  set hash(v) { this.#set('hash', v); }
  get searchParams() {
    if (this.#params === null) {
      const p = new URLSearchParams(this.#c[U_SEARCH]);
      paramsAttach(p, (query) => {
        const c = hostUrl(this.#c[U_HREF], undefined, 'search', query);
        if (Array.isArray(c)) this.#c = c;
      });
      this.#params = p;
    }
    return this.#params;
  }
  toString() { return this.#c[U_HREF]; }
  toJSON() { return this.#c[U_HREF]; }
  get [Symbol.toStringTag]() { return 'URL'; }
}
def('URL', URL);
// isolate source ends
