/**
 * `events`: the npm `events` package (Node's EventEmitter, with `once`); the
 * module is the EventEmitter, as in Node. Added here what the package lacks
 * and Node has: `on` (an async iterator of one event), `errorMonitor`,
 * `setMaxListeners`, `getEventListeners`, `addAbortListener`.
 */
'use strict';
const EventEmitter = require('events/');

if (EventEmitter.errorMonitor === undefined) {
  const errorMonitor = Symbol('events.errorMonitor');
  EventEmitter.errorMonitor = errorMonitor;
  // The package does not call errorMonitor listeners: do it before the 'error' listeners, as Node does.
  const emit = EventEmitter.prototype.emit;
  EventEmitter.prototype.emit = function emitWithMonitor(type, ...args) {
    if (type === 'error' && this._events && this._events[errorMonitor] !== undefined) emit.call(this, errorMonitor, ...args);
    return emit.call(this, type, ...args);
  };
}
EventEmitter.captureRejectionSymbol = EventEmitter.captureRejectionSymbol || Symbol.for('nodejs.rejection');
EventEmitter.captureRejections = false;

function abortError(signal) {
  const e = new Error('The operation was aborted');
  e.name = 'AbortError';
  e.code = 'ABORT_ERR';
  if (signal && signal.reason !== undefined) e.cause = signal.reason;
  return e;
}

/** Node's `events.on(emitter, name, { signal })`: every emission's arguments, until 'error' or abort. */
function on(emitter, event, options) {
  const signal = options && options.signal;
  const queue = [];
  const waiting = [];
  let error = null;
  let done = false;
  const push = (...args) => {
    if (waiting.length > 0) waiting.shift().resolve({ value: args, done: false });
    else queue.push(args);
  };
  const fail = (err) => {
    done = true;
    if (waiting.length > 0) waiting.shift().reject(err);
    else error = err;
    stop();
  };
  const onAbort = () => fail(abortError(signal));
  function stop() {
    emitter.removeListener(event, push);
    if (event !== 'error') emitter.removeListener('error', fail);
    if (signal) signal.removeEventListener('abort', onAbort);
    while (waiting.length > 0) waiting.shift().resolve({ value: undefined, done: true });
  }
  if (signal && signal.aborted) throw abortError(signal);
  emitter.on(event, push);
  if (event !== 'error') emitter.on('error', fail);
  if (signal) signal.addEventListener('abort', onAbort, { once: true });
  return {
    next() {
      if (queue.length > 0) return Promise.resolve({ value: queue.shift(), done: false });
      if (error !== null) {
        const e = error;
        error = null;
        return Promise.reject(e);
      }
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    return() {
      done = true;
      stop();
      return Promise.resolve({ value: undefined, done: true });
    },
    throw(err) {
      fail(err);
      return Promise.reject(err);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

EventEmitter.on = on;
EventEmitter.setMaxListeners = function setMaxListeners(n, ...targets) {
  if (targets.length === 0) EventEmitter.defaultMaxListeners = n;
  for (const t of targets) if (t && typeof t.setMaxListeners === 'function') t.setMaxListeners(n);
};
EventEmitter.getMaxListeners = function getMaxListeners(target) {
  return target && typeof target.getMaxListeners === 'function' ? target.getMaxListeners() : EventEmitter.defaultMaxListeners;
};
EventEmitter.getEventListeners = function getEventListeners(target, name) {
  return target && typeof target.listeners === 'function' ? target.listeners(name) : [];
};
EventEmitter.listenerCount = EventEmitter.listenerCount || ((emitter, name) => emitter.listenerCount(name));
EventEmitter.addAbortListener = function addAbortListener(signal, listener) {
  if (signal.aborted) queueMicrotask(() => listener());
  else signal.addEventListener('abort', listener, { once: true });
  return { [Symbol.dispose || Symbol.for('nodejs.dispose')]: () => signal.removeEventListener('abort', listener) };
};
EventEmitter.EventEmitterAsyncResource = class EventEmitterAsyncResource extends EventEmitter {};
module.exports = EventEmitter;
