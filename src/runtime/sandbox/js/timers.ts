/**
 * Isolate-side source: setTimeout/setInterval/clearTimeout/clearInterval.
 * The isolate keeps the callbacks; the host only keeps Node timers keyed by
 * id (`hostTimerSet`/`hostTimerClear`) and calls `handlers.timer(id)` when one
 * fires. The isolate's map is the source of truth, so a clear that crosses a
 * firing timer still wins.
 */
export const TIMERS_SOURCE = String.raw`
{
  const MAX_TIMERS = 10000;
  const timers = new Map();
  let seq = 0;
  function add(fn, ms, args, repeat) {
    if (typeof fn !== 'function') throw new TypeError('The "callback" argument must be a function');
    if (timers.size >= MAX_TIMERS) throw new RangeError('Too many pending timers (limit ' + MAX_TIMERS + ')');
    let delay = Math.floor(Number(ms));
    if (!(delay >= 0)) delay = 0;
    if (delay > 2147483647) delay = 1;
    const id = ++seq;
    timers.set(id, { fn, args, delay, repeat });
    hostTimerSet(id, delay);
    return id;
  }
  function clear(id) {
    const n = typeof id === 'number' ? id : Number(id);
    if (timers.delete(n)) hostTimerClear(n);
  }
  handlers.timer = (id) => {
    const t = timers.get(id);
    if (!t) return;
    if (t.repeat) hostTimerSet(id, t.delay);
    else timers.delete(id);
    try { t.fn.apply(undefined, t.args); } catch (e) { reportError(e); }
  };
  def('setTimeout', function setTimeout(fn, ms, ...args) { return add(fn, ms, args, false); });
  def('setInterval', function setInterval(fn, ms, ...args) { return add(fn, ms, args, true); });
  def('clearTimeout', function clearTimeout(id) { clear(id); });
  def('clearInterval', function clearInterval(id) { clear(id); });
}
`;
