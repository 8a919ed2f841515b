// @ts-check
/**
 * Isolate-side source: WHATWG streams (ReadableStream with its default reader,
 * tee, pipeTo, pipeThrough, async iteration and `from`; WritableStream;
 * TransformStream; the two queuing strategies; TextEncoderStream and
 * TextDecoderStream). Node's `stream/web` module reads them from globalThis.
 *
 * Hand-written: no port is installed (web-streams-polyfill would be 60 KiB
 * minified, a third again of the whole sandbox) and a function needs the
 * common paths only: no byte streams (`type: 'bytes'` streams behave as default
 * streams of Uint8Array chunks, and a BYOB reader is refused). Built on the
 * first read of one of its globals (`defLazy`, web-events.js).
 */
// isolate source begins
/** @type {() => Record<string, any>} */
let webStreams;
{
  /** @type {Record<string, any> | null} */
  let built = null;
  webStreams = () => (built ??= buildWebStreams());
}
function buildWebStreams() {
  const noop = () => {};
  const settled = (p) => { p.then(noop, noop); return p; };
  /** @returns {{ promise: Promise<any>, resolve: (v?: any) => void, reject: (e?: any) => void }} */
  function deferred() {
    /** @type {(v?: any) => void} */
    let resolve = noop;
    /** @type {(e?: any) => void} */
    let reject = noop;
    const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
    return { promise, resolve, reject };
  }
  function strategyOf(strategy, defaultHwm) {
    const s = strategy || {};
    const hwm = s.highWaterMark === undefined ? defaultHwm : Number(s.highWaterMark);
    if (Number.isNaN(hwm) || hwm < 0) throw new RangeError('highWaterMark must be a non-negative number');
    const size = typeof s.size === 'function' ? s.size : () => 1;
    return { hwm, size };
  }
  const call = (obj, name, args) => {
    const fn = obj && obj[name];
    if (fn === undefined || fn === null) return Promise.resolve(undefined);
    if (typeof fn !== 'function') return Promise.reject(new TypeError(name + ' must be a function'));
    try { return Promise.resolve(callFunction(fn, obj, args)); } catch (e) { return Promise.reject(e); }
  };

  const TOKEN = {};
  let rsInternals;
  class ReadableStreamDefaultController {
    #s;
    constructor(token, s) { if (token !== TOKEN) throw new TypeError('Illegal constructor'); this.#s = s; }
    get desiredSize() { return rsInternals(this.#s).desiredSize(); }
    enqueue(chunk) { rsInternals(this.#s).enqueue(chunk); }
    close() { rsInternals(this.#s).close(); }
    error(e) { rsInternals(this.#s).error(e); }
  }

  class ReadableStream {
    #state = 'readable'; #storedError = undefined; #queue = []; #queueSize = 0;
    #closeRequested = false; #started = false; #pulling = false; #pullAgain = false;
    #reader = null; #reads = []; #source; #strategy; #controller; #closed = deferred();
    static {
      rsInternals = (s) => ({
        desiredSize: () => s.#state === 'errored' ? null : s.#state === 'closed' ? 0 : s.#strategy.hwm - s.#queueSize,
        enqueue: (chunk) => {
          if (s.#closeRequested || s.#state !== 'readable') throw new TypeError('Cannot enqueue into a closed or errored stream');
          if (s.#reads.length > 0) s.#reads.shift().resolve({ value: chunk, done: false });
          else {
            let size;
            try { size = Number(s.#strategy.size(chunk)); } catch (e) { s.#error(e); throw e; }
            s.#queue.push({ chunk, size });
            s.#queueSize += size;
          }
          s.#pullIfNeeded();
        },
        close: () => {
          if (s.#closeRequested || s.#state !== 'readable') throw new TypeError('The stream is already closing or closed');
          s.#closeRequested = true;
          if (s.#queue.length === 0) s.#finishClose();
        },
        error: (e) => s.#error(e),
        read: () => s.#read(),
        release: () => { s.#reader = null; },
        acquire: (r) => { s.#reader = r; },
        closed: () => s.#closed.promise,
      });
    }
    constructor(underlyingSource, strategy) {
      const source = underlyingSource === undefined || underlyingSource === null ? {} : underlyingSource;
      this.#source = source;
      this.#strategy = strategyOf(strategy, 1);
      settled(this.#closed.promise);
      this.#controller = new ReadableStreamDefaultController(TOKEN, this);
      call(source, 'start', [this.#controller]).then(() => { this.#started = true; this.#pullIfNeeded(); }, (e) => this.#error(e));
    }
    #pullIfNeeded() {
      if (!this.#started || this.#state !== 'readable' || this.#closeRequested) return;
      if (this.#reads.length === 0 && this.#strategy.hwm - this.#queueSize <= 0) return;
      if (this.#pulling) { this.#pullAgain = true; return; }
      this.#pulling = true;
      call(this.#source, 'pull', [this.#controller]).then(() => {
        this.#pulling = false;
        if (this.#pullAgain) { this.#pullAgain = false; this.#pullIfNeeded(); }
      }, (e) => this.#error(e));
    }
    #finishClose() {
      this.#state = 'closed';
      for (const r of this.#reads) r.resolve({ value: undefined, done: true });
      this.#reads = [];
      this.#closed.resolve(undefined);
    }
    #error(e) {
      if (this.#state !== 'readable') return;
      this.#state = 'errored';
      this.#storedError = e;
      this.#queue = []; this.#queueSize = 0;
      for (const r of this.#reads) r.reject(e);
      this.#reads = [];
      this.#closed.reject(e);
    }
    #read() {
      if (this.#state === 'errored') return Promise.reject(this.#storedError);
      if (this.#queue.length > 0) {
        const { chunk, size } = this.#queue.shift();
        this.#queueSize -= size;
        if (this.#closeRequested && this.#queue.length === 0) this.#finishClose();
        else this.#pullIfNeeded();
        return Promise.resolve({ value: chunk, done: false });
      }
      if (this.#state === 'closed') return Promise.resolve({ value: undefined, done: true });
      const d = deferred();
      this.#reads.push(d);
      this.#pullIfNeeded();
      return d.promise;
    }
    get locked() { return this.#reader !== null; }
    cancel(reason) {
      if (this.#reader !== null) return Promise.reject(new TypeError('Cannot cancel a locked stream'));
      return this.#cancel(reason);
    }
    #cancel(reason) {
      if (this.#state === 'closed') return Promise.resolve(undefined);
      if (this.#state === 'errored') return Promise.reject(this.#storedError);
      this.#queue = []; this.#queueSize = 0;
      this.#finishClose();
      return call(this.#source, 'cancel', [reason]).then(noop);
    }
    static { cancelStream = (s, reason) => s.#cancel(reason); }
    getReader(options) {
      if (options && options.mode !== undefined) {
        if (String(options.mode) === 'byob') throw new TypeError('BYOB readers are not supported in the function sandbox');
        throw new TypeError('Invalid reader mode: ' + options.mode);
      }
      return new ReadableStreamDefaultReader(this);
    }
    pipeThrough(transform, options) {
      if (!transform || !(transform.writable instanceof WritableStream) || !(transform.readable instanceof ReadableStream)) {
        throw new TypeError('pipeThrough needs a { writable, readable } pair');
      }
      settled(this.pipeTo(transform.writable, options));
      return transform.readable;
    }
    async pipeTo(dest, options) {
      if (!(dest instanceof WritableStream)) throw new TypeError('pipeTo needs a WritableStream');
      const o = options || {};
      const reader = this.getReader();
      const writer = dest.getWriter();
      const signal = o.signal;
      let aborted = null;
      const onAbort = () => { aborted = signal.reason; reader.cancel(aborted).catch(noop); };
      if (signal) { if (signal.aborted) aborted = signal.reason; else signal.addEventListener('abort', onAbort, { once: true }); }
      try {
        while (aborted === null) {
          await writer.ready;
          let step;
          try { step = await reader.read(); } catch (e) {
            if (!o.preventAbort) await writer.abort(e).catch(noop);
            throw e;
          }
          if (aborted !== null) break;
          if (step.done) {
            if (!o.preventClose) await writer.close();
            return;
          }
          try { await writer.write(step.value); } catch (e) {
            if (!o.preventCancel) await reader.cancel(e).catch(noop);
            throw e;
          }
        }
        if (!o.preventAbort) await writer.abort(aborted).catch(noop);
        if (!o.preventCancel) await reader.cancel(aborted).catch(noop);
        throw aborted;
      } finally {
        if (signal) signal.removeEventListener('abort', onAbort);
        reader.releaseLock();
        writer.releaseLock();
      }
    }
    tee() {
      const reader = this.getReader();
      let canceled = 0;
      const reasons = [undefined, undefined];
      const source = this;
      let reading = false;
      /** @type {any[]} */
      const ctrls = [null, null];
      const pull = () => {
        if (reading) return Promise.resolve();
        reading = true;
        return reader.read().then(({ value, done: end }) => {
          reading = false;
          for (let i = 0; i < 2; i++) {
            if (reasons[i] !== undefined || ctrls[i] === null) continue;
            try { if (end) ctrls[i].close(); else ctrls[i].enqueue(value); } catch (_) { /* the branch was canceled */ }
          }
        }, (e) => { for (const c of ctrls) { try { c.error(e); } catch (_) { /* already errored */ } } });
      };
      const branch = (i) => new ReadableStream({
        start(c) { ctrls[i] = c; },
        pull,
        // As Node's: a branch's cancel settles at once; the source is cancelled with both reasons
        // once both branches are.
        cancel(reason) {
          reasons[i] = reason === undefined ? null : reason;
          if (++canceled < 2) return undefined;
          reader.releaseLock();
          return cancelStream(source, reasons);
        },
      }, { highWaterMark: 0 });
      return [branch(0), branch(1)];
    }
    values(options) {
      const reader = this.getReader();
      const preventCancel = Boolean(options && options.preventCancel);
      return {
        next() { return reader.read().then((r) => { if (r.done) reader.releaseLock(); return r; }); },
        return(value) {
          const end = preventCancel ? Promise.resolve() : reader.cancel(value);
          return end.then(() => { reader.releaseLock(); return { value, done: true }; });
        },
        [Symbol.asyncIterator]() { return this; },
      };
    }
    [Symbol.asyncIterator](options) { return this.values(options); }
    static from(asyncIterable) {
      if (asyncIterable instanceof ReadableStream) return asyncIterable;
      const it = asyncIterable && typeof asyncIterable[Symbol.asyncIterator] === 'function'
        ? asyncIterable[Symbol.asyncIterator]()
        : asyncIterable && typeof asyncIterable[Symbol.iterator] === 'function' ? asyncIterable[Symbol.iterator]() : null;
      if (!it) throw new TypeError('ReadableStream.from needs an iterable or async iterable');
      return new ReadableStream({
        async pull(c) {
          const r = await it.next();
          if (r.done) c.close(); else c.enqueue(await r.value);
        },
        async cancel(reason) { if (typeof it.return === 'function') await it.return(reason); },
      }, { highWaterMark: 0 });
    }
    get [Symbol.toStringTag]() { return 'ReadableStream'; }
  }
  /** @type {(s: ReadableStream, reason: unknown) => Promise<void>} */
  var cancelStream;

  class ReadableStreamDefaultReader {
    /** @type {any} */
    #stream;
    constructor(stream) {
      if (!(stream instanceof ReadableStream)) throw new TypeError('ReadableStreamDefaultReader needs a ReadableStream');
      if (stream.locked) throw new TypeError('ReadableStream is already locked to a reader');
      this.#stream = stream;
      rsInternals(stream).acquire(this);
    }
    get closed() {
      if (this.#stream === null) return Promise.reject(new TypeError('The reader was released'));
      return rsInternals(this.#stream).closed();
    }
    read() {
      if (this.#stream === null) return Promise.reject(new TypeError('The reader was released'));
      return rsInternals(this.#stream).read();
    }
    cancel(reason) {
      if (this.#stream === null) return Promise.reject(new TypeError('The reader was released'));
      return cancelStream(this.#stream, reason);
    }
    releaseLock() {
      if (this.#stream === null) return;
      rsInternals(this.#stream).release();
      this.#stream = null;
    }
    get [Symbol.toStringTag]() { return 'ReadableStreamDefaultReader'; }
  }

  let wsInternals;
  class WritableStreamDefaultController {
    #s;
    /** @type {any} */
    #abort = null;
    constructor(token, s) { if (token !== TOKEN) throw new TypeError('Illegal constructor'); this.#s = s; }
    error(e) { wsInternals(this.#s).error(e); }
    get signal() { this.#abort ??= new g.AbortController(); return this.#abort.signal; }
    static { abortControllerOf = (c, reason) => { if (c.#abort) c.#abort.abort(reason); }; }
  }
  /** @type {(c: WritableStreamDefaultController, reason: unknown) => void} */
  var abortControllerOf;

  class WritableStream {
    #state = 'writable'; #storedError = undefined; #sink; #strategy; #controller;
    #queue = []; #queueSize = 0; #busy = false; #writer = null;
    /** @type {any} */
    #closing = null;
    #started = false; #closed = deferred(); #ready = deferred();
    static {
      wsInternals = (s) => ({
        error: (e) => s.#error(e),
        write: (chunk) => s.#write(chunk),
        close: () => s.#close(),
        abort: (reason) => s.#abort(reason),
        desiredSize: () => s.#state === 'errored' ? null : s.#state === 'closed' ? 0 : s.#strategy.hwm - s.#queueSize,
        closed: () => s.#closed.promise,
        ready: () => s.#ready.promise,
        acquire: (w) => { s.#writer = w; },
        release: () => { s.#writer = null; },
      });
    }
    constructor(underlyingSink, strategy) {
      const sink = underlyingSink === undefined || underlyingSink === null ? {} : underlyingSink;
      this.#sink = sink;
      this.#strategy = strategyOf(strategy, 1);
      settled(this.#closed.promise);
      settled(this.#ready.promise);
      this.#controller = new WritableStreamDefaultController(TOKEN, this);
      if (this.#strategy.hwm > 0) this.#ready.resolve(undefined);
      call(sink, 'start', [this.#controller]).then(() => { this.#started = true; this.#advance(); }, (e) => this.#error(e));
    }
    #backpressure() {
      const free = this.#strategy.hwm - this.#queueSize > 0;
      if (free) this.#ready.resolve(undefined);
      else if (this.#state === 'writable') { this.#ready = deferred(); settled(this.#ready.promise); }
    }
    #write(chunk) {
      if (this.#state !== 'writable' || this.#closing) return Promise.reject(this.#storedError ?? new TypeError('The stream is closing or closed'));
      let size;
      try { size = Number(this.#strategy.size(chunk)); } catch (e) { this.#error(e); return Promise.reject(e); }
      const d = deferred();
      this.#queue.push({ chunk, size, d });
      this.#queueSize += size;
      if (this.#strategy.hwm - this.#queueSize <= 0) this.#backpressure();
      this.#advance();
      return d.promise;
    }
    #advance() {
      if (!this.#started || this.#busy || this.#state !== 'writable') return;
      const next = this.#queue[0];
      if (!next) {
        if (this.#closing) {
          const closing = this.#closing;
          this.#busy = true;
          call(this.#sink, 'close', []).then(() => {
            this.#state = 'closed';
            this.#closed.resolve(undefined);
            closing.resolve(undefined);
          }, (e) => { this.#error(e); closing.reject(e); });
        }
        return;
      }
      this.#busy = true;
      call(this.#sink, 'write', [next.chunk, this.#controller]).then(() => {
        this.#busy = false;
        this.#queue.shift();
        this.#queueSize -= next.size;
        next.d.resolve(undefined);
        if (this.#state === 'writable') this.#backpressure();
        this.#advance();
      }, (e) => { this.#busy = false; this.#error(e); });
    }
    #close() {
      if (this.#state !== 'writable' || this.#closing) return Promise.reject(this.#storedError ?? new TypeError('The stream is closing or closed'));
      this.#closing = deferred();
      const p = this.#closing.promise;
      this.#advance();
      return p;
    }
    #abort(reason) {
      if (this.#state === 'closed') return Promise.resolve(undefined);
      if (this.#state === 'errored') return Promise.resolve(undefined);
      abortControllerOf(this.#controller, reason);
      this.#error(reason);
      return call(this.#sink, 'abort', [reason]).then(noop);
    }
    #error(e) {
      if (this.#state !== 'writable') return;
      this.#state = 'errored';
      this.#storedError = e;
      for (const q of this.#queue) q.d.reject(e);
      this.#queue = []; this.#queueSize = 0;
      if (this.#closing) this.#closing.reject(e);
      this.#closed.reject(e);
      this.#ready.reject(e);
    }
    get locked() { return this.#writer !== null; }
    abort(reason) {
      if (this.#writer !== null) return Promise.reject(new TypeError('Cannot abort a locked stream'));
      return this.#abort(reason);
    }
    close() {
      if (this.#writer !== null) return Promise.reject(new TypeError('Cannot close a locked stream'));
      return this.#close();
    }
    getWriter() { return new WritableStreamDefaultWriter(this); }
    get [Symbol.toStringTag]() { return 'WritableStream'; }
  }

  class WritableStreamDefaultWriter {
    /** @type {any} */
    #stream;
    constructor(stream) {
      if (!(stream instanceof WritableStream)) throw new TypeError('WritableStreamDefaultWriter needs a WritableStream');
      if (stream.locked) throw new TypeError('WritableStream is already locked to a writer');
      this.#stream = stream;
      wsInternals(stream).acquire(this);
    }
    #s() { if (this.#stream === null) throw new TypeError('The writer was released'); return wsInternals(this.#stream); }
    get closed() { try { return this.#s().closed(); } catch (e) { return Promise.reject(e); } }
    get ready() { try { return this.#s().ready(); } catch (e) { return Promise.reject(e); } }
    get desiredSize() { return this.#s().desiredSize(); }
    write(chunk) { try { return this.#s().write(chunk); } catch (e) { return Promise.reject(e); } }
    close() { try { return this.#s().close(); } catch (e) { return Promise.reject(e); } }
    abort(reason) { try { return this.#s().abort(reason); } catch (e) { return Promise.reject(e); } }
    releaseLock() {
      if (this.#stream === null) return;
      wsInternals(this.#stream).release();
      this.#stream = null;
    }
    get [Symbol.toStringTag]() { return 'WritableStreamDefaultWriter'; }
  }

  class TransformStream {
    #readable; #writable;
    constructor(transformer, writableStrategy, readableStrategy) {
      const t = transformer === undefined || transformer === null ? {} : transformer;
      /** @type {any} */
      let rc = null;
      // Backpressure: a write waits until the readable side asks for more (a pull) or has room.
      let wake = deferred();
      let pulled = false;
      const controller = {
        enqueue(chunk) { rc.enqueue(chunk); },
        error(e) { rc.error(e); wsInternals(writable).error(e); },
        terminate() { try { rc.close(); } catch (_) { /* already closed */ } wsInternals(writable).error(new TypeError('The transform stream was terminated')); },
        get desiredSize() { return rc.desiredSize; },
      };
      const started = deferred();
      this.#readable = new ReadableStream({
        start(c) { rc = c; return started.promise; },
        pull() { pulled = true; wake.resolve(undefined); },
        cancel(reason) {
          wsInternals(writable).error(reason);
          return call(t, 'cancel', [reason]);
        },
      }, readableStrategy === undefined ? { highWaterMark: 0 } : readableStrategy);
      const writable = new WritableStream({
        start() { return started.promise; },
        async write(chunk) {
          if (!pulled && rc.desiredSize !== null && rc.desiredSize <= 0) await wake.promise;
          pulled = false;
          wake = deferred();
          if (typeof t.transform === 'function') await callFunction(t.transform, t, [chunk, controller]);
          else rc.enqueue(chunk);
        },
        async close() {
          await call(t, 'flush', [controller]);
          try { rc.close(); } catch (_) { /* terminated or errored */ }
        },
        abort(reason) { rc.error(reason); return call(t, 'cancel', [reason]); },
      }, writableStrategy);
      this.#writable = writable;
      call(t, 'start', [controller]).then(() => started.resolve(undefined), (e) => { started.reject(e); });
    }
    get readable() { return this.#readable; }
    get writable() { return this.#writable; }
    get [Symbol.toStringTag]() { return 'TransformStream'; }
  }

  class CountQueuingStrategy {
    #hwm;
    constructor(init) { this.#hwm = Number(init && init.highWaterMark); }
    get highWaterMark() { return this.#hwm; }
    get size() { return function size() { return 1; }; }
  }
  class ByteLengthQueuingStrategy {
    #hwm;
    constructor(init) { this.#hwm = Number(init && init.highWaterMark); }
    get highWaterMark() { return this.#hwm; }
    get size() { return function size(chunk) { return chunk.byteLength; }; }
  }

  class TextEncoderStream {
    #t;
    constructor() {
      const enc = new TextEncoder();
      let high = '';
      this.#t = new TransformStream({
        transform(chunk, c) {
          let s = high + String(chunk);
          high = '';
          const last = s.charCodeAt(s.length - 1);
          if (last >= 0xd800 && last <= 0xdbff) { high = s.slice(-1); s = s.slice(0, -1); }
          if (s.length > 0) c.enqueue(enc.encode(s));
        },
        flush(c) { if (high) c.enqueue(enc.encode(high)); },
      });
    }
    get encoding() { return 'utf-8'; }
    get readable() { return this.#t.readable; }
    get writable() { return this.#t.writable; }
  }
  class TextDecoderStream {
    #t; #d;
    constructor(label, options) {
      const dec = new TextDecoder(label, options);
      this.#d = dec;
      this.#t = new TransformStream({
        transform(chunk, c) { const s = dec.decode(chunk, { stream: true }); if (s) c.enqueue(s); },
        flush(c) { const s = dec.decode(); if (s) c.enqueue(s); },
      });
    }
    get encoding() { return this.#d.encoding; }
    get fatal() { return this.#d.fatal; }
    get ignoreBOM() { return this.#d.ignoreBOM; }
    get readable() { return this.#t.readable; }
    get writable() { return this.#t.writable; }
  }

  return {
    ReadableStream, ReadableStreamDefaultReader, ReadableStreamDefaultController,
    WritableStream, WritableStreamDefaultWriter, WritableStreamDefaultController,
    TransformStream, CountQueuingStrategy, ByteLengthQueuingStrategy, TextEncoderStream, TextDecoderStream,
  };
}
defLazy(['ReadableStream', 'ReadableStreamDefaultReader', 'ReadableStreamDefaultController',
  'WritableStream', 'WritableStreamDefaultWriter', 'WritableStreamDefaultController',
  'TransformStream', 'CountQueuingStrategy', 'ByteLengthQueuingStrategy', 'TextEncoderStream', 'TextDecoderStream'], webStreams);
/** A readable stream of one buffered body (fetch's Request/Response.body, Blob.stream). */
function bytesStream(bytes) {
  const RS = webStreams().ReadableStream;
  return new RS({
    start(c) { if (bytes.length > 0) c.enqueue(bytes.slice()); c.close(); },
  });
}
/** Reads a ReadableStream of bytes (or strings) to one Uint8Array. */
async function readAllBytes(stream) {
  const reader = stream.getReader();
  const parts = [];
  let total = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const b = typeof value === 'string' ? utf8Encode(value) : copyBytes(value, 'stream chunk');
    parts.push(b);
    total += b.length;
  }
  reader.releaseLock();
  const out = new Uint8Array(total);
  let p = 0;
  for (const b of parts) { out.set(b, p); p += b.length; }
  return out;
}
// isolate source ends
