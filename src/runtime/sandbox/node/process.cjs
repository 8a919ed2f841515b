/**
 * `process/` for the bundled polyfills (readable-stream takes `nextTick` from
 * the npm `process` package, which defers with setTimeout: a host round trip
 * per tick). Here a tick is a microtask, and everything else is read from the
 * sandbox's global `process` when asked.
 */
'use strict';

function nextTick(fn, ...args) {
  queueMicrotask(() => fn(...args));
}

module.exports = new Proxy(
  { nextTick },
  {
    get(target, key) {
      if (key in target) return target[key];
      const p = globalThis.process;
      return p ? p[key] : undefined;
    },
  },
);
