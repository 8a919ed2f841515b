// @ts-check
/**
 * Isolate-side source: Event, CustomEvent, EventTarget, AbortController,
 * AbortSignal (with `timeout` and `any`) and `performance`, plus `defLazy`,
 * which the other web parts (web-streams.js, web-blob.js) install their
 * globals with. Hand-written: the npm ports (event-target-shim,
 * abort-controller) predate `AbortSignal.any`/`timeout` and `reason`, and the
 * whole is a page of code.
 *
 * Lazy: each group of classes is built on the first read of one of its
 * globals, so an isolate whose function uses none pays only for compiling
 * this text (which the bootstrap's code cache makes cheap).
 */
// isolate source begins
/**
 * Installs `names` as globals that call `build()` once, on the first read of any
 * of them, and then become plain writable values (a write before that wins too).
 * @param {string[]} names
 * @param {() => Record<string, unknown>} build
 */
function defLazy(names, build) {
  /** @type {Record<string, unknown> | null} */
  let built = null;
  for (const name of names) {
    Object.defineProperty(g, name, {
      configurable: true,
      enumerable: false,
      get() {
        built ??= build();
        def(name, built[name]);
        return built[name];
      },
      set(value) { def(name, value); },
    });
  }
}

// Captured now: user code may replace the globals later.
const timeOrigin = Date.now();
const dateNow = Date.now;
const sandboxSetTimeout = g.setTimeout;
function perfNow() { return dateNow() - timeOrigin; }

/** @type {(() => Record<string, any>)} */
let webEvents;
{
  /** @type {Record<string, any> | null} */
  let built = null;
  webEvents = () => (built ??= buildWebEvents());
}
function buildWebEvents() {
  let eventInternals;
  class Event {
    #type; #bubbles; #cancelable; #composed; #timeStamp = perfNow();
    #target = null; #currentTarget = null; #phase = 0;
    #canceled = false; #stop = false; #stopNow = false; #passive = false; #dispatching = false;
    static {
      eventInternals = (e) => ({
        begin(target) { e.#target = target; e.#currentTarget = target; e.#phase = 2; e.#dispatching = true; },
        end() { e.#currentTarget = null; e.#phase = 0; e.#dispatching = false; e.#passive = false; },
        passive(p) { e.#passive = p; },
        stoppedNow() { return e.#stopNow; },
        dispatching() { return e.#dispatching; },
      });
    }
    constructor(type, init) {
      if (arguments.length === 0) throw new TypeError('The "type" argument must be specified');
      const o = init === undefined || init === null ? {} : init;
      this.#type = String(type);
      this.#bubbles = Boolean(o.bubbles);
      this.#cancelable = Boolean(o.cancelable);
      this.#composed = Boolean(o.composed);
    }
    get type() { return this.#type; }
    get bubbles() { return this.#bubbles; }
    get cancelable() { return this.#cancelable; }
    get composed() { return this.#composed; }
    get timeStamp() { return this.#timeStamp; }
    get target() { return this.#target; }
    get srcElement() { return this.#target; }
    get currentTarget() { return this.#currentTarget; }
    get eventPhase() { return this.#phase; }
    get isTrusted() { return false; }
    get defaultPrevented() { return this.#canceled; }
    get returnValue() { return !this.#canceled; }
    set returnValue(v) { if (!v) this.preventDefault(); }
    get cancelBubble() { return this.#stop; }
    set cancelBubble(v) { if (v) this.#stop = true; }
    preventDefault() { if (this.#cancelable && !this.#passive) this.#canceled = true; }
    stopPropagation() { this.#stop = true; }
    stopImmediatePropagation() { this.#stop = true; this.#stopNow = true; }
    composedPath() { return this.#dispatching && this.#currentTarget ? [this.#currentTarget] : []; }
    get [Symbol.toStringTag]() { return 'Event'; }
  }
  for (const [k, v] of [['NONE', 0], ['CAPTURING_PHASE', 1], ['AT_TARGET', 2], ['BUBBLING_PHASE', 3]]) {
    Object.defineProperty(Event, k, { value: v, enumerable: true });
    Object.defineProperty(Event.prototype, k, { value: v, enumerable: true });
  }

  class CustomEvent extends Event {
    #detail;
    constructor(type, init) {
      super(type, init);
      this.#detail = init && init.detail !== undefined ? init.detail : null;
    }
    get detail() { return this.#detail; }
    get [Symbol.toStringTag]() { return 'CustomEvent'; }
  }

  function flatten(options) {
    if (typeof options === 'boolean') return { capture: options, once: false, passive: false, signal: undefined };
    const o = options || {};
    return { capture: Boolean(o.capture), once: Boolean(o.once), passive: Boolean(o.passive), signal: o.signal };
  }
  class EventTarget {
    // type -> listener records; a removed record is marked, so a dispatch in progress skips it.
    #listeners = new Map();
    addEventListener(type, callback, options) {
      if (callback === null || callback === undefined) return;
      if (typeof callback !== 'function' && typeof callback !== 'object') throw new TypeError('The "listener" argument must be a function or an object');
      const { capture, once, passive, signal } = flatten(options);
      if (signal && signal.aborted) return;
      const t = String(type);
      let list = this.#listeners.get(t);
      if (!list) { list = []; this.#listeners.set(t, list); }
      if (list.some((r) => r.callback === callback && r.capture === capture)) return;
      const record = { callback, capture, once, passive, removed: false };
      list.push(record);
      if (signal && typeof signal.addEventListener === 'function') {
        signal.addEventListener('abort', () => this.removeEventListener(t, callback, { capture }), { once: true });
      }
    }
    removeEventListener(type, callback, options) {
      const capture = flatten(options).capture;
      const list = this.#listeners.get(String(type));
      if (!list) return;
      const i = list.findIndex((r) => r.callback === callback && r.capture === capture);
      if (i < 0) return;
      list[i].removed = true;
      list.splice(i, 1);
    }
    dispatchEvent(event) {
      if (!(event instanceof Event)) throw new TypeError('The "event" argument must be an instance of Event');
      const ev = eventInternals(event);
      if (ev.dispatching()) throw new DOMException('The event is already being dispatched', 'InvalidStateError');
      const list = this.#listeners.get(event.type);
      ev.begin(this);
      try {
        if (list) {
          for (const r of list.slice()) {
            if (r.removed) continue;
            if (r.once) this.removeEventListener(event.type, r.callback, { capture: r.capture });
            ev.passive(r.passive);
            try {
              if (typeof r.callback === 'function') callFunction(r.callback, this, [event]);
              else if (typeof r.callback.handleEvent === 'function') r.callback.handleEvent(event);
            } catch (e) { reportError(e); }
            ev.passive(false);
            if (ev.stoppedNow()) break;
          }
        }
      } finally { ev.end(); }
      return !event.defaultPrevented;
    }
    get [Symbol.toStringTag]() { return 'EventTarget'; }
  }

  const SIGNAL_TOKEN = {};
  let abortSignal;
  let signalSteps;
  class AbortSignal extends EventTarget {
    #aborted = false; #reason = undefined; #onabort = null;
    /** @type {Array<(reason: unknown) => void>} */
    #steps = [];
    static {
      abortSignal = (s, reason) => {
        if (s.#aborted) return;
        s.#aborted = true;
        s.#reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
        const steps = s.#steps;
        s.#steps = [];
        for (const step of steps) { try { step(s.#reason); } catch (e) { reportError(e); } }
        s.dispatchEvent(new Event('abort'));
      };
      signalSteps = (s) => s.#steps;
    }
    constructor(token) {
      if (token !== SIGNAL_TOKEN) throw new TypeError('Illegal constructor');
      super();
    }
    get aborted() { return this.#aborted; }
    get reason() { return this.#reason; }
    throwIfAborted() { if (this.#aborted) throw this.#reason; }
    get onabort() { return this.#onabort; }
    set onabort(fn) {
      if (this.#onabort) this.removeEventListener('abort', this.#onabort);
      this.#onabort = typeof fn === 'function' ? fn : null;
      if (this.#onabort) this.addEventListener('abort', this.#onabort);
    }
    static abort(reason) {
      const s = new AbortSignal(SIGNAL_TOKEN);
      abortSignal(s, reason);
      return s;
    }
    static timeout(ms) {
      const delay = Number(ms);
      if (!(delay >= 0) || !Number.isFinite(delay)) throw new TypeError('The "delay" argument must be a non-negative finite number');
      const s = new AbortSignal(SIGNAL_TOKEN);
      // The sandbox's timers live only while an invocation is in flight, like everything it waits for.
      sandboxSetTimeout(() => abortSignal(s, new DOMException('The operation was aborted due to timeout', 'TimeoutError')), delay);
      return s;
    }
    static any(signals) {
      const list = Array.from(signals);
      const s = new AbortSignal(SIGNAL_TOKEN);
      for (const source of list) {
        if (!(source instanceof AbortSignal)) throw new TypeError('AbortSignal.any: every item must be an AbortSignal');
        if (source.aborted) { abortSignal(s, source.reason); return s; }
      }
      for (const source of list) signalSteps(source).push((reason) => abortSignal(s, reason));
      return s;
    }
    get [Symbol.toStringTag]() { return 'AbortSignal'; }
  }
  class AbortController {
    #signal = new AbortSignal(SIGNAL_TOKEN);
    get signal() { return this.#signal; }
    abort(reason) { abortSignal(this.#signal, reason); }
    get [Symbol.toStringTag]() { return 'AbortController'; }
  }
  return { Event, CustomEvent, EventTarget, AbortSignal, AbortController };
}
defLazy(['Event', 'CustomEvent', 'EventTarget', 'AbortSignal', 'AbortController'], webEvents);

{
  // Millisecond resolution (Date.now), which is also all a timing attack could get.
  const marks = createObject(null);
  const performance = {
    get timeOrigin() { return timeOrigin; },
    now: perfNow,
    mark(name) { marks[String(name)] = perfNow(); },
    measure(name, start, end) {
      const from = start === undefined ? 0 : marks[String(start)] ?? 0;
      const to = end === undefined ? perfNow() : marks[String(end)] ?? perfNow();
      return { name: String(name), entryType: 'measure', startTime: from, duration: to - from };
    },
    clearMarks(name) { if (name === undefined) { for (const k in marks) delete marks[k]; } else delete marks[String(name)]; },
    toJSON() { return { timeOrigin }; },
    get [Symbol.toStringTag]() { return 'Performance'; },
  };
  def('performance', performance);
}
// isolate source ends
