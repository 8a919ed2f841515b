/**
 * The async context AsyncLocalStorage reads (async_hooks.cjs). isolated-vm has
 * no async_hooks, so the sandbox carries the context itself: a callback is
 * bound to the context current when it is handed over, and runs in it. Once
 * the first AsyncLocalStorage is made, every `then` callback (so `catch`,
 * `finally` and `await` in code compiled by compile.ts, which turns the
 * awaits of code that loads async_hooks into `then` calls) and every timer,
 * immediate and microtask callback is bound; until then nothing is patched.
 *
 * A context is an immutable Map (AsyncLocalStorage -> store): `run` makes a
 * new one, so a callback never sees a store set after it was bound.
 */
'use strict';
const host = require('./host.cjs');

const apply = Reflect.apply;
const EMPTY = new Map();
let current = EMPTY;
let enabled = false;

function get() {
  return current;
}

/** Makes `frame` current until the callback running now ends (enterWith). */
function enter(frame) {
  current = frame;
}

/** Runs fn in `frame`, then restores the context as it was, whatever fn does. */
function runIn(frame, fn, self, args) {
  const prev = current;
  current = frame;
  try {
    return apply(fn, self, args);
  } finally {
    current = prev;
  }
}

/** fn bound to `frame` (the current context by default). */
function bind(fn, frame = current) {
  if (typeof fn !== 'function') return fn;
  return function bound(...args) {
    return runIn(frame, fn, this, args);
  };
}

function enable() {
  if (enabled) return;
  enabled = true;
  const then = Promise.prototype.then;
  Object.defineProperty(Promise.prototype, 'then', {
    value: function then_(onFulfilled, onRejected) {
      const frame = current;
      return apply(then, this, [bind(onFulfilled, frame), bind(onRejected, frame)]);
    },
    writable: true,
    configurable: true,
    enumerable: false,
  });
  // Timers, immediates and microtasks live in the bootstrap (isolate/sandbox/timers.js): it binds through this.
  if (typeof host.setCallbackBinder === 'function') host.setCallbackBinder((fn) => bind(fn));
}

module.exports = { EMPTY, get, enter, runIn, bind, enable, isEnabled: () => enabled };
