// @ts-check
/**
 * Isolate-side source: setTimeout/setInterval/clearTimeout/clearInterval.
 * The isolate keeps the callbacks; the host only keeps Node timers keyed by
 * id (`hostTimerSet`/`hostTimerClear`) and calls `handlers.timer(id)` when one
 * fires. The isolate's table is the source of truth, so a clear that crosses a
 * firing timer still wins.
 *
 * Timers live only while an invocation is in flight (see ../../sandbox/bootstrap.ts):
 * when the last one ends the table is dropped (the host clears its Node
 * timers at the same moment), and a timer set outside any invocation gets an
 * id but never fires. The table has no prototype, so user code that patches
 * Map or Object.prototype cannot reach into it.
 */
// isolate source begins
{
  const MAX_TIMERS = 10000;
  let timers = createObject(null);
  let count = 0;
  let seq = 0;
  function add(fn, ms, args, repeat) {
    if (typeof fn !== 'function') throw new TypeError('The "callback" argument must be a function');
    if (!active) return ++seq;
    if (count >= MAX_TIMERS) throw new RangeError('Too many pending timers (limit ' + MAX_TIMERS + ')');
    let delay = Math.floor(Number(ms));
    if (!(delay >= 0)) delay = 0;
    if (delay > 2147483647) delay = 1;
    const id = ++seq;
    timers[id] = { fn, args, delay, repeat };
    count++;
    hostTimerSet(id, delay);
    return id;
  }
  function clear(id) {
    const n = typeof id === 'number' ? id : Number(id);
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
  def('setTimeout', function setTimeout(fn, ms, ...args) { return add(fn, ms, args, false); });
  def('setInterval', function setInterval(fn, ms, ...args) { return add(fn, ms, args, true); });
  def('clearTimeout', function clearTimeout(id) { clear(id); });
  def('clearInterval', function clearInterval(id) { clear(id); });
}
// isolate source ends
