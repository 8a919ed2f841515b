/**
 * `http` and `https`, hand-written (no maintained port exists that works
 * without sockets): the classes Node HTTP frameworks build on, and a client
 * that runs over the sandbox's fetch.
 *
 * - IncomingMessage (a Readable) and ServerResponse: what express and its
 *   middleware read and call, and what serverless-http and
 *   @codegenie/serverless-express subclass. A response writes its header block
 *   (`_header`, the status line and headers, then `\r\n\r\n`) to its socket
 *   before the first body bytes, as Node's does, which is how those adapters
 *   find where the body starts; its headers are also kept by name
 *   (getHeaders). No chunked framing: the sockets here are the adapters' own.
 * - request/get: a ClientRequest gathers the body and, on `end()`, hands it
 *   to fetch (the host's SSRF rules apply as to any fetch); the answer is an
 *   IncomingMessage carrying the whole body. Redirects are not followed, as in Node.
 * - Agent keeps its options only (fetch pools connections on the host);
 *   createServer gives a Server whose `listen` throws: a function serves
 *   through its handler.
 */
'use strict';
/* global SWITCHYARD_HTTP_STATUS_CODES, SWITCHYARD_HTTP_METHODS */
const EventEmitter = require('./events.cjs');
const Stream = require('./stream.cjs');
const { Buffer } = require('./buffer.cjs');
const host = require('./host.cjs');

const { Readable } = Stream;
const STATUS_CODES = Object.freeze(Object.assign({}, SWITCHYARD_HTTP_STATUS_CODES));
const METHODS = Object.freeze(SWITCHYARD_HTTP_METHODS.slice());
const TOKEN = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

function nodeError(Ctor, code, message) {
  const e = new Ctor(message);
  e.code = code;
  return e;
}

function validateHeaderName(name) {
  if (typeof name !== 'string' || !name || !TOKEN.test(name)) {
    throw nodeError(TypeError, 'ERR_INVALID_HTTP_TOKEN', 'Header name must be a valid HTTP token ["' + name + '"]');
  }
}
function validateHeaderValue(name, value) {
  if (value === undefined) throw nodeError(TypeError, 'ERR_HTTP_INVALID_HEADER_VALUE', 'Invalid value "' + value + '" for header "' + name + '"');
  const values = Array.isArray(value) ? value : [value];
  for (const v of values) if (BAD_VALUE.test(String(v))) throw nodeError(TypeError, 'ERR_INVALID_CHAR', 'Invalid character in header content ["' + name + '"]');
}
const headersSent = (what) => nodeError(Error, 'ERR_HTTP_HEADERS_SENT', 'Cannot ' + what + ' headers after they are sent to the client');

// Headers Node keeps once (a repeat is dropped), and those it joins with '; ' rather than ', '.
const SINGLE = new Set(['content-type', 'content-length', 'user-agent', 'referer', 'host', 'authorization', 'proxy-authorization',
  'if-modified-since', 'if-unmodified-since', 'from', 'location', 'max-forwards', 'retry-after', 'etag', 'last-modified',
  'server', 'age', 'expires']);

function toBuffer(chunk, encoding) {
  if (typeof chunk === 'string') return Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8');
  if (Buffer.isBuffer(chunk)) return chunk;
  if (ArrayBuffer.isView(chunk)) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "chunk" argument must be of type string or an instance of Buffer or Uint8Array');
}

class IncomingMessage extends Readable {
  constructor(socket) {
    super();
    this.socket = socket || null;
    this.httpVersionMajor = 1;
    this.httpVersionMinor = 1;
    this.httpVersion = '1.1';
    this.complete = false;
    this.rawHeaders = [];
    this.rawTrailers = [];
    this.headers = {};
    this.trailers = {};
    this.aborted = false;
    this.upgrade = false;
    this.url = '';
    this.method = null;
    this.statusCode = null;
    this.statusMessage = null;
  }
  get connection() {
    return this.socket;
  }
  set connection(value) {
    this.socket = value;
  }
  get headersDistinct() {
    const out = {};
    for (let i = 0; i < this.rawHeaders.length; i += 2) {
      const k = this.rawHeaders[i].toLowerCase();
      (out[k] = out[k] || []).push(this.rawHeaders[i + 1]);
    }
    return out;
  }
  get trailersDistinct() {
    return {};
  }
  setTimeout(ms, callback) {
    if (typeof callback === 'function') this.once('timeout', callback);
    return this;
  }
  _read() {}
  /** Node's rules for folding raw header lines into `headers` (serverless-express calls it). */
  _addHeaderLines(headers, n) {
    for (let i = 0; i < n; i += 2) this._addHeaderLine(headers[i], headers[i + 1], this.headers);
  }
  _addHeaderLine(field, value, dest) {
    this.rawHeaders.push(field, value);
    const name = String(field).toLowerCase();
    if (name === 'set-cookie') {
      if (dest[name] === undefined) dest[name] = [value];
      else dest[name].push(value);
    } else if (dest[name] === undefined) dest[name] = value;
    else if (!SINGLE.has(name)) dest[name] += (name === 'cookie' ? '; ' : ', ') + value;
  }
}

const kHeaders = Symbol('kOutHeaders');

class OutgoingMessage extends Stream {
  constructor() {
    super();
    this[kHeaders] = Object.create(null);
    this.outputData = [];
    this.outputSize = 0;
    this.writable = true;
    this.destroyed = false;
    this.chunkedEncoding = false;
    this.useChunkedEncodingByDefault = true;
    this.shouldKeepAlive = false;
    this.sendDate = false;
    this.finished = false;
    this.strictContentLength = false;
    this._header = null;
    this._headerSent = false;
    this._hasBody = true;
    this._finishedEmitted = false;
    this.socket = null;
  }
  get connection() {
    return this.socket;
  }
  set connection(value) {
    this.socket = value;
  }
  get headersSent() {
    return !!this._header;
  }
  get writableEnded() {
    return this.finished;
  }
  get writableFinished() {
    return this._finishedEmitted;
  }
  get writableLength() {
    return this.outputSize;
  }
  get writableHighWaterMark() {
    return 16384;
  }
  get writableObjectMode() {
    return false;
  }
  get writableCorked() {
    return 0;
  }
  get writableNeedDrain() {
    return false;
  }
  setHeader(name, value) {
    if (this._header) throw headersSent('set');
    validateHeaderName(name);
    validateHeaderValue(name, value);
    this[kHeaders][name.toLowerCase()] = [name, value];
    return this;
  }
  appendHeader(name, value) {
    if (this._header) throw headersSent('append');
    validateHeaderName(name);
    validateHeaderValue(name, value);
    const key = name.toLowerCase();
    const prev = this[kHeaders][key];
    if (prev === undefined) this[kHeaders][key] = [name, value];
    else prev[1] = [].concat(prev[1], value);
    return this;
  }
  setHeaders(headers) {
    if (!headers || typeof headers.entries !== 'function') throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "headers" argument must be an instance of Headers or Map');
    const cookies = [];
    for (const [k, v] of headers.entries()) {
      if (k.toLowerCase() === 'set-cookie') cookies.push(v);
      else this.setHeader(k, v);
    }
    if (cookies.length > 0) this.setHeader('set-cookie', cookies);
    return this;
  }
  getHeader(name) {
    const entry = this[kHeaders][String(name).toLowerCase()];
    return entry === undefined ? undefined : entry[1];
  }
  getHeaders() {
    const out = Object.create(null);
    for (const key of Object.keys(this[kHeaders])) out[key] = this[kHeaders][key][1];
    return out;
  }
  getHeaderNames() {
    return Object.keys(this[kHeaders]);
  }
  getRawHeaderNames() {
    return Object.keys(this[kHeaders]).map((k) => this[kHeaders][k][0]);
  }
  hasHeader(name) {
    return this[kHeaders][String(name).toLowerCase()] !== undefined;
  }
  removeHeader(name) {
    if (this._header) throw headersSent('remove');
    delete this[kHeaders][String(name).toLowerCase()];
  }
  addTrailers() {}
  cork() {}
  uncork() {}
  setTimeout(ms, callback) {
    if (typeof callback === 'function') this.once('timeout', callback);
    return this;
  }
  flushHeaders() {
    if (!this._header) this._implicitHeader();
    this._send(null);
  }
  write(chunk, encoding, callback) {
    if (typeof encoding === 'function') {
      callback = encoding;
      encoding = undefined;
    }
    if (this.finished) {
      const e = nodeError(Error, 'ERR_STREAM_WRITE_AFTER_END', 'write after end');
      host.queueMicrotask(() => {
        if (typeof callback === 'function') callback(e);
        this.emit('error', e);
      });
      return false;
    }
    if (chunk === null) throw nodeError(TypeError, 'ERR_STREAM_NULL_VALUES', 'May not write null values to stream');
    if (!this._header) this._implicitHeader();
    const body = this._hasBody ? toBuffer(chunk, encoding) : null;
    this._send(body && body.length > 0 ? body : null, callback);
    return true;
  }
  end(chunk, encoding, callback) {
    if (typeof chunk === 'function') {
      callback = chunk;
      chunk = null;
    } else if (typeof encoding === 'function') {
      callback = encoding;
      encoding = undefined;
    }
    if (this.finished) {
      if (typeof callback === 'function') host.queueMicrotask(() => callback());
      return this;
    }
    if (chunk !== null && chunk !== undefined) this.write(chunk, encoding);
    else {
      if (!this._header) this._implicitHeader();
      this._send(null);
    }
    this.finished = true;
    if (typeof callback === 'function') this.once('finish', callback);
    host.queueMicrotask(() => this._finish());
    return this;
  }
  _finish() {
    if (this._finishedEmitted) return;
    this._finishedEmitted = true;
    this.emit('prefinish');
    this.emit('finish');
    host.queueMicrotask(() => this.emit('close'));
  }
  /** The header block once, then `data` (a Buffer, or null for none), to the socket or held until there is one. */
  _send(data, callback) {
    if (!this._headerSent && this._header) {
      this._headerSent = true;
      this._writeRaw(this._header);
    }
    if (data !== null) this._writeRaw(data, callback);
    else if (typeof callback === 'function') host.queueMicrotask(() => callback());
  }
  _writeRaw(data, callback) {
    const socket = this.socket;
    if (socket && socket.writable !== false && !socket.destroyed) return socket.write(data, callback);
    this.outputData.push({ data, callback });
    this.outputSize += data.length;
    return false;
  }
  _flushOutput(socket) {
    const pending = this.outputData;
    this.outputData = [];
    this.outputSize = 0;
    for (const { data, callback } of pending) socket.write(data, callback);
  }
  /** The header block Node would send: the first line and every header, then an empty line. */
  _storeHeader(firstLine) {
    let text = firstLine;
    for (const key of Object.keys(this[kHeaders])) {
      const [name, value] = this[kHeaders][key];
      for (const v of Array.isArray(value) ? value : [value]) text += name + ': ' + v + '\r\n';
    }
    this._header = text + '\r\n';
    this._headerSent = false;
  }
  destroy(error) {
    if (this.destroyed) return this;
    this.destroyed = true;
    if (this.socket && typeof this.socket.destroy === 'function') this.socket.destroy(error);
    host.queueMicrotask(() => {
      if (error) this.emit('error', error);
      this.emit('close');
    });
    return this;
  }
}

class ServerResponse extends OutgoingMessage {
  constructor(req) {
    super();
    this.req = req || null;
    this.statusCode = 200;
    this.statusMessage = undefined;
    this.sendDate = true;
    if (req && req.method === 'HEAD') this._hasBody = false;
  }
  assignSocket(socket) {
    socket._httpMessage = this;
    this.socket = socket;
    this.emit('socket', socket);
    this._flushOutput(socket);
  }
  detachSocket(socket) {
    socket._httpMessage = null;
    this.socket = null;
  }
  writeContinue(callback) {
    if (typeof callback === 'function') host.queueMicrotask(() => callback());
  }
  writeProcessing(callback) {
    if (typeof callback === 'function') host.queueMicrotask(() => callback());
  }
  writeEarlyHints(hints, callback) {
    if (typeof callback === 'function') host.queueMicrotask(() => callback());
  }
  _implicitHeader() {
    this.writeHead(this.statusCode);
  }
  writeHead(statusCode, reason, headers) {
    if (this._header) throw headersSent('write');
    const code = statusCode | 0;
    if (code < 100 || code > 999) throw nodeError(RangeError, 'ERR_HTTP_INVALID_STATUS_CODE', 'Invalid status code: ' + statusCode);
    if (typeof reason === 'string') this.statusMessage = reason;
    else {
      if (!this.statusMessage) this.statusMessage = STATUS_CODES[code] || 'unknown';
      if (headers === undefined || headers === null) headers = reason;
    }
    this.statusCode = code;
    if (Array.isArray(headers)) {
      if (headers.length > 0 && Array.isArray(headers[0])) for (const [k, v] of headers) this.appendHeader(k, v);
      else for (let i = 0; i + 1 < headers.length; i += 2) this.appendHeader(headers[i], headers[i + 1]);
    } else if (headers && typeof headers === 'object') {
      for (const k of Object.keys(headers)) if (k) this.setHeader(k, headers[k]);
    }
    if (code === 204 || code === 304 || (code >= 100 && code <= 199)) this._hasBody = false;
    this._storeHeader('HTTP/1.1 ' + code + ' ' + this.statusMessage + '\r\n');
    return this;
  }
}

function unavailable(what, why) {
  return nodeError(Error, 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM', what + ' is not available in the function sandbox: ' + why);
}

class Agent extends EventEmitter {
  constructor(options) {
    super();
    const opts = Object.assign({}, options);
    this.options = Object.assign({ path: null }, opts);
    this.keepAlive = Boolean(opts.keepAlive);
    this.keepAliveMsecs = opts.keepAliveMsecs || 1000;
    this.maxSockets = opts.maxSockets || Infinity;
    this.maxFreeSockets = opts.maxFreeSockets || 256;
    this.maxTotalSockets = opts.maxTotalSockets || Infinity;
    this.scheduling = opts.scheduling || 'lifo';
    this.sockets = Object.create(null);
    this.freeSockets = Object.create(null);
    this.requests = Object.create(null);
    this.defaultPort = 80;
    this.protocol = 'http:';
  }
  getName(options = {}) {
    return (options.host || 'localhost') + ':' + (options.port || '') + ':' + (options.localAddress || '');
  }
  createConnection() {
    throw unavailable('Agent.createConnection', 'functions have no sockets (http.request runs over fetch)');
  }
  keepSocketAlive() {
    return false;
  }
  reuseSocket() {}
  destroy() {}
}

class Server extends EventEmitter {
  constructor(options, listener) {
    super();
    if (typeof options === 'function') listener = options;
    if (typeof listener === 'function') this.on('request', listener);
    this.listening = false;
    this.timeout = 0;
    this.keepAliveTimeout = 5000;
    this.headersTimeout = 60000;
    this.requestTimeout = 300000;
    this.maxHeadersCount = null;
  }
  listen() {
    throw unavailable('Server.listen', 'functions listen on no port: export a handler (serverless-http or @codegenie/serverless-express wrap an app)');
  }
  close(callback) {
    if (typeof callback === 'function') host.queueMicrotask(() => callback());
    return this;
  }
  closeAllConnections() {}
  closeIdleConnections() {}
  address() {
    return null;
  }
  setTimeout(ms, callback) {
    if (typeof callback === 'function') this.on('timeout', callback);
    return this;
  }
  ref() {
    return this;
  }
  unref() {
    return this;
  }
}

/** Node's (url?, options?, callback?) -> one options object. */
function requestOptions(input, options, callback, defaults) {
  let opts = {};
  if (typeof input === 'string' || (input && typeof input === 'object' && typeof input.href === 'string' && input.protocol)) {
    const u = new host.URL(String(typeof input === 'string' ? input : input.href));
    opts = {
      protocol: u.protocol,
      hostname: u.hostname.replace(/^\[|\]$/g, ''),
      port: u.port,
      path: u.pathname + u.search,
      auth: u.username ? decodeURIComponent(u.username) + ':' + decodeURIComponent(u.password) : undefined,
    };
    if (typeof options === 'function') {
      callback = options;
      options = undefined;
    }
    if (options) opts = Object.assign(opts, options);
  } else {
    if (typeof input === 'function') {
      callback = input;
      input = undefined;
    }
    opts = Object.assign({}, input);
    if (typeof options === 'function') callback = options;
  }
  const agent = opts.agent;
  const protocol = opts.protocol || (agent && agent.protocol) || defaults.protocol;
  if (protocol !== defaults.protocol) {
    throw nodeError(TypeError, 'ERR_INVALID_PROTOCOL', 'Protocol "' + protocol + '" not supported. Expected "' + defaults.protocol + '"');
  }
  return { opts, protocol, callback };
}

class ClientRequest extends OutgoingMessage {
  #chunks = [];
  #controller = null;
  #timer = null;
  constructor(input, options, callback, defaults = { protocol: 'http:', port: 80 }) {
    super();
    const r = requestOptions(input, options, callback, defaults);
    const opts = r.opts;
    this.method = String(opts.method || 'GET').toUpperCase();
    this.protocol = r.protocol;
    this.host = opts.hostname || (opts.host ? String(opts.host).replace(/:\d+$/, '') : 'localhost');
    this.port = opts.port || opts.defaultPort || (opts.agent && opts.agent.defaultPort) || defaults.port;
    this.path = opts.path || '/';
    this.agent = opts.agent;
    this.aborted = false;
    this.reusedSocket = false;
    this.maxHeadersCount = null;
    this.res = null;
    this.signal = opts.signal;
    const headers = opts.headers;
    if (Array.isArray(headers)) for (let i = 0; i + 1 < headers.length; i += 2) this.appendHeader(headers[i], headers[i + 1]);
    else if (headers) for (const k of Object.keys(headers)) if (headers[k] !== undefined) this.setHeader(k, headers[k]);
    if (opts.auth && !this.hasHeader('authorization')) this.setHeader('Authorization', 'Basic ' + Buffer.from(String(opts.auth)).toString('base64'));
    if (typeof r.callback === 'function') this.once('response', r.callback);
    if (opts.timeout !== undefined) this.setTimeout(opts.timeout);
    if (this.signal) {
      if (this.signal.aborted) host.queueMicrotask(() => this.destroy(abortError(this.signal)));
      else this.signal.addEventListener('abort', () => this.destroy(abortError(this.signal)), { once: true });
    }
  }
  _implicitHeader() {
    this._storeHeader(this.method + ' ' + this.path + ' HTTP/1.1\r\n');
  }
  _send(data, callback) {
    this._headerSent = true;
    if (data !== null) this.#chunks.push(Buffer.from(data));
    if (typeof callback === 'function') host.queueMicrotask(() => callback());
  }
  end(chunk, encoding, callback) {
    const first = !this.finished;
    super.end(chunk, encoding, callback);
    if (first && !this.destroyed) this.#dispatch();
    return this;
  }
  setTimeout(ms, callback) {
    if (typeof callback === 'function') this.once('timeout', callback);
    if (this.#timer !== null) host.clearTimeout(this.#timer);
    this.#timer = ms > 0 ? host.setTimeout(() => this.emit('timeout'), ms) : null;
    return this;
  }
  setNoDelay() {}
  setSocketKeepAlive() {}
  abort() {
    if (this.aborted) return;
    this.aborted = true;
    host.queueMicrotask(() => this.emit('abort'));
    this.destroy();
  }
  destroy(error) {
    if (this.#controller) this.#controller.abort();
    if (this.#timer !== null) host.clearTimeout(this.#timer);
    return super.destroy(error);
  }
  #dispatch() {
    const hostname = this.host.includes(':') ? '[' + this.host + ']' : this.host;
    const port = String(this.port) === (this.protocol === 'https:' ? '443' : '80') ? '' : ':' + this.port;
    const url = this.protocol + '//' + hostname + port + this.path;
    const pairs = [];
    for (const key of Object.keys(this[kHeaders])) {
      const [name, value] = this[kHeaders][key];
      for (const v of Array.isArray(value) ? value : [value]) pairs.push([name, String(v)]);
    }
    const body = this.#chunks.length > 0 ? Buffer.concat(this.#chunks) : null;
    const init = { method: this.method, headers: pairs, body: body && this.method !== 'GET' && this.method !== 'HEAD' ? body : undefined, redirect: 'manual' };
    if (typeof globalThis.AbortController === 'function') {
      this.#controller = new globalThis.AbortController();
      init.signal = this.#controller.signal;
    }
    let answer;
    try {
      answer = host.fetch(url, init);
    } catch (e) {
      host.queueMicrotask(() => this.#fail(e));
      return;
    }
    answer
      .then((res) => res.arrayBuffer().then((bytes) => this.#respond(res, bytes)))
      .catch((e) => this.#fail(e));
  }
  #fail(e) {
    if (this.destroyed && this.aborted) return;
    if (this.#timer !== null) host.clearTimeout(this.#timer);
    const err = e instanceof Error ? e : new Error(String(e));
    if (!err.code) err.code = 'ECONNREFUSED';
    this.emit('error', err);
    this.emit('close');
  }
  #respond(res, bytes) {
    if (this.destroyed) return;
    if (this.#timer !== null) host.clearTimeout(this.#timer);
    const msg = new IncomingMessage(null);
    msg.statusCode = res.status;
    msg.statusMessage = res.statusText || STATUS_CODES[res.status] || '';
    msg.req = this;
    const raw = [];
    const cookies = typeof res.headers.getSetCookie === 'function' ? res.headers.getSetCookie() : [];
    for (const [k, v] of res.headers) if (k !== 'set-cookie') raw.push(k, v);
    for (const c of cookies) raw.push('set-cookie', c);
    msg._addHeaderLines(raw, raw.length);
    msg.complete = true;
    msg.push(Buffer.from(bytes));
    msg.push(null);
    this.res = msg;
    if (this.listenerCount('response') > 0) this.emit('response', msg);
    else msg.resume();
    msg.once('end', () => this.emit('close'));
  }
}

function abortError(signal) {
  const e = new Error('The operation was aborted');
  e.name = 'AbortError';
  e.code = 'ABORT_ERR';
  if (signal && signal.reason !== undefined) e.cause = signal.reason;
  return e;
}

/**
 * Node's HTTP classes are functions, and old-style subclasses initialise
 * through them (`http.ServerResponse.call(this, req)` in light-my-request,
 * which fastify's inject uses). The classes here are ES classes, so each is
 * exported as a function over the class: `new` (and `extends`) construct the
 * class; a plain call builds one and moves its own state onto `this`.
 */
function callable(Cls) {
  const F = {
    [Cls.name]: function (...args) {
      if (new.target) return Reflect.construct(Cls, args, new.target);
      if (!(this instanceof F)) return new F(...args);
      const made = Reflect.construct(Cls, args, this.constructor);
      Object.defineProperties(this, Object.getOwnPropertyDescriptors(made));
      return undefined;
    },
  }[Cls.name];
  F.prototype = Cls.prototype;
  Object.defineProperty(Cls.prototype, 'constructor', { value: F, writable: true, configurable: true, enumerable: false });
  Object.setPrototypeOf(F, Object.getPrototypeOf(Cls));
  return F;
}
const Exported = {
  IncomingMessage: callable(IncomingMessage),
  OutgoingMessage: callable(OutgoingMessage),
  ServerResponse: callable(ServerResponse),
  Server: callable(Server),
  Agent: callable(Agent),
};

function makeModule(protocol, port, BaseAgent) {
  // https.Agent extends http.Agent, as in Node.
  const ProtocolAgent = BaseAgent
    ? class Agent extends BaseAgent {
        constructor(options) {
          super(options);
          this.defaultPort = port;
          this.protocol = protocol;
        }
      }
    : Exported.Agent;
  const globalAgent = new ProtocolAgent({ keepAlive: true });
  const defaults = { protocol, port };
  function request(input, options, callback) {
    return new ClientRequest(input, options, callback, defaults);
  }
  function get(input, options, callback) {
    const req = request(input, options, callback);
    req.end();
    return req;
  }
  return {
    Agent: ProtocolAgent,
    globalAgent,
    request,
    get,
    createServer: (options, listener) => new Exported.Server(options, listener),
    Server: Exported.Server,
    ClientRequest,
    IncomingMessage: Exported.IncomingMessage,
    OutgoingMessage: Exported.OutgoingMessage,
    ServerResponse: Exported.ServerResponse,
    STATUS_CODES,
    METHODS,
    maxHeaderSize: 16384,
    validateHeaderName,
    validateHeaderValue,
    setMaxIdleHTTPParsers() {},
  };
}

const http = makeModule('http:', 80);
module.exports = { http, https: makeModule('https:', 443, http.Agent) };
