// @ts-check
/**
 * Isolate-side source: setTimeout/setInterval/setImmediate and their clears,
 * answering Node's Timeout and Immediate objects (ref/unref/hasRef/refresh,
 * and a number when coerced, so `clearTimeout(+t)` and ids kept as numbers
 * work). The isolate keeps the callbacks; the host only keeps Node timers
 * keyed by id (`hostTimerSet`/`hostTimerClear`) and calls `handlers.timer(id)`
 * when one fires. The isolate's table is the source of truth, so a clear that
 * crosses a firing timer still wins. An immediate is a timer of 0 ms: it runs
 * after the microtasks of the code that set it and what the host has queued.
 *
 * Timers live only while an invocation is in flight (see ../../sandbox/bootstrap.ts):
 * when the last one ends the table is dropped (the host clears its Node
 * timers at the same moment), and a timer set outside any invocation gets an
 * id but never fires. ref/unref change nothing else: an invocation ends when
 * its handler answers, whatever is pending. The table has no prototype, so
 * user code that patches Map or Object.prototype cannot reach into it.
 *
 * `bindTimerCallback` is how async_hooks (../../sandbox/node/context.cjs)
 * keeps an AsyncLocalStorage's store across timers: null until one is made.
 */
// isolate source begins
/** @type {null | ((fn: Function) => Function)} */
let bindTimerCallback = null;
{
  const MAX_TIMERS = 10000;
  let timers = createObject(null);
  let count = 0;
  let seq = 0;
  /** @type {(t: Timeout) => number} */
  let idOf = () => 0;
  class Timeout {
    #id; #ref = true;
    static { idOf = (t) => t.#id; }
    /** @param {number} id */
    constructor(id) { this.#id = id; }
    ref() { this.#ref = true; return this; }
    unref() { this.#ref = false; return this; }
    hasRef() { return this.#ref; }
    refresh() {
      const t = timers[this.#id];
      if (t !== undefined) hostTimerSet(this.#id, t.delay);
      return this;
    }
    close() { clear(this.#id); return this; }
    [Symbol.toPrimitive]() { return this.#id; }
  }
  class Immediate extends Timeout {}
  /** @type {(fn: unknown, ms: unknown, args: unknown[], repeat: boolean, Kind: typeof Timeout) => Timeout} */
  function add(fn, ms, args, repeat, Kind) {
    if (typeof fn !== 'function') {
      const e = new TypeError('The "callback" argument must be of type function. Received ' + (fn === null ? 'null' : typeof fn));
      e.code = 'ERR_INVALID_ARG_TYPE';
      throw e;
    }
    if (!active) return new Kind(++seq);
    if (count >= MAX_TIMERS) throw new RangeError('Too many pending timers (limit ' + MAX_TIMERS + ')');
    let delay = Math.floor(Number(ms));
    if (!(delay >= 0)) delay = 0;
    if (delay > 2147483647) delay = 1;
    if (repeat && delay < 1) delay = 1;
    const id = ++seq;
    timers[id] = { fn: bindTimerCallback === null ? fn : bindTimerCallback(fn), args, delay, repeat };
    count++;
    hostTimerSet(id, delay);
    return new Kind(id);
  }
  /** @param {unknown} id */
  function clear(id) {
    const n = id instanceof Timeout ? idOf(id) : typeof id === 'number' ? id : Number(id);
    if (timers[n] === undefined) return;
    delete timers[n];
    count--;
    hostTimerClear(n);
  }
  handlers.timer = (id) => {
    const t = timers[id];
    if (t === undefined) return;
    if (t.repeat) hostTimerSet(id, t.delay);
    else {
      delete timers[id];
      count--;
    }
    try { callFunction(t.fn, undefined, t.args); } catch (e) { reportError(e); }
  };
  idleHooks.push(() => {
    if (count === 0) return;
    timers = createObject(null);
    count = 0;
  });
  def('setTimeout', function setTimeout(fn, ms, ...args) { return add(fn, ms, args, false, Timeout); });
  def('setInterval', function setInterval(fn, ms, ...args) { return add(fn, ms, args, true, Timeout); });
  def('setImmediate', function setImmediate(fn, ...args) { return add(fn, 0, args, false, Immediate); });
  def('clearTimeout', function clearTimeout(id) { clear(id); });
  def('clearInterval', function clearInterval(id) { clear(id); });
  def('clearImmediate', function clearImmediate(id) { clear(id); });
}
// isolate source ends
