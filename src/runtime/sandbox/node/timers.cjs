/**
 * `timers` and `timers/promises`: the sandbox's global timers (Node's Timeout
 * and Immediate objects, isolate/sandbox/timers.js) as they were before user
 * code ran, and their promise forms with `signal` and, for `setInterval`, an
 * async iterator. `ref: false` changes nothing: an invocation ends when its
 * handler answers.
 */
'use strict';
const host = require('./host.cjs');

const timers = {
  setTimeout: (...a) => host.setTimeout(...a),
  clearTimeout: (t) => host.clearTimeout(t),
  setInterval: (...a) => host.setInterval(...a),
  clearInterval: (t) => host.clearInterval(t),
  setImmediate: (...a) => host.setImmediate(...a),
  clearImmediate: (t) => host.clearImmediate(t),
};

function abortError(signal) {
  const e = new Error('The operation was aborted');
  e.name = 'AbortError';
  e.code = 'ABORT_ERR';
  if (signal && signal.reason !== undefined) e.cause = signal.reason;
  return e;
}

/** A promise of `value` after `start(done)` fires, rejected with AbortError when `signal` aborts first. */
function later(value, options, start, stop) {
  const signal = options && options.signal;
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) {
      reject(abortError(signal));
      return;
    }
    let onAbort;
    const t = start(() => {
      if (signal) signal.removeEventListener('abort', onAbort);
      resolve(value);
    });
    if (signal) {
      onAbort = () => {
        stop(t);
        reject(abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
}

const promises = {
  setTimeout(delay, value, options) {
    return later(value, options, (done) => host.setTimeout(done, delay), (t) => host.clearTimeout(t));
  },
  setImmediate(value, options) {
    return later(value, options, (done) => host.setImmediate(done), (t) => host.clearImmediate(t));
  },
  /** An async iterator yielding `value` every `delay` ms, until `return()` or the signal. */
  setInterval(delay, value, options) {
    const signal = options && options.signal;
    let ticks = 0;
    let wake = null;
    let stopped = false;
    const timer = host.setInterval(() => {
      ticks++;
      if (wake) {
        const w = wake;
        wake = null;
        w.resolve();
      }
    }, delay);
    const stop = () => {
      stopped = true;
      host.clearInterval(timer);
    };
    const onAbort = () => {
      stop();
      if (wake) {
        const w = wake;
        wake = null;
        w.reject(abortError(signal));
      }
    };
    if (signal) signal.addEventListener('abort', onAbort, { once: true });
    return {
      async next() {
        if (signal && signal.aborted) {
          stop();
          throw abortError(signal);
        }
        if (stopped) return { value: undefined, done: true };
        if (ticks === 0) await new Promise((resolve, reject) => (wake = { resolve, reject }));
        if (ticks > 0) ticks--;
        return { value, done: false };
      },
      async return() {
        stop();
        if (signal) signal.removeEventListener('abort', onAbort);
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  },
  scheduler: {
    wait: (delay, options) => promises.setTimeout(delay, undefined, options),
    yield: () => promises.setImmediate(),
  },
};

timers.promises = promises;
module.exports = { timers, promises };
