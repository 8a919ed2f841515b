// @ts-check
/**
 * Isolate-side source: Headers, Request, Response and fetch. fetch hands the
 * host a JSON description plus the body bytes (`hostFetch(id, meta, body)`);
 * the host performs it through the SSRF-guarded agent and answers through
 * `handlers.fetch(id, envelope)`. Bodies are buffered: a ReadableStream body is
 * read whole before it is sent, and `body` is a stream over the buffered bytes.
 * An `AbortSignal` rejects the fetch with its reason and tells the host to
 * cancel the request (`hostFetchCancel(id)`).
 *
 * A fetch belongs to the invocations in flight (see ../../sandbox/bootstrap.ts): outside
 * them fetch rejects at once; when the last one ends, the host aborts what is
 * still on the wire and the pending promises here are rejected as aborted
 * when the next invocation starts (an idle isolate is never entered).
 */
// isolate source begins
{
  const TOKEN = /^[!#$%&'*+\-.^_\x60|~0-9A-Za-z]+$/;
  function headerName(n) {
    const s = String(n);
    if (!TOKEN.test(s)) throw new TypeError('Invalid header name: "' + s + '"');
    return s.toLowerCase();
  }
  function headerValue(v) {
    const s = String(v).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
    if (/[\0\r\n]/.test(s) || /[^\x00-\xff]/.test(s)) throw new TypeError('Invalid header value: "' + s + '"');
    return s;
  }

  let headersPairs;
  class Headers {
    #map = new Map(); // lower-case name -> values in insertion order
    static { headersPairs = (h) => { const out = []; for (const [n, vs] of h.#map) for (const v of vs) out.push([n, v]); return out; }; }
    constructor(init) {
      if (init === undefined || init === null) return;
      if (init instanceof Headers) { for (const [n, vs] of init.#map) this.#map.set(n, vs.slice()); return; }
      if (typeof init !== 'object') throw new TypeError('Headers init must be an object, an array of pairs or Headers');
      if (typeof init[Symbol.iterator] === 'function') {
        for (const pair of init) {
          const arr = Array.from(pair);
          if (arr.length !== 2) throw new TypeError('Header pairs must be [name, value]');
          this.append(arr[0], arr[1]);
        }
      } else for (const k of Object.keys(init)) this.append(k, init[k]);
    }
    append(name, value) {
      const n = headerName(name), v = headerValue(value);
      const vs = this.#map.get(n);
      if (vs) vs.push(v); else this.#map.set(n, [v]);
    }
    set(name, value) { this.#map.set(headerName(name), [headerValue(value)]); }
    delete(name) { this.#map.delete(headerName(name)); }
    has(name) { return this.#map.has(headerName(name)); }
    get(name) { const vs = this.#map.get(headerName(name)); return vs ? vs.join(', ') : null; }
    getSetCookie() { const vs = this.#map.get('set-cookie'); return vs ? vs.slice() : []; }
    *entries() {
      const names = Array.from(this.#map.keys()).sort();
      for (const n of names) {
        const vs = this.#map.get(n);
        if (!vs) continue;
        if (n === 'set-cookie') { for (const v of vs) yield [n, v]; } else yield [n, vs.join(', ')];
      }
    }
    *keys() { for (const e of this.entries()) yield e[0]; }
    *values() { for (const e of this.entries()) yield e[1]; }
    [Symbol.iterator]() { return this.entries(); }
    forEach(cb, thisArg) {
      if (typeof cb !== 'function') throw new TypeError('forEach: callback must be a function');
      for (const [n, v] of this.entries()) cb.call(thisArg, v, n, this);
    }
    get [Symbol.toStringTag]() { return 'Headers'; }
  }

  // BodyInit -> { bytes, type } (or { stream, type } for a ReadableStream, read when consumed)
  function extractBody(body) {
    if (body === undefined || body === null) return { bytes: null, type: null };
    if (typeof body === 'object') {
      const blob = blobBytes(body);
      if (blob) return { bytes: blob.bytes.slice(), type: blob.type || null };
      const form = formDataBody(body);
      if (form) return form;
      if (typeof body.getReader === 'function') return { bytes: null, stream: body, type: null };
    }
    if (typeof body === 'string') return { bytes: utf8Encode(body), type: 'text/plain;charset=UTF-8' };
    if (body instanceof URLSearchParams) return { bytes: utf8Encode(body.toString()), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
    if (isBufferSource(body)) return { bytes: copyBytes(body), type: null };
    return { bytes: utf8Encode(String(body)), type: 'text/plain;charset=UTF-8' };
  }

  // Shared body reading; each class keeps its own state and passes it here.
  function consume(state) {
    if (state.used) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    state.used = true;
    if (state.stream) return readAllBytes(state.stream);
    return Promise.resolve(state.bytes || new Uint8Array(0));
  }
  const bodyMethods = (getState) => ({
    get bodyUsed() { return getState(this).used; },
    get body() {
      const state = getState(this);
      if (!state.stream && state.bytes) { state.stream = bytesStream(state.bytes); state.bytes = null; }
      return state.stream || null;
    },
    async blob() {
      const bytes = await consume(getState(this));
      return new g.Blob([bytes], { type: this.headers.get('content-type') || '' });
    },
    async formData() { return parseFormData(await consume(getState(this)), this.headers.get('content-type')); },
    async arrayBuffer() { return (await consume(getState(this))).slice().buffer; },
    async bytes() { return (await consume(getState(this))).slice(); },
    async text() { return utf8DecodeAll(await consume(getState(this))); },
    async json() { return JSON.parse(utf8DecodeAll(await consume(getState(this)))); },
  });
  function mixBody(Ctor, getState) {
    const d = Object.getOwnPropertyDescriptors(bodyMethods(getState));
    for (const k of Object.keys(d)) { d[k].enumerable = false; Object.defineProperty(Ctor.prototype, k, d[k]); }
  }

  const METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH'];
  let requestState;
  let requestSignal;
  class Request {
    #url; #method; #headers; #redirect; #state; #signal;
    static { requestSignal = (r) => r.#signal; }
    static { requestState = (r) => { if (!(#state in r)) throw new TypeError('Illegal invocation'); return r.#state; }; }
    constructor(input, init) {
      const opts = init === undefined || init === null ? {} : init;
      let from = null;
      if (input instanceof Request) from = input;
      const url = from ? from.url : new URL(String(input && typeof input === 'object' && 'href' in input ? input.href : input)).href;
      let method = opts.method !== undefined ? String(opts.method) : from ? from.method : 'GET';
      if (!TOKEN.test(method)) throw new TypeError('Invalid method: ' + method);
      if (METHODS.indexOf(method.toUpperCase()) >= 0) method = method.toUpperCase();
      if (/^(CONNECT|TRACE|TRACK)$/i.test(method)) throw new TypeError('Forbidden method: ' + method);
      const redirect = opts.redirect !== undefined ? String(opts.redirect) : from ? from.redirect : 'follow';
      if (['follow', 'error', 'manual'].indexOf(redirect) < 0) throw new TypeError('Invalid redirect mode: ' + redirect);
      const headers = new Headers(opts.headers !== undefined ? opts.headers : from ? from.headers : undefined);
      let body;
      if (opts.body !== undefined && opts.body !== null) {
        body = extractBody(opts.body);
        if (body.type && !headers.has('content-type')) headers.set('content-type', body.type);
      } else body = from ? { bytes: requestState(from).bytes, stream: requestState(from).stream } : { bytes: null };
      if ((body.bytes || body.stream) && (method === 'GET' || method === 'HEAD')) throw new TypeError('Request with GET/HEAD method cannot have body.');
      const signal = opts.signal !== undefined ? opts.signal : from ? from.#signal : null;
      if (signal !== null && (typeof signal !== 'object' || typeof signal.addEventListener !== 'function' || typeof signal.aborted !== 'boolean')) {
        throw new TypeError('init.signal must be an AbortSignal');
      }
      this.#url = url; this.#method = method; this.#headers = headers; this.#redirect = redirect; this.#signal = signal;
      this.#state = { bytes: body.bytes, stream: body.stream || null, used: false };
    }
    // A request made without one has a signal that never aborts (built on first read).
    get signal() { return (this.#signal ??= new g.AbortController().signal); }
    get url() { return this.#url; }
    get method() { return this.#method; }
    get headers() { return this.#headers; }
    get redirect() { return this.#redirect; }
    clone() {
      if (this.#state.used) throw new TypeError('Body has already been used');
      if (this.#state.stream) {
        const [a, b] = this.#state.stream.tee();
        this.#state.stream = a;
        return new Request(this, { body: b });
      }
      return new Request(this);
    }
    get [Symbol.toStringTag]() { return 'Request'; }
  }
  mixBody(Request, (r) => requestState(r));

  const NULL_BODY = [101, 103, 204, 205, 304];
  const RESP_TOKEN = {};
  let responseState;
  class Response {
    #status; #statusText; #headers; #url = ''; #redirected = false; #type = 'default'; #state;
    static { responseState = (r) => { if (!(#state in r)) throw new TypeError('Illegal invocation'); return r.#state; }; }
    constructor(body, init, internal) {
      const opts = init === undefined || init === null ? {} : init;
      const status = opts.status === undefined ? 200 : Number(opts.status);
      if (internal !== RESP_TOKEN && !(status >= 200 && status <= 599 && Number.isInteger(status))) {
        throw new RangeError('init["status"] must be in the range of 200 to 599, inclusive.');
      }
      this.#status = status;
      this.#statusText = opts.statusText === undefined ? '' : String(opts.statusText);
      this.#headers = new Headers(opts.headers);
      const b = extractBody(body);
      if (b.bytes && NULL_BODY.indexOf(status) >= 0 && internal !== RESP_TOKEN) {
        throw new TypeError('Response with null body status cannot have body');
      }
      if (b.type && !this.#headers.has('content-type')) this.#headers.set('content-type', b.type);
      this.#state = { bytes: b.bytes, stream: b.stream || null, used: false };
      if (internal === RESP_TOKEN) {
        this.#url = opts.url || '';
        this.#redirected = Boolean(opts.redirected);
        this.#type = opts.type || 'basic';
      }
    }
    static json(data, init) {
      const text = JSON.stringify(data);
      if (text === undefined) throw new TypeError('Value is not JSON serializable');
      const r = new Response(text, init);
      r.headers.set('content-type', 'application/json');
      return r;
    }
    static error() { return new Response(null, { status: 0, type: 'error' }, RESP_TOKEN); }
    static redirect(url, status) {
      const s = status === undefined ? 302 : Number(status);
      if ([301, 302, 303, 307, 308].indexOf(s) < 0) throw new RangeError('Invalid redirect status: ' + s);
      return new Response(null, { status: s, headers: { location: new URL(String(url)).href } });
    }
    get status() { return this.#status; }
    get ok() { return this.#status >= 200 && this.#status <= 299; }
    get statusText() { return this.#statusText; }
    get headers() { return this.#headers; }
    get url() { return this.#url; }
    get redirected() { return this.#redirected; }
    get type() { return this.#type; }
    clone() {
      if (this.#state.used) throw new TypeError('Body has already been used');
      if (this.#state.stream) {
        const [a, b] = this.#state.stream.tee();
        this.#state.stream = a;
        return new Response(b, { status: this.#status, statusText: this.#statusText, headers: this.#headers,
          url: this.#url, redirected: this.#redirected, type: this.#type }, RESP_TOKEN);
      }
      return new Response(this.#state.bytes, { status: this.#status, statusText: this.#statusText, headers: this.#headers,
        url: this.#url, redirected: this.#redirected, type: this.#type }, RESP_TOKEN);
    }
    get [Symbol.toStringTag]() { return 'Response'; }
  }
  mixBody(Response, (r) => responseState(r));

  const MAX_IN_FLIGHT = 64;
  // id -> {resolve, reject}; no prototype, so patched builtins cannot reach into it.
  let pending = createObject(null);
  let pendingCount = 0;
  // Fetches the host aborted when the last invocation ended; rejected on the next wake.
  let orphaned = null;
  let seq = 0;
  function fetch(input, init) {
    return new Promise((resolve, reject) => {
      if (!active) throw new TypeError('fetch failed: no invocation is in flight (fetch only works while a handler runs)');
      const req = new Request(input, init);
      const proto = req.url.slice(0, req.url.indexOf(':') + 1);
      if (proto !== 'http:' && proto !== 'https:') throw new TypeError('fetch failed: only http: and https: URLs are supported, got ' + proto);
      const signal = requestSignal(req);
      if (signal && signal.aborted) throw signal.reason;
      const state = requestState(req);
      if (state.used) throw new TypeError('Request body has already been used');
      state.used = true;
      const send = (bytes) => {
        if (signal && signal.aborted) { reject(signal.reason); return; }
        if (!active) { reject(new TypeError('fetch failed: no invocation is in flight (fetch only works while a handler runs)')); return; }
        if (pendingCount >= MAX_IN_FLIGHT) { reject(new TypeError('fetch failed: more than ' + MAX_IN_FLIGHT + ' requests in flight')); return; }
        const id = ++seq;
        const onAbort = () => {
          if (pending[id] === undefined) return;
          delete pending[id];
          pendingCount--;
          hostFetchCancel(id);
          reject(signal.reason);
        };
        const done = () => { if (signal) signal.removeEventListener('abort', onAbort); };
        pending[id] = { resolve: (v) => { done(); resolve(v); }, reject: (e) => { done(); reject(e); } };
        pendingCount++;
        if (signal) signal.addEventListener('abort', onAbort, { once: true });
        const meta = JSON.stringify({ url: req.url, method: req.method, headers: headersPairs(req.headers), redirect: req.redirect });
        hostFetch(id, meta, bytes ? bytes.slice().buffer : null);
      };
      if (state.stream) readAllBytes(state.stream).then(send, reject);
      else send(state.bytes);
    });
  }
  handlers.fetch = (id, env) => {
    const p = pending[id];
    if (p === undefined) return;
    delete pending[id];
    pendingCount--;
    if (!env || env.error) {
      const info = (env && env.error) || { message: 'fetch failed' };
      const e = new TypeError(info.message);
      if (info.code) e.code = info.code;
      p.reject(e);
      return;
    }
    p.resolve(new Response(env.body === null ? null : new Uint8Array(env.body), {
      status: env.status, statusText: env.statusText, headers: env.headers, url: env.url, redirected: env.redirected,
    }, RESP_TOKEN));
  };
  idleHooks.push(() => {
    if (pendingCount === 0) return;
    orphaned = pending;
    pending = createObject(null);
    pendingCount = 0;
  });
  wakeHooks.push(() => {
    if (orphaned === null) return;
    const dropped = orphaned;
    orphaned = null;
    for (const id in dropped) {
      const e = new TypeError('fetch aborted: the invocation that started it had ended');
      e.code = 'ERR_ABORTED';
      dropped[id].reject(e);
    }
  });
  def('Headers', Headers);
  def('Request', Request);
  def('Response', Response);
  def('fetch', fetch);
}
// isolate source ends
